"""Effect primitives and the small operations everything else is built from.

Personalities, dowry dice faces, bonus spaces and book tiles are lists of effects in the
data files (``{"op": "points", "n": 3}``: records.py types them); :func:`run` interprets
one, by the table :data:`RUN`. Effects that need a choice push a pending decision onto
``state.queue`` (see rules.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import records as R
from . import tasks as T
from .state import COLOURS, State


def push(state: State, *tasks: T.Task) -> None:
    """Put tasks at the front of the queue, in the given order."""
    state.queue[0:0] = tasks


# --- goods ---------------------------------------------------------------------------------
def draw_good(state: State) -> int | None:
    """Draw one good at random from the cloth bag (None if it is empty)."""
    total = sum(state.bag)
    if total == 0:
        return None
    x = state.rng.below(total, "bag")
    for colour, count in enumerate(state.bag):
        if x < count:
            state.bag[colour] -= 1
            return colour
        x -= count
    raise AssertionError("unreachable")


def draw_goods(state: State, into: list[int], count: int) -> int:
    """Draw up to ``count`` goods from the bag into a goods vector; returns how many."""
    got = 0
    for _ in range(count):
        colour = draw_good(state)
        if colour is None:
            break
        into[colour] += 1
        got += 1
    return got


def refill_ship(state: State, ship: int) -> None:
    """The Banker tops the ship up to 5 goods from the bag (fewer if it runs out)."""
    goods = state.ships[ship].goods
    draw_goods(state, goods, state.data.per_ship - sum(goods))


def to_bag(state: State, goods: list[int]) -> None:
    for colour in range(5):
        state.bag[colour] += goods[colour]
        goods[colour] = 0


def pay(state: State, p: int, letters: str) -> None:
    """Pay goods (letters) from a player's supply into the bag."""
    goods = state.players[p].goods
    for ch in letters:
        colour = COLOURS.index(ch)
        goods[colour] -= 1
        state.bag[colour] += 1


def vec(letters: str) -> list[int]:
    out = [0] * 5
    for ch in letters:
        out[COLOURS.index(ch)] += 1
    return out


def letters(goods: list[int]) -> str:
    return "".join(COLOURS[c] * n for c, n in enumerate(goods))


# --- cards ----------------------------------------------------------------------------------
def draw_action_card(state: State, p: int) -> bool:
    """Draw the top action card; an empty deck is the reshuffled discard pile (ASSUMPTION)."""
    if not state.deck and state.discard:
        state.deck = state.discard
        state.discard = []
        state.rng.shuffle(state.deck, "deck")
        state.log("the action deck was reshuffled from the discard pile")
    if not state.deck:
        return False
    state.players[p].hand.append(state.deck.pop(0))
    return True


def draw_yellow(state: State) -> str | None:
    """Draw a yellow scoring card; an empty deck is its reshuffled discard (ASSUMPTION)."""
    if not state.yellow and state.yellow_discard:
        state.yellow = state.yellow_discard
        state.yellow_discard = []
        state.rng.shuffle(state.yellow, "yellow")
        state.log("the yellow scoring deck was reshuffled from its discard pile")
    return state.yellow.pop(0) if state.yellow else None


# --- figures ---------------------------------------------------------------------------------
def take_book(state: State, p: int, stack: list[str]) -> None:
    """Book symbol: take the top tile (if any is left) face down (Placing, city symbols)."""
    if stack:
        state.players[p].books.append(stack.pop(0))
        state.log(f"{state.name(p)} took a book tile")
    else:
        state.log(f"no book tile was left for {state.name(p)}")


def gain_points(state: State, p: int, n: int, why: str) -> None:
    state.players[p].score += n
    state.log(f"{state.name(p)} scored {n} ({why})")


# --- the interpreter ---------------------------------------------------------------------------
def run(state: State, p: int, effect: R.Effect, city: str | None) -> None:
    """Carry out one effect primitive for player ``p`` (``city``: the marriage city). An
    unknown primitive never gets here: the data is refused when read (data.py)."""
    RUN[type(effect)](state, p, effect, city)


def run_all(state: State, p: int, effects: R.Effects, city: str | None) -> None:
    """Queue a list of effects so that decisions they raise keep their order."""
    if effects:
        push(state, T.Effects(effects, city, player=p))


def _points(state: State, p: int, effect: R.Points, city: str | None) -> None:
    gain_points(state, p, effect.n, "points")


def _draw_goods(state: State, p: int, effect: R.DrawGoods, city: str | None) -> None:
    pl = state.players[p]
    got = draw_goods(state, pl.goods, effect.count)
    state.log(f"{pl.id} drew {got} goods from the bag")


