"""The HTML part of a judge's mail in a real browser: the HTML and its inline PNG are
written to a folder (``cid:`` replaced by the file name) and loaded in headless Chromium,
which must show the picture with no console error. Screenshots go to
$PICTURES_SCREENSHOTS (or a temporary folder) so that people can look at them.

Without Chromium the tests skip, saying why, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.doors.mail.test_html import images, start
from tests.judge.support import body_text
from tests.pages.test_site_browser import Browser, open_browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    yield from open_browser(tmp_path_factory, "the mail's HTML")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("PICTURES_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Path(folder)
    return tmp_path_factory.mktemp("screenshots")


def unpack(msg: EmailMessage, folder: Path) -> Path:
    """The mail's HTML part as a page beside its pictures, as a mail client shows it."""
    _, page, pictures = images(msg)
    folder.mkdir(parents=True, exist_ok=True)
    for cid, png in pictures:
        name = f"{cid.split('.')[0]}.png"
        (folder / name).write_bytes(png)
        page = page.replace(f"cid:{cid}", name)
    out = folder / "mail.html"
    out.write_text(page, encoding="utf-8")
    return out


@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_mail_html_shows_the_board_without_errors(browser: Browser, shots: Path,
                                                  tmp_path: Path, game: str) -> None:
    (tmp_path / "g").mkdir()
    setup = start(tmp_path / "g", game)
    for msg in setup.sent():
        who = str(msg["X-Referee-Player"])
        page = unpack(msg, tmp_path / who)
        assert browser.load(page.as_uri()) == [], who
        found = browser.call(
            "Runtime.evaluate", session=True, returnByValue=True,
            expression="[document.images.length, [...document.images].map(i => "
                       "[i.naturalWidth, i.complete, i.alt]), document.body.innerText,"
                       " document.querySelector('[role=img]').getAttribute('aria-label')]",
        )["result"]["value"]
        count, shown, words, label = found
        # Dynasties: 4 country headers, 20 cities and a picture a ship
        assert count == len(images(msg)[2]) == (7 if game == "staufer" else 27), who
        whose = "every player" if who == "watcher" else who
        assert all(w > 200 and done and a.endswith(f", as {whose} sees it")
                   for w, done, a in shown), shown
        assert label.startswith("The board of ") and f"as {whose} sees it" in label
        assert words.startswith(body_text(msg).splitlines()[0])
        assert browser.screenshot(shots / f"mail-{game}-{who}.png")[:4] == b"\x89PNG"


def test_a_missing_mail_picture_is_reported(browser: Browser, tmp_path: Path) -> None:
    """The check above can fail: a mail page whose picture is gone is caught."""
    (tmp_path / "g").mkdir()
    setup = start(tmp_path / "g", "staufer")
    page = unpack(setup.sent()[0], tmp_path / "broken")
    (page.parent / "region-strasbourg.png").unlink()
    assert any("region-strasbourg.png" in p for p in browser.load(page.as_uri()))
