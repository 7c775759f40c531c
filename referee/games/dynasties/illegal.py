"""Explanations for well-formed moves that are not legal. Only explains; never decides."""

from __future__ import annotations

from typing import Any

from . import effects as E
from . import records as R
from . import tasks as T
from .data import ActionCard
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
from .words import N_, _, card_text, figure, name

TURN_TYPES = (Trade, TradeTwice, Place, Use, SitOut, Pass)
DECISION_TYPES: dict[type[T.Decision], tuple[type, ...]] = {
    T.Divide: (Divide,), T.Choose: (Choose,), T.SelfTake: (Take,), T.LoneTake: (Take,),
    T.TakeShip: (Take,), T.TakeBag: (Take,), T.DowryDivide: (DivideDice,),
    T.DowryChoose: (ChooseDice,), T.NeutralDice: (ChooseDice,), T.KeepScoring: (KeepScoring,),
    T.Upgrade: (Country,), T.Wild: (Country,), T.Envoy: (Envoy,),
    T.Marry: (Marry,), T.SecondTrade: (SecondTrade, Done), T.Bonus: (Bonus, Done),
    T.Monastery: (Monastery,), T.ScoreCards: (Score, Done),
}
ACTION_NAME = {"trade": N_("Trade"), "prince": N_("Prince"), "princess": N_("Princess"),
               "personality": N_("Personality")}


