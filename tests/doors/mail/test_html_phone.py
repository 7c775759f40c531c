"""The judge's HTML mail and the site at phone width (390 px) and in German: nothing in
the HTML is fixed wider than a phone's screen unless it sits in a box that scrolls
sideways; the top of a mail holds whose turn it is, the clock and the reader's options;
a German mail or page says ``lang="de"`` and carries none of the frame's English words;
the HTML part stays small beside its pictures. (In a real browser at 390 px:
tests/doors/mail/test_html_phone_browser.py.)"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

from referee import i18n
from referee.judge import meta
from referee.pages.site import build_site
from tests.doors.mail.test_html import KIM, images
from tests.judge.support import body_text
from tests.judge.test_maildir_loop import Setup
from tests.pictures.test_pictures import make_game

PHONE = 390
ENGLISH_FRAME = ("The same position in words", "The board of ", "sees it",
                 "Every legal move is listed", "Changed since your last mail")
ENGLISH_SITE = ("All games", "Position now", "Final position", "step through the game",
                "Scores", "No moves yet", "Written by", "Before the first move",
                "After move", "All moves", "previous", " to move")


def px(style: str, prop: str) -> int | None:
    """The pixels of ``prop`` in an inline style (None: not set in px)."""
    found = re.search(rf"(?:^|;)\s*{prop}\s*:\s*(\d+)px", style)
    return int(found.group(1)) if found else None


class Widths(HTMLParser):
    """Every element that would make the page wider than ``limit``: a width attribute
    or a fixed CSS width/min-width above it, unless the element may shrink
    (max-width:100% / width:100%) or an ancestor scrolls sideways."""

    VOID: ClassVar[frozenset[str]] = frozenset({"img", "br", "meta", "link", "hr", "input"})

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.stack: list[bool] = []  # per open element: does it (or one above) scroll
        self.wide: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        style = a.get("style", "").replace(" ", "")
        inside = bool(self.stack and self.stack[-1])
        scrolls = inside or "overflow-x:auto" in style
        shrinks = "max-width:100%" in style or "width:100%" in style
        fixed = [px(style, "width"), px(style, "min-width")]
        if a.get("width", "").isdigit() and not shrinks:
            fixed.append(int(a["width"]))
        if not inside and any(w is not None and w > self.limit for w in fixed):
            self.wide.append(f"<{tag} {a}>")
        if tag not in self.VOID:
            self.stack.append(scrolls)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()


def too_wide(page: str, limit: int = PHONE) -> list[str]:
    parser = Widths(limit)
    parser.feed(page)
    return parser.wide


def start(tmp_path: Path, game: str, lang: str = "en") -> Setup:
    setup = Setup(tmp_path, game=game, gid=f"{game}-1", extra=("--clock", "2d+1d/5d"))
    meta.append(setup.path, meta.GM, {"kind": "watcher", "email": KIM})
    if lang != "en":  # each player's own record: the judge writes each mail in its reader's
        for pid in ("ann", "ben", "cat"):
            meta.append(setup.path, pid, {"kind": "lang", "player": pid, "lang": lang})
    setup.judge()
    return setup


def top(page: str) -> str:
    """The mail's top block: from its start to the first picture."""
    begin = page.index('<div id="top">')
    return page[begin:page.index('role="img"', begin)]


