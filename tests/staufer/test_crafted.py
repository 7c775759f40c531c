"""Hand-crafted game files: every move a hostile player can write into the log either
fails to decode (msgspec.ValidationError with a JSON path) or is a move that
format_move, parse_move, public_text and why_illegal handle without an exception, and
why_illegal never shows hidden state."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import engine
from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.staufer import GAME
from referee.games.staufer.moves import CHEST_TYPES
from tests.leaks import assert_no_leaks

TAGS = ("supply", "deploy", "seat", "first", "privilege", "done", "take", "pick", "keep",
        "return")
FIELDS = ("space", "chests", "envoy", "draw", "region", "seat", "free_move", "free_pay",
          "figure", "nobles", "double", "bonus", "number", "chest", "court")
WORDS = (*GAME.data.region_keys, *CHEST_TYPES, "envoy", "noble", "", "nowhere", "Aachen")


def _states() -> list[Any]:
    """Real states, one per phase met in a few seeded random games (2 and 4 players)."""
    found: dict[str, Any] = {}
    for n, seed in ((2, "a"), (4, "b"), (4, "c"), (3, "d")):
        options = {"privileges": "custom", "privilege_list": "1,2,3,13,14,15"}
        match = Match.start(GAME, [f"p{i}" for i in range(n)], options, f"crafted-{seed}")
        rng = Rng(f"crafted-play-{seed}")
        while not GAME.finished(match.state):
            phase = match.state.phase
            if phase not in found:
                found[phase] = copy.deepcopy(match.state)
            player = GAME.to_move(match.state)[0]
            match.play(player, rng.choice(GAME.legal_moves(match.state, player), "p"))
        found.setdefault("over", copy.deepcopy(match.state))
    return [found[k] for k in sorted(found)]


STATES = _states()
HIDDEN = [GAME.hidden_items(state, None) for state in STATES]  # all, the player's own too

values = st.one_of(
    st.integers(min_value=-3, max_value=20),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.lists(st.sampled_from(WORDS), max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
untyped = st.builds(
    lambda tag, fields: {"type": tag, **fields},
    st.one_of(st.sampled_from(TAGS), st.text(max_size=6), st.integers()),
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=5)), values,
                    max_size=5),
)
near = st.one_of(st.integers(min_value=0, max_value=6), st.integers(min_value=-2, max_value=18))
word = st.sampled_from(WORDS)
region = st.one_of(st.sampled_from(GAME.data.region_keys), word)
figure = st.sampled_from(("envoy", "noble", "", "king"))
flag = st.booleans()


def _typed(tag: str, required: dict[str, Any], optional: dict[str, Any]) -> Any:
    return st.fixed_dictionaries({"type": st.just(tag), **required}, optional=optional)


typed = st.one_of(
    _typed("supply", {"space": near}, {"chests": near, "envoy": flag, "draw": flag}),
    _typed("deploy", {"region": region, "seat": near}, {"free_move": flag, "free_pay": flag}),
    _typed("seat", {"figure": figure}, {
        "nobles": st.lists(st.sampled_from((*GAME.data.region_keys, "x")), max_size=4),
        "double": flag, "bonus": flag}),
    _typed("privilege", {"number": near}, {}),
    _typed("take", {"region": region}, {}),
    _typed("pick", {"chest": st.one_of(st.sampled_from(CHEST_TYPES), word)}, {}),
    _typed("keep", {}, {"region": region, "seat": near, "figure": figure}),
    _typed("return", {"court": flag}, {}),
    _typed("first", {}, {}),
    _typed("done", {}, {}),
)
moves = st.one_of(typed, untyped)


def test_phases_covered() -> None:
    phases = {s.phase for s in STATES}
    assert {"turn", "seat", "take", "end", "pick", "keep", "return", "purple", "over"} <= phases


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves)
def test_crafted_moves_decode_or_are_handled_totally(obj: dict[str, Any]) -> None:
    try:
        move = msgspec.convert(obj, GAME.move_type)
    except msgspec.ValidationError:
        return
    text = GAME.format_move(move)
    assert GAME.parse_move(text, []) == move, text
    assert engine.public_text(GAME, move) == text
    assert engine.private_fields(GAME, move) == ()
    for state, hidden in zip(STATES, HIDDEN, strict=True):
        for player in (*state.players, "stranger"):
            why = GAME.why_illegal(state, player, move)
            assert isinstance(why, str) and why
            assert_no_leaks({f"why_illegal for {player}": why}, hidden)
            assert not any(c in why for cs in state.contracts for c in cs)


@pytest.mark.parametrize(
    ("obj", "path"),
    [
        ({"type": "deploy", "region": "nowhere", "seat": 1}, "$.region"),
        ({"type": "deploy", "region": "aachen", "seat": 99}, "$.seat"),
        ({"type": "supply", "space": 0}, "$.space"),
        ({"type": "supply", "space": 2, "chests": 6}, "$.chests"),
        ({"type": "privilege", "number": 17}, "$.number"),
        ({"type": "pick", "chest": "gold"}, "$.chest"),
        ({"type": "take", "region": "paris"}, "$.region"),
        ({"type": "seat", "figure": "king"}, "$.figure"),
        ({"type": "seat", "figure": "envoy", "nobles": ["aachen", "x"]}, "$.nobles[1]"),
        ({"type": "seat", "figure": "envoy", "nobles": ["aachen"] * 4}, "$.nobles"),
        ({"type": "keep", "region": "aachen", "seat": 9, "figure": "envoy"}, "$.seat"),
    ],
)
def test_values_outside_the_game_data_are_rejected_with_their_path(
    obj: dict[str, Any], path: str
) -> None:
    with pytest.raises(msgspec.ValidationError) as err:
        msgspec.convert(obj, GAME.move_type)
    assert str(err.value).endswith(f"at `{path}`")


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "seat", "figure": "envoy", "nobles": ["milano", "aachen"]},
        {"type": "keep", "region": "aachen"},
        {"type": "keep", "seat": 2, "figure": "envoy"},
    ],
)
def test_moves_without_one_canonical_notation_are_rejected(obj: dict[str, Any]) -> None:
    """Unsorted Noble spaces and half-filled keeps would print as another move."""
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(obj, GAME.move_type)
