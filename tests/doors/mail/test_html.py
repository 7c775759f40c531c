"""The judge's mails with a picture: multipart/alternative, the plain text exactly as
without pictures, and an HTML part (multipart/related) whose inline PNG is the board of
the recipient's own view; nothing hidden from the recipient in the HTML or the alt text;
plain text only, without error, when the pictures extra is missing."""

from __future__ import annotations

import html
import random
import re
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest

from referee.doors.mail import html as mailhtml
from referee.engine import get_game
from referee.judge import meta
from referee.ledger import gamefile, replay
from referee.pictures import svg_to_png
from referee.pictures.tiles import Tile, tiles
from tests.judge.support import Player, body_text, deliver, reply
from tests.judge.test_maildir_loop import Setup
from tests.leaks import assert_hidden, assert_shows, own_items

PLAYERS = ("ann", "ben", "cat")
KIM = "kim@example.org"


def start(tmp_path: Path, game: str) -> Setup:
    setup = Setup(tmp_path, game=game, gid=f"{game}-1")
    meta.append(setup.path, meta.GM, {"kind": "watcher", "email": KIM})
    setup.judge()
    return setup


def images(msg: EmailMessage) -> tuple[EmailMessage, str, list[tuple[str, bytes]]]:
    """(text part, HTML, [(cid, PNG), ...]) of a mail with an HTML part; asserts the
    structure (a mail whose pictures did not change has an HTML part and no PNG)."""
    assert msg.get_content_type() == "multipart/alternative"
    text, related = msg.get_payload()
    assert text.get_content_type() == "text/plain"
    if related.get_content_type() == "text/html":
        return text, str(related.get_content()), []
    assert related.get_content_type() == "multipart/related"
    page, *pictures = related.get_payload()
    assert page.get_content_type() == "text/html"
    out = []
    for image in pictures:
        assert image.get_content_type() == "image/png"
        assert image.get_content_disposition() == "inline"
        cid = str(image["Content-ID"]).strip()
        assert cid.startswith("<") and cid.endswith(">")
        out.append((cid[1:-1], bytes(image.get_content())))
    return text, str(page.get_content()), out


def parts(msg: EmailMessage) -> tuple[EmailMessage, str, bytes, str]:
    """(text part, HTML, first PNG, its cid) of a mail with pictures."""
    text, page, pictures = images(msg)
    assert pictures, "a mail with pictures"
    return text, page, pictures[0][1], pictures[0][0]


def pictured(view: dict[str, object]) -> list[Tile]:
    """The tiles of ``view`` that are pictures (not words)."""
    return [t for t in tiles(view) if t.svg]


def fresh(view: dict[str, object]) -> list[bytes]:
    """The pictures of ``view``'s tiles rendered now, without any cache."""
    return [svg_to_png(t.svg) for t in pictured(view)]


