"""The judge's state in SQLite (referee/judge/store.py): a save writes in one transaction
what changed (rows per game), a mail sent is off the queue at once and never sent again
after a crash, a judge killed at any moment (kill -9, in the middle of saves) restarts
from the last complete save, a full disk leaves the state as it was and is the judge's
surroundings, and the state of a judge before SQLite is moved in once."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox
from referee.errors import GameFileError, UsageError
from referee.judge import Config, sweep
from referee.judge.failures import environment_failure
from referee.judge.store import JOURNAL_NAME, STATE_NAME, Store
from tests.judge.support import deliver, reply
from tests.judge.test_maildir_loop import SENDER, Setup
from tests.support.judgestate import read_state, write_state

ROOT = Path(__file__).resolve().parents[2]


class Recording:
    """An outbox that keeps what it was given."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        self.sent.append(msgid)
        return []

    def close(self) -> None:
        return None


def judge_of(setup: Setup, outbox: Recording) -> Judge:
    return Judge(Config(setup.games, SENDER), outbox)


def statements(s: Store) -> list[str]:
    """The SQL statements ``s`` runs from now on (kept in the list returned)."""
    seen: list[str] = []
    s.db.set_trace_callback(seen.append)
    return seen


# --------------------------------------------------------------------------- saves


def test_mails_sent_before_a_crash_are_not_sent_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    first = Recording()
    judge = judge_of(setup, first)
    monkeypatch.setattr(judge, "settle", lambda: None)  # killed before the round's save
    sweep(judge)
    assert len(first.sent) == 3
    again = Recording()
    restarted = judge_of(setup, again)
    assert restarted.store.queue("mail") == []  # each off the queue as it was sent
    run_once(restarted, MaildirInbox(setup.inbox))
    assert again.sent == []
    assert read_state(setup.games)["queue"] == []


def test_mails_queued_and_not_sent_go_out_after_a_restart(tmp_path: Path) -> None:
    setup = Setup(tmp_path)

    class Down(Recording):
        def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
            from referee.mail.delivery import DeliveryError

            raise DeliveryError("the SMTP server is down")

    judge = judge_of(setup, Down())
    sweep(judge)  # the start mails queued and saved, none delivered
    assert len(read_state(setup.games)["queue"]) == 3
    again = Recording()
    run_once(judge_of(setup, again), MaildirInbox(setup.inbox))
    assert len(again.sent) == 3 and read_state(setup.games)["queue"] == []


def test_a_save_writes_what_changed_not_every_game(tmp_path: Path) -> None:
    """The statements of a save that changed one game do not grow with the number of
    games in the state."""
    counts = []
    for games in (10, 1000):
        folder = tmp_path / str(games)
        folder.mkdir()
        s = Store(folder)
        for i in range(games):
            s.game(f"g{i}")
        s.save()
        s.close()
        s = Store(folder)
        s.game("g3")["seen"] = 7
        s.mark_answered("<one@player.example>")
        seen = statements(s)
        s.save()
        counts.append(len([q for q in seen if not q.startswith(("BEGIN", "COMMIT"))]))
        s.close()
        assert read_state(folder)["games"]["g3"]["seen"] == 7
    assert counts[0] == counts[1] == 2  # the game's row and the handled reference


def test_a_change_made_after_a_save_is_written_by_the_next_one(tmp_path: Path) -> None:
    s = Store(tmp_path)
    entry = s.game("g1")
    s.save()
    entry["seen"] = 3  # (handed out before the save: still the store's)
    s.game("g1")
    s.save()
    assert read_state(tmp_path)["games"]["g1"]["seen"] == 3


