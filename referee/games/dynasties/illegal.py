"""Explanations for well-formed moves that are not legal. Only explains; never decides."""

from __future__ import annotations

from typing import Any, cast

from . import effects as E
from .moves import (
    Bonus,
    Choose,
    ChooseDice,
    Country,
    Divide,
    DivideDice,
    Done,
    Envoy,
    KeepScoring,
    Marry,
    Monastery,
    Pass,
    Place,
    Score,
    SecondTrade,
    SitOut,
    Take,
    Trade,
    TradeTwice,
    Use,
    format_move,
)
from .rules import decision_moves, pending
from .state import COLOURS, ROUNDS, B, G, K, P, State, W
from .views import describe

TURN_TYPES = (Trade, TradeTwice, Place, Use, SitOut, Pass)
DECISION_TYPES: dict[str, tuple[type, ...]] = {
    "divide": (Divide,), "choose": (Choose,), "self_take": (Take,), "lone_take": (Take,),
    "take_ship": (Take,), "take_bag": (Take,), "dowry_divide": (DivideDice,),
    "dowry_choose": (ChooseDice,), "neutral_dice": (ChooseDice,), "keep_scoring": (KeepScoring,),
    "upgrade": (Country,), "wild": (Country,), "envoy": (Envoy,),
    "marry": (Marry,), "second_trade": (SecondTrade, Done), "bonus": (Bonus, Done),
    "monastery": (Monastery,), "score_cards": (Score, Done),
}
ACTION_NAME = {"trade": "Trade", "prince": "Prince", "princess": "Princess",
               "personality": "Personality"}


