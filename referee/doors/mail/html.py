"""The HTML part of the judge's mails: the plain text unchanged, and beside it the same
text as HTML with pictures of the board as the recipient sees it (their own view; the
public view for watchers and the game master) as inline PNGs (multipart/related,
``cid:``), since most mail clients show no SVG.

The board is cut into tiles (:mod:`referee.pictures.tiles`: a region, a country, the
Supply Board, the ships), each a PNG kept by :class:`referee.pages.cache.PictureCache`
in the games folder, so a move costs the render of the tiles it changed only. A mail
shows the whole board when it is the recipient's first, an answer to their mail or the
game-over mail; otherwise only the tiles that changed since
the recipient's last mail (the others are as that mail showed them), which keeps a whole
game's mails light. The pictures are drawn from ``game.view(state, viewer)`` only, like
every picture. Without the pictures extra (jinja2, resvg-py), or for a game that has no
pictures, the mail stays plain text: this module then changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee import i18n
from referee.doors.mail import links
from referee.engine import Match
from referee.errors import UsageError
from referee.mail import mime
from referee.pages.cache import PNG_SIGNATURE, PictureCache
from referee.pages.templating import environment

__all__ = ["PNG_SIGNATURE", "board_body", "board_tiles", "cache_for", "render"]

_, N_, ngettext = i18n.domain("referee")

CACHE_FOLDER = ".referee-pictures"  # in the games folder, beside the judge's state
_CACHES: dict[Path | None, PictureCache] = {}


def cache_for(games_dir: Path | None) -> PictureCache:
    """The picture cache of a games folder (one per process and folder)."""
    if games_dir not in _CACHES:
        _CACHES[games_dir] = PictureCache(None if games_dir is None
                                          else games_dir / CACHE_FOLDER)
    return _CACHES[games_dir]


@dataclass(frozen=True)
class Picture:
    """A tile as a mail shows it: its PNG, size, words and the hash that stands for it."""

    name: str
    title: str
    png: bytes
    width: int
    height: int
    digest: str
    below: bool = False  # goes right under the picture before it
    words: tuple[tuple[str, str], ...] = ()  # no PNG: these words instead
    row: str = ""  # pictures of one row name begin a line of their own


def pictures_available() -> bool:
    from referee.pictures import available

    return available()


def board_tiles(view: dict[str, Any]) -> list[Any] | None:
    """The tiles of the board in ``view`` (not rendered); None without the pictures
    extra or for a game without pictures."""
    if not pictures_available():
        return None
    from referee.pictures.tiles import tiles

    try:
        return tiles(view)
    except UsageError:  # a game without pictures
        return None


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    from referee.pictures import png_size as size

    return size(png)


def whose(viewer: str | None) -> str:
    if viewer:
        return _("as {viewer} sees it").format(viewer=viewer)
    return _("as every player sees it")


def alt_text(title: str, game_id: str, moves: int, viewer: str | None) -> str:
    """What the pictures show, in words that name nothing hidden."""
    when = (_("after log entry {n}").format(n=moves) if moves
            else _("at the start of the game"))
    return _("The board of {title} ({game_id}) {when}, {whose}. The text of this mail "
             "describes it in full.").format(title=title, game_id=game_id, when=when,
                                             whose=whose(viewer))


# The first lines of the text's blocks, as the judge's text writes them (referee/judge/
# text.py owns these messages; looked up here in the reader's language too).
SINCE = "Since your last mail:"
LEGAL = "Your legal moves, by kind:"
REPLY = "Reply to this mail"
CLOCK = "clock: "
PHONE = 366  # px a mail's content has on a phone 390 px wide (less the body's padding)
LONG_OPTIONS = 8  # legal moves in more lines than this: at the top their kinds only


def _starts(block: str, english: str) -> bool:
    """Whether ``block`` begins with the text ``english`` (or its translation)."""
    found = {english, _translated(english)}
    return block.startswith(tuple(found))


def _translated(english: str) -> str:
    message = english  # (a variable: not extracted; the catalog entry is text.py's)
    return _(message)


@dataclass(frozen=True)
class Known:
    """What the mail's text holds besides its own words, for finding its blocks in any
    language: the board's render (its first paragraph), the reader's legal moves as
    the text groups them, and whether the mail ends with how to reply."""

    board: str = ""
    legal: tuple[str, ...] | None = None
    asks: bool | None = None
    players: tuple[str, ...] = ()


def known(match: Match, viewer: str | None) -> Known:
    """:class:`Known` of the mail to ``viewer`` of ``match`` (as the judge's text makes
    it, in the current language)."""
    from referee import engine
    from referee.judge.text import WIDTH, group_legal

    game, state = match.game, match.state
    finished = game.finished(state)
    board = game.render(state, viewer, width=WIDTH).split("\n\n")[0].strip("\n")
    legal = None
    if viewer is not None and not finished and viewer in game.to_move(state):
        legal = tuple(group_legal(engine.legal_strings(game, state, viewer)))
    return Known(board, legal, viewer is not None and not finished, tuple(match.players))


def _split(rest: list[str], info: Known) -> int:
    """Where the board begins among the blocks after the headline: what comes before it
    (notes, the clock, the news, the final scoring) goes to the top of the HTML."""
    if info.board and info.board in rest:
        return rest.index(info.board)
    cut = 0
    for i, part in enumerate(rest):
        if _starts(part, SINCE) or _starts(part, CLOCK):
            cut = i + 1
    return cut


def _clock_lines(block: str, players: Sequence[str]) -> list[str]:
    """The clock block's lines as the clock writes them before wrapping them at 78
    columns (referee/clocks/clockview.py): the time control, one line a seat (``"  ann   bank
    ..."``: the seat's id padded to 12), the ranking; a line that is none of these
    continues the one before. The browser wraps them to the screen, each with a hanging
    indent, instead of the 78-column breaks and alignment falling apart on a phone."""
    from referee.clocks.clockview import seat_prefix

    rows = tuple(seat_prefix(pid) for pid in players)
    out: list[str] = []
    for line in block.splitlines():
        if line.startswith(rows):
            pid, _sep, rest = line.strip().partition(" ")
            out.append(f"{pid}: {rest.strip()}")
        elif out and line.startswith("  "):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def _top(block: str, info: Known) -> list[str]:
    """A block above the board as the lines the HTML shows: the clock's rebuilt (see
    :func:`_clock_lines`); any other as it is."""
    clock = (CLOCK, _("clock: {pace}").partition("{")[0])  # (the clock's own message)
    if info.players and block.startswith(clock):
        return _clock_lines(block, info.players)
    return [block]


def _options(block: str) -> dict[str, Any]:
    """The legal moves block for the HTML: its heading and one entry per kind of move,
    its groups (``a 1, 2 | b 3``) one a line (the lines the text wraps at 78 columns
    joined again: the browser wraps them to the screen)."""
    head, *lines = block.splitlines()
    kinds: list[list[str]] = []
    for line in lines:
        if line.startswith("      ") and kinds:
            kinds[-1][1] += " " + line.strip()
        else:
            kind, _sep, moves = line.strip().partition(": ")
            kinds.append([kind, moves])
    return {"head": head, "kinds": [(kind, moves.split(" | ")) for kind, moves in kinds],
            "long": len(lines) > LONG_OPTIONS}


def blocks(body: str, info: Known | None = None) -> dict[str, Any]:
    """A mail text split at blank lines: the headline; the blocks above the board (the
    notes, the clock, "Since your last mail", the final scoring); the reader's options
    (their legal moves) and how to reply, at the top too; the rest (the board in words,
    the legend); the signature. ``info`` finds the blocks whatever the language; without
    it they are found by their first words."""
    info = info or Known()
    text, _sep, signature = body.partition("\n-- \n")
    parts = [p.strip("\n") for p in text.split("\n\n") if p.strip()]
    headline, rest = (parts[0], parts[1:]) if parts else ("", [])
    cut = _split(rest, info)
    before, below = rest[:cut], rest[cut:]
    legal = next((b for b in below if (b.splitlines()[1:] == list(info.legal)
                                       if info.legal is not None else _starts(b, LEGAL))),
                 None)
    reply = None
    if info.asks and len(below) > 1 and below[-1] is not legal:
        reply = below[-1]
    elif info.asks is None:
        reply = next((b for b in below if _starts(b, REPLY)), None)
    return {"headline": headline, "before": [_top(b, info) for b in before],
            "options": _options(legal) if legal else None,
            "reply": " ".join(reply.split()) if reply else "",
            "after": [b for b in below if b is not legal and b is not reply],
            "signature": signature.strip("\n")}


def render(body: str, *, subject: str, images: list[dict[str, Any]], alt: str,
           note: str = "", colours: list[tuple[str, str]] | None = None,
           info: Known | None = None, links: Sequence[Any] = (), links_more: str = ""
           ) -> str:
    """The HTML part (Jinja2, autoescaped), in the current language. ``images``: cid,
    alt, width, height, below (goes right under the image before it) each; one without
    a cid shows its ``words`` ((fill, text) pairs) instead, under its ``title`` when it
    stands alone; pictures of one ``row`` name begin a line of their own. A picture
    wider than a phone's screen keeps most of its size and scrolls sideways there (its
    writing stays readable)."""
    groups: list[dict[str, Any]] = []
    for image in images:
        image = {**image, "label": _label(image)}
        if image.get("below") and groups:
            groups[-1]["images"].append(image)
        else:
            row = str(image.get("row") or "")
            newline = bool(groups) and bool(row) and groups[-1]["row"] != row
            groups.append({"images": [image], "row": row, "newline": newline})
        groups[-1]["wide"] = max(int(i.get("width") or 0) for i in groups[-1]["images"]) > PHONE
    return environment("an HTML mail").get_template("mail.html").render(
        subject=subject, groups=groups, alt=alt, note=note, colours=colours or [],
        lang=i18n.current(), words=_mail_words(), links=list(links),
        links_more=links_more, **blocks(body, info))


def _label(image: dict[str, Any]) -> str:
    """What a tile of words says first: its title, or under a picture only the end of
    its title (the picture above names the rest: "Strasbourg: payment space" ->
    "Payment space")."""
    title = str(image.get("title", ""))
    if not image.get("below"):
        return title
    tail = title.rpartition(": ")[2]
    return tail[:1].upper() + tail[1:]


def _mail_words() -> dict[str, str]:
    """The HTML mail's own words, in the current language."""
    return {"in_words": _("The same position in words"),
            "options_below": _("Every legal move is listed below the board."),
            "one_click": _(links.HEADING)}


