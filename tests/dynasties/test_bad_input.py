"""Bad input at the library level: each is rejected with the rule that forbids it."""

from __future__ import annotations

import re

import pytest

from referee.engine import resolve_move
from referee.errors import AmbiguousMove, IllegalMove, MalformedMove, NotYourTurn
from referee.games.dynasties import GAME
from tests.dynasties.helpers import (
    grant_card,
    new_game,
    play,
    put,
    set_goods,
    set_ship,
    turn_of,
)


def divide_position():
    s = new_game()
    set_ship(s, 1, "kkwgp")
    turn_of(s, "red")
    play(s, "red", f"trade 1 with {grant_card(s, 'red', action='trade')}")
    turn_of(s, "blue")
    play(s, "blue", f"trade 1 with {grant_card(s, 'blue', action='trade')}")
    return s


def test_divide_into_an_empty_group() -> None:
    s = divide_position()
    with pytest.raises(IllegalMove, match="cannot divide into an empty group"):
        resolve_move(GAME, s, "blue", "divide kkwgp/none")


def test_divide_goods_not_on_the_ship() -> None:
    s = divide_position()
    with pytest.raises(IllegalMove, match="exactly the goods on ship 1"):
        resolve_move(GAME, s, "blue", "divide kkk/wg")


def test_choose_a_group_not_offered() -> None:
    s = divide_position()
    play(s, "blue", "divide wg/kkp")
    with pytest.raises(IllegalMove, match="kk was not offered"):
        resolve_move(GAME, s, "red", "choose kk")


def test_not_your_turn_while_a_decision_is_owed() -> None:
    s = divide_position()
    with pytest.raises(NotYourTurn):
        resolve_move(GAME, s, "red", "choose kk")


def test_card_not_in_hand() -> None:
    s = new_game()
    turn_of(s, "blue")
    missing = next(n for n in range(1, 35) if n not in s.players[0].hand)
    with pytest.raises(IllegalMove, match=f"you do not hold card {missing}"):
        resolve_move(GAME, s, "blue", f"trade 1 with {missing}")


def test_card_without_the_action() -> None:
    s = new_game()
    turn_of(s, "blue")
    card = next(n for n, c in GAME.data.action_cards.items() if "trade" not in c.actions)
    for pl in s.players:
        if card in pl.hand:
            pl.hand.remove(card)
    s.deck = [c for c in s.deck if c != card]
    s.players[0].hand.append(card)
    with pytest.raises(IllegalMove, match=f"card {card} does not show the Trade symbol"):
        resolve_move(GAME, s, "blue", f"trade 1 with {card}")


def test_pay_with_goods_you_do_not_have() -> None:
    s = new_game()
    set_goods(s, "blue", "wpppp")
    turn_of(s, "blue")
    card = grant_card(s, "blue", action="princess")
    with pytest.raises(IllegalMove, match="you cannot pay 3 white: you have 1"):
        resolve_move(GAME, s, "blue", f"princess granada with {card} pay www")


def test_pay_the_wrong_goods() -> None:
    s = new_game()
    set_goods(s, "blue", "kkkwww")
    turn_of(s, "blue")
    card = grant_card(s, "blue", action="princess")
    with pytest.raises(IllegalMove, match="the cost is 3 white"):
        resolve_move(GAME, s, "blue", f"princess granada with {card} pay kkk")


def test_occupied_space_and_own_figure() -> None:
    s = new_game()
    put(s, "red", "prince", "carcassonne")
    put(s, "blue", "prince", "paris")
    set_goods(s, "blue", "kkkwww")
    turn_of(s, "blue")
    card = grant_card(s, "blue", action="prince")
    with pytest.raises(IllegalMove, match="already occupied"):
        resolve_move(GAME, s, "blue", f"prince carcassonne with {card} pay k")
    card = grant_card(s, "blue", action="princess")
    with pytest.raises(IllegalMove, match="never both"):
        resolve_move(GAME, s, "blue", f"princess paris with {card} pay w")


def test_passing_space_needs_pink() -> None:
    s = new_game()
    set_goods(s, "blue", "p")
    turn_of(s, "blue")
    keep = s.players[0].hand[0]
    with pytest.raises(IllegalMove, match="cannot pay 3 pink: you have 1"):
        resolve_move(GAME, s, "blue", f"pass 1 keep {keep}")


def test_malformed_and_ambiguous() -> None:
    s = new_game()
    turn_of(s, "blue")
    with pytest.raises(MalformedMove, match="unknown verb"):
        resolve_move(GAME, s, "blue", "fly to the moon")
    with pytest.raises(MalformedMove, match="not a city"):
        resolve_move(GAME, s, "blue", "prince atlantis with 3")
    with pytest.raises(AmbiguousMove):  # which card to keep?
        resolve_move(GAME, s, "blue", "pass")
    set_goods(s, "blue", "kkkpp")
    card = grant_card(s, "blue", action="prince")
    with pytest.raises(AmbiguousMove):  # kkk or kkpp?
        resolve_move(GAME, s, "blue", f"prince paris with {card}")


def test_choose_by_number() -> None:
    s = divide_position()
    play(s, "blue", "divide wg/kkp")
    assert GAME.format_move(resolve_move(GAME, s, "red", "choose 2")) == "choose wg"


@pytest.mark.parametrize(("text", "why"), [
    ("trade 9 with 3", "a ship is a number from 1 to 3, not 9"),
    ("trade 1 with 35", "an action card is a number from 1 to 34, not 35"),
    ("sit out 0", "an action card is a number from 1 to 34, not 0"),
    ("pass 5", "a passing-track space is a number from 0 to 4, not 5"),
    ("pass keep 99", "the action card you keep is a number from 0 to 34, not 99"),
    ("take k from ship 4", "'4' is not a ship (1-3)"),
    ("choose " + "k" * 17, "goods letters (k w g b p): at most 16, not 17"),
])
def test_a_value_outside_its_bound_is_malformed_before_any_rule(text: str, why: str) -> None:
    """The parser never returns a move the file format would refuse (Privilege(17) of
    the issue: a value past its bound was read, then called illegal by the rules)."""
    s = new_game()
    player = GAME.to_move(s)[0]
    with pytest.raises(MalformedMove, match=re.escape(why)):
        resolve_move(GAME, s, player, text)


def test_the_bound_is_named_in_german_too() -> None:
    from referee import i18n

    with i18n.language("de"), pytest.raises(
            MalformedMove, match=re.escape("erwartet: ein Schiff, eine Zahl von 1 bis 3, "
                                           "gefunden: 9")):
        GAME.parse_move("trade 9 with 3", [])
