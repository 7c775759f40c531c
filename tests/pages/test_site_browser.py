"""The site in a real browser: headless Chromium (driven through the DevTools protocol on
a pipe) loads the pages of games of both games at every player count, and the test fails
on a console error, a failed request or an image that did not load. Screenshots go to
$PICTURES_SCREENSHOTS (or a temporary folder) so that people can look at them.

Without Chromium the tests skip, saying why, except under CI=true, where they fail.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.pages.site import build_site
from tests.conftest import missing
from tests.pictures.test_pictures import make_game

pytestmark = pytest.mark.slow

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """Chromium with --remote-debugging-pipe: JSON messages, each ended by a NUL byte,
    written to its fd 3 and read from its fd 4."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_child, self._to_browser = os.pipe()
        self._from_browser, from_child = os.pipe()
        high_in = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10)
        high_out = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
        for fd in (to_child, from_child):
            os.close(fd)

        def child_fds() -> None:
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--hide-scrollbars", "--mute-audio",
             "--allow-file-access-from-files", f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, pass_fds=(3, 4, high_in, high_out),
        )
        os.close(high_in)
        os.close(high_out)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=1280,
                  height=900, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, session: bool = False, timeout: float = 30,
             **params: Any) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, left))
            if not ready:
                raise AssertionError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise AssertionError("Chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(raw))

    def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def load(self, url: str) -> list[str]:
        """Open ``url``; returns the problems seen: console errors, exceptions, failed
        requests, images that did not load."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired")
        broken = self.call(
            "Runtime.evaluate", session=True, returnByValue=True,
            expression="Array.from(document.images).filter(i => !i.complete || "
                       "i.naturalWidth === 0).map(i => i.getAttribute('src'))",
        )["result"]["value"]
        problems = [f"image did not load: {src}" for src in broken]
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                problems.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                problems.append(f"console error: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                problems.append(f"log error: {params['entry'].get('text')} "
                                f"{params['entry'].get('url', '')}")
            elif method == "Network.loadingFailed":
                problems.append(f"request failed: {params.get('errorText')}")
        return problems

    def screenshot(self, out: Path) -> bytes:
        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        shot = self.call("Page.captureScreenshot", session=True, format="png",
                         captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"],
                               "height": min(size["height"], 4000), "scale": 1})
        data = base64.b64decode(shot["data"])
        out.write_bytes(data)
        return data

    def close(self) -> None:
        with contextlib.suppress(AssertionError):
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def open_browser(tmp_path_factory: pytest.TempPathFactory, what: str) -> Iterator[Browser]:
    """A headless Chromium for a module's tests of ``what``; a visible skip without one
    on a developer's machine, a failure under CI."""
    binary = find_browser()
    if binary is None:
        reason = ("Chromium is not installed (apt-get install chromium, or "
                  f".ci/install-browser.sh): {what} was not tested in a browser")
        missing(reason)
    instance = Browser(binary, tmp_path_factory.mktemp("chromium-profile"))
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    yield from open_browser(tmp_path_factory, "the site")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = tmp_path_factory.mktemp("games")
    for n in (2, 3, 4, 5):
        make_game(games, "staufer", n, seed=f"browser-{n}")
    for n in (3, 4, 5):
        make_game(games, "dynasties", n, seed=f"browser-{n}")
    make_game(games, "staufer", 3, moves=23, seed="running")
    make_game(games, "dynasties", 4, moves=31, seed="sealed", sealed=True)
    secret = games / "dynasties-4p-sealed.json.secret"
    secret.rename(games.parent / "kept-away.secret")  # a sealed game without its secret
    out = tmp_path_factory.mktemp("site") / "site"
    build_site(games, out, workers=2)
    return out


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("PICTURES_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Path(folder)
    return tmp_path_factory.mktemp("screenshots")


def page(site: Path, rel: str) -> str:
    return (site / rel).resolve().as_uri()


def test_index_loads_cleanly(browser: Browser, site: Path, shots: Path) -> None:
    assert browser.load(page(site, "index.html")) == []
    text = browser.call("Runtime.evaluate", session=True, returnByValue=True,
                        expression="document.body.innerText")["result"]["value"]
    assert "staufer-3p-running.json" in text and "dynasties-4p-sealed.json" in text
    assert "sealed: the board needs the secret" in text
    assert browser.screenshot(shots / "index.png")[:4] == b"\x89PNG"


GAME_PAGES = [("staufer", n, f"browser-{n}") for n in (2, 3, 4, 5)] + [
    ("dynasties", n, f"browser-{n}") for n in (3, 4, 5)] + [("staufer", 3, "running")]


@pytest.mark.parametrize(("name", "n", "seed"), GAME_PAGES)
def test_game_positions_load_with_their_board(browser: Browser, site: Path, shots: Path,
                                              name: str, n: int, seed: str) -> None:
    slug = f"{name}-{n}p-{seed}"
    last = max(int(p.stem.split("-")[1]) for p in (site / slug).glob("pos-*.svg"))
    for rel in ("index.html", "pos-0.html", f"pos-{last // 2}.html", f"pos-{last}.html"):
        assert browser.load(page(site, f"{slug}/{rel}")) == [], rel
        size = browser.call(
            "Runtime.evaluate", session=True, returnByValue=True,
            expression="[document.images.length, document.images[0].naturalWidth]",
        )["result"]["value"]
        assert size == [1, 1200], rel
        browser.screenshot(shots / f"{slug}-{rel.removesuffix('.html')}.png")


def test_sealed_game_page_shows_log_without_board(browser: Browser, site: Path,
                                                  shots: Path) -> None:
    slug = "dynasties-4p-sealed"
    assert browser.load(page(site, f"{slug}/index.html")) == []
    result = browser.call(
        "Runtime.evaluate", session=True, returnByValue=True,
        expression="[document.images.length, document.querySelectorAll('ol.log li').length,"
                   " document.body.innerText]",
    )["result"]["value"]
    assert result[0] == 0 and result[1] == 31
    assert "the positions cannot be rebuilt" in result[2]
    browser.screenshot(shots / f"{slug}.png")


def test_a_missing_image_is_reported(browser: Browser, site: Path, tmp_path: Path) -> None:
    """The check above can fail: a page whose picture is gone is caught."""
    broken = tmp_path / "broken"
    shutil.copytree(site / "staufer-3p-running", broken)
    (broken / "pos-5.svg").unlink()
    shutil.copy(site / "style.css", tmp_path / "style.css")
    problems = browser.load((broken / "pos-5.html").as_uri())
    assert any("pos-5.svg" in p for p in problems)
