"""The judge's state is saved once per incoming mail; a mail sent is named in a journal
(not a save of its own), and a judge restarted after a crash between sending and saving
does not send those mails again (referee/judge/store.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.judge import Config, Judge, run_once, statejournal, sweep
from referee.judge.store import SENT_NAME, STATE_NAME, Store, read_state
from referee.judge.transport import MaildirInbox
from referee.ledger import fileio
from tests.test_judge import SENDER, Setup
from tests.test_judge_support import deliver, reply


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


def state(setup: Setup) -> dict[str, Any]:
    return read_state(setup.games, drop_sent=False)


def test_mails_sent_before_a_crash_are_not_sent_again(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    first = Recording()
    judge = judge_of(setup, first)
    monkeypatch.setattr(judge, "settle", lambda: None)  # killed before the round's save
    sweep(judge)
    assert len(first.sent) == 3
    assert [m["id"] for m in state(setup)["queue"]] == first.sent  # saved before sending
    assert (setup.games / SENT_NAME).read_text().splitlines() == first.sent
    again = Recording()
    restarted = judge_of(setup, again)
    assert restarted.store.data["queue"] == []
    run_once(restarted, MaildirInbox(setup.inbox))
    assert again.sent == []
    assert state(setup)["queue"] == [] and not (setup.games / SENT_NAME).exists()


def test_a_journal_line_cut_short_names_no_mail(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    first = Recording()
    judge = judge_of(setup, first)
    monkeypatch.setattr(judge, "settle", lambda: None)
    sweep(judge)
    journal = setup.games / SENT_NAME
    whole = first.sent[0]
    journal.write_text(f"{whole}\n{first.sent[1]}")  # the last line lost its end
    store = Store(setup.games)
    assert [m["id"] for m in store.data["queue"]] == first.sent[1:]
    again = Recording()
    run_once(judge_of(setup, again), MaildirInbox(setup.inbox))
    assert again.sent == first.sent[1:]  # sent once more: never lost, never wrong


def test_one_state_save_per_incoming_mail(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    latest = setup.latest("ann")
    deliver(setup.inbox, reply(latest, "take 1"))
    saves: list[bool] = []
    real, real_append = fileio.write_atomic, statejournal.append

    def counting(path: Path, data: bytes, **kwargs: Any) -> None:
        if path.name == STATE_NAME:
            saves.append(kwargs.get("durable", True))
        real(path, data, **kwargs)

    def appending(path: Path, base: bytes, record: bytes) -> int:
        saves.append(True)  # (a record is fsynced: durable)
        return real_append(path, base, record)

    monkeypatch.setattr(fileio, "write_atomic", counting)
    monkeypatch.setattr(statejournal, "append", appending)
    outbox = Recording()
    judge = judge_of(setup, outbox)
    stats = run_once(judge, MaildirInbox(setup.inbox))
    assert stats.played == 1 and len(outbox.sent) >= 2
    assert saves == [True, True]  # the mail's answers queued; the round's end
    assert state(setup)["queue"] == [] and not (setup.games / SENT_NAME).exists()
