"""The HTML mail and the site in headless Chromium at a phone's width (390 px, a mobile
viewport): the page is no wider than the screen (only a box that scrolls sideways may
hold something wider), and a mail's turn line, clock and options are above its first
picture. Screenshots go to $PICTURES_SCREENSHOTS (or a temporary folder).

Without Chromium the tests skip, saying why, except under CI=true, where they fail."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee import i18n
from referee.pictures.site import build_site
from tests.test_html_phone import PHONE, games, start  # noqa: F401  (a fixture)
from tests.test_mail_html_browser import shots, unpack  # noqa: F401  (a fixture)
from tests.test_site_browser import Browser, open_browser

MEASURE = ("[document.documentElement.scrollWidth, window.innerWidth,"
           " (document.getElementById('top') || document.body).getBoundingClientRect().bottom,"
           " document.images.length ? document.images[0].getBoundingClientRect().top : 1e9]")


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    for browser in open_browser(tmp_path_factory, "the pages at phone width"):
        browser.call("Emulation.setDeviceMetricsOverride", session=True, width=PHONE,
                     height=844, deviceScaleFactor=1, mobile=True)
        yield browser


def measure(browser: Browser, url: str) -> list[float]:
    assert browser.load(url) == [], url
    return list(browser.call("Runtime.evaluate", session=True, returnByValue=True,
                             expression=MEASURE)["result"]["value"])


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
        phone.screenshot(shots / f"phone-mail-{game}-{lang}-{who}.png")


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
        name = f"{page.parent.name}-{page.stem}" if page.parent != site else page.stem
        phone.screenshot(shots / f"phone-site-{lang}-{name}.png")