def payment_problem(state: State, goods: list[int], colour: int, n: int,
                    pay: str) -> str | None:
    """Why ``pay`` does not pay n goods of ``colour`` (2 pink = any one other good)."""
    names = {k: name(v) for k, v in state.data.colour_names.items()}
    want = E.vec(pay)
    for c, k in enumerate(want):
        if k > goods[c]:
            return _("you cannot pay {n} {colour}: you have {have} (Pay the required goods)"
                     ).format(n=k, colour=names[COLOURS[c]], have=goods[c])
    wrong = [COLOURS[c] for c, k in enumerate(want) if k and c not in (colour, P)]
    pinks = want[P] if colour != P else 0
    value = want[colour] + (pinks // 2 if colour != P else 0)
    if wrong or pinks % 2 or value != n:
        return _("the cost is {n} {colour}; pay exactly that, with 2 pink standing in for "
                 "any one good (Further Uses of Pink Goods) - you offered {pay}").format(
                     n=n, colour=names[COLOURS[colour]], pay=pay or _("nothing"))
    return None


# Decisions whose options show hidden things (drawn scoring cards, the bag): their
# explanations never list the options.
SECRET_OPTIONS = frozenset({T.KeepScoring, T.TakeBag, T.ScoreCards})


def why_illegal(state: State, p: int, move: Any) -> str:
    """Which rule forbids ``move``; never shows hidden information (hands, drawn or held
    scoring cards, book tiles, decks, the bag), not even the mover's own."""
    t = pending(state)
    if state.phase == "over":
        return _("the game is over")
    if not 0 <= p < state.n:
        return _("you are not a player in this game")
    if t is None and p != state.active:
        return _("it is {player}'s turn").format(player=state.name(state.active))
    if t is not None:
        if t.player != p:
            return _("{player} must first {decision}").format(
                player=state.name(t.player), decision=describe(state, t))
        if not isinstance(move, DECISION_TYPES[type(t)]):
            return _("you must first {decision}").format(decision=describe(state, t))
        return _decision(state, t, move)
    if isinstance(move, SecondTrade):
        return _("Trade: name the action card you play (trade {ship} with CARD)").format(
            ship=move.ship)
    if not isinstance(move, TURN_TYPES):
        return _("no decision of that kind is pending; it is your turn to play a card or "
                 "pass")
    return _turn(state, p, move)


def _decision(state: State, t: T.Decision, move: Any) -> str:
    if type(t) in SECRET_OPTIONS:
        options = _("see your own status for the options")
    else:
        options = ", ".join(format_move(m) for m in decision_moves(state, t))
    if isinstance(move, Divide) and isinstance(t, T.Divide):
        ship = state.ships[t.ship]
        if not move.first or not move.second:
            return _("Trade (Dividing): you cannot divide into an empty group; both groups "
                     "need at least one good")
        if E.letters([a + b for a, b in zip(E.vec(move.first), E.vec(move.second),
                                            strict=True)]) != E.letters(ship.goods):
            return _("Trade (Dividing): the two groups must be exactly the goods on ship "
                     "{ship}: {goods}").format(ship=t.ship + 1, goods=E.letters(ship.goods))
    if isinstance(move, Choose) and isinstance(t, T.Choose):
        return _("Trade (Choosing): {goods} was not offered; choose {groups}").format(
            goods=move.goods or _("nothing"), groups=_(" or ").join(t.groups))
    if isinstance(move, DivideDice) and isinstance(t, T.DowryDivide):
        return _("The Marriage: divide the dice you rolled ({dice}) into 1 die and 2 dice"
                 ).format(dice=", ".join(t.dice))
    if isinstance(move, ChooseDice) and isinstance(t, T.DowryChoose):
        return _("The Marriage (Choosing): that group was not offered; choose {groups}"
                 ).format(groups=_(" or ").join(t.groups))
    if isinstance(move, Take):
        return _("those goods are not there to take; {options}").format(options=options)
    if isinstance(move, KeepScoring):
        return _("keep one of the scoring cards you drew ({options})").format(options=options)
    if isinstance(move, Monastery) and isinstance(t, T.Monastery):
        if move.save and not state.players[t.player].goods[P]:
            return _("Round Scoring: you cannot pay 1 pink: you have 0")
        return _("Round Scoring: the decision is about {city}").format(
            city=name(state.data.cities[t.city].name))
    if isinstance(move, Score):
        return _("Round Scoring: you do not hold scoring card {card}").format(card=move.card)
    if isinstance(move, Done):
        if state.round >= ROUNDS:
            return _("Round Scoring: after round 3 you must score all your scoring cards")
        return _("Round Scoring: you may carry at most {n} scoring cards into the next "
                 "round; score more first").format(n=state.data.carry_max)
    if isinstance(move, Bonus):
        return _("Bonus Action: only the 3 Points space may be used more than once per round")
    return _("not one of the options now: {options}").format(options=options)


def _turn(state: State, p: int, move: Any) -> str:
    pl = state.players[p]
    d = state.data
    card = getattr(move, "card", 0)
    if card and card not in pl.hand:
        return _("you do not hold card {card} (play a card from your hand)").format(card=card)
    info = d.action_cards.get(card)
    if isinstance(move, Pass):
        return _pass(state, p, move)
    if isinstance(move, SitOut):
        return _("Sitting Out: discard a card you hold")
    assert info is not None
    special = getattr(move, "special", False) or isinstance(move, TradeTwice)
    if special:
        spec = info.special
        if spec is None:
            return _("Joker Card: a joker cannot be used for a Special Action")
        needs: dict[type, type[R.Special]] = {Place: R.CitySpecial, Use: R.PersonalitySpecial,
                                              TradeTwice: R.TradeTwiceSpecial}
        if type(spec) is not needs[type(move)]:
            return _("Special Action: card {card}'s special action is not that ({text})"
                     ).format(card=card, text=card_text(info, d.cities))
        if isinstance(move, Place) and isinstance(spec, R.CitySpecial) and spec.city != move.city:
            return _("Special Action: card {card} places only in {city}").format(
                card=card, city=name(d.cities[spec.city].name))
    else:
        action = "trade" if isinstance(move, Trade) else (
            move.figure if isinstance(move, Place) else "personality")
        if action not in info.actions:
            return _("card {card} does not show the {action} symbol ({text})").format(
                card=card, action=_(ACTION_NAME[action]), text=card_text(info, d.cities))
    if isinstance(move, (Trade, TradeTwice, Place)) and pl.supply == 0:
        return _("you have no family member left in your supply")
    if isinstance(move, (Trade, TradeTwice)) and not 1 <= move.ship <= d.ships:
        return _("Trade: there are only ships 1-{n}").format(n=d.ships)
    if isinstance(move, TradeTwice):
        return payment_problem(state, pl.goods, G, _gold(info), move.pay) \
            or _("not legal now")
    if isinstance(move, Place):
        return _place(state, p, move, info)
    if isinstance(move, Use):
        return _use(state, p, move, info)
    return _("not legal now")


def _gold(info: ActionCard) -> int:
    """The gold a Special Action costs (one paid in gold-yellow: checked before)."""
    spec = info.special
    assert isinstance(spec, (R.CitySpecial, R.PersonalitySpecial, R.TradeTwiceSpecial))
    return spec.gold


def _place(state: State, p: int, move: Place, info: ActionCard) -> str:
    c = state.cities.get(move.city)
    city = state.data.cities[move.city]
    if c is None:
        return _("{city} is only on the board with 5 players").format(city=name(city.name))
    where = name(city.name)
    if getattr(c, move.figure) is not None:
        return _("Placing: the {figure} space in {city} is already occupied (only an empty "
                 "space)").format(figure=figure(move.figure), city=where)
    if p in (c.prince, c.princess):
        return _("Placing: you already have a family member in {city} (never both in one "
                 "city)").format(city=where)
    pl = state.players[p]
    if move.special:
        problem = payment_problem(state, pl.goods, G, _gold(info), move.pay)
    else:
        colour = K if move.figure == "prince" else W
        problem = payment_problem(state, pl.goods, colour, city.cost(move.figure), move.pay)
    return problem or _("not legal now")


def _use(state: State, p: int, move: Use, info: ActionCard) -> str:
    if move.personality not in state.personalities:
        return _("unknown personality")
    i = state.personalities.index(move.personality)
    who = name(state.data.personalities[move.personality].name)
    costs = state.data.light_blue_costs
    light = i < len(costs)
    if light and move.special:
        return _("Special Action: {personality} lies in the light-blue area, not the "
                 "gold-yellow one").format(personality=who)
    if not light and not move.special:
        return _("Using Personalities: {personality} lies in the gold-yellow area; only the "
                 "special action can use it").format(personality=who)
    if state.used[i]:
        return _("Using Personalities: {personality} has already been used this round"
                 ).format(personality=who)
    pl = state.players[p]
    if move.special:
        problem = payment_problem(state, pl.goods, G, _gold(info), move.pay)
    else:
        problem = payment_problem(state, pl.goods, B, costs[i], move.pay)
    return problem or _("{personality} cannot do anything for you now").format(
        personality=who)


def _pass(state: State, p: int, move: Pass) -> str:
    pl = state.players[p]
    after = [c for c in pl.hand if c != move.card]
    if after and move.keep not in after:
        return _("Passing: you keep exactly one of your remaining action cards (name one you "
                 "hold and do not play)")
    if not after and move.keep:
        return _("Passing: you have no other action card to keep")
    if move.card:
        spec = state.data.action_cards[move.card].special
        if not isinstance(spec, R.PassSpecial):
            return _("card {card} has no Pass special action").format(card=move.card)
        return _("Passing via the Special Action: you go to the frontmost free space")
    if move.space:
        costs = state.data.track_costs
        if not 1 <= move.space <= len(costs):
            return _("Passing: the top row has spaces 1-4")
        if state.top[move.space - 1] is not None:
            return _("Passing: space {space} is already taken").format(space=move.space)
        cost = costs[move.space - 1]
        if pl.goods[P] < cost:
            return _("Passing: you cannot pay {n} pink: you have {have}").format(
                n=cost, have=pl.goods[P])
        if pl.supply == 0:
            return _("Passing: you have no family member to put on a top-row space")
    return _("not legal now")
