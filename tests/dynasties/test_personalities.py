"""Data-driven effects: Leonardo's extra bonus action, the neutral marriage, bonus spaces."""

from __future__ import annotations

import copy
import typing

import msgspec
import pytest

from referee.errors import NotImplementedRule
from referee.games.dynasties import GAME, current_files, game
from referee.games.dynasties import effects as E
from referee.games.dynasties import records as R
from referee.games.dynasties.moves import Bonus
from tests.dynasties.helpers import (
    everyone_else_passed,
    grant_card,
    idx,
    new_game,
    play,
    put,
    set_goods,
    turn_of,
)


def light_blue(state, key: str, space: int = 5) -> None:
    """Move a personality onto light-blue space ``space`` (0-based; 5 costs nothing)."""
    i = state.personalities.index(key)
    p = state.personalities
    p[i], p[space] = p[space], p[i]


def test_leonardo_extra_bonus_action_comes_last() -> None:
    s = new_game()
    light_blue(s, "leonardo")
    turn_of(s, "blue")
    play(s, "blue", f"use leonardo with {grant_card(s, 'blue', action='personality')}")
    assert s.leonardo == idx(s, "blue")
    everyone_else_passed(s, "blue")
    turn_of(s, "blue")
    blue = s.players[idx(s, "blue")]
    play(s, "blue", f"pass keep {blue.hand[0]}")
    order = []
    while s.queue and s.queue[0].kind == "bonus":
        who = GAME.to_move(s)[0]
        leo = s.queue[0].leonardo  # type: ignore[attr-defined]
        order.append((who, leo))
        legal = GAME.legal_moves(s, who)
        pick = Bonus("cards") if Bonus("cards") in legal else Bonus("points")
        if leo:
            assert Bonus("cards") not in legal  # taken earlier this round: not shareable
        play(s, who, GAME.format_move(pick))
    assert order[-1] == ("blue", True) and len(order) == 5
    assert s.leonardo is None and GAME.invariants(s) == []


def test_matchmaker_neutral_marriage() -> None:
    s = new_game()
    light_blue(s, "matchmaker")
    put(s, "red", "prince", "paris")
    turn_of(s, "red")
    play(s, "red", f"use matchmaker with {grant_card(s, 'red', action='personality')}")
    # the only lone figure is in Paris, so the city is chosen automatically
    assert s.cities["paris"].princess == -1 and s.neutral == 2
    assert s.queue[0].kind == "neutral_dice"
    s.queue[0] = msgspec.structs.replace(s.queue[0], dice=("points", "points", "child"))
    score = s.players[idx(s, "red")].score
    play(s, "red", "choose child+points")
    assert s.cities["paris"].star == idx(s, "red")
    assert s.players[idx(s, "red")].score == score + 3
    assert GAME.invariants(s) == []


def test_monastery_without_pink_releases_automatically() -> None:
    s = new_game()
    s.round = 2
    put(s, "green", "princess", "paris")
    set_goods(s, "green", "")
    everyone_else_passed(s, "green")
    turn_of(s, "green")
    play(s, "green", f"pass keep {s.players[idx(s, 'green')].hand[0]}")
    while s.queue and s.queue[0].kind == "bonus":
        play(s, GAME.to_move(s)[0], "bonus points")
    assert s.cities["paris"].princess is None


def test_every_effect_primitive_the_data_may_name_is_carried_out() -> None:
    """The interpreter knows each record an effect may be read as (data.py refuses any
    other when the data is read: the next test)."""
    assert set(E.RUN) == set(typing.get_args(R.Effect))


def test_data_naming_an_unknown_effect_primitive_is_refused_when_read() -> None:
    files = copy.deepcopy(current_files())
    files["personalities"]["personalities"][0]["effects"] = [{"op": "teleport"}]
    with pytest.raises(NotImplementedRule, match="unknown effect primitive 'teleport'"):
        game(files)
