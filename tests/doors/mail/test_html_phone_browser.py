"""The HTML mail and the site in headless Chromium at a phone's width (390 px, a mobile
viewport): the page is no wider than the screen (on the site only a box that scrolls
sideways may hold something wider; in a mail only the board in words, 78 columns of
text, scrolls sideways inside its own box, and no picture does), and a
mail's turn line, clock and options are above its first picture. Dynasties' ships, one
picture each, wrap on the phone and sit in one row at 900 px. Screenshots go to
$PICTURES_SCREENSHOTS (or a temporary folder).

Without Chromium the tests skip, saying why, except under CI=true, where they fail."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import i18n
from referee.pages.site import build_site
from tests.doors.mail.test_html_browser import shots, unpack  # noqa: F401  (a fixture)
from tests.doors.mail.test_html_phone import PHONE, games, start  # noqa: F401  (a fixture)
from tests.pages.test_site_browser import Browser, open_browser

pytestmark = pytest.mark.slow

MEASURE = ("[document.documentElement.scrollWidth, window.innerWidth,"
           " (document.getElementById('top') || document.body).getBoundingClientRect().bottom,"
           " document.images.length ? document.images[0].getBoundingClientRect().top : 1e9]")
#: the most any box of the page scrolls sideways (0: nothing has to be scrolled to be read)
SIDEWAYS = ("Math.max(0, ...Array.from(document.querySelectorAll('*'), e =>"
            " ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)"
            " ? e.scrollWidth - e.clientWidth : 0))")
#: ... leaving out the boxes of the board in words (a <pre> of 78 columns), the one thing
#: of a mail that may scroll sideways, inside its own box
PICTURES_SIDEWAYS = SIDEWAYS.replace("=>", "=> e.tagName !== 'PRE' &&", 1)
#: [scrolls sideways in its box, lines shown, lines of its text] of each board-in-words box
IN_WORDS = ("Array.from(document.querySelectorAll('pre')).filter(e =>"
            " getComputedStyle(e).overflowX === 'auto').map(e => { const s = getComputedStyle(e);"
            " const inner = e.clientHeight - parseFloat(s.paddingTop)"
            " - parseFloat(s.paddingBottom);"
            " return [e.scrollWidth > e.clientWidth, Math.round(inner / parseFloat(s.lineHeight)),"
            " e.textContent.split('\\n').length]; })")
#: [left, top, right] of each ship's picture (unpack names them ships-N.png)
SHIPS = ("Array.from(document.images).filter(i => /ships-[0-9]+[.]png$/.test(i.src))"
         ".map(i => { const r = i.getBoundingClientRect(); return [r.left, r.top, r.right]; })")
WIDE = 900  # a desktop mail client's reading pane


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    for browser in open_browser(tmp_path_factory, "the pages at phone width"):
        browser.call("Emulation.setDeviceMetricsOverride", session=True, width=PHONE,
                     height=844, deviceScaleFactor=1, mobile=True)
        yield browser


def measure(browser: Browser, url: str) -> list[float]:
    assert browser.load(url) == [], url
    return list(evaluate(browser, MEASURE))


def evaluate(browser: Browser, expression: str) -> Any:
    """The value of ``expression`` on the page loaded."""
    return browser.call("Runtime.evaluate", session=True, returnByValue=True,
                        expression=expression)["result"]["value"]


def sideways(browser: Browser, url: str, width: int,
             boxes: str = PICTURES_SIDEWAYS) -> list[Any]:
    """At ``width`` px: [the page's width, the most any of ``boxes`` scrolls sideways
    (default: any but the board in words), the ships' pictures (left, top, right each)]."""
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                 height=844, deviceScaleFactor=1, mobile=width == PHONE)
    assert browser.load(url) == [], url
    return [evaluate(browser, "document.documentElement.scrollWidth"),
            evaluate(browser, boxes), evaluate(browser, SHIPS)]


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_a_mail_fits_a_phone(phone: Browser, shots: Path, tmp_path: Path,  # noqa: F811
                             game: str, lang: str) -> None:
    (tmp_path / "g").mkdir()
    setup = start(tmp_path / "g", game, lang)
    for msg in setup.sent():
        who = str(msg["X-Referee-Player"])
        page = unpack(msg, tmp_path / who)
        width, inner, top_bottom, first_picture = measure(phone, page.as_uri())
        assert inner == PHONE and width <= PHONE, (who, width)
        assert top_bottom <= first_picture, who  # the top block comes first
        assert evaluate(phone, PICTURES_SIDEWAYS) == 0, who  # no picture to scroll sideways
        phone.screenshot(shots / f"phone-mail-{game}-{lang}-{who}.png")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_ships_wrap_on_a_phone_and_sit_in_a_row_when_wide(
        phone: Browser, shots: Path, tmp_path: Path, lang: str) -> None:  # noqa: F811
    (tmp_path / "g").mkdir()
    setup = start(tmp_path / "g", "dynasties", lang)
    msg = next(m for m in setup.sent() if str(m["X-Referee-Player"]) == "ann")
    page = unpack(msg, tmp_path / "ann").as_uri()
    try:
        width, scrolled, ships = sideways(phone, page, PHONE)
        phone.screenshot(shots / f"phone-ships-dynasties-{lang}-{PHONE}.png")
        assert width <= PHONE and scrolled == 0
        assert len(ships) == 3 and all(right <= PHONE for _left, _top, right in ships)
        assert len({top for _left, top, _right in ships}) == 3  # one under the other
        width, scrolled, ships = sideways(phone, page, WIDE)
        phone.screenshot(shots / f"phone-ships-dynasties-{lang}-{WIDE}.png")
        assert width <= WIDE and scrolled == 0
        assert len(ships) == 3 and len({top for _left, top, _right in ships}) == 1
        lefts = [left for left, _top, _right in ships]
        assert lefts == sorted(lefts)  # ship 1, 2, 3 from the left
    finally:
        phone.call("Emulation.setDeviceMetricsOverride", session=True, width=PHONE,
                   height=844, deviceScaleFactor=1, mobile=True)