def _pictures(tiles: list[Any], cache: PictureCache, shown: set[str]) -> list[Picture]:
    out: list[Picture] = []
    previous = ""
    for tile in tiles:
        if tile.name in shown:
            png = cache.png(tile.svg) if tile.svg else b""
            out.append(Picture(tile.name, tile.title, png, tile.width, tile.height,
                               _digest(tile), tile.below and bool(out)
                               and out[-1].name == previous, tile.words, tile.row))
        previous = tile.name
    return out


def _digest(tile: Any) -> str:
    """What stands for a tile in the judge's state: 8 hex digits of its SVG's SHA-256
    (or its words'); a clash (one in 4 billion) would only leave a tile out of a mail."""
    shown = tile.svg or json.dumps(tile.words)
    return hashlib.sha256(shown.encode()).hexdigest()[:8]


def _remembered(tiles: list[Any]) -> str:
    """The tiles a mail shows, as the judge's state keeps them (small: the state file is
    written after every mail): 8 hex digits for the list of names, ":", then 8 for each
    tile in order."""
    return _names(tiles) + ":" + "".join(_digest(t) for t in tiles)


def _names(tiles: list[Any]) -> str:
    return hashlib.sha256(" ".join(t.name for t in tiles).encode()).hexdigest()[:8]


