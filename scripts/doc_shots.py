"""The manual's screenshots, made anew: what a player sees, drawn by headless Chromium.

    .venv/bin/python -m scripts.doc_shots [--out docs/img]

* ``mail-links.png``: the HTML part of the judge's mail to the Staufer player who must
  decide, with its one-click moves (docs/mail.md);
* ``chat-direct-room.png``: the posts of a chat judge in a player's direct room, as a
  Matrix client shows their formatted body (docs/chat.md). The judge here posts to a
  recording stand-in for the homeserver (no network): the posts are the chat door's own;
* ``site-issue-links.png``: a game's page of ``referee site --github-repo``, the moves
  of the player who must decide as links that open an issue (docs/git-and-ci.md).

Needs Chromium (.ci/install-browser.sh) and the pictures extra. The PNGs are committed;
run this again when what they show changes.
"""

from __future__ import annotations

import argparse
import html
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts`, `tests` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent


class Recorder:
    """A stand-in for the judge's homeserver: rooms made, people invited, posts kept."""

    def __init__(self) -> None:
        self.user_id = "@referee:example.org"
        self.url, self.password, self.token, self.connected = "http://hs.invalid", "x", "t", True
        self.posts: dict[str, list[dict[str, Any]]] = {}
        self.people: dict[str, dict[str, str]] = {}
        self.uploads: dict[str, bytes] = {}

    def create_room(self, name: str, topic: str, *, direct: bool, key: str) -> str:
        room = f"!{len(self.posts)}{'dm' if direct else 'table'}:example.org"
        self.posts[room] = []
        self.people[room] = {self.user_id: "join"}
        return room

    def invite(self, room: str, user: str) -> None:
        self.people[room][user] = "invite"

    def members(self, room: str) -> dict[str, str]:
        return dict(self.people[room])

    def send(self, room: str, content: dict[str, Any], txn: str) -> str:
        self.posts[room].append(content)
        return f"$e{sum(map(len, self.posts.values()))}"

    def upload(self, data: bytes, name: str) -> str:
        url = f"mxc://example.org/{len(self.uploads)}"
        self.uploads[url] = data
        return url

    def sync(self, since: str | None, wait_ms: int = 0) -> Any:
        from referee.doors.chat.link import Batch

        return Batch("s1")

    def close(self) -> None:
        return None


def mail_page(tmp: Path) -> Path:
    from referee.engine import legal_strings
    from tests.doors.mail.test_html_browser import unpack
    from tests.judge.support import body_text
    from tests.judge.test_maildir_loop import Setup

    (tmp / "mail").mkdir()
    setup = Setup(tmp / "mail", game="staufer", gid="g1")
    setup.judge()
    del legal_strings
    mail = next(m for m in setup.sent() if "Your turn" in body_text(m))
    return unpack(mail, tmp / "mail-page")


def chat_page(tmp: Path) -> Path:
    from referee.cli import main
    from referee.doors.chat.door import MatrixDoor
    from referee.judge import serve
    from referee.judge.basics import Config
    from referee.judge.core import Judge

    games = tmp / "chat"
    games.mkdir()
    try:
        main(["new", "staufer", str(games / "g1.json"), "--players", "ann,ben,cat",
              "--matrix", "ann=@ann:example.org,ben=@ben:example.org,cat=@cat:example.org",
              "--seed", "docs", "--insecure-seed"])
    except SystemExit as exc:
        if exc.code:
            raise
    link = Recorder()
    config = Config(games, "")
    judge = Judge(config, [MatrixDoor(config, link)])  # type: ignore[arg-type]
    serve.run_once(judge)
    judge.close()
    room = next(r for r in link.posts if r.endswith("dm:example.org") and any(
        "Your turn" in p.get("body", "") for p in link.posts[r]))
    import base64

    def shown(post: dict[str, Any]) -> str:
        if "formatted_body" in post:
            return str(post["formatted_body"])
        data = base64.b64encode(link.uploads.get(post.get("url", ""), b"")).decode()
        return (f'<img alt="{html.escape(post.get("body", ""))}" style="max-width:600px" '
                f'src="data:image/png;base64,{data}">')

    posts = "".join(f'<div class="post"><div class="who">referee</div>{shown(p)}</div>'
                    for p in link.posts[room])
    page = tmp / "chat.html"
    page.write_text(
        "<!doctype html><meta charset=utf-8><title>ann's direct room</title><style>"
        "body{margin:0;font-family:Helvetica,Arial,sans-serif;background:#f3f4f6}"
        "header{background:#1f2937;color:#fff;padding:10px 16px;font-weight:bold}"
        ".post{background:#fff;margin:10px 16px;padding:8px 12px;border-radius:8px;"
        "max-width:760px;box-shadow:0 1px 2px #0002}.who{color:#0b6bcb;font-size:13px;"
        "font-weight:bold;margin-bottom:4px}pre{margin:0;font-size:12px;white-space:pre}"
        ".pic{color:#666;font-size:13px}</style>"
        "<header>The Staufer Dynasty · g1: ann</header>" + posts, encoding="utf-8")
    return page


def shot(browser: Any, out: Path, height: int) -> None:
    """The page's top ``height`` pixels (at most) as a PNG at ``out``."""
    import base64

    size = browser.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
    taken = browser.call("Page.captureScreenshot", session=True, format="png",
                         captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"],
                               "height": min(size["height"], height), "scale": 1})
    out.write_bytes(base64.b64decode(taken["data"]))


def site_page(tmp: Path) -> Path:
    from referee.cli import main

    games, out = tmp / "site-games", tmp / "site"
    games.mkdir()
    for args in (["new", "staufer", str(games / "g1.json"), "--players", "ann,ben,cat",
                  "--github", "ann=ann-gh,ben=ben-gh,cat=cat-gh", "--seed", "docs", "--id",
                  "g1"],
                 ["site", str(games), "--out", str(out), "--github-repo", "octo-org/games"]):
        try:
            main(args)
        except SystemExit as exc:
            if exc.code:
                raise
    return next(out.glob("g1*/index.html"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    from tests.pages.test_site_browser import Browser, find_browser

    binary = find_browser()
    if binary is None:
        raise SystemExit("needs Chromium: run .ci/install-browser.sh")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="doc-shots-") as folder:
        tmp = Path(folder)
        browser = Browser(binary, tmp / "profile")
        try:
            browser.call("Emulation.setDeviceMetricsOverride", session=True, width=860,
                         height=900, deviceScaleFactor=1, mobile=False)
            for name, page, height in (("mail-links.png", mail_page(tmp), 1150),
                                       ("chat-direct-room.png", chat_page(tmp), 2600),
                                       ("site-issue-links.png", site_page(tmp), 1400)):
                problems = browser.load(page.as_uri())
                if problems:
                    raise SystemExit(f"{name}: {problems}")
                shot(browser, args.out / name, height)
                print(f"wrote {args.out / name}")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
