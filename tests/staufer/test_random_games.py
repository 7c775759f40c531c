"""Random legal games of The Staufer Dynasty: the rounds, the turns, the privilege decks
and the office seats follow the rules. (The promises every game keeps at every position
are the conformance suite's: tests/conformance/.)"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee.engine import Match, random_playout
from referee.engine.rng import Rng
from referee.games.staufer import GAME

SEEDS = range(12)


def _play(n: int, seed: int, options: dict[str, str] | None = None) -> Match:
    match = Match.start(GAME, [f"p{i}" for i in range(n)], options or {}, f"seed-{n}-{seed}")
    random_playout(match, Rng(f"playout-{n}-{seed}"))
    return match


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_follow_the_rounds_and_turns(n: int, seed: int) -> None:
    """Five rounds of 15 turns (Supply or Move/Deploy) per player, one player owing a
    decision at a time, scores that never fall. (What every game must do at every
    position, the notation, the views, the leaks, the replay, is the conformance suite's:
    tests/conformance/.)"""
    players = [f"p{i}" for i in range(n)]
    match = Match.start(GAME, players, {}, f"seed-{n}-{seed}")
    state = match.state
    rng = Rng(f"playout-{n}-{seed}")
    turns = {p: 0 for p in players}
    previous = dict(GAME.scores(state))
    rounds_seen = [state.round]
    while not GAME.finished(state):
        owing = GAME.to_move(state)
        assert len(owing) == 1
        player = owing[0]
        legal = GAME.legal_moves(state, player)
        assert legal and len(legal) < 400
        move = rng.choice(legal, "playout")
        if state.phase == "turn" and type(move).__name__ in ("Supply", "Deploy"):
            turns[player] += 1
        match.play(player, move)
        scores = GAME.scores(state)
        assert all(scores[p] >= previous[p] for p in players)
        previous = dict(scores)
        if state.round != rounds_seen[-1]:
            rounds_seen.append(state.round)
    assert rounds_seen == [1, 2, 3, 4, 5]
    assert all(t == 15 for t in turns.values()), turns


@pytest.mark.parametrize("deck", ["alternatives", "synergies", "raining-points", "quantity",
                                  "publisher", "partially-random", "random"])
def test_privilege_decks_play_to_the_end(deck: str) -> None:
    for n in (2, 5):
        for seed in range(3):
            match = _play(n, seed, {"privileges": deck, "privilege_copies": "1"})
            assert GAME.finished(match.state)
            assert GAME.invariants(match.state) == []


def test_all_privileges_play_to_the_end() -> None:
    """Custom decks covering all 16 numbers, with purple-rich games."""
    for deck in ("1,2,3,4,5,6", "1,7,8,9,10,11", "1,12,13,14,15,16", "1,2,3,10,11,12"):
        for seed in range(6):
            match = _play(4, seed, {"privileges": "custom", "privilege_list": deck})
            assert GAME.invariants(match.state) == []
            assert GAME.render(match.state, "p0")


def test_fingerprint_changes_with_the_state() -> None:
    match = Match.start(GAME, ["a", "b", "c"], {}, "fp")
    before = GAME.fingerprint(match.state)
    match.play("a", GAME.legal_moves(match.state, "a")[0])
    assert GAME.fingerprint(match.state) != before


def _scored_titles(state: Any, round_before: int) -> list[str]:
    """Regions scored in ``round_before`` if its Cleanup ran in this move, else []."""
    if state.round == round_before:
        return []
    mark = f"Round {round_before} scoring: "
    line = next(e for e in reversed(state.events) if e.startswith(mark))
    return line.removeprefix(mark).split(", ")


def _seat_problems(state: object, before: list[list[list[tuple[int, str]]]], vacated: list[str]
                   ) -> list[str]:
    """Office seats (Move/Deploy; privileges 2/3; Cleanup 1): at most 2 figures; a seat
    with a Noble icon is occupied by a Noble first; a second figure belongs to a player
    holding privilege 2 or 3; outside the Cleanup a seat only gains figures, and only on
    top of the ones already there."""
    s: Any = state
    problems = []
    for pos, row in enumerate(s.seats):
        for i, occ in enumerate(row):
            where = f"{s.ring[pos]} seat {i + 1}"
            if len(occ) > 2:
                problems.append(f"{where}: {len(occ)} figures")
            if occ and s.seat_noble[pos][i] and occ[0][1] != "N":
                problems.append(f"{where}: Noble icon but {occ[0]} first")
            if len(occ) == 2 and not {2, 3} & set(s.privileges[occ[1][0]]):
                problems.append(f"{where}: second figure without privilege 2 or 3")
            old = before[pos][i]
            if s.data.region_titles[s.ring[pos]] in vacated:
                if any(occ.count(f) > old.count(f) for f in occ):
                    problems.append(f"{where}: {old} became {occ} in the Cleanup")
            elif occ[: len(old)] != old:
                problems.append(f"{where}: {old} became {occ} outside the Cleanup")
    return problems


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_office_seats_follow_the_occupation_rules(n: int) -> None:
    """Property F (not covered above): after every move of random games with privileges
    2 and 3 in play, every office seat obeys the Move/Deploy and privilege 2/3 rules."""
    doubled = 0
    for seed in range(4):
        options = {"privileges": "custom", "privilege_list": "1,2,3,4,5,6"}
        match = Match.start(GAME, [f"p{i}" for i in range(n)], options, f"seats-{n}-{seed}")
        rng = Rng(f"seats-play-{n}-{seed}")
        while not GAME.finished(match.state):
            before = copy.deepcopy(match.state.seats)
            round_before = match.state.round
            player = GAME.to_move(match.state)[0]
            match.play(player, rng.choice(GAME.legal_moves(match.state, player), "p"))
            vacated = _scored_titles(match.state, round_before)
            assert _seat_problems(match.state, before, vacated) == []
            doubled = max(doubled, sum(len(o) == 2 for r in match.state.seats for o in r))
    assert doubled > 0  # the games met seats with two figures