def html_text(page: str) -> str:
    """The words of an HTML page (its tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def recipient(msg: EmailMessage) -> str | None:
    pid = str(msg["X-Referee-Player"])
    return pid if pid in PLAYERS else None


@pytest.fixture(scope="module")
def staufer(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    return start(tmp_path_factory.mktemp("staufer"), "staufer")


def test_every_start_mail_has_text_html_and_the_recipients_board(staufer: Setup) -> None:
    """The first mail shows the whole board: every tile of the recipient's view, each
    exactly the PNG of that tile rendered afresh, each referenced once by its cid."""
    sent = staufer.sent()
    assert sorted(str(m["X-Referee-Player"]) for m in sent) == [*PLAYERS, "watcher"]
    match = replay.replay(gamefile.read(staufer.path), "judge-seed")
    for msg in sent:
        _, page, pictures = images(msg)
        view = match.game.view(match.state, recipient(msg))
        assert [png for _, png in pictures] == fresh(view), msg["X-Referee-Player"]
        for (cid, png), tile in zip(pictures, pictured(view), strict=True):
            assert png.startswith(mailhtml.PNG_SIGNATURE) and png.endswith(b"IEND\xaeB`\x82")
            assert page.count(f'src="cid:{cid}"') == 1 and len(f"Content-ID: <{cid}>") < 78
            assert mailhtml.png_size(png) == (tile.width, tile.height)
            assert f'width="{tile.width}" height="{tile.height}"' in page
        assert page.count("cid:") == len(pictures) == 7  # 6 regions, the Supply Board
        for region in view["regions"]:  # type: ignore[attr-defined]
            assert f"{region['title']}: payment space: empty" not in page  # under its image
        assert page.count("Payment space: empty") == 6  # the end of its title


def test_the_html_says_what_the_text_says(staufer: Setup) -> None:
    msg = staufer.latest("ann")
    _, page, _, _ = parts(msg)
    plain = body_text(msg)
    alt = re.search(r'aria-label="([^"]*)"', page)
    assert alt is not None and alt.group(1) == (
        "The board of The Staufer Dynasty (staufer-1) after log entry 1, as ann "
        "sees it. The text of this mail describes it in full.")
    assert re.search(r'title="([^"]*)"', page).group(1) == alt.group(1)  # type: ignore[union-attr]
    assert re.findall(r'<img [^>]*alt="([^"]*)"', page)[:2] == [
        "Region Strasbourg, as ann sees it", "Region Aachen, as ann sees it"]
    words = " ".join(html_text(page).split())
    text, _, signature = plain.partition("\n-- \n")
    blocks = [*text.split("\n\n"), signature]
    # the one-click links: in the HTML as buttons, each the link of the text
    links = [b for b in blocks if "mailto:" in b]
    assert len(links) == 1
    for line in links[0].splitlines()[2:]:
        if "mailto:" in line:
            move, _, url = line.strip().partition(": ")
            assert f'href="{html.escape(url)}"' in page and f">{move}</a>" in page
    said = [" ".join(b.split()) for b in blocks if b.strip() and b not in links]
    for block in said:
        assert block in words, block
    moved = [b for b in said if b.startswith(("Your legal moves", "Reply to this mail"))]
    kept = [words.index(b) for b in said if b not in moved]
    assert len(moved) == 2 and kept == sorted(kept)  # the order of the plain text, but ...
    heading = words.index("The same position in words")
    assert words.index(moved[0]) < words.index(moved[1]) < heading  # ... what to do next
    top = page[:page.index("cid:")]  # at the top, above the picture: whose turn, options
    assert plain.splitlines()[0] in top and "Your legal moves" in top and "Reply to" in top
    watcher = next(m for m in staufer.sent() if str(m["X-Referee-Player"]) == "watcher")
    assert "as every player sees it" in parts(watcher)[1]


def test_the_text_part_is_exactly_the_plain_mail(staufer: Setup, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the pictures extra the same mails are plain text, byte for byte the
    text part of the mails with a picture, and the judge reports no error."""
    monkeypatch.setitem(sys.modules, "resvg_py", None)
    plain = start(tmp_path, "staufer")
    for with_picture, without in zip(staufer.sent(), plain.sent(), strict=True):
        text, _, _, _ = parts(with_picture)
        assert without.get_content_type() == "text/plain"
        assert str(with_picture["X-Referee-Player"]) == str(without["X-Referee-Player"])
        assert text.get_content() == without.get_content()
        for header in ("Content-Type", "Content-Transfer-Encoding"):
            assert str(text[header]) == str(without[header])
        assert text.get_payload() == without.get_payload()


def test_without_jinja2_the_mail_stays_plain(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)
    setup = start(tmp_path, "staufer")
    assert [m.get_content_type() for m in setup.sent()] == ["text/plain"] * 4


def test_a_game_without_pictures_stays_plain(tmp_path: Path) -> None:
    setup = start(tmp_path, "toy")
    assert [m.get_content_type() for m in setup.sent()] == ["text/plain"] * 4


