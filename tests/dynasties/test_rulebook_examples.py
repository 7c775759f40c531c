"""Every worked example of the rulebook, played from a real position with real moves."""

from __future__ import annotations

import msgspec

from referee.games.dynasties import GAME, words
from referee.games.dynasties import scoring as S
from referee.games.dynasties.effects import letters
from referee.games.dynasties.moves import Place, Use
from tests.dynasties.helpers import (
    everyone_else_passed,
    grant_card,
    idx,
    new_game,
    play,
    put,
    set_goods,
    set_ship,
    settle,
    turn_of,
)


def pending_kind(state) -> str | None:
    return state.queue[0].kind if state.queue else None


def test_trade_blue_divides_red_chooses() -> None:
    """Trade, Dividing and Choosing: Blue divides, Red takes the 2 black + pink."""
    s = new_game()
    red, blue = s.players[idx(s, "red")], s.players[idx(s, "blue")]
    set_ship(s, 1, "kkwgp")
    set_goods(s, "red", "")
    set_goods(s, "blue", "")
    turn_of(s, "red")
    play(s, "red", f"trade 1 with {grant_card(s, 'red', action='trade')}")
    assert s.ships[0].large == idx(s, "red")  # the first figure takes the large space
    turn_of(s, "blue")
    play(s, "blue", f"trade 1 with {grant_card(s, 'blue', action='trade')}")
    assert GAME.to_move(s) == ["blue"] and pending_kind(s) == "divide"
    play(s, "blue", "divide wg / kkp")
    assert GAME.to_move(s) == ["red"] and "kkp or wg" in GAME.prompt(s)
    play(s, "red", "choose kkp")
    assert letters(red.goods) == "kkp" and letters(blue.goods) == "wg"
    assert s.ships[0].large is None and s.ships[0].small is None
    assert sum(s.ships[0].goods) == 5  # the Banker refills the ship
    assert red.supply == blue.supply == 17


def test_trading_with_yourself() -> None:
    """Special case: both figures yours - take 2 goods, the rest go back to the bag."""
    s = new_game()
    blue = s.players[idx(s, "blue")]
    set_ship(s, 2, "kwgbp")
    set_goods(s, "blue", "g")
    turn_of(s, "blue")
    card = grant_card(s, "blue", special="trade_twice")
    play(s, "blue", f"trade twice 2 with {card} pay g")
    assert pending_kind(s) == "second_trade"
    play(s, "blue", "trade 2")
    assert pending_kind(s) == "self_take" and GAME.to_move(s) == ["blue"]
    bag = sum(s.bag)
    play(s, "blue", "take kw")
    assert letters(blue.goods) == "kw"
    assert sum(s.bag) == bag + 3 - 5  # 3 back into the bag, 5 new goods on the ship
    assert sum(s.ships[1].goods) == 5 and blue.supply == 17


def test_carcassonne_placement_points_and_marriage() -> None:
    """Blue places a Princess in Carcassonne for 2 white, scores 2; a marriage follows."""
    s = new_game()
    blue = s.players[idx(s, "blue")]
    put(s, "red", "prince", "carcassonne")
    set_goods(s, "blue", "kkww")
    turn_of(s, "blue")
    grant_card(s, "blue", action="prince")
    legal = GAME.legal_moves(s, "blue")
    assert not any(isinstance(m, Place) and m.city == "carcassonne" and m.figure == "prince"
                   for m in legal)  # the Prince space is occupied
    play(s, "blue", f"princess carcassonne with {grant_card(s, 'blue', action='princess')}")
    assert blue.score == 2 and letters(blue.goods) == "kk"
    assert s.cities["carcassonne"].princess == idx(s, "blue")
    # Red stands on the smaller space, so Red rolls and divides
    assert pending_kind(s) == "dowry_divide" and GAME.to_move(s) == ["red"]


def test_dowry_division() -> None:
    """Red divides the 3 dice 1/2; Blue chooses the 2 dice and is rewarded first."""
    s = new_game()
    blue, red = s.players[idx(s, "blue")], s.players[idx(s, "red")]
    put(s, "red", "prince", "carcassonne")
    set_goods(s, "blue", "ww")
    turn_of(s, "blue")
    play(s, "blue", f"princess carcassonne with {grant_card(s, 'blue', action='princess')}")
    # the roll, fixed for the example
    s.queue[0] = msgspec.structs.replace(s.queue[0], dice=("child", "arms", "points"))
    play(s, "red", "divide child / arms+points")
    assert GAME.to_move(s) == ["blue"]
    score, supply = red.score, red.supply
    play(s, "blue", "choose arms+points")
    assert blue.score == 2 + 3 and blue.arms[1] == 1  # France's coat of arms
    assert s.cities["carcassonne"].star == idx(s, "red") and red.supply == supply - 1
    assert red.score == score