@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_the_board_in_words_keeps_its_lines_and_scrolls_only_in_its_box_on_a_phone(
        phone: Browser, shots: Path, tmp_path: Path, game: str) -> None:  # noqa: F811
    """At 390 px each line of the 78-column text stays one line (its box scrolls
    sideways, the page does not); at 900 px it fits, and nothing scrolls."""
    (tmp_path / "g").mkdir()
    setup = start(tmp_path / "g", game, "en")
    msg = next(m for m in setup.sent() if str(m["X-Referee-Player"]) == "ann")
    page = unpack(msg, tmp_path / "ann").as_uri()
    try:
        width, _scrolled, _ships = sideways(phone, page, PHONE)
        boxes = evaluate(phone, IN_WORDS)
        phone.screenshot(shots / f"phone-in-words-{game}-{PHONE}.png")
        assert width <= PHONE and boxes
        assert any(scrolls for scrolls, _shown, _lines in boxes)  # the board's 78 columns
        assert [shown for _s, shown, _l in boxes] == [lines for _s, _sh, lines in boxes]
        width, scrolled, _ships = sideways(phone, page, WIDE, SIDEWAYS)
        phone.screenshot(shots / f"phone-in-words-{game}-{WIDE}.png")
        assert width <= WIDE and scrolled == 0
        assert not any(scrolls for scrolls, _shown, _lines in evaluate(phone, IN_WORDS))
    finally:
        phone.call("Emulation.setDeviceMetricsOverride", session=True, width=PHONE,
                   height=844, deviceScaleFactor=1, mobile=True)


def test_a_box_that_scrolls_sideways_is_measured(phone: Browser, tmp_path: Path) -> None:
    """The measure of the mails' test fails a picture in a box that scrolls sideways
    (as the ships were before they were cut into one picture each)."""
    page = tmp_path / "wide.html"
    page.write_text('<!doctype html><meta name="viewport" content="width=device-width">'
                    '<body style="margin:0"><div style="max-width:100%;overflow-x:auto">'
                    '<div style="width:692px;height:10px"></div></div></body>',
                    encoding="utf-8")
    width, _inner, _top, _first = measure(phone, page.as_uri())
    assert width <= PHONE  # the page itself is no wider ...
    assert evaluate(phone, SIDEWAYS) == 692 - PHONE  # ... but its box scrolls


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_site_fits_a_phone(phone: Browser, shots: Path, games: Path,  # noqa: F811
                               tmp_path: Path, lang: str) -> None:
    with i18n.language(lang):
        build_site(games, tmp_path / "site", workers=1)
    site = tmp_path / "site"
    for page in [site / "index.html", *sorted(site.glob("*/index.html")),
                 *sorted(site.glob("*/pos-1.html"))]:
        width, inner, _, _ = measure(phone, page.as_uri())
        assert inner == PHONE and width <= PHONE, (page, width)
        if page == site / "index.html":  # each game a card: nothing scrolls sideways
            assert evaluate(phone, SIDEWAYS) == 0
            assert evaluate(phone, "getComputedStyle(document.querySelector("
                                   "'table.games td[data-label]'), '::before').content"
                            ).strip('"').endswith(": ")
        name = f"{page.parent.name}-{page.stem}" if page.parent != site else page.stem
        phone.screenshot(shots / f"phone-site-{lang}-{name}.png")
