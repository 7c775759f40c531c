"""Rules-lawyer findings: setup goods, the end of a round, optional actions, coats of arms.
Each test quotes the rule it checks."""

from __future__ import annotations

import pytest

from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties.effects import letters
from referee.games.dynasties.moves import Bonus, Done, SecondTrade
from referee.games.dynasties.state import G
from tests.dynasties.helpers import (
    NAMES,
    everyone_else_passed,
    grant_card,
    idx,
    new_game,
    play,
    set_goods,
    set_ship,
    turn_of,
)

D = GAME.data  # the component data of the current game


def pending_kind(state) -> str | None:
    return state.queue[0].kind if state.queue else None


def last_to_pass(state, who: str) -> None:
    """Everybody else has passed (keeping one card); ``who`` passes too, ending the round."""
    everyone_else_passed(state, who)
    for pl in state.players:
        if pl.id != who:
            state.discard += pl.hand[1:]
            del pl.hand[1:]
    turn_of(state, who)
    hand = state.players[idx(state, who)].hand
    play(state, who, f"pass keep {hand[0]}" if hand else "pass")


def decline_bonus_actions(state) -> None:
    while pending_kind(state) == "bonus":
        play(state, GAME.to_move(state)[0], "done")


# --- setup -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
def test_setup_conserves_goods_per_colour(n: int) -> None:
    """Components and Setup: 'for each ship ... draws 5 goods from the bag ... He then
    searches out 1 good of each color from the bag for each player as starting capital.'
    72 goods: 18 black, 18 white, 12 gold-yellow, 12 light blue, 12 pink."""
    for seed in range(700):
        s = GAME.setup(list(NAMES[:n]), {}, Rng(f"setup-{n}-{seed}"))
        assert GAME.invariants(s) == [], seed
        assert all(pl.goods == [1, 1, 1, 1, 1] for pl in s.players)
        assert [sum(ship.goods) for ship in s.ships] == [5, 5, 5]
        assert min(s.bag) >= 0


def test_setup_that_once_put_a_thirteenth_gold_into_play() -> None:
    """`referee new dynasties g.json --players a,b,c,d,e --seed neg867` drew 8 gold-yellow
    onto the ships, leaving 4 in the bag for 5 players."""
    s = GAME.setup(list("abcde"), {}, Rng(b"neg867"))
    assert GAME.invariants(s) == []
    gold = s.bag[G] + sum(pl.goods[G] for pl in s.players) \
        + sum(ship.goods[G] for ship in s.ships)
    assert gold == 12 and all(pl.goods[G] == 1 for pl in s.players)


# --- End of a Round -------------------------------------------------------------------
def test_round_end_empties_all_ships_before_refilling_them() -> None:
    """End of a Round 1: 'Throw the remaining goods on the ship back into the cloth bag. Do
    this for all 3 ships in the trade area. Afterward the Banker draws new goods from the
    cloth bag and places 5 new goods on each ship.'"""
    s = new_game()
    set_ship(s, 1, "")
    set_ship(s, 2, "kkkkk")
    set_ship(s, 3, "wwwww")
    blue = s.players[idx(s, "blue")]
    for c in range(5):  # the bag is empty: only the ships' 10 goods come back into it
        blue.goods[c] += s.bag[c]
        s.bag[c] = 0
    last_to_pass(s, "blue")
    assert pending_kind(s) == "bonus"
    assert [sum(ship.goods) for ship in s.ships] == [5, 5, 0]
    on_ships = [a + b + c for a, b, c in zip(*(ship.goods for ship in s.ships), strict=True)]
    assert letters(on_ships) == "kkkkkwwwww" and sum(s.bag) == 0