@pytest.mark.slow
def test_no_html_part_shows_another_players_hidden_tokens(tmp_path: Path) -> None:
    """Mails during a game of Dynasties played by mail: each HTML part shows its reader's
    own hidden tokens (the control) and no one else's, no tile shows a hidden token, and
    the tiles a reader was sent, each mail's changed tiles over the ones before, are
    exactly the pictures of the reader's view at the entry the mail was sent at."""
    setup = start(tmp_path, "dynasties")
    rng = random.Random(3)
    players = [Player(p, f"{p}@example.org", "top", rng) for p in PLAYERS]
    for _ in range(8):  # three rounds of replies are usually enough; allow a few more
        for raw in [r for p in players if (r := p.act(setup.sent(), setup.path))]:
            deliver(setup.inbox, raw)
        setup.judge()
        if len(gamefile.read(setup.path).log) > 3:
            break
    gf = gamefile.read(setup.path)
    assert len(gf.log) > 3, "the test needs moves"
    checked = partial = 0
    board: dict[str, dict[str, bytes]] = {}  # what each reader's mails showed, by tile
    for msg in setup.sent():
        if msg.get_content_type() == "text/plain":
            continue  # a short mail: no board, no picture
        _, page, pictures = images(msg)
        reader = recipient(msg)
        match = replay.replay(gf, "judge-seed", upto=int(str(msg["X-Referee-Move"])))
        view = match.game.view(match.state, reader)
        seen = board.setdefault(str(msg["To"]), {})
        seen.update({cid.split(".")[0]: png for cid, png in pictures})
        now = pictured(view)
        assert seen == {t.name: png for t, png in zip(now, fresh(view), strict=True)}
        partial += len(pictures) < len(now)
        if 0 < len(pictures) < len(now):
            assert "Changed since your last mail: " in html_text(page)
        game = get_game("dynasties")
        assert all(own_items(game, match.state, p) for p in PLAYERS), \
            "the test needs hidden information"
        tiles_text = "\n".join(t.svg for t in now)  # the tiles hold public information only
        assert_hidden(game, match.state, {reader: {f"mail to {msg['To']}": page},
                                          None: {"the tiles": tiles_text}})
        if reader is not None:  # control: a player's mail shows their own items
            assert_shows(page, own_items(game, match.state, reader))
        checked += 1
    assert checked > 6 and partial > 3 and "Since your last mail" in page


def test_a_status_reply_brings_the_whole_board(tmp_path: Path) -> None:
    setup = start(tmp_path, "staufer")
    setup.send(reply(setup.latest("ann"), "supply 2"))
    after = [m for m in setup.sent() if m.get_content_type() != "text/plain"
             and str(m["X-Referee-Player"]) in PLAYERS][-1]
    who = str(after["X-Referee-Player"])
    _, _, shown = images(after)
    assert 0 < len(shown) < 7  # only what ann's move changed
    answer = setup.send(reply(after, "status"))
    mine = [m for m in answer if str(m["X-Referee-Player"]) == who]
    assert len(mine) == 1 and len(images(mine[0])[2]) == 7


def test_html_is_escaped() -> None:
    body = "Your turn, ann: <b>x</b> & y\n\nSince your last mail:\n  1. ann played\n\n" \
           "board <script>\n-- \ngame: g\n"
    page = mailhtml.render(body, subject="s<i>", images=[
        {"cid": "c@d", "alt": "<x>", "width": 10, "height": 20}], alt='a"b',
        note="<i>n</i>", colours=[("<p>", "#fff")])
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt; &amp; y" in page
    assert "<script>" not in page and "s&lt;i&gt;" in page and 'aria-label="a&#34;b"' in page
    assert "<i>n</i>" not in page and "<p>" not in page and 'alt="&lt;x&gt;"' in page
    assert page.index("Since your last mail") < page.index("cid:c@d") < page.index("board")
