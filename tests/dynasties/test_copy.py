"""``State.copy`` (what determinize and so every search iteration of a bot copies) is
complete and independent: equal to the original, sharing no mutable object with it
except the component data (``state.data``, never changed) and the data files' effect
lists that queued tasks name, and moves played on the copy never reach the original."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties.state import State

D = GAME.data  # the component data of the current game


def data_ids(node: Any, out: set[int]) -> set[int]:
    """ids of every list and dict inside the data files (shared on purpose)."""
    if isinstance(node, dict):
        out.add(id(node))
        for value in node.values():
            data_ids(value, out)
    elif isinstance(node, list):
        out.add(id(node))
        for value in node:
            data_ids(value, out)
    return out


DATA = data_ids(D.files, set())


def shared(a: Any, b: Any, path: str = "state") -> list[str]:
    """Paths of mutable objects that ``a`` and ``b`` hold in common."""
    if path == "state.data":
        assert a is b is D  # the one component data, shared on purpose
        return []
    record = isinstance(a, msgspec.Struct) and not a.__struct_config__.frozen  # (State...)
    mutable = isinstance(a, (list, dict, Rng)) or record
    if mutable and a is b and id(a) not in DATA:
        return [path]
    if isinstance(a, list):
        assert len(a) == len(b), path
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True))
                for p in shared(x, y, f"{path}[{i}]")]
    if isinstance(a, dict):
        assert list(a) == list(b), path
        return [p for k in a for p in shared(a[k], b[k], f"{path}[{k!r}]")]
    if isinstance(a, Rng):
        return shared(a.counters, b.counters, f"{path}.counters")
    if record:
        return [p for name in a.__struct_fields__
                for p in shared(getattr(a, name), getattr(b, name), f"{path}.{name}")]
    return []


def states(n: int, seed: str) -> list[State]:
    """Every 4th state of a random game (deep copies), and the final one."""
    match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"copy-{seed}-{n}")
    rng = Rng(f"copy-moves-{seed}")
    out = []
    while not GAME.finished(match.state):
        if len(match.log) % 4 == 0:
            out.append(copy.deepcopy(match.state))
        mover = GAME.to_move(match.state)[0]
        match.play(mover, rng.choice(GAME.legal_moves(match.state, mover), "m"))
    return [*out, match.state]


def probe(state: State) -> int:
    return state.rng.copy().block("probe")


@pytest.mark.parametrize("n", [3, 4, 5])
def test_copy_is_complete_and_independent(n: int) -> None:
    found = states(n, "a")
    assert found[-1].phase == "over" and found[-1].final
    assert any(s.queue for s in found) and any(s.phase == "end" for s in found)
    for state in found:
        before = GAME.fingerprint(state)
        out = state.copy()
        assert type(out) is State
        assert GAME.fingerprint(out) == before and probe(out) == probe(state)
        assert shared(state, out) == []
        rng = Rng(f"copy-on-{before}")
        for _ in range(12):  # play on in the copy: the original does not move
            if GAME.finished(out):
                break
            mover = GAME.to_move(out)[0]
            GAME.apply(out, mover, rng.choice(GAME.legal_moves(out, mover), "m"))
        assert GAME.fingerprint(state) == before


def test_deepcopy_is_the_same_copy() -> None:
    state = states(4, "b")[10]
    out = copy.deepcopy(state)
    assert GAME.fingerprint(out) == GAME.fingerprint(state) and shared(state, out) == []
    pair = copy.deepcopy([state, state])  # one copy per object, as deepcopy promises
    assert pair[0] is pair[1] and pair[0] is not state


def test_the_walk_finds_what_a_shallow_copy_shares() -> None:
    state = states(3, "c")[6]
    assert {"state.players", "state.rng", "state.cities", "state.queue"} <= \
        set(shared(state, copy.copy(state)))
    out = state.copy()
    out.players[0].goods = state.players[0].goods
    assert shared(state, out) == ["state.players[0].goods"]
