"""Hand-crafted game files: a move object either fails to decode (msgspec.ValidationError
with a JSON path) or every function the core calls on it runs without an exception."""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import AmbiguousMove, MalformedMove
from referee.games.dynasties import GAME
from referee.games.dynasties import moves as M
from tests.dynasties.hidden import named_in, positions, redeal_secrets

D = GAME.data  # the component data of the current game

STRUCTS = [M.Trade, M.TradeTwice, M.SecondTrade, M.Place, M.Use, M.SitOut, M.Pass, M.Divide,
           M.Choose, M.Take, M.DivideDice, M.ChooseDice, M.KeepScoring, M.Bonus, M.Country,
           M.Marry, M.Envoy, M.Monastery, M.Score, M.Done]
TAGS = [cls.__struct_config__.tag for cls in STRUCTS]

junk = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(),
                 st.text(max_size=8), st.lists(st.integers(0, 3), max_size=2))
goods = st.text(alphabet="kwgbpxK ", max_size=20)
faces = st.lists(st.sampled_from([*D.faces, "joker"]), min_size=0, max_size=3).map("+".join)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "card": st.one_of(st.integers(-2, 40), st.sampled_from([*D.scoring, "a07", "z1"])),
    "keep": st.integers(-2, 40),
    "ship": st.integers(-1, 5),
    "space": st.one_of(st.integers(-1, 6), st.sampled_from([*D.bonus, "arms", "nowhere"])),
    "pay": goods, "goods": goods, "first": goods, "second": goods,
    "figure": st.sampled_from(["prince", "princess", "king"]),
    "city": st.sampled_from([*D.cities, *D.free_cities, "atlantis", ""]),
    "personality": st.sampled_from([*D.personalities, "nobody"]),
    "special": st.one_of(st.booleans(), st.integers(0, 2)),
    "save": st.booleans(),
    "source": st.sampled_from(["ship", "bag", "0", "1", "2", "3", "4", "sea"]),
    "single": st.sampled_from([*D.faces, "joker", "child+arms"]),
    "pair": faces, "faces": faces,
    "purpose": st.sampled_from(["upgrade", "wild", "arms"]),
    "country": st.sampled_from([*D.countries, "gaul"]),
}
FIELDS = sorted({f.name for cls in STRUCTS for f in msgspec.structs.fields(cls)})




def valid_value(cls: type, name: str) -> st.SearchStrategy[Any]:
    """Values that decode for this field of this move (legal or not)."""
    if name == "card":
        if cls in (M.Score, M.KeepScoring):
            return st.sampled_from(list(D.scoring))
        return st.integers(0 if cls is M.Pass else 1, len(D.action_cards))
    if name == "space":
        return st.integers(0, 4) if cls is M.Pass else st.sampled_from(list(D.bonus))
    if name == "city" and cls is M.Envoy:
        return st.sampled_from(D.free_cities)
    one_face = st.sampled_from(D.faces)
    return {
        "keep": st.integers(0, len(D.action_cards)), "ship": st.integers(1, 3),
        "pay": st.text(alphabet="kwgbp", max_size=8),
        "goods": st.text(alphabet="kwgbp", max_size=8),
        "first": st.text(alphabet="kwgbp", max_size=6),
        "second": st.text(alphabet="kwgbp", max_size=6),
        "figure": st.sampled_from(["prince", "princess"]),
        "city": st.sampled_from(list(D.cities)),
        "personality": st.sampled_from(list(D.personalities)),
        "special": st.booleans(), "save": st.booleans(),
        "source": st.sampled_from(["ship", "bag", "1", "2", "3"]),
        "single": one_face,
        "pair": st.tuples(one_face, one_face).map("+".join),
        "faces": st.lists(one_face, min_size=1, max_size=2).map("+".join),
        "purpose": st.sampled_from(["upgrade", "wild"]),
        "country": st.sampled_from(D.countries),
    }[name]


@st.composite
def move_objects(draw: st.DrawFn) -> Any:
    """Well-typed moves, moves with one bad field, moves with arbitrary fields, junk."""
    mode = draw(st.integers(0, 3))
    if mode == 3:
        return draw(junk)
    tag = draw(st.sampled_from([*TAGS, "bogus"] if mode == 2 else TAGS))
    cls = STRUCTS[TAGS.index(tag)] if tag in TAGS else M.Done
    names = [f.name for f in msgspec.structs.fields(cls)]
    if mode == 0:
        return {"type": tag, **{n: draw(valid_value(cls, n)) for n in names}}
    if mode == 1:
        body = {n: draw(valid_value(cls, n)) for n in names}
        bad = draw(st.sampled_from(names or FIELDS))
        body[bad] = draw(st.one_of(VALUES[bad], junk))
        return {"type": tag, **body}
    if draw(st.booleans()):
        names.append(draw(st.sampled_from(FIELDS)))
    body = draw(st.fixed_dictionaries({}, optional={n: st.one_of(VALUES[n], junk)
                                                    for n in names}))
    return {"type": tag, **body}


STATES = [state for n, seed in ((3, "crafted-a"), (5, "crafted-b"))
          for state in positions(n, seed).values()][::3]


def test_states_cover_turns_and_decisions() -> None:
    kinds = {s.queue[0].kind if s.queue else "turn" for s in STATES}
    assert "turn" in kinds and len(kinds) >= 4


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(move_objects())
def test_crafted_move_decodes_or_is_handled(obj: Any) -> None:
    try:
        move = msgspec.convert(obj, GAME.move_type)
    except msgspec.ValidationError:
        return
    text = GAME.format_move(move)
    assert isinstance(GAME.public_text(move), str)
    assert set(GAME.private_fields(move)) <= {f.name for f in msgspec.structs.fields(move)}
    for state in STATES:
        legal = GAME.legal_moves(state, GAME.to_move(state)[0])
        for player in (pl.id for pl in state.players[:2]):
            assert GAME.why_illegal(state, player, move)
        with contextlib.suppress(MalformedMove, AmbiguousMove):
            GAME.parse_move(text, legal)
    state = STATES[0]
    other = redeal_secrets(state, named_in(move))
    player = GAME.to_move(state)[0]
    assert GAME.why_illegal(state, player, move) == GAME.why_illegal(other, player, move)


@pytest.mark.parametrize(("obj", "path"), [
    ({"type": "trade", "card": 35, "ship": 1}, "$.card"),
    ({"type": "trade", "card": 3, "ship": 4}, "$.ship"),
    ({"type": "place", "card": 3, "figure": "prince", "city": "atlantis", "pay": ""}, "$.city"),
    ({"type": "place", "card": 3, "figure": "king", "city": "paris", "pay": ""}, "$.figure"),
    ({"type": "place", "card": 3, "figure": "prince", "city": "paris", "pay": "kx"}, "$.pay"),
    ({"type": "pass", "space": 5}, "$.space"),
    ({"type": "pass", "space": 0, "keep": -1}, "$.keep"),
    ({"type": "take", "goods": "k", "source": "4"}, "$.source"),
    ({"type": "choose-dice", "faces": "child+joker"}, "$.faces"),
    ({"type": "divide-dice", "single": "child", "pair": "arms"}, "$.pair"),
    ({"type": "keep", "card": "y21"}, "$.card"),
    ({"type": "bonus", "space": "arms"}, "$.space"),
    ({"type": "country", "purpose": "arms", "country": "france"}, "$.purpose"),
    ({"type": "envoy", "city": "paris"}, "$.city"),
])
def test_values_outside_the_data_are_rejected_with_a_path(obj: dict, path: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=rf"at `\{path}`"):
        msgspec.convert(obj, GAME.move_type)
