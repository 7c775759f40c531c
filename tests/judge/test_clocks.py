"""A judge game with a time bank (referee/judge/clocks.py): the mails show the clocks, a
player takes vacation by mail (the others are told), the judge reminds the awaited
player 24 h and 4 h before their time runs out, and then writes the timeout itself and
a bot plays the owed decision; the judge's clock is REFEREE_NOW, as for every entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.ledger import gamefile
from tests.conftest import ok
from tests.judge.support import body_text, reply, wrapped
from tests.judge.test_maildir_loop import Setup

CLOCK = ("--clock", "1d+12h/2d", "--vacation", "2", "--timeout", "bot:random")


def at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    monkeypatch.setenv("REFEREE_NOW", when)


def test_a_judge_game_with_a_time_bank_a_vacation_reminders_and_a_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at(monkeypatch, "2026-01-01T00:00:00Z")
    game = Setup(tmp_path, game="staufer", gid="st-1", extra=CLOCK)
    game.judge()
    start = game.new_mail()
    ann_text = body_text(next(m for m in start if m["X-Referee-Player"] == "ann"))
    assert "clock: 1d +12h a turn, at most 2d; 2 vacation days" in ann_text
    assert "ann          bank 1d, vacation 2d, awaited: times out" in ann_text

    at(monkeypatch, "2026-01-01T01:00:00Z")
    game.send(reply(game.latest("ann"), "supply 2"))
    at(monkeypatch, "2026-01-01T02:00:00Z")
    out = game.send(reply(game.latest("ben"), "vacation 1"))
    by = {m["X-Referee-Player"]: body_text(m) for m in out}
    assert any("Done: your clock stops for 1 day(s)." in body_text(m) for m in out
               if m["X-Referee-Player"] == "ben")
    assert by["ann"].startswith("ben takes 1 vacation day(s)")
    assert by["cat"].startswith("ben takes 1 vacation day(s)")
    log = gamefile.read(game.path).log
    assert log[-1]["meta"] == {"kind": "vacation", "player": "ben", "days": 1}
    assert "mac" in log[-1] and log[-1]["by"] == "ben"
    out = game.send(reply(game.latest("ben"), "vacation 5"))
    assert "`vacation` not done" in body_text(out[0]) and "1 left" in body_text(out[0])

    # ben: 1 d of bank from 01:00, a vacation day from 02:00, then 1 more vacation day
    # used automatically: out of time at 01:00 on 4 January
    at(monkeypatch, "2026-01-02T12:00:00Z")
    game.judge()
    assert game.new_mail() == []  # 37 h left: no reminder yet
    at(monkeypatch, "2026-01-03T02:00:00Z")
    game.judge()
    reminded = game.new_mail()
    assert [m["X-Referee-Player"] for m in reminded] == ["ben"]
    assert "Reminder: your time runs out at 2026-01-04 01:00 UTC, in 23h" in \
        body_text(reminded[0])
    game.judge()
    assert game.new_mail() == []  # once
    at(monkeypatch, "2026-01-03T22:00:00Z")
    game.judge()
    reminded = game.new_mail()
    assert [m["X-Referee-Player"] for m in reminded] == ["ben"]
    assert "in 3h" in body_text(reminded[0])

    at(monkeypatch, "2026-01-04T01:30:00Z")
    game.judge()
    after = game.new_mail()
    log = gamefile.read(game.path).log
    timeout = next(e for e in log if e.get("meta", {}).get("kind") == "timeout")
    assert timeout["meta"]["player"] == "ben" and "mac" in timeout
    assert timeout["at"] == "2026-01-04T01:30:00Z"
    bot_move = log[log.index(timeout) + 1]
    assert bot_move["by"] == "ben" and bot_move["bot"] is True
    rep = json.loads(ok("clock", game.path, "--json").output)
    awaited = next(p for p, row in rep["seats"].items() if row["awaited"])
    assert awaited != "ben" and rep["seats"]["ben"]["timeouts"] == 1
    mail = next(body_text(m) for m in after if m["X-Referee-Player"] == awaited)
    assert mail.startswith(f"Your turn, {awaited}")
    assert "ben          bank 12h, vacation 0d" in mail
    assert all(wrapped(body_text(m)) for m in after)
    assert ok("check", game.path).exit_code == 0



def test_a_timeout_for_the_game_master_mails_them_and_plays_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at(monkeypatch, "2026-01-01T00:00:00Z")
    game = Setup(tmp_path, game="staufer", gid="st-2", extra=("--clock", "6h"))
    game.options = ("--gm", "Gm <gm@example.org>")
    game.judge()
    game.new_mail()  # the start: 6 h left, no reminder (the mail says when)
    at(monkeypatch, "2026-01-01T03:00:00Z")
    game.judge()
    reminded = game.new_mail()
    assert [m["X-Referee-Player"] for m in reminded] == ["ann"]
    assert "in 3h" in body_text(reminded[0])
    at(monkeypatch, "2026-01-01T06:00:00Z")
    game.judge()
    out = game.new_mail()
    gm = [body_text(m) for m in out if m["X-Referee-Player"] == "gm"]
    assert gm and gm[-1].startswith("ann ran out of time (the game master is asked")
    assert "replace PLAYER NAME <ADDRESS>" in gm[-1]
    log = gamefile.read(game.path).log
    assert [e["meta"]["kind"] for e in log] == ["timeout"]
    game.judge()
    assert game.new_mail() == []  # once a turn
    assert "OUT OF TIME" in ok("clock", game.path).output


def test_the_game_master_sets_and_removes_a_time_bank_by_mail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at(monkeypatch, "2026-01-01T00:00:00Z")
    game = Setup(tmp_path, game="staufer", gid="st-3")
    game.options = ("--gm", "gm@example.org")
    game.judge()
    game.new_mail()
    out = game.send(reply(game.latest("gm"), "clock 2d+1d/5d vacation 3 timeout bot:greedy"))
    assert "Done." in gm_text(out)
    record = gamefile.read(game.path).log[-1]
    assert record["by"] == "gm" and "mac" in record
    assert record["meta"]["control"]["vacation"] == 3
    assert record["meta"]["control"]["timeout"] == "bot"
    assert "vacation 3d" in ok("clock", game.path).output
    out = game.send(reply(game.latest("gm"), "clock 2d vacation lots"))
    assert "Not done: clock: vacation takes a number of days" in gm_text(out)
    out = game.send(reply(game.latest("gm"), "clock off"))
    assert gamefile.read(game.path).log[-1]["meta"] == {"kind": "clock", "control": None}
    assert ok("clock", game.path).output.strip() == "clock: none"


def gm_text(out: list) -> str:  # type: ignore[type-arg]
    return "\n".join(body_text(m) for m in out if m["X-Referee-Player"] == "gm")
