"""The HTML part of the judge's mails: the plain text unchanged, and beside it the same
text as HTML with a picture of the board as the recipient sees it (their own view; the
public view for watchers and the game master) as an inline PNG (multipart/related,
``cid:``), since most mail clients show no SVG.

The picture is drawn from ``game.view(state, viewer)`` only, like every picture
(DESIGN §9). Without the pictures extra (jinja2, resvg-py), or for a game that has no
pictures, the mail stays plain text: this module then changes nothing.
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

from referee.engine import Match
from referee.errors import UsageError
from referee.pictures.templating import environment

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNGS: dict[str, bytes] = {}  # the latest pictures by SVG text: watchers share one view
_KEEP = 8


def board_png(match: Match, viewer: str | None) -> bytes | None:
    """The PNG of ``viewer``'s view of the board; None without the pictures extra or
    for a game without pictures."""
    try:
        import jinja2  # noqa: F401  (the HTML part needs it as well)
        import resvg_py  # noqa: F401
    except ImportError:
        return None
    from referee.pictures import draw_svg, svg_to_png

    try:
        svg = draw_svg(match.game.view(match.state, viewer))
    except UsageError:  # a game without pictures
        return None
    if svg not in _PNGS:
        _PNGS[svg] = svg_to_png(svg)  # resvg: about 0.2 s for a board
        while len(_PNGS) > _KEEP:
            del _PNGS[next(iter(_PNGS))]
    return _PNGS[svg]


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def alt_text(title: str, game_id: str, moves: int, viewer: str | None) -> str:
    """What the picture shows, in words that name nothing hidden."""
    whose = f"as {viewer} sees it" if viewer else "as every player sees it"
    when = f"after log entry {moves}" if moves else "at the start of the game"
    return (f"The board of {title} ({game_id}) {when}, {whose}. "
            "The text of this mail describes it in full.")


FIRST = ("Your legal moves, by kind:", "Reply to this mail")  # shown right below the picture


def blocks(body: str) -> dict[str, Any]:
    """A mail text split at blank lines: the headline; the blocks above the picture (the
    notes and "Since your last mail"); what to do next (legal moves, how to reply), right
    below it; the rest (the board in words, the legend); the signature."""
    text, _, signature = body.partition("\n-- \n")
    parts = [p.strip("\n") for p in text.split("\n\n") if p.strip()]
    headline, rest = (parts[0], parts[1:]) if parts else ("", [])
    cut = 0
    for i, part in enumerate(rest):
        if part.startswith("Since your last mail:"):
            cut = i + 1
    after = rest[cut:]
    return {"headline": headline, "before": rest[:cut],
            "first": [b for b in after if b.startswith(FIRST)],
            "after": [b for b in after if not b.startswith(FIRST)],
            "signature": signature.strip("\n")}


def render(body: str, *, subject: str, cid: str, alt: str, size: tuple[int, int]) -> str:
    """The HTML part (Jinja2, autoescaped)."""
    return environment("an HTML mail").get_template("mail.html").render(
        subject=subject, cid=cid, alt=alt, width=size[0], height=size[1], **blocks(body))


def add_board(msg: EmailMessage, body: str, match: Match, viewer: str | None,
              game_id: str, moves: int) -> bool:
    """Turn ``msg`` (its text part already set to ``body``) into multipart/alternative
    with an HTML part showing ``viewer``'s board; False (``msg`` unchanged) when no
    picture can be made."""
    png = board_png(match, viewer)
    if png is None:
        return False
    msgid = str(msg["Message-ID"]).strip("<>")
    local, _, domain = msgid.partition("@")
    cid = f"board.{local}@{domain or 'referee.invalid'}"
    alt = alt_text(match.game.title, game_id, moves, viewer)
    html = render(body, subject=str(msg["Subject"]), cid=cid, alt=alt, size=png_size(png))
    msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
    html_part = msg.get_payload()[1]
    assert isinstance(html_part, EmailMessage)
    html_part.add_related(png, maintype="image", subtype="png", cid=f"<{cid}>",
                          disposition="inline", filename="board.png")
    return True