def test_new_action_cards_come_before_round_scoring() -> None:
    """End of a Round 5: 'The Banker deals 4 new action cards to each player' - this is
    the last step of End of a Round; Round Scoring follows."""
    s = new_game()
    last_to_pass(s, "yellow")
    decline_bonus_actions(s)
    assert pending_kind(s) == "score_cards" and s.round == 1
    assert [len(pl.hand) for pl in s.players] == [1 + D.later_deal] * 4
    dealt = next(i for i, e in enumerate(s.events) if "new action cards" in e)
    assert not any("unmarried" in e or "scoring card" in e for e in s.events[:dealt])


def test_no_new_action_cards_after_round_three() -> None:
    s = new_game()
    s.round = 3
    last_to_pass(s, "yellow")
    decline_bonus_actions(s)
    assert [len(pl.hand) for pl in s.players] == [1, 1, 1, 1]


# --- optional actions ------------------------------------------------------------------
def test_trade_twice_may_stop_after_one_trade() -> None:
    """Special Action, Trade (3x): 'You may immediately carry out the Trade action twice.'
    Card a24 shows no Trade symbol, so this is its only way to trade once."""
    s = new_game()
    blue = s.players[idx(s, "blue")]
    set_goods(s, "blue", "g")
    turn_of(s, "blue")
    card = grant_card(s, "blue", special="trade_twice")
    assert card == 24 and "trade" not in D.action_cards[24].actions
    play(s, "blue", "trade twice 1 with 24 pay g")
    assert pending_kind(s) == "second_trade"
    assert GAME.legal_moves(s, "blue") == [SecondTrade(1), SecondTrade(2), SecondTrade(3),
                                           Done()]
    play(s, "blue", "done")
    assert s.queue == [] and GAME.to_move(s) == ["red"]
    assert s.ships[0].large == idx(s, "blue") and blue.supply == 16 and blue.goods[G] == 0


def test_bonus_action_may_be_declined_also_on_leonardo() -> None:
    """End of a Round 4: 'all players may move their family member from the passing track
    to one of the bonus spaces' ... 'the player on the Leonardo space ... may move their
    family member to one of the remaining bonus spaces.'"""
    s = new_game()
    blue = s.players[idx(s, "blue")]
    s.leonardo = idx(s, "blue")
    blue.supply -= 1
    last_to_pass(s, "blue")
    order = []
    while pending_kind(s) == "bonus":
        who = GAME.to_move(s)[0]
        assert Done() in GAME.legal_moves(s, who)
        order.append((who, s.queue[0].leonardo))  # type: ignore[attr-defined]
        play(s, who, "done")
    assert order[-1] == ("blue", True) and len(order) == 5
    assert s.leonardo is None and all(not v for v in s.bonus.values())
    assert all(pl.supply == 17 and pl.score == 0 for pl in s.players)


def test_bonus_action_taken_after_a_declined_one() -> None:
    s = new_game()
    last_to_pass(s, "blue")
    first = GAME.to_move(s)[0]
    play(s, first, "done")
    second = GAME.to_move(s)[0]
    play(s, second, "bonus points")
    assert s.players[idx(s, second)].score == 3 and s.players[idx(s, first)].score == 0


# --- coats of arms ---------------------------------------------------------------------
ARMS_OPS = {"arms_city", "arms_tile", "wild_arms"}


def test_coats_of_arms_only_from_marriages_and_book_tiles() -> None:
    """Final Scoring 1: 'the number of country coats of arms you have collected (from
    marriages and book tiles)'. Only dowry dice and book tiles may give one."""
    def ops(effect_lists):  # the files' ``op`` of each effect
        return {e.__struct_config__.tag for effects in effect_lists for e in effects}

    assert ops(b.effects for b in D.bonus.values()) & ARMS_OPS == set()
    assert ops(p.effects for p in D.personalities.values()) & ARMS_OPS == set()
    assert ops(D.face_effects.values()) & ARMS_OPS == {"arms_city"}
    assert ops(t.effects for t in D.book_tiles.values()) & ARMS_OPS == {"arms_tile", "wild_arms"}
    assert Bonus("arms") not in [Bonus(k) for k in D.bonus]
