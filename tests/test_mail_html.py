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

from referee import gamefile
from referee.engine import get_game
from referee.judge import html as mailhtml
from referee.judge import meta
from referee.pictures import draw_svg, svg_to_png
from tests.leaks import assert_hidden, assert_shows, own_items
from tests.test_judge import Setup
from tests.test_judge_support import Player, body_text, deliver

PLAYERS = ("ann", "ben", "cat")
KIM = "kim@example.org"


def start(tmp_path: Path, game: str) -> Setup:
    setup = Setup(tmp_path, game=game, gid=f"{game}-1")
    meta.append(setup.path, meta.GM, {"kind": "watcher", "email": KIM})
    setup.judge()
    return setup


def parts(msg: EmailMessage) -> tuple[EmailMessage, str, bytes, str]:
    """(text part, HTML, PNG, cid) of a mail with a picture; asserts the structure."""
    assert msg.get_content_type() == "multipart/alternative"
    text, related = msg.get_payload()
    assert text.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    page, image = related.get_payload()
    assert page.get_content_type() == "text/html"
    assert image.get_content_type() == "image/png"
    assert image.get_content_disposition() == "inline"
    cid = str(image["Content-ID"]).strip()
    assert cid.startswith("<") and cid.endswith(">")
    return text, str(page.get_content()), bytes(image.get_content()), cid[1:-1]


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
    sent = staufer.sent()
    assert sorted(str(m["X-Referee-Player"]) for m in sent) == [*PLAYERS, "watcher"]
    match = gamefile.replay(gamefile.read(staufer.path), "judge-seed")
    pngs = set()
    for msg in sent:
        _, page, png, cid = parts(msg)
        assert f'src="cid:{cid}"' in page and page.count("cid:") == 1
        assert png.startswith(mailhtml.PNG_SIGNATURE) and png.endswith(b"IEND\xaeB`\x82")
        width, height = mailhtml.png_size(png)
        assert width == 1200 and 600 < height < 3000
        assert f'width="{width}" height="{height}"' in page
        view = match.game.view(match.state, recipient(msg))
        assert png == svg_to_png(draw_svg(view)), msg["X-Referee-Player"]
        pngs.add(png)
    assert len(pngs) == 4  # three private views and the public one differ


def test_the_html_says_what_the_text_says(staufer: Setup) -> None:
    msg = staufer.latest("ann")
    _, page, _, _ = parts(msg)
    plain = body_text(msg)
    alt = re.search(r'alt="([^"]*)"', page)
    assert alt is not None and alt.group(1) == (
        "The board of The Staufer Dynasty (staufer-1) after log entry 1, as ann "
        "sees it. The text of this mail describes it in full.")
    assert re.search(r'title="([^"]*)"', page).group(1) == alt.group(1)  # type: ignore[union-attr]
    words = " ".join(html_text(page).split())
    text, _, signature = plain.partition("\n-- \n")
    said = [" ".join(b.split()) for b in [*text.split("\n\n"), signature] if b.strip()]
    for block in said:
        assert block in words, block
    moved = [b for b in said if b.startswith(("Your legal moves", "Reply to this mail"))]
    kept = [words.index(b) for b in said if b not in moved]
    assert len(moved) == 2 and kept == sorted(kept)  # the order of the plain text, but ...
    heading = words.index("The same position in words")
    assert words.index(moved[0]) < words.index(moved[1]) < heading  # ... what to do next
    assert page.index("cid:") < page.index("Your legal moves")  # right below the picture
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


def test_no_html_part_shows_another_players_hidden_tokens(tmp_path: Path) -> None:
    """Mails during a game of Dynasties played by mail: each HTML part shows its reader's
    own hidden tokens (the control) and no one else's, and its PNG is exactly the
    picture of the reader's view at the entry the mail was sent at."""
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
    checked = 0
    for msg in setup.sent():
        if msg.get_content_type() == "text/plain":
            continue  # a short mail: no board, no picture
        _, page, png, _ = parts(msg)
        reader = recipient(msg)
        match = gamefile.replay(gf, "judge-seed", upto=int(str(msg["X-Referee-Move"])))
        assert png == svg_to_png(draw_svg(match.game.view(match.state, reader)))
        game = get_game("dynasties")
        assert all(own_items(game, match.state, p) for p in PLAYERS), \
            "the test needs hidden information"
        assert_hidden(game, match.state, {reader: {f"mail to {msg['To']}": page}})
        if reader is not None:  # control: a player's mail shows their own items
            assert_shows(page, own_items(game, match.state, reader))
        checked += 1
    assert checked > 6 and "Since your last mail" in page


def test_html_is_escaped() -> None:
    body = "Your turn, ann: <b>x</b> & y\n\nSince your last mail:\n  1. ann played\n\n" \
           "board <script>\n-- \ngame: g\n"
    page = mailhtml.render(body, subject="s<i>", cid="c@d", alt='a"b', size=(10, 20))
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt; &amp; y" in page
    assert "<script>" not in page and "s&lt;i&gt;" in page and 'alt="a&#34;b"' in page
    assert page.index("Since your last mail") < page.index("cid:c@d") < page.index("board")