def test_francis_drake_payment() -> None:
    """Below Francis Drake 1 good is shown: pay 1 light blue; nobody else may use him."""
    s = new_game()
    i = s.personalities.index("drake")
    s.personalities[i], s.personalities[2] = s.personalities[2], s.personalities[i]
    set_goods(s, "blue", "b")
    turn_of(s, "blue")
    bag = s.bag[3]
    play(s, "blue", f"use drake with {grant_card(s, 'blue', action='personality')}")
    assert s.players[idx(s, "blue")].goods[3] == 0 and s.bag[3] == bag + 1
    assert s.used[2]
    settle(s)
    grant_card(s, "red", action="personality")
    turn_of(s, "red")
    assert not any(isinstance(m, Use) and m.personality == "drake"
                   for m in GAME.legal_moves(s, "red"))


def test_green_special_action_in_brest() -> None:
    """Green places a Princess in Brest for 1 gold instead of 3 white."""
    s = new_game()
    green = s.players[idx(s, "green")]
    set_goods(s, "green", "g")
    turn_of(s, "green")
    card = grant_card(s, "green", special="city", city="brest")
    bag = list(s.bag)
    play(s, "green", f"princess brest with {card} special pay g")
    assert s.cities["brest"].princess == idx(s, "green")
    assert sum(green.goods) == 1  # the gold is paid; Brest's anchor: 1 good from the bag
    drawn = green.goods.index(1)
    # the bag got the gold and gave the anchor's good; no white was paid
    assert [after - before for after, before in zip(s.bag, bag, strict=True)] == \
        [int(c == 2) - int(c == drawn) for c in range(5)]
    assert card in s.discard


def test_passing_behind_yellow_and_green_pays_two_pink() -> None:
    s = new_game()
    yellow, red, green = (s.players[idx(s, c)] for c in ("yellow", "red", "green"))
    turn_of(s, "yellow")
    play(s, "yellow", f"pass keep {yellow.hand[0]}")
    turn_of(s, "red")
    play(s, "red", f"pass keep {red.hand[0]}")
    assert [p for p, _ in s.long] == [idx(s, "yellow"), idx(s, "red")]  # Red behind Yellow
    set_goods(s, "green", "pp")
    turn_of(s, "green")
    play(s, "green", f"pass 2 keep {green.hand[0]}")
    assert s.top[1] == idx(s, "green") and green.goods[4] == 0
    assert len(green.hand) == 1 and green.passed


def test_blue_granada_princess_with_one_white_and_four_pink() -> None:
    s = new_game()
    blue = s.players[idx(s, "blue")]
    set_goods(s, "blue", "wpppp")
    turn_of(s, "blue")
    card = grant_card(s, "blue", action="princess")
    play(s, "blue", f"princess granada with {card} pay wpppp")
    assert s.cities["granada"].princess == idx(s, "blue") and sum(blue.goods) == 0


def test_lone_figure_on_a_ship_at_round_end() -> None:
    """Blue stands alone on a ship: takes a black and a gold-yellow; the rest go back."""
    s = new_game()
    blue = s.players[idx(s, "blue")]
    set_ship(s, 1, "kwwgp")
    set_goods(s, "blue", "")
    s.ships[0].large = idx(s, "blue")
    blue.supply -= 1
    everyone_else_passed(s, "blue")
    turn_of(s, "blue")
    play(s, "blue", f"pass keep {blue.hand[0]}")
    assert pending_kind(s) == "lone_take" and GAME.to_move(s) == ["blue"]
    play(s, "blue", "take kg")
    assert letters(blue.goods) == "kg"
    assert s.ships[0].large is None and sum(s.ships[0].goods) == 5


def test_yellow_starts_round_two_with_five_cards() -> None:
    s = new_game()
    yellow = s.players[idx(s, "yellow")]
    everyone_else_passed(s, "yellow")
    turn_of(s, "yellow")
    play(s, "yellow", f"pass keep {yellow.hand[0]}")
    settle(s)
    assert s.round == 2 and s.phase == "play"
    assert len(yellow.hand) == 5


def test_red_fifteen_points_after_round_two_and_monastery() -> None:
    s = new_game()
    red = s.players[idx(s, "red")]
    s.round = 2
    put(s, "red", "prince", "vienna")  # large space
    put(s, "red", "prince", "barcelona")  # large space
    put(s, "red", "prince", "lubeck")  # small space
    set_goods(s, "red", "pp")
    everyone_else_passed(s, "red")
    turn_of(s, "red")
    play(s, "red", f"pass keep {red.hand[0]}")
    settle(s, stop=lambda st: pending_kind(st) == "monastery")
    assert any("red scored 15 (unmarried figures: Barcelona 6, Vienna 6, Lübeck 3)" in e
               for e in s.events)
    supply = red.supply
    while pending_kind(s) == "monastery":
        city = s.queue[0].city  # type: ignore[attr-defined]
        play(s, "red", f"release {city}" if city == "barcelona" else f"save {city}")
    assert red.goods[4] == 0 and red.supply == supply + 1
    assert s.cities["barcelona"].prince is None
    assert s.cities["vienna"].prince == s.cities["lubeck"].prince == idx(s, "red")