def test_a_full_disk_leaves_the_state_as_it_was_and_is_the_surroundings(
        tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.game("g1")["seen"] = 1
    s.save()
    page = s.db.execute("PRAGMA page_count").fetchone()[0]
    s.db.execute(f"PRAGMA max_page_count = {page}")  # the disk is full from here on
    for i in range(50):
        s.game(f"big{i}")["blob"] = "x" * 4000
    s.game("g1")["seen"] = 2
    with pytest.raises(GameFileError) as caught:
        s.save()
    assert environment_failure(caught.value)  # RetryLater for the judge: not the mail's fault
    s.close()
    assert read_state(tmp_path)["games"] == {"g1": {**read_state(tmp_path)["games"]["g1"],
                                                    "seen": 1}}


def test_the_state_is_the_owners_only(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    made = [p for p in setup.games.iterdir() if p.name.startswith(STATE_NAME)]
    assert made and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in made)


def test_a_state_of_another_version_or_no_database_is_a_clear_error(tmp_path: Path) -> None:
    s = Store(tmp_path)
    s.db.execute("PRAGMA user_version = 99")
    s.close()
    with pytest.raises(UsageError, match="another version"):
        Store(tmp_path)
    (tmp_path / STATE_NAME).write_bytes(b"not a database at all" * 100)
    for name in (JOURNAL_NAME, STATE_NAME + "-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    with pytest.raises(UsageError, match="cannot read the judge state"):
        Store(tmp_path)


def test_read_and_write_state_round_trip(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    data = read_state(setup.games)
    assert set(data["games"]) == {"toy-1"} and data["games"]["toy-1"]["roots"]
    data["games"]["toy-1"]["reminded"] = "2026-01-01T00:00:00+00:00"
    write_state(setup.games, data)
    again = read_state(setup.games)
    assert again["games"] == data["games"] and again["answered"] == data["answered"]


# --------------------------------------------------------------------------- killed


SAVER = """
import sys
from pathlib import Path
from referee.judge.store import Store
s = Store(Path(sys.argv[1]))
n = 0
while True:
    n += 1
    for g in range(5):
        s.game(f"g{g}")["seen"] = n
    s.mark_answered(f"<{n}@player.example>")
    s.save()
    print(n, flush=True)
"""


def test_a_judge_killed_in_the_middle_of_saves_restarts_from_a_whole_save(
        tmp_path: Path) -> None:
    """kill -9 at random moments of a loop of saves: every game's row is of one save,
    the same for all (a save is one transaction), and none older than the last one the
    process said it finished."""
    for attempt in range(5):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        saver = subprocess.Popen([sys.executable, "-c", SAVER, str(folder)], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True)
        assert saver.stdout is not None
        done = 0
        while done < 20 + 7 * attempt:
            done = int(saver.stdout.readline())
        time.sleep(0.001 * attempt)
        os.kill(saver.pid, signal.SIGKILL)
        saver.wait()
        games = read_state(folder)["games"]
        seen = {state["seen"] for state in games.values()}
        assert len(games) == 5 and len(seen) == 1, games
        assert seen.pop() >= done  # a save that returned is on the disk


# --------------------------------------------------------------------------- the old state


def test_the_state_of_a_judge_before_sqlite_is_moved_in_once(tmp_path: Path) -> None:
    """The JSON state, its write-ahead journal and its list of mails sent, as a judge
    before SQLite left them: read once (a torn last record ignored, the mails named sent
    dropped), then renamed; the games keep their roots (no new thread)."""
    from referee.judge import legacy

    base = {"format": "referee-judge/1", "games": {"toy-1": {
        "seen": 0, "counter": 3, "last": {}, "asked": {}, "roots": {"ann|a@x": "<r@x>"},
        "waiting": [], "since": None, "reminded": None, "expired": None}},
        "queue": [{"id": "<q1@x>", "to": ["a@x"], "raw": "x"},
                  {"id": "<q2@x>", "to": ["b@x"], "raw": "y"}],
        "answered": ["<a1@x>"], "strangers": []}
    raw = json.dumps(base, sort_keys=True).encode()
    (tmp_path / legacy.STATE_NAME).write_bytes(raw)
    record = json.dumps({"games": {"toy-1": {**base["games"]["toy-1"], "counter": 4}},
                         "answered": ["<a2@x>"], "rest": {}}).encode()
    torn = json.dumps({"games": {"toy-1": None}, "answered": [], "rest": {}}).encode()
    digest = legacy._digest
    (tmp_path / legacy.JOURNAL_NAME).write_bytes(
        legacy.MAGIC + b" " + digest(raw).encode() + b"\n"
        + digest(record).encode() + b" " + record + b"\n"
        + digest(torn).encode() + b" " + torn[:-3])
    (tmp_path / legacy.SENT_NAME).write_bytes(b"<q1@x>\n<q2")
    data = read_state(tmp_path)
    assert data["games"]["toy-1"]["counter"] == 4
    assert data["games"]["toy-1"]["roots"] == {"ann|a@x": "<r@x>"}
    assert data["answered"] == ["<a1@x>", "<a2@x>"]
    assert [q["id"] for q in data["queue"]] == ["<q2@x>"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".migrated") == sorted(
        n + ".migrated" for n in legacy.names())
    assert read_state(tmp_path) == data  # once: nothing read again


def test_a_game_whose_file_is_gone_is_kept_and_not_served(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    s = Store(setup.games)
    s.game("gone-1")["file"] = "gone-1.json"
    s.save()
    s.close()
    deliver(setup.inbox, reply(setup.latest("ann"), "take 1"))
    setup.judge()
    assert "gone-1" in read_state(setup.games)["games"]

