"""``is_legal`` asks the one generator for only the moves that could equal the logged
move (its kind, Supply space, Region and seat, seat figure). Over states of random games
with the privileges that change Move/Deploy (2, 3, 4, 5, 10, 11, 12) and Supply (7, 8),
every move of the Supply, Move/Deploy and Seat move spaces, and every other kind, must
get ``is_legal(...) == (move in legal_moves(...))``, and each filtered list must be a
sub-list, in order, of the full one."""

from __future__ import annotations

import copy
from itertools import combinations_with_replacement
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.staufer import GAME, rules
from referee.games.staufer.moves import (
    CHEST_TYPES,
    MAX_SEATS,
    Deploy,
    Done,
    First,
    Keep,
    Move,
    Pick,
    Privilege,
    Return,
    Seat,
    Supply,
    Take,
)

DECKS = ("1,2,3,4,5,6", "1,7,8,10,11,12", "1,2,4,10,12,16", "1,3,5,8,11,13")
SPACES = GAME.data.supply_numbers
REGIONS = GAME.data.region_keys
FLAGS = (False, True)


def _states() -> list[Any]:
    """Every 5th decision of one random game per deck and player count."""
    found = []
    for d, deck in enumerate(DECKS):
        for n in (2, 3, 4, 5):
            options = {"privileges": "custom", "privilege_list": deck}
            match = Match.start(GAME, [f"p{i}" for i in range(n)], options, f"mask-{d}-{n}")
            rng = Rng(f"mask-play-{d}-{n}")
            step = 0
            while not GAME.finished(match.state):
                player = GAME.to_move(match.state)[0]
                if step % 5 == 0:
                    found.append(copy.deepcopy(match.state))
                step += 1
                match.play(player, rng.choice(GAME.legal_moves(match.state, player), "p"))
    return found


STATES = _states()

SUPPLY_SPACE = [Supply(s, c, e, d) for s in SPACES for c in (0, *SPACES) for e in FLAGS
                for d in FLAGS]
DEPLOY_SPACE = [Deploy(r, s, fm, fp) for r in REGIONS for s in range(1, MAX_SEATS + 1)
                for fm in FLAGS for fp in FLAGS]
SEAT_SPACE = [Seat(f, nobles, double, bonus) for f in ("envoy", "noble")
              for k in range(4) for nobles in combinations_with_replacement(REGIONS, k)
              for double in FLAGS for bonus in FLAGS]
OTHER_SPACE: list[Move] = [
    First(), Done(), Return(True), Return(False), Keep(),
    *(Privilege(x) for x in range(1, 17)),
    *(Take(r) for r in REGIONS),
    *(Pick(t) for t in CHEST_TYPES),
    *(Keep(r, s, f) for r in REGIONS for s in (1, 2) for f in ("envoy", "noble")),
]


def _is_sublist(part: list[Move], whole: list[Move]) -> bool:
    it = iter(whole)
    return all(any(m == w for w in it) for m in part)


def _agree(state: Any, moves: list[Move]) -> int:
    """Checks every move for the player to move and one other; returns legal ones seen."""
    legal_seen = 0
    mover = state.players[state.active]
    other = state.players[(state.active + 1) % len(state.players)]
    for player in (mover, other):
        legal = GAME.legal_moves(state, player)
        for move in moves:
            filtered = rules.legal_moves(state, player, move)
            assert _is_sublist(filtered, legal), GAME.format_move(move)
            got = GAME.is_legal(state, player, move)
            assert got == (move in legal), (state.phase, player, GAME.format_move(move))
            legal_seen += got
    return legal_seen


def test_states_reach_the_masked_phases() -> None:
    phases = [s.phase for s in STATES]
    assert phases.count("turn") > 100 and phases.count("seat") > 20
    privileges = {x for s in STATES for held in s.privileges for x in held}
    assert {2, 4, 5, 7, 8, 10, 11, 12} <= privileges


@pytest.mark.parametrize("space", ["supply", "deploy", "other"])
def test_every_move_of_a_space_agrees(space: str) -> None:
    moves = {"supply": SUPPLY_SPACE, "deploy": DEPLOY_SPACE, "other": OTHER_SPACE}[space]
    legal = sum(_agree(state, moves) for state in STATES)
    assert legal > 100  # the spaces hold legal moves too, not only illegal ones


def test_every_seat_move_agrees_in_seat_decisions() -> None:
    seat_states = [s for s in STATES if s.phase == "seat"]
    legal = sum(_agree(state, SEAT_SPACE) for state in seat_states)
    assert legal > 50


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(STATES), st.integers(min_value=-2, max_value=8),
       st.sampled_from((*REGIONS, "nowhere", 3)), st.sampled_from(("envoy", "king", 0)))
def test_values_outside_the_data_are_never_legal(state: Any, number: int, region: Any,
                                                  figure: Any) -> None:
    """Moves built in process skip the decoder's checks: a seat, space or region out of
    range, or a figure that is no figure, must be illegal, never an index error."""
    moves: list[Move] = [Deploy(region, number), Supply(number, 0), Seat(figure),
                         Supply(1, number)]
    for move in moves:
        for player in state.players:
            assert GAME.is_legal(state, player, move) == (
                move in GAME.legal_moves(state, player))


def test_the_filtered_lists_hold_the_generators_own_moves() -> None:
    """``True == 1``: a move built in process with ``space=True`` is found like ``space=1``
    (as ``in`` finds it), and the cached moves are still built from the generator's own
    numbers and words, never from the asked move's values."""
    state = next(s for s in STATES if s.phase == "turn" and rules.supply_moves(s, s.active))
    player = state.players[state.active]
    assert GAME.is_legal(state, player, Supply(True)) == (Supply(1) in
                                                          GAME.legal_moves(state, player))
    for move in rules.legal_moves(state, player, Supply(1)):
        assert isinstance(move, Supply) and type(move.space) is int
        assert GAME.format_move(move).startswith("supply 1")
