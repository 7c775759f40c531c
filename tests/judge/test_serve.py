"""The judge's loop (referee/judge/serve.py) and how an inbox waits: a look that handled
mail is followed by another at once, only an empty or failed look waits; a Maildir's
wait wakes when a new name appears in ``new/``, and IMAP waits with IDLE wherever the
server offers it, with or without ``--idle``."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from referee.doors.mail.transport import Incoming, MaildirInbox
from referee.judge import DoorDown, RetryLater
from tests.doors.mail.test_servers import Delivering, Dovecot, servers  # noqa: F401 (fixture)
from tests.judge.support import deliver
from tests.judge.test_crash import JUDGE
from tests.judge.test_maildir_loop import SENDER, Setup

ROOT = Path(__file__).resolve().parents[2]
MAIL = b"From: a@example.org\r\nSubject: x\r\n\r\nhello\r\n"


class Stop(Exception):
    """Ends a loop under test (a deployment's judge ends by a signal)."""


class FakeInbox:
    """Yields the scripted batches of mail, one per look (then nothing); records each
    look and each wait; the wait after the last batch ends the loop."""

    def __init__(self, batches: list[int], calls: list[str]) -> None:
        self.batches, self.calls, self.waits = list(batches), calls, 1

    def pending(self):  # type: ignore[no-untyped-def]
        self.calls.append("look")
        count = self.batches.pop(0) if self.batches else 0
        for i in range(count):
            yield Incoming(f"m{len(self.calls)}-{i}", b"", "too large")

    def done(self, item: Incoming) -> None:
        raise AssertionError("an unread mail is quarantined, never done")

    def quarantine(self, item: Incoming) -> str:
        return "flagged"

    def wait(self, seconds: float) -> None:
        self.calls.append(f"wait {seconds}")
        self.waits -= 1
        if self.waits < 0:
            raise Stop

    def close(self) -> None:
        return None


class FakeOutbox:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        return []

    def close(self) -> None:
        self.calls.append("close outbox")


def serve(tmp_path: Path, batches: list[int], wait: float | None,
          fail: tuple[Exception, ...] = ()) -> list[str]:
    """The calls of a judge's loop (one mail door, no games) over scripted batches, until
    its second wait; ``fail``: what the door's first deliveries raise."""
    from referee.doors.mail.door import MailDoor
    from referee.judge import Config
    from referee.judge import serve as loop
    from referee.judge.core import Judge

    calls: list[str] = []
    games = tmp_path / "games"
    games.mkdir(exist_ok=True)
    config = Config(games, SENDER, log=lambda line: calls.append(f"log {line.split(' ')[0]}"))
    door = MailDoor(config, FakeOutbox(calls), FakeInbox(batches, calls))  # type: ignore[arg-type]
    failing, real = list(fail), door.flush

    def flush() -> int:
        if failing:
            raise failing.pop(0)
        return real()

    door.flush = flush  # type: ignore[method-assign]
    judge = Judge(config, [door])
    try:
        with contextlib.suppress(Stop):
            loop.serve(judge, config.log, wait)
    finally:
        judge.close()
    return calls


def test_a_look_that_handled_mail_is_followed_by_another_at_once(tmp_path: Path) -> None:
    calls = serve(tmp_path, [2, 1, 0, 3], 5.0)
    # quarantined mails are logged by the pass; each handled batch is logged once
    looks = [c for c in calls if c == "look" or c.startswith("wait")]
    assert looks == ["look", "look", "look", "wait 5.0", "look", "look", "wait 5.0"]
    assert calls.count("log processed") == 3


def test_once_looks_once_and_never_waits(tmp_path: Path) -> None:
    assert [c for c in serve(tmp_path, [2, 1], None) if not c.startswith("log quarantined")] \
        == ["look", "log processed"]
    assert serve(tmp_path, [], None) == ["look"]


@pytest.mark.parametrize("failure", [DoorDown("the server is down"),
                                     RetryLater("the disk is full")])
def test_a_failure_is_logged_the_loop_waits_and_once_raises_it(tmp_path: Path,
                                                               failure: Exception) -> None:
    calls = serve(tmp_path, [1], 2.0, fail=(failure,))
    if isinstance(failure, DoorDown):
        # the outgoing mail down: one line, and the inbox is still read (a pass reads
        # after a failed delivery); nothing more is read until the wait
        assert calls[:2] == ["log mail", "look"] and "wait 2.0" in calls
    else:  # the disk: the pass stops; it is tried again after the wait
        assert calls[:3] == ["log cannot", "wait 2.0", "look"]
    with pytest.raises(type(failure)):
        serve(tmp_path, [1], None, fail=(failure,))


def maildir(tmp_path: Path) -> Path:
    for sub in ("new", "cur", "tmp"):
        (tmp_path / "in" / sub).mkdir(parents=True)
    return tmp_path / "in"


def test_a_maildir_wait_wakes_when_a_mail_arrives(tmp_path: Path) -> None:
    box = maildir(tmp_path)
    inbox = MaildirInbox(box)
    assert list(inbox.pending()) == []
    later = threading.Timer(0.3, deliver, (box, MAIL))
    later.start()
    started = time.monotonic()
    inbox.wait(60)  # woken by the mail, not after 60 s
    later.join()
    assert time.monotonic() - started < 30
    assert [i.raw.split(b"\r\n")[1] for i in inbox.pending()] == [b"Subject: x"]


def test_a_maildir_wait_is_not_woken_by_a_mail_the_last_look_saw(tmp_path: Path) -> None:
    box = maildir(tmp_path)
    deliver(box, MAIL)
    inbox = MaildirInbox(box)
    assert len(list(inbox.pending())) == 1  # seen, left in new/ (as after a failed round)
    started = time.monotonic()
    inbox.wait(0.4)
    assert time.monotonic() - started >= 0.4
    assert inbox.step == 0.25  # the steps grew while nothing came


def test_the_judge_with_a_long_poll_answers_a_mail_at_once(tmp_path: Path) -> None:
    """Through the CLI: `--poll 120` over a Maildir; a mail put in after the judge's
    first look is handled long before the poll is up."""
    setup = Setup(tmp_path)
    judge = subprocess.Popen(
        [sys.executable, "-c", JUDGE, "judge",
         str(setup.games), "--maildir", str(setup.inbox), "--outbox", str(setup.outbox),
         "--from", SENDER, "--poll", "120", "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not setup.sent() and time.monotonic() < deadline:
            time.sleep(0.05)  # the start mails: the judge's first look is done
        assert setup.sent(), "no start mails"
        time.sleep(0.2)
        deliver(setup.inbox, b"From: someone@example.org\r\nSubject: hello\r\n"
                b"Auto-Submitted: auto-replied\r\n\r\nhi\r\n")
        started = time.monotonic()
        while list((setup.inbox / "new").iterdir()) and time.monotonic() < started + 60:
            time.sleep(0.02)
        assert not list((setup.inbox / "new").iterdir()), "the mail was not handled"
        assert time.monotonic() - started < 60  # not after the 120 s of the poll
    finally:
        judge.terminate()
        judge.wait(30)


@pytest.mark.slow
def test_imap_without_idle_flag_waits_with_idle_when_the_server_offers_it(
        servers: tuple[Dovecot, int, Delivering]) -> None:  # noqa: F811
    from referee.doors.mail.transport import ImapInbox

    dovecot, _, _ = servers
    inbox = ImapInbox(dovecot.url("referee"))  # as `--poll`: IDLE not asked for
    try:
        assert inbox.use_idle  # Dovecot offers IDLE
        assert list(inbox.pending()) == []
        later = threading.Timer(0.5, dovecot.deliver, ("referee", MAIL))
        later.start()
        started = time.monotonic()
        inbox.wait(20)  # IDLE returns when the message arrives, not after 20 s
        later.join()
        assert time.monotonic() - started < 15
        assert [i.raw.split(b"\r\n")[1] for i in inbox.pending()] == [b"Subject: x"]
    finally:
        inbox.close()


def test_a_long_running_judge_says_once_what_it_serves(tmp_path: Path) -> None:
    """One start-up line: the doors, the games, the state; then nothing until mail."""
    setup = Setup(tmp_path)
    judge = subprocess.Popen(
        [sys.executable, "-c", JUDGE, "judge", str(setup.games), "--maildir",
         str(setup.inbox), "--outbox", str(setup.outbox), "--from", SENDER, "--poll", "30"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert judge.stderr is not None
        first = judge.stderr.readline()
    finally:
        judge.terminate()
        judge.wait(30)
    assert first == (f"judge: serving 1 game in {setup.games} by mail, a pass at least "
                     f"every 30 s; state in {setup.games}/.referee-judge.sqlite\n"), first
