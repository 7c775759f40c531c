"""``State.copy`` (what determinize copies with): equal to the state, sharing no
mutable part with it except the SHARED parts fixed at setup, which no rule changes; play
on the copy leaves the original untouched."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from referee.engine import Match, random_playout
from referee.engine.rng import Rng
from referee.games.staufer import GAME
from referee.games.staufer.state import SHARED, State, encode

MUTABLE = (list, dict, msgspec.Struct)


def _containers(node: Any, path: str) -> list[tuple[str, Any]]:
    """Every list, dict and Struct inside ``node`` with its path (``node`` included)."""
    if not isinstance(node, MUTABLE):
        return []
    out = [(path, node)]
    if isinstance(node, list):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(node)]
    elif isinstance(node, dict):
        items = [(f"{path}[{k!r}]", v) for k, v in node.items()]
    else:
        items = [(f"{path}.{f}", getattr(node, f)) for f in node.__struct_fields__]
    for sub_path, value in items:
        out += _containers(value, sub_path)
    return out


def _states() -> list[State]:
    """Every 3rd decision of random games (2-5 players, privileges 2, 3, 7, 8, 13)."""
    out = []
    for n in (2, 3, 4, 5):
        options = {"privileges": "custom", "privilege_list": "1,2,3,7,8,13"}
        match = Match.start(GAME, [f"p{i}" for i in range(n)], options, f"copy-{n}")
        rng = Rng(f"copy-play-{n}")
        step = 0
        while not GAME.finished(match.state):
            if step % 3 == 0:
                out.append(copy.deepcopy(match.state))
            step += 1
            player = GAME.to_move(match.state)[0]
            match.play(player, rng.choice(GAME.legal_moves(match.state, player), "p"))
        out.append(match.state)
    return out


STATES = _states()


def test_the_states_hold_every_optional_part() -> None:
    assert any(s.deploy is not None for s in STATES)
    assert any(s.supply is not None for s in STATES)
    assert any(s.queue for s in STATES) and any(s.final for s in STATES)


@pytest.mark.parametrize("index", range(0, len(STATES), 7))
def test_copy_is_equal_and_shares_only_the_fixed_parts(index: int) -> None:
    state = STATES[index]
    twin = state.copy()
    assert encode(twin) == encode(state)  # the generator by its counters (no __eq__)
    assert twin.rng is not state.rng and twin.rng.counters == state.rng.counters
    for field in State.__struct_fields__:
        theirs = {path: id(obj) for path, obj in _containers(getattr(state, field), field)}
        for path, obj in _containers(getattr(twin, field), field):
            shared = theirs.get(path) == id(obj)
            assert shared == (field in SHARED), path


def test_rules_never_change_the_shared_parts() -> None:
    for n in (2, 5):
        match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"shared-{n}")
        before = {field: copy.deepcopy(getattr(match.state, field)) for field in SHARED}
        random_playout(match, Rng(f"shared-play-{n}"))
        assert {field: getattr(match.state, field) for field in SHARED} == before


def test_play_on_the_copy_leaves_the_original_untouched() -> None:
    for state in STATES[::11]:
        if state.finished:
            continue
        before = encode(state)
        twin = state.copy()
        match = Match(GAME, list(state.players), dict(state.options), twin, twin.rng)
        random_playout(match, Rng("copy-playout"))
        assert GAME.finished(twin) and encode(state) == before
