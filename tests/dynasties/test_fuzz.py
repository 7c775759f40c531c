"""Random legal games of Dynasties at 3, 4 and 5 players: the rounds, the generator's
counters in the fingerprint, and every point announced in the public log."""

from __future__ import annotations

import re

import pytest

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties.state import State

SEEDS = range(12)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_end_after_the_third_round(n: int, seed: int) -> None:
    """One player owes a decision at a time, and the game ends with the third round.
    (What every game must do at every position, the notation, the views, the leaks, the
    replay, is the conformance suite's: tests/conformance/.)"""
    match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"fuzz-{n}-{seed}")
    rng = Rng(f"moves-{seed}")
    state = match.state
    for _ in range(5000):
        if GAME.finished(state):
            break
        owing = GAME.to_move(state)
        assert len(owing) == 1, GAME.prompt(state)
        match.play(owing[0], rng.choice(GAME.legal_moves(state, owing[0]), "playout"))
    assert GAME.finished(state) and state.round == 3


def test_fingerprint_changes_with_rng_counters() -> None:
    a = Match.start(GAME, ["a", "b", "c"], {}, "x").state
    before = GAME.fingerprint(a)
    a.rng.block("unused")
    assert GAME.fingerprint(a) != before


SCORED = re.compile(r"^(\S+) scored (\d+) \(")


def listen(state: State, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every public log line ``state`` writes from now on (state.events keeps only the
    last 40)."""
    lines: list[str] = []
    log = State.log

    def record(self: State, text: str) -> None:
        if self is state:
            lines.append(text)
        log(self, text)

    monkeypatch.setattr(State, "log", record)
    return lines


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_point_is_in_the_public_log(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random play: after every move, each player's score rose by exactly the points the
    public log announced for them ("ann scored 3 (...)"), plus the final-scoring breakdown
    at the end; so scores never fall and no point is awarded silently."""
    for seed in range(12):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"points-{n}-{seed}")
        state = match.state
        lines = listen(state, monkeypatch)
        rng = Rng(f"points-moves-{seed}")
        while not GAME.finished(state):
            before = GAME.scores(state)
            lines.clear()
            player = GAME.to_move(state)[0]
            match.play(player, rng.choice(GAME.legal_moves(state, player), "playout"))
            announced = dict.fromkeys(before, 0)
            for line in lines:
                found = SCORED.match(line)
                if found:
                    announced[found.group(1)] += int(found.group(2))
            for part in state.final.values():
                for who, pts in [*part["majority"].items(), *part["crown"].items()]:
                    announced[who] += pts
            after = GAME.scores(state)
            assert {p: after[p] - before[p] for p in before} == announced
