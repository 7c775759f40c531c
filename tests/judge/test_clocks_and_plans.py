"""A whole judge game with both halves of docs/clocks.md and docs/plans.md at once: a
sealed Staufer game with a time bank, a vacation taken by mail, a plan that answers an
out-of-turn bonus chest pick the moment it arises, and a seat that runs out of time and
whose owed decision a bot plays; the file passes `check` at the end. The judge's clock is
REFEREE_NOW."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.ledger import gamefile
from tests import plangames as pg
from tests.conftest import ok
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup

PLAYERS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>"
SEED = "judge-seed"
CLOCK = ("--clock", "1d+12h/2d", "--vacation", "1", "--timeout", "bot:random")


def at(monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    monkeypatch.setenv("REFEREE_NOW", when)


def fresh(setup: Setup, pid: str):  # type: ignore[no-untyped-def]
    """A mail of ``pid``'s that answers the latest state (asking for the status)."""
    setup.send(reply(setup.latest(pid), "status"))
    return setup.latest(pid)


def test_a_judge_game_with_a_clock_a_vacation_a_plan_and_a_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at(monkeypatch, "2026-03-02T08:00:00Z")
    setup = Setup(tmp_path, game="staufer", gid="st-cp", players=PLAYERS, extra=CLOCK)
    setup.judge()
    # up to the move that raises another player's bonus chest pick (moves at 08:00)
    mover, move, owing = pg.play_until(setup.path, "p0", pg.raised(("pick",)), seed=SEED)
    match = pg.state(setup.path, SEED)
    game = match.game
    picker = next(p for p in owing if p != mover)
    after = game.copy_state(match.state)
    game.apply(after, mover, move)
    pick = game.format_move(game.legal_moves(after, picker)[-1])
    setup.judge()
    setup.new_mail()

    at(monkeypatch, "2026-03-02T09:00:00Z")
    out = setup.send(reply(fresh(setup, picker), f"plan\n{pick}"))
    assert any("Your plan is set." in body_text(m) for m in out)
    at(monkeypatch, "2026-03-02T10:00:00Z")
    out = setup.send(reply(fresh(setup, picker), "vacation 1"))
    assert any("Done: your clock stops for 1 day(s)." in body_text(m) for m in out)

    at(monkeypatch, "2026-03-02T11:00:00Z")
    setup.send(reply(fresh(setup, mover), pg.text(match, move)))
    log = gamefile.read(setup.path).log
    planned = next(e for e in reversed(log) if "plan" in e)
    assert planned["by"] == picker and planned["move"]["type"] == "pick"
    assert "mac" in planned  # the judge wrote it: its time is vouched for

    # nobody moves any more: the awaited seat's bank (at most 2 days) runs out
    rep = json.loads(ok("clock", setup.path, "--json").output)
    awaited = next(p for p, row in rep["seats"].items() if row["awaited"])
    at(monkeypatch, "2026-03-06T12:00:00Z")
    setup.judge()
    log = gamefile.read(setup.path).log
    timeout = next(e for e in log if e.get("meta", {}).get("kind") == "timeout")
    assert timeout["meta"]["player"] == awaited and "mac" in timeout
    bot_move = log[log.index(timeout) + 1]
    assert bot_move["by"] == awaited and bot_move["bot"] is True
    rep = json.loads(ok("clock", setup.path, "--json").output)
    assert rep["seats"][awaited]["timeouts"] == 1
    assert rep["seats"][picker]["vacation_left"] == 0
    mails = setup.new_mail()
    assert mails and all("clock:" in body_text(m) for m in mails
                         if m["X-Referee-Player"] in ("ann", "ben", "cat"))
    assert ok("check", setup.path).exit_code == 0