def _recall(kept: str, tiles: list[Any]) -> list[str] | None:
    """The digests of the tiles of the last mail, one per tile of ``tiles``; None if
    there was none or it was of other tiles."""
    if len(kept) != 9 + 8 * len(tiles) or kept[:9] != _names(tiles) + ":":
        return None
    return [kept[9 + 8 * i:17 + 8 * i] for i in range(len(tiles))]


def _note(shown: list[Picture], total: int, whole: bool) -> str:
    if whole or len(shown) == total:
        return ""
    if not shown:
        return _("The board's pictures have not changed since your last mail (reply "
                 "status for the whole board).")
    names = ", ".join(p.title for p in shown)
    return _("Changed since your last mail: {names}; the rest of the board is as that "
             "mail showed it (reply status for the whole board).").format(names=names)


def board_body(plain: str, *, subject: str, msgid: str, match: Match, viewer: str | None,
               game_id: str, moves: int, cache: PictureCache | None = None,
               seen: dict[str, Any] | None = None, whole: bool = True,
               links: Sequence[Any] = (), links_more: str = "", shown: str | None = None
               ) -> mime.Multipart | None:
    """The body of a mail whose text is ``plain``: multipart/alternative of that text and
    an HTML part showing ``viewer``'s board (multipart/related with its PNGs) and
    ``shown`` (the text without its block of one-click ``links``, which the HTML shows as
    buttons; default ``plain``); None when no picture can be made. ``seen``: what the
    recipient's previous mail showed (under "shown", see :func:`_remembered`), updated
    here; with it and not ``whole``, only the tiles that changed since are attached."""
    view = dict(match.game.view(match.state, viewer))
    tiles = board_tiles(view)
    if tiles is None:
        return None
    current = _remembered(tiles)
    before = _recall(str((seen or {}).get("shown", "")), tiles)
    whole = whole or before is None or match.game.finished(match.state)
    names = {t.name for i, t in enumerate(tiles)
             if whole or before is None or before[i] != current[9 + 8 * i:17 + 8 * i]}
    pictured = _pictures(tiles, cache or cache_for(None), names)
    if seen is not None:
        seen.clear()
        seen["shown"] = current
    bare = msgid.strip("<>")
    host = bare.partition("@")[2] or "referee.invalid"
    local = hashlib.sha256(bare.encode()).hexdigest()[:12]  # short: one header line
    seen_as = whose(viewer)
    images = [{"cid": f"{p.name}.{local}@{host}" if p.png else "",
               "alt": f"{p.title}, {seen_as}", "width": p.width, "height": p.height,
               "below": p.below, "title": p.title, "words": p.words, "row": p.row}
              for p in pictured]
    from referee.pictures.tiles import colours

    page = render(plain if shown is None else shown, subject=subject, images=images,
                  alt=alt_text(match.game.title, game_id, moves, viewer),
                  note=_note(pictured, len(tiles), whole),
                  colours=colours(view), info=known(match, viewer), links=links,
                  links_more=links_more)
    html_part: mime.Leaf | mime.Multipart = mime.html_qp(page)
    pngs = [mime.image(_base64(p.png), str(image["cid"]), f"{p.name}.png")
            for p, image in zip(pictured, images, strict=True) if p.png]
    if pngs:  # (as make_related: the Content headers move into the HTML's own part)
        assert isinstance(html_part, mime.Leaf)
        content = [h for h in html_part.headers if h[0].lower().startswith("content-")]
        rest = [h for h in html_part.headers if not h[0].lower().startswith("content-")]
        html_part = mime.Multipart("related", [mime.Leaf(content, html_part.body), *pngs],
                                   rest)
    return mime.Multipart("alternative", [mime.text(plain), html_part])


_BASE64: OrderedDict[bytes, str] = OrderedDict()  # a PNG's SHA-256 -> its base64 text
_BASE64_KEPT = 1024


def _base64(png: bytes) -> str:
    """``png`` in base64 lines as ``MIMEImage`` encodes it, each picture encoded once per
    process (most pictures of a game stay the same from one mail to the next)."""
    key = hashlib.sha256(png).digest()
    found = _BASE64.get(key)
    if found is None:
        found = _BASE64[key] = base64.encodebytes(png).decode("ascii")
        while len(_BASE64) > _BASE64_KEPT:
            _BASE64.popitem(last=False)
    return found
