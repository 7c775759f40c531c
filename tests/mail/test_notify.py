"""Notification channels from the command line and the library: `referee notify` seals
the URL to the referee (never in clear in the file), refuses an open game, a long or
local URL with one message and nothing changed; `--test` posts to a real HTTP receiver
on loopback; failures are retried, bounded, and told without the URL; a channel record
for another seat, in clear or in an open game is refused by every read."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from referee.ledger import gamefile
from referee.mail import notify
from tests.conftest import ok, require_module, require_tool, run
from tests.support.games import new_game

PLAYERS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>"


@dataclass
class Receiver:
    """A webhook on loopback: keeps every post; answers with ``codes`` in turn (the
    last one then on)."""

    port: int = 0
    codes: list[int] = field(default_factory=lambda: [200])
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"json://127.0.0.1:{self.port}/{path}"

    def at(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.posts if p == f"/{path}"]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    require_module("apprise")
    found = Receiver()

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            found.posts.append((self.path, json.loads(self.rfile.read(size) or b"{}")))
            code = found.codes.pop(0) if len(found.codes) > 1 else found.codes[0]
            self.send_response(code)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    found.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    server.shutdown()
    server.server_close()


def sealed_game(tmp_path: Path, name: str = "g.json") -> Path:
    return new_game(tmp_path / name, "toy", "--sealed", "--insecure-seed", players=PLAYERS,
                    seed="s-1", game_id="g1")


def _refused(code: int, path: Path, *args: object, words: tuple[str, ...] = ()) -> str:
    before = path.read_bytes() if path.exists() else None
    result = run("notify", path, *args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert len([ln for ln in result.output.splitlines() if ln.startswith("error:")]) == 1
    for word in words:
        assert word in result.output, result.output
    assert (path.read_bytes() if path.exists() else None) == before
    return result.output


# --- the record ----------------------------------------------------------------------


def test_a_channel_is_sealed_to_the_referee_and_never_in_clear(tmp_path: Path,
                                                              receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    url = receiver.url("hook/SECRET-TOKEN-ann")
    out = ok("notify", path, "--notify-private", "--as", "ann", url).output
    assert "json://127.0.0.1, besides the mail" in out and "SECRET" not in out
    raw = path.read_bytes()
    assert b"SECRET" not in raw and f":{receiver.port}".encode() not in raw
    record = gamefile.read(path).log[-1]
    assert record["by"] == "ann" and record["meta"]["via"] == "also"
    assert "sealed" in record["meta"] and "url" not in record["meta"]
    ok("check", path)
    found = notify.from_log(gamefile.read(path), "s-1")["ann"]
    assert found.channel == notify.Channel(url, "also")
    log = ok("log", path).output
    assert "[channel] ann via also (the URL sealed to the referee)" in log
    for args in (("log", path), ("status", path, "--as", "ben"), ("status", path),
                 ("status", path, "--as", "ben", "--json"), ("log", path, "--json")):
        assert "SECRET" not in ok(*args).output
    ok("notify", path, "--as", "ann", "--off")
    assert notify.from_log(gamefile.read(path), "s-1")["ann"].channel is None


def test_only_is_recorded_and_the_json_answer_is_masked(tmp_path: Path,
                                                       receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    done = json.loads(ok("notify", path, "--notify-private", "--as", "ben",
                         receiver.url("b/SECRET"), "--only", "--json").output)
    assert done == {"player": "ben", "n": 1, "via": "only", "channel": "json://127.0.0.1",
                    "test": None}


def test_an_open_game_has_no_key_to_seal_to(tmp_path: Path) -> None:
    require_module("apprise")
    path = tmp_path / "open.json"
    new_game(path, "toy", players=PLAYERS, seed="s-1")
    out = _refused(2, path, "--as", "ann", "json://example.org/hook/SECRET",
                   words=("open", "no referee key"))
    assert "SECRET" not in out
    ok("notify", path, "--as", "ann", "--off")  # no URL: nothing to seal
    ok("check", path)


@pytest.mark.parametrize("url, words", [
    ("json://example.org/" + "a" * 600, ("at most 512 characters",)),
    ("file:///etc/passwd", ("network scheme", "'file'")),
    ("windows://", ("network scheme",)),
    ("syslog://localhost", ("network scheme",)),
    ("dbus://", ("network scheme",)),
    ("https://example.org/hook", ("network scheme", "'https'")),
    ("json://exa mple.org/x", ("printable ASCII",)),
    ("discord://", ("apprise cannot read",)),
])
def test_a_long_local_or_unreadable_url_is_refused(tmp_path: Path, url: str,
                                                  words: tuple[str, ...]) -> None:
    require_module("apprise")
    path = sealed_game(tmp_path)
    out = _refused(2, path, "--as", "ann", url, words=words)
    assert "passwd" not in out and "a" * 50 not in out


def test_no_url_and_bad_combinations_are_usage_errors(tmp_path: Path) -> None:
    path = sealed_game(tmp_path)
    _refused(2, path, "--as", "ann", words=("give a channel URL",))
    _refused(2, path, "--as", "ann", "json://x.org/a", "--off", words=("--off takes no",))
    _refused(2, path, "--as", "zed", "--off", words=("zed",))


def test_the_url_can_come_on_standard_input(tmp_path: Path, receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    result = run("notify", path, "--notify-private", "--as", "cat", "-",
                 input=receiver.url("c/SECRET") + "\n")
    assert result.exit_code == 0, result.output
    assert notify.from_log(gamefile.read(path), "s-1")["cat"].channel is not None


# --- reads refuse a forged record ----------------------------------------------------


def _append(path: Path, entry: dict[str, Any]) -> None:
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": len(data["log"]) + 1, **entry})
    path.write_text(gamefile.dumps(data))


def _check_refused(path: Path, *words: str) -> None:
    result = run("check", path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


def test_a_url_in_clear_is_refused_by_every_read(tmp_path: Path) -> None:
    path = sealed_game(tmp_path)
    _append(path, {"by": "ann", "meta": {"kind": "channel", "player": "ann", "via": "also",
                                         "url": "json://example.org/SECRET"}})
    _check_refused(path, "url")


def test_a_channel_without_its_sealed_url_is_refused(tmp_path: Path) -> None:
    path = sealed_game(tmp_path)
    _append(path, {"by": "ann", "meta": {"kind": "channel", "player": "ann", "via": "only"}})
    _check_refused(path, "exactly when it is not `off`")


def test_a_channel_for_another_seat_is_refused(tmp_path: Path, receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    ok("notify", path, "--notify-private", "--as", "ann", receiver.url("a/x"))
    meta = dict(gamefile.read(path).log[-1]["meta"])
    other = sealed_game(tmp_path, "h.json")
    _append(other, {"by": "ben", "meta": meta})  # ben sets ann's channel
    _check_refused(other, "only the game master may write it")


def test_a_sealed_channel_in_an_open_game_is_refused(tmp_path: Path,
                                                     receiver: Receiver) -> None:
    sealed = sealed_game(tmp_path)
    ok("notify", sealed, "--notify-private", "--as", "ann", receiver.url("a/x"))
    meta = dict(gamefile.read(sealed).log[-1]["meta"])
    path = tmp_path / "open.json"
    new_game(path, "toy", players=PLAYERS, seed="s-1")
    _append(path, {"by": "ann", "meta": meta})
    _check_refused(path, "a channel URL in an open game")


def test_through_git_a_player_cannot_set_another_seats_channel(tmp_path: Path,
                                                              receiver: Receiver) -> None:
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(repo)}

    def git(*args: str) -> str:
        done = subprocess.run([shutil.which("git") or "git", *args], cwd=repo, env=env,
                              capture_output=True, text=True, check=True)
        return done.stdout.strip()

    git("init", "-q")
    path = sealed_game(repo)
    git("add", "-A")
    git("commit", "-qm", "start")
    base = git("rev-parse", "HEAD")
    ok("notify", path, "--notify-private", "--as", "ben", receiver.url("b/x"))
    ok("check", path, "--since", base, "--by", "ben")  # ben's own channel: his change
    ok("notify", path, "--notify-private", "--as", "ann", receiver.url("a/x"))  # ... and then ann's
    result = run("check", path, "--since", base, "--by", "ben")
    assert result.exit_code == 1 and "is by ann" in result.output, result.output


# --- sending -------------------------------------------------------------------------


def test_test_posts_to_the_url_before_storing_it(tmp_path: Path, receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    out = ok("notify", path, "--notify-private", "--as", "ann", receiver.url("hook/SECRET"),
             "--test").output
    assert "test notification delivered to json://127.0.0.1 (1 tries)" in out
    (post,) = receiver.at("hook/SECRET")
    assert post["title"] == "referee: test notification" and "ann" in post["message"]
    assert len(gamefile.read(path).log) == 1
    # the stored channel, with the secret beside the file
    assert "delivered" in ok("notify", path, "--notify-private", "--as", "ann", "--test").output
    assert len(receiver.at("hook/SECRET")) == 2


@pytest.mark.slow
def test_a_failed_test_stores_nothing_and_tells_no_url(tmp_path: Path,
                                                      receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    receiver.codes = [500]
    out = _refused(1, path, "--notify-private", "--as", "ann", receiver.url("hook/SECRET"),
                   "--test",
                   words=("failed after 3 tries", "error=500", "nothing was stored"))
    assert "SECRET" not in out and str(receiver.port) not in out
    assert len(receiver.at("hook/SECRET")) == 3


def test_testing_the_stored_channel_needs_the_secret(tmp_path: Path,
                                                    receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    ok("notify", path, "--notify-private", "--as", "ann", receiver.url("hook/x"))
    path.with_name("g.json.secret").rename(tmp_path / "elsewhere.secret")
    result = run("notify", path, "--as", "ann", "--test")
    assert result.exit_code == 1 and "needs the game's secret" in result.output
    result = run("notify", path, "--as", "ben", "--test", "--secret",
                 tmp_path / "elsewhere.secret")
    assert result.exit_code == 2 and "ben has no notification channel" in result.output


def test_a_failure_is_retried_with_a_bounded_backoff(receiver: Receiver) -> None:
    waited: list[float] = []
    receiver.codes = [500, 502, 200]
    sent = notify.send(receiver.url("r/x"), "t", "b", allow_private=True, sleep=waited.append)
    assert sent == notify.Sent(True, 3) and waited == list(notify.BACKOFF)
    receiver.codes = [500]
    sent = notify.send(receiver.url("r/SECRET"), "t", "b", allow_private=True,
                       sleep=waited.append)
    assert not sent.ok and sent.tries == notify.TRIES and "error=500" in sent.error
    assert "SECRET" not in sent.error and len(receiver.at("r/SECRET")) == notify.TRIES


def test_a_dead_channel_is_told_without_its_url(receiver: Receiver) -> None:
    url = f"json://127.0.0.1:{receiver.port + 1 if receiver.port < 65535 else 1}/p/SECRET"
    sent = notify.send(url, "t", "b", allow_private=True, sleep=lambda s: None)
    assert not sent.ok and sent.error
    assert "SECRET" not in sent.error and "127.0.0.1" not in sent.error


def test_a_private_target_is_refused_unless_allowed(receiver: Receiver) -> None:
    sent = notify.send(receiver.url("p/x"), "t", "b", sleep=lambda s: None)
    assert not sent.ok and sent.tries == 0
    assert sent.error.startswith("not sent: its host resolves to a loopback address")
    assert "--notify-private" in sent.error
    assert receiver.posts == []
    assert notify.send(receiver.url("p/x"), "t", "b", allow_private=True).ok
    assert len(receiver.posts) == 1


def test_what_is_shown_of_a_url() -> None:
    assert notify.masked("json://127.0.0.1:8080/hook/SECRET") == "json://127.0.0.1"
    assert notify.masked("discord://123456789/SECRET") == "discord://..."
    assert notify.masked("mailtos://me:PASSWORD@mail.example.org") == \
        "mailtos://mail.example.org"
    told = notify.redact("failed for me:pw@host.example.org/SECRET/x?token=T0KEN at "
                         "http://host.example.org/SECRET/x\nand more",
                         "json://me:pw@host.example.org/SECRET/x?token=T0KEN")
    assert told.startswith("failed for ...") and "\n" not in told
    for part in ("SECRET", "T0KEN", "pw@", "host.example"):
        assert part not in told
    assert len(notify.redact("x" * 1000, "json://a.org/b")) == notify.ERROR_MAX


def test_revealing_the_seed_waits_until_the_channels_are_revoked(
        tmp_path: Path, receiver: Receiver) -> None:
    path = sealed_game(tmp_path)
    ok("notify", path, "--notify-private", "--as", "ben", receiver.url("b/SECRET"))
    for pid, move in (("ann", "take 3"), ("ben", "take 3"), ("cat", "take 3"),
                      ("ann", "take 1")):
        ok("move", path, "--as", pid, move)
    before = path.read_bytes()
    result = run("reveal", path)
    assert result.exit_code == 2 and "entry 1" in result.output, result.output
    assert "--channels-revoked" in result.output and path.read_bytes() == before
    ok("reveal", path, "--channels-revoked")
    assert gamefile.read(path).data["rng"]["seed"] == "s-1"


def test_apprise_is_imported_only_when_a_channel_is_used(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    import sys

    code = ("import sys, referee.mail.notify, referee.judge.core, referee.doors.mail.incoming, "
            "referee.cli.notify; print('apprise' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
    path = sealed_game(tmp_path)
    monkeypatch.setitem(sys.modules, "apprise", None)  # as if the extra were missing
    _refused(2, path, "--as", "ann", "json://example.org/x",
             words=("need apprise", "pip install 'referee[notify]'"))
    ok("notify", path, "--as", "ann", "--off")