def _take_colours(state: State, p: int, effect: R.TakeColours, city: str | None) -> None:
    pl = state.players[p]
    for ch in effect.goods:
        colour = COLOURS.index(ch)
        if state.bag[colour]:
            state.bag[colour] -= 1
            pl.goods[colour] += 1
    state.log(f"{pl.id} took {effect.goods} from the bag (if there)")


def _take_from_ships(state: State, p: int, effect: R.TakeFromShips, city: str | None) -> None:
    push(state, T.TakeShip(effect.count, (), player=p))


def _take_from_bag(state: State, p: int, effect: R.TakeFromBag, city: str | None) -> None:
    push(state, T.TakeBag(effect.count, player=p))


def _draw_action_cards(state: State, p: int, effect: R.DrawActionCards,
                       city: str | None) -> None:
    got = sum(draw_action_card(state, p) for _ in range(effect.count))
    state.log(f"{state.players[p].id} drew {got} action card(s)")


def _draw_scoring(state: State, p: int, effect: R.DrawScoring, city: str | None) -> None:
    pl = state.players[p]
    for _ in range(effect.count):
        card = draw_yellow(state)
        if card:
            pl.scoring.append(card)
    state.log(f"{pl.id} drew {effect.count} scoring card(s)")


def _draw_scoring_keep(state: State, p: int, effect: R.DrawScoringKeep,
                       city: str | None) -> None:
    pl = state.players[p]
    for _ in range(effect.draw):
        card = draw_yellow(state)
        if card:
            pl.looking.append(card)
    push(state, T.KeepScoring(player=p))


def _child_effect(state: State, p: int, effect: R.Child, city: str | None) -> None:
    _child(state, p, city, effect.fallback_points)


def _arms_city(state: State, p: int, effect: R.ArmsCity, city: str | None) -> None:
    assert city is not None
    d = state.data
    _arms(state, p, d.countries.index(d.cities[city].country), effect.fallback_points)


def _leonardo(state: State, p: int, effect: R.Leonardo, city: str | None) -> None:
    pl = state.players[p]
    pl.supply -= 1
    state.leonardo = p
    state.log(f"{pl.id} put a family member on the Leonardo tile")


#: the decision an effect asks of its player: what it does is that decision's (its options
#: also tell whether the effect can be carried out at all: rules.usable)
ASKS: dict[type, Callable[[Any, int], T.Decision]] = {
    R.NeutralMarriage: lambda effect, p: T.Marry(effect.keep_dice, player=p),
    R.FreeCity: lambda effect, p: T.Envoy(player=p),
    R.Upgrade: lambda effect, p: T.Upgrade(effect.amount, player=p),
}


def _ask(state: State, p: int, effect: R.NeutralMarriage | R.FreeCity | R.Upgrade,
         city: str | None) -> None:
    push(state, ASKS[type(effect)](effect, p))


def _kept(state: State, p: int, effect: R.WildArms | R.ArmsTile, city: str | None) -> None:
    """Kept face up; counts at final scoring (scoring.py)."""


#: the interpreter: what each effect primitive does
RUN: dict[type, Callable[[State, int, Any, str | None], None]] = {
    R.Points: _points, R.DrawGoods: _draw_goods, R.TakeColours: _take_colours,
    R.TakeFromShips: _take_from_ships, R.TakeFromBag: _take_from_bag,
    R.DrawActionCards: _draw_action_cards, R.DrawScoring: _draw_scoring,
    R.DrawScoringKeep: _draw_scoring_keep, R.Child: _child_effect, R.ArmsCity: _arms_city,
    R.Leonardo: _leonardo, R.NeutralMarriage: _ask, R.FreeCity: _ask, R.Upgrade: _ask,
    R.WildArms: _kept, R.ArmsTile: _kept,
}


def _child(state: State, p: int, city: str | None, fallback: int) -> None:
    """Dowry child: a family member on the city's star; if taken, points (ASSUMPTION)."""
    pl = state.players[p]
    spot = state.cities[city] if city else None
    if spot is not None and spot.star is None and pl.supply > 0:
        spot.star = p
        pl.supply -= 1
        state.log(f"{pl.id} placed a child on the star of {state.data.cities[city].name}")  # type: ignore[index]
    else:
        gain_points(state, p, fallback, "child, but no star or figure free")


def _arms(state: State, p: int, country: int, fallback: int) -> None:
    if state.arms[country] > 0:
        state.arms[country] -= 1
        state.players[p].arms[country] += 1
        name = state.data.country_names[state.data.countries[country]]
        state.log(f"{state.name(p)} took a coat of arms of {name}")
    else:
        gain_points(state, p, fallback, "coat of arms, but none left")