def test_britannia_majorities() -> None:
    """Blue 5 figures + 2 coats of arms = 7, Red and Yellow 5, Green 3: Blue gets 10,
    Red and Yellow 6 each, Green nothing.

    A position the rules can reach: all 5 cities of Britannia are married, each child
    stands on the star of a city where one of its parents stands, and 5 of the 6 coats of
    arms of Britannia came from the dowries of these marriages (2 Blue, 1 Red, 2 Yellow)."""
    s = new_game()
    s.tablets["britannia"] = "T-A"
    for city, prince, princess, child in [
        ("london", "blue", "red", "blue"), ("york", "blue", "red", "blue"),
        ("plymouth", "yellow", "blue", "yellow"), ("canterbury", "red", "green", "red"),
        ("edinburgh", "yellow", "green", "green"),
    ]:
        assert child in (prince, princess)
        put(s, prince, "prince", city)
        put(s, princess, "princess", city)
        put(s, child, "child", city)
    for who, arms in (("blue", 2), ("red", 1), ("yellow", 2)):
        s.players[idx(s, who)].arms[0] += arms
        s.arms[0] -= arms
    assert GAME.invariants(s) == [] and s.arms[0] == 1
    result = S.final_scoring(s)["britannia"]
    assert result["strength"] == {"blue": 7, "red": 5, "yellow": 5, "green": 3}
    assert result["majority"] == {"blue": 10, "red": 6, "yellow": 6}


def test_france_crown_bonus() -> None:
    """Red and Yellow each have a figure in Paris, France's only crown city: 8 each."""
    s = new_game()
    s.tablets["france"] = "T-B"
    put(s, "red", "prince", "paris")
    put(s, "yellow", "princess", "paris")
    assert S.final_scoring(s)["france"]["crown"] == {"red": 8, "yellow": 8}


def test_tie_broken_by_goods_left() -> None:
    s = new_game(3)
    for pl in s.players:
        pl.score = 40
    set_goods(s, "red", "kkkwww")  # the others have their 5 starting goods
    assert GAME.ranking(s)[0] == ["red"]


def test_red_prince_in_augsburg_takes_the_top_book_tile() -> None:
    """Placing, Book: 'Take the top book tile from this city. If both tiles are still
    lying in the city, leave the bottom one in place'. Example: 'Red places a Prince in
    Augsburg and takes the top book tile from the city. Since no other family member yet
    stands in Augsburg, nothing further happens.'"""
    s = new_game()
    red = s.players[idx(s, "red")]
    top, bottom = s.cities["augsburg"].books
    set_goods(s, "red", "kk")
    turn_of(s, "red")
    play(s, "red", f"prince augsburg with {grant_card(s, 'red', action='prince')}")
    assert red.books == [top] and s.cities["augsburg"].books == [bottom]
    assert s.cities["augsburg"].prince == idx(s, "red") and red.score == 0
    assert s.queue == [] and GAME.to_move(s) == ["yellow"]  # no marriage: the turn ends
    own = f"Your book tiles: {words.book_tile(top, s.data.country_names)} [{top}]"
    assert own in GAME.render(s, "red").splitlines()
    assert "Your book tiles: none" in GAME.render(s, "blue").splitlines()
    assert "Your book tiles" not in GAME.render(s, None)


def test_round_one_scores_four_and_two_for_unmarried_figures() -> None:
    """Round Scoring 1: 'After the first round, every player gets 4 points for each of
    their unmarried family members on a large placement space, and 2 points for each on a
    small placement space.' Married ones score nothing."""
    s = new_game()
    put(s, "blue", "prince", "paris")  # large space
    put(s, "blue", "prince", "carcassonne")  # small space
    put(s, "red", "princess", "granada")  # large space
    put(s, "yellow", "prince", "london")  # married: nothing
    put(s, "green", "princess", "london")
    everyone_else_passed(s, "red")
    for pl in s.players:
        del pl.hand[1:]
    turn_of(s, "red")
    play(s, "red", f"pass keep {s.players[idx(s, 'red')].hand[0]}")
    while pending_kind(s) == "bonus":
        play(s, GAME.to_move(s)[0], "done")
    assert pending_kind(s) == "score_cards" and s.round == 1
    assert GAME.scores(s) == {"blue": 4 + 2, "red": 4, "yellow": 0, "green": 0}