def payment_problem(state: State, goods: list[int], colour: int, n: int,
                    pay: str) -> str | None:
    """Why ``pay`` does not pay n goods of ``colour`` (2 pink = any one other good)."""
    names = state.data.colour_names
    name = names[COLOURS[colour]]
    want = E.vec(pay)
    for c, k in enumerate(want):
        if k > goods[c]:
            return (f"you cannot pay {k} {names[COLOURS[c]]}: you have {goods[c]} "
                    "(Pay the required goods)")
    wrong = [COLOURS[c] for c, k in enumerate(want) if k and c not in (colour, P)]
    pinks = want[P] if colour != P else 0
    value = want[colour] + (pinks // 2 if colour != P else 0)
    if wrong or pinks % 2 or value != n:
        return (f"the cost is {n} {name}; pay exactly that, with 2 pink standing in for any "
                f"one good (Further Uses of Pink Goods) - you offered {pay or 'nothing'}")
    return None


# Decisions whose options show hidden things (drawn scoring cards, the bag): their
# explanations never list the options.
SECRET_OPTIONS = frozenset({"keep_scoring", "take_bag", "score_cards"})


def why_illegal(state: State, p: int, move: Any) -> str:
    """Which rule forbids ``move``; never shows hidden information (hands, drawn or held
    scoring cards, book tiles, decks, the bag), not even the mover's own."""
    t = pending(state)
    if state.phase == "over":
        return "the game is over"
    if not 0 <= p < state.n:
        return "you are not a player in this game"
    if t is None and p != state.active:
        return f"it is {state.name(state.active)}'s turn"
    if t is not None:
        if t["p"] != p:
            return f"{state.name(t['p'])} must first {describe(state, t)}"
        if not isinstance(move, DECISION_TYPES[t["k"]]):
            return f"you must first {describe(state, t)}"
        return _decision(state, t, move)
    if not isinstance(move, TURN_TYPES):
        return "no decision of that kind is pending; it is your turn to play a card or pass"
    return _turn(state, p, move)


def _decision(state: State, t: dict[str, Any], move: Any) -> str:
    if t["k"] in SECRET_OPTIONS:
        options = "see your own status for the options"
    else:
        options = ", ".join(format_move(m) for m in decision_moves(state, t))
    if isinstance(move, Divide):
        ship = state.ships[t["ship"]]
        if not move.first or not move.second:
            return ("Trade (Dividing): you cannot divide into an empty group; both groups need "
                    "at least one good")
        if E.letters([a + b for a, b in zip(E.vec(move.first), E.vec(move.second),
                                            strict=True)]) != E.letters(ship.goods):
            return (f"Trade (Dividing): the two groups must be exactly the goods on ship "
                    f"{t['ship'] + 1}: {E.letters(ship.goods)}")
    if isinstance(move, Choose):
        return (f"Trade (Choosing): {move.goods or 'nothing'} was not offered; choose "
                + " or ".join(t["groups"]))
    if isinstance(move, DivideDice):
        return ("The Marriage: divide the dice you rolled (" + ", ".join(t["dice"])
                + ") into 1 die and 2 dice")
    if isinstance(move, ChooseDice) and t["k"] == "dowry_choose":
        return "The Marriage (Choosing): that group was not offered; choose " + \
            " or ".join(t["groups"])
    if isinstance(move, Take):
        return f"those goods are not there to take; {options}"
    if isinstance(move, KeepScoring):
        return f"keep one of the scoring cards you drew ({options})"
    if isinstance(move, Monastery):
        if move.save and not state.players[t["p"]].goods[P]:
            return "Round Scoring: you cannot pay 1 pink: you have 0"
        return f"Round Scoring: the decision is about {state.data.cities[t['city']].name}"
    if isinstance(move, Score):
        return f"Round Scoring: you do not hold scoring card {move.card}"
    if isinstance(move, Done):
        if state.round >= ROUNDS:
            return "Round Scoring: after round 3 you must score all your scoring cards"
        return f"Round Scoring: you may carry at most {state.data.carry_max} scoring cards " \
            "into the next round; score more first"
    if isinstance(move, Bonus):
        return "Bonus Action: only the 3 Points space may be used more than once per round"
    return f"not one of the options now: {options}"


def _turn(state: State, p: int, move: Any) -> str:
    pl = state.players[p]
    d = state.data
    card = getattr(move, "card", 0)
    if card and card not in pl.hand:
        return f"you do not hold card {card} (play a card from your hand)"
    info = d.action_cards.get(card)
    if isinstance(move, Pass):
        return _pass(state, p, move)
    if isinstance(move, SitOut):
        return "Sitting Out: discard a card you hold"
    assert info is not None
    special = getattr(move, "special", False) or isinstance(move, TradeTwice)
    if special:
        spec = info.special
        if spec is None:
            return "Joker Card: a joker cannot be used for a Special Action"
        needs: dict[type, str] = {Place: "city", Use: "personality",
                                  TradeTwice: "trade_twice"}
        need = needs[type(move)]
        if spec["kind"] != need:
            return f"Special Action: card {card}'s special action is not that ({info.describe()})"
        if isinstance(move, Place) and spec["city"] != move.city:
            return f"Special Action: card {card} places only in {d.cities[spec['city']].name}"
    else:
        action = "trade" if isinstance(move, Trade) else (
            move.figure if isinstance(move, Place) else "personality")
        if action not in info.actions:
            return f"card {card} does not show the {ACTION_NAME[action]} symbol " \
                f"({info.describe()})"
    if isinstance(move, (Trade, TradeTwice, Place)) and pl.supply == 0:
        return "you have no family member left in your supply"
    if isinstance(move, (Trade, TradeTwice)) and not 1 <= move.ship <= d.ships:
        return f"Trade: there are only ships 1-{d.ships}"
    if isinstance(move, TradeTwice):
        special_action = cast(dict[str, Any], info.special)  # (a Special Action: checked above)
        return payment_problem(state, pl.goods, G, special_action["gold"], move.pay) \
            or "not legal now"
    if isinstance(move, Place):
        return _place(state, p, move, info)
    if isinstance(move, Use):
        return _use(state, p, move, info)
    return "not legal now"


def _place(state: State, p: int, move: Place, info: Any) -> str:
    c = state.cities.get(move.city)
    city = state.data.cities[move.city]
    if c is None:
        return f"{city.name} is only on the board with 5 players"
    name = city.name
    if getattr(c, move.figure) is not None:
        return f"Placing: the {move.figure.capitalize()} space in {name} is already occupied " \
            "(only an empty space)"
    if p in (c.prince, c.princess):
        return f"Placing: you already have a family member in {name} (never both in one city)"
    pl = state.players[p]
    if move.special:
        problem = payment_problem(state, pl.goods, G, info.special["gold"], move.pay)
    else:
        colour = K if move.figure == "prince" else W
        problem = payment_problem(state, pl.goods, colour, city.cost(move.figure), move.pay)
    return problem or "not legal now"


def _use(state: State, p: int, move: Use, info: Any) -> str:
    if move.personality not in state.personalities:
        return "unknown personality"
    i = state.personalities.index(move.personality)
    name = state.data.personalities[move.personality]["name"]
    costs = state.data.light_blue_costs
    light = i < len(costs)
    if light and move.special:
        return f"Special Action: {name} lies in the light-blue area, not the gold-yellow one"
    if not light and not move.special:
        return f"Using Personalities: {name} lies in the gold-yellow area; only the special " \
            "action can use it"
    if state.used[i]:
        return f"Using Personalities: {name} has already been used this round"
    pl = state.players[p]
    if move.special:
        problem = payment_problem(state, pl.goods, G, info.special["gold"], move.pay)
    else:
        problem = payment_problem(state, pl.goods, B, costs[i], move.pay)
    return problem or f"{name} cannot do anything for you now"


def _pass(state: State, p: int, move: Pass) -> str:
    pl = state.players[p]
    after = [c for c in pl.hand if c != move.card]
    if after and move.keep not in after:
        return "Passing: you keep exactly one of your remaining action cards (name one you " \
            "hold and do not play)"
    if not after and move.keep:
        return "Passing: you have no other action card to keep"
    if move.card:
        spec = state.data.action_cards[move.card].special
        if not spec or spec["kind"] != "pass":
            return f"card {move.card} has no Pass special action"
        return "Passing via the Special Action: you go to the frontmost free space"
    if move.space:
        costs = state.data.track_costs
        if not 1 <= move.space <= len(costs):
            return "Passing: the top row has spaces 1-4"
        if state.top[move.space - 1] is not None:
            return f"Passing: space {move.space} is already taken"
        cost = costs[move.space - 1]
        if pl.goods[P] < cost:
            return f"Passing: you cannot pay {cost} pink: you have {pl.goods[P]}"
        if pl.supply == 0:
            return "Passing: you have no family member to put on a top-row space"
    return "not legal now"
