"""The judge's sweep looks only at the games whose file changed since their last look,
or whose next reminder or deadline has come (referee/judge/looks.py); what it mails is
as before (the deadlines themselves: tests/judge/test_meta.py, the clocks:
tests/judge/test_clocks.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox, MaildirOutbox
from referee.judge import Config, deadlines
from tests.conftest import run
from tests.judge.support import Clock, deliver, reply
from tests.judge.test_maildir_loop import PLAYERS, SENDER, Setup


class Counting(Judge):
    """A judge that counts the games whose deadlines the sweep tends (each look does so
    once: see :func:`counting`)."""

    looked: list[str]


@pytest.fixture(autouse=True)
def counting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep's deadline look, counted on the judge it is made for."""
    real = deadlines.tend

    def counted(judge: Judge, path: Path) -> dt.datetime | None:
        if isinstance(judge, Counting):
            judge.looked.append(path.name)
        return real(judge, path)

    monkeypatch.setattr(deadlines, "tend", counted)


def judge_of(setup: Setup, clock: Clock, hours: int | None = None) -> Counting:
    judge = Counting(Config(setup.games, SENDER, deadline_hours=hours, clock=clock),
                     MaildirOutbox(setup.outbox))
    judge.looked = []
    return judge


def games(setup: Setup, count: int) -> None:
    for i in range(2, count + 1):
        result = run("new", "toy", setup.games / f"toy-{i}.json", "--sealed", "--seed",
                     f"judge-seed-{i}", "--insecure-seed", "--id", f"toy-{i}", "--players", PLAYERS)
        assert result.exit_code == 0, result.output


def test_a_mail_looks_at_its_game_and_a_quiet_round_at_none(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    games(setup, 5)
    judge, inbox = judge_of(setup, Clock()), MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    assert sorted(judge.looked) == [f"toy-{i}.json" for i in range(1, 6)]
    assert len(setup.new_mail()) == 15
    judge.looked.clear()
    run_once(judge, inbox)
    assert judge.looked == [] and setup.new_mail() == []
    deliver(setup.inbox, reply(setup.latest("ann"), "take 1"))
    run_once(judge, inbox)
    assert judge.looked == ["toy-1.json"]
    assert sorted(m["X-Referee-Player"] for m in setup.new_mail()) == ["ann", "ben"]
    judge.looked.clear()
    run_once(judge, inbox)
    assert judge.looked == [] and setup.new_mail() == []


def test_a_move_by_another_writer_is_seen_at_the_next_look(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    games(setup, 3)
    judge, inbox = judge_of(setup, Clock()), MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    judge.looked.clear()
    result = run("move", setup.games / "toy-2.json", "--as", "ann", "take 1")
    assert result.exit_code == 0, result.output
    run_once(judge, inbox)
    assert judge.looked == ["toy-2.json"]
    out = setup.new_mail()
    assert sorted((m["X-Referee-Game"], m["X-Referee-Player"]) for m in out) == [
        ("toy-2", "ann"), ("toy-2", "ben")]


def test_a_game_is_looked_at_again_when_its_reminder_and_deadline_come(
        tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    games(setup, 2)
    clock = Clock()
    judge, inbox = judge_of(setup, clock, hours=10), MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    judge.looked.clear()
    clock.now += dt.timedelta(hours=7, minutes=29)
    run_once(judge, inbox)
    assert judge.looked == [] and setup.new_mail() == []
    clock.now += dt.timedelta(minutes=1)  # 0.75 of 10 h: the reminders
    run_once(judge, inbox)
    assert sorted(judge.looked) == ["toy-1.json", "toy-2.json"]
    out = setup.new_mail()
    assert sorted((m["X-Referee-Game"], m["X-Referee-Player"]) for m in out) == [
        ("toy-1", "ann"), ("toy-2", "ann")]
    judge.looked.clear()
    clock.now += dt.timedelta(hours=2, minutes=29)
    run_once(judge, inbox)
    assert judge.looked == [] and setup.new_mail() == []
    clock.now += dt.timedelta(minutes=1)  # the deadline
    run_once(judge, inbox)
    assert sorted(judge.looked) == ["toy-1.json", "toy-2.json"]
    assert len(setup.new_mail()) == 6
    judge.looked.clear()
    clock.now += dt.timedelta(days=30)
    run_once(judge, inbox)
    assert judge.looked == [] and setup.new_mail() == []


def test_a_clock_that_goes_back_and_a_restart_look_at_every_game(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    games(setup, 2)
    clock = Clock()
    judge, inbox = judge_of(setup, clock), MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    judge.looked.clear()
    clock.now -= dt.timedelta(seconds=1)
    run_once(judge, inbox)
    assert sorted(judge.looked) == ["toy-1.json", "toy-2.json"]
    again = judge_of(setup, clock)
    run_once(again, inbox)
    assert sorted(again.looked) == ["toy-1.json", "toy-2.json"]
    assert len(setup.new_mail()) == 6  # the start mails only: no look mails twice
