"""Random legal games at 3, 4 and 5 players: the engine's promises hold after every move."""

from __future__ import annotations

import re

import msgspec
import pytest

from referee.engine import Match, random_playout
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from tests.leaks import assert_state_hides, assert_views_hide

SEEDS = range(12)


def play_checked(n: int, seed: int) -> Match:
    match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"fuzz-{n}-{seed}")
    rng = Rng(f"moves-{seed}")
    state = match.state
    for _ in range(5000):
        if GAME.finished(state):
            break
        assert GAME.invariants(state) == []
        owing = GAME.to_move(state)
        assert owing, GAME.prompt(state)
        player = owing[0]
        legal = GAME.legal_moves(state, player)
        assert legal, f"dead end for {player}: {GAME.prompt(state)}"
        texts = [GAME.format_move(m) for m in legal]
        assert len(set(texts)) == len(texts), "two legal moves share a notation"
        for m, text in zip(legal, texts, strict=True):
            assert GAME.parse_move(text, legal) == m
            assert GAME.parse_move(text.upper(), legal) == m
            assert msgspec.convert(msgspec.to_builtins(m), GAME.move_type) == m
        for other in state.players:
            if other.id != player:
                assert GAME.legal_moves(state, other.id) == []
        match.play(player, rng.choice(legal, "playout"))
    assert GAME.finished(state)
    assert state.round == 3
    assert GAME.invariants(state) == []
    return match


def no_leaks(match: Match, text: bool = True) -> None:
    """Every viewer's view (with ``text``: and board text and prompt) shows none of the
    hidden items that viewer may not see, and each player's own items (the control)."""
    assert_state_hides(GAME, match.state, text)
    if text:  # and no view changes when what its viewer cannot see is re-dealt
        assert_views_hide(GAME, match.state, seeds=2)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_game(n: int, seed: int) -> None:
    match = play_checked(n, seed)
    replay = Match.start(GAME, match.players, {}, f"fuzz-{n}-{seed}")
    for player, move in match.log:
        stored = msgspec.convert(msgspec.to_builtins(move), GAME.move_type)
        assert stored in GAME.legal_moves(replay.state, player)
        replay.play(player, stored)
    assert GAME.fingerprint(replay.state) == GAME.fingerprint(match.state)
    assert GAME.ranking(match.state)[0]
    assert set(GAME.scores(match.state)) == set(match.players)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_views_never_leak(n: int) -> None:
    for seed in range(4):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"leak-{n}-{seed}")
        rng = Rng(f"leak-moves-{seed}")
        while not GAME.finished(match.state):
            if len(match.log) % 2 == 0:  # half the positions; the text of every 8th
                no_leaks(match, text=len(match.log) % 8 == 0)
            player = GAME.to_move(match.state)[0]
            match.play(player, rng.choice(GAME.legal_moves(match.state, player), "playout"))
        no_leaks(match)


def test_engine_random_playout() -> None:
    for n in (3, 4, 5):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, "engine")
        assert random_playout(match, Rng("engine-moves")) > 0
        assert GAME.finished(match.state)


def test_fingerprint_changes_with_rng_counters() -> None:
    a = Match.start(GAME, ["a", "b", "c"], {}, "x").state
    before = GAME.fingerprint(a)
    a.rng.block("unused")
    assert GAME.fingerprint(a) != before


SCORED = re.compile(r"^(\S+) scored (\d+) \(")


def listen(state) -> list[str]:
    """Every public log line written from now on (state.events keeps only the last 40)."""
    lines: list[str] = []
    log = state.log

    def record(text: str) -> None:
        lines.append(text)
        log(text)

    state.log = record
    return lines


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_point_is_in_the_public_log(n: int) -> None:
    """Random play: after every move, each player's score rose by exactly the points the
    public log announced for them ("ann scored 3 (...)"), plus the final-scoring breakdown
    at the end; so scores never fall and no point is awarded silently."""
    for seed in range(12):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"points-{n}-{seed}")
        state = match.state
        lines = listen(state)
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