@pytest.fixture(scope="module", params=["staufer", "dynasties"])
def mails(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Setup:
    return start(tmp_path_factory.mktemp(request.param), request.param)


def test_no_fixed_width_wider_than_a_phone(mails: Setup) -> None:
    for msg in mails.sent():
        page = images(msg)[1]
        assert too_wide(page) == [], msg["X-Referee-Player"]
        assert "max-width:100%" in page


def test_the_width_check_can_fail() -> None:
    assert too_wide('<div style="width:600px">x</div>')
    assert too_wide('<img src="a" width="692">')
    assert too_wide('<table width="640"><tr><td>x</td></tr></table>')
    assert not too_wide('<img src="a" width="692" style="max-width:100%">')
    assert not too_wide('<div style="overflow-x:auto"><img style="min-width:588px"></div>')


def test_the_top_holds_the_turn_line_the_clock_and_the_options(mails: Setup) -> None:
    ann = mails.latest("ann")
    plain = body_text(ann)
    head = top(images(ann)[1])
    assert plain.splitlines()[0] in head  # whose turn
    clock = next(line for line in plain.splitlines() if line.startswith("clock: "))
    assert clock in head
    assert "Your legal moves, by kind:" in head and "Reply to this mail" in head
    watcher = next(m for m in mails.sent() if str(m["X-Referee-Player"]) == "watcher")
    assert "Your legal moves" not in top(images(watcher)[1])  # a watcher has none


def test_a_wide_picture_scrolls_at_most_of_its_size(mails: Setup) -> None:
    """A picture a little wider than a phone's screen (Staufer's Supply Board, 396 px)
    sits in a box, at no less than 85% of its size (it fits the screen so); the
    narrower tiles (each of Dynasties' ships among them) shrink to the screen."""
    page = images(mails.latest("ann"))[1]
    imgs = re.findall(r'<img [^>]*width="(\d+)"[^>]*style="([^"]*)"', page)
    assert imgs
    for width, style in imgs:
        if int(width) > 366:
            assert px(style, "min-width") == int(int(width) * 0.85)
        else:
            assert "max-width:100%" in style and px(style, "min-width") is None


def test_the_ships_are_one_picture_each_on_a_line_of_their_own(mails: Setup) -> None:
    """Dynasties' ships: a picture a ship (each narrower than a phone's screen), the
    first after an empty block so that they begin a line (in a row on a wide screen, one
    under the other on a phone: tests/doors/mail/test_html_phone_browser.py)."""
    page = images(mails.latest("ann"))[1]
    ships = re.findall(r'<img src="cid:ships-(\d)\.[^"]*" alt="([^"]*)" width="(\d+)"', page)
    if str(mails.path.name).startswith("staufer"):
        assert ships == []
        return
    assert ships == [("1", "Ship 1, as ann sees it", "232"), ("2", "Ship 2, as ann sees it",
                     "232"), ("3", "Ship 3, as ann sees it", "232")]
    first = page.index('<img src="cid:ships-1.')
    assert page.rindex("<span", 0, first) - len("<div></div>") == page.rindex("<div></div>",
                                                                             0, first)
    assert page.count("<div></div>") == 1


def test_the_html_part_stays_small(mails: Setup) -> None:
    """The HTML itself (without its pictures) is a few KB: the layout adds little."""
    for msg in mails.sent():
        page = images(msg)[1]
        assert len(page.encode()) < 2.5 * len(body_text(msg).encode()) + 8_000


@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_a_german_mail_has_lang_de_and_no_english_frame(tmp_path: Path, game: str) -> None:
    setup = start(tmp_path, game, "de")
    players = [m for m in setup.sent() if str(m["X-Referee-Player"]) != "watcher"]
    assert len(players) == 3  # the watcher reads English
    for msg in players:
        page = images(msg)[1]
        assert '<html lang="de">' in page
        assert "Dieselbe Stellung in Worten" in page
        label = re.search(r'aria-label="([^"]*)"', page)
        assert label is not None and label.group(1).startswith("Das Spielbrett von ")
        for words in ENGLISH_FRAME:
            assert words not in page, words
        assert too_wide(page) == []


def test_an_english_mail_says_lang_en(mails: Setup) -> None:
    assert '<html lang="en">' in images(mails.sent()[0])[1]


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    make_game(folder, "staufer", 3, moves=5, seed="phone")
    make_game(folder, "dynasties", 3, seed="phone")  # to the end
    return folder


def pages(site: Path) -> list[Path]:
    return [site / "index.html", *sorted(site.glob("*/index.html")),
            *sorted(site.glob("*/pos-[0-2].html"))]


def test_the_site_in_german(games: Path, tmp_path: Path) -> None:
    """Built by two worker processes: each is told the language."""
    with i18n.language("de"):
        build_site(games, tmp_path / "site", workers=2)
    for page in pages(tmp_path / "site"):
        text = page.read_text()
        assert '<html lang="de">' in text, page
        for words in ENGLISH_SITE:
            assert words not in text, (page, words)
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<h1>Partien</h1>" in index and "2 Partien." in index and "beendet:" in index
    game = next((tmp_path / "site").glob("staufer*/index.html")).read_text()
    assert "Alle Partien" in game and "5 Züge." in game and "am Zug" in game


def test_the_site_in_english_keeps_its_words(games: Path, tmp_path: Path) -> None:
    build_site(games, tmp_path / "site", workers=2)
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<html lang="en">' in index and "<h1>Games</h1>" in index and "2 games." in index
    game = next((tmp_path / "site").glob("staufer*/index.html")).read_text()
    assert "All games" in game and "5 moves." in game and '<span class="turn">' in game
    for page in pages(tmp_path / "site"):
        assert too_wide(page.read_text()) == [], page


def test_the_clock_at_the_top_is_one_line_a_seat_that_the_screen_wraps(tmp_path: Path) -> None:
    """The clock's 78-column text (its wrapped control line, the seats padded to a
    column, their continuation lines) is one line each in the HTML, the seat first:
    on a phone the browser wraps each with a hanging indent instead of breaking the
    columns apart."""
    import html as stdhtml

    setup = start(tmp_path, "dynasties", "de")
    ann = setup.latest("ann")
    plain = body_text(ann).split("\n\n")[1].splitlines()
    assert plain[0].startswith("Uhr: ") and plain[1].startswith("  ") and len(plain) > 4
    head = stdhtml.unescape(top(images(ann)[1]))
    lines = re.findall(r'text-indent:-16px;margin:0 0 2px 0">([^<]*)</div>', head)
    assert lines[0] == f"{plain[0]} {plain[1].strip()}"  # the control, joined
    assert [line.split(":")[0] for line in lines[1:]] == ["ann", "ben", "cat"]
    assert lines[1].startswith("ann: Zeitkonto 2d, Urlaub 0d, erwartet: Zeit läuft ab ")
    assert lines[1].endswith(" UTC (in 2d)")  # its continuation line joined
    assert lines[2] == "ben: Zeitkonto 2d, Urlaub 0d"
