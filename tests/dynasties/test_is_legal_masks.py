"""Dynasties' ``is_legal`` asks the turn generator for only the moves of the same kind and
card (and figure and city, or personality): for legal moves with one field changed (what
those masks look at), and for the legal moves of other positions,
``is_legal(state, p, m) == (m in legal_moves(state, p))``."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties import moves as M
from referee.games.dynasties.rules import legal_moves
from referee.games.dynasties.state import State
from tests.dynasties.test_crafted_moves import valid_value


def game_states(n: int, seed: str) -> list[State]:
    match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"masks-{seed}-{n}")
    rng = Rng(f"masks-moves-{seed}")
    out = []
    while not GAME.finished(match.state):
        out.append(match.state.copy())
        mover = GAME.to_move(match.state)[0]
        match.play(mover, rng.choice(GAME.legal_moves(match.state, mover), "m"))
    return out


STATES = [s for n in (3, 4, 5) for s in game_states(n, "x")]
TURNS = [s for s in STATES if not s.queue]


def mover(state: State) -> str:
    return GAME.to_move(state)[0]


def agrees(state: State, player: str, move: Any) -> bool:
    return GAME.is_legal(state, player, move) == (move in GAME.legal_moves(state, player))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_legal_move_changed_in_one_field(data: st.DataObject) -> None:
    state = data.draw(st.sampled_from(TURNS if data.draw(st.booleans()) else STATES))
    legal = GAME.legal_moves(state, mover(state))
    move = data.draw(st.sampled_from(legal))
    names = [f.name for f in msgspec.structs.fields(move)]
    if names:
        name = data.draw(st.sampled_from(names))
        value = data.draw(valid_value(type(move), name))
        move = msgspec.structs.replace(move, **{name: value})
    player = data.draw(st.sampled_from([mover(state), *(pl.id for pl in state.players)]))
    assert agrees(state, player, move)


def test_masks_over_whole_games() -> None:
    """Every turn position, with the legal moves of the turns before it: both answers
    occur, and each agrees with the full list."""
    answers = {True: 0, False: 0}
    pool: list[Any] = []
    for state in TURNS:
        legal = GAME.legal_moves(state, mover(state))
        for move in [*legal, *pool]:
            assert agrees(state, mover(state), move), GAME.format_move(move)
            answers[move in legal] += 1
        pool = [*pool, *legal[::7]][-80:]
    assert answers[True] > 5000 and answers[False] > 5000


def test_an_unmasked_call_is_the_whole_list() -> None:
    for state in TURNS[::10]:
        p = [pl.id for pl in state.players].index(mover(state))
        assert legal_moves(state, p, None) == legal_moves(state, p)
        kinds = {type(m) for m in legal_moves(state, p)}
        assert M.SitOut in kinds or not state.players[p].hand
