"""Pending decisions: their legal moves, their effects and their fallbacks.

A decision is a task in ``state.queue`` owed by one player (rules.py explains the flow;
tasks.py has the kinds). :data:`DECISIONS` holds, for each kind, its options, what the
move chosen does and the fallback of a decision without options; :func:`decision_moves`,
:func:`resolve` and :func:`on_empty` look a decision up there.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any, Generic, TypeVar, cast

import msgspec

from . import effects as E
from . import scoring as S
from . import tasks as T
from .board import (
    finish_trade,
    gain,
    lone_cities,
    roll,
    splits,
    sub_multisets,
)
from .effects import push
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
    Score,
    SecondTrade,
    Take,
    faces_str,
)
from .roundend import monastery, take_bonus
from .state import COLOURS, ROUNDS, P, State

D = TypeVar("D", bound=T.Decision)


def _nothing(state: State, t: T.Decision) -> None:
    """No fallback: a decision without options is skipped."""


class Kind(msgspec.Struct, Generic[D], frozen=True):
    """What a kind of decision does: its legal moves (``options``), the move chosen
    carried out (``resolve``) and, with no option at all, the ``fallback``."""

    options: Callable[[State, D], list[Any]]
    resolve: Callable[[State, D, Any], None]
    fallback: Callable[[State, D], None] = _nothing


def decision_moves(state: State, t: T.Decision) -> list[Any]:
    return DECISIONS[type(t)].options(state, t)


def resolve(state: State, t: T.Decision, move: Any) -> None:
    DECISIONS[type(t)].resolve(state, t, move)


def on_empty(state: State, t: T.Decision) -> None:
    """A decision without options: its fallback (or nothing)."""
    DECISIONS[type(t)].fallback(state, t)


# --- Trade: dividing and choosing ------------------------------------------------------------
def _divide_options(state: State, t: T.Divide) -> list[Any]:
    return [Divide(a, b) for a, b in splits(state.ships[t.ship].goods)]


def _divide(state: State, t: T.Divide, move: Divide) -> None:
    ship = state.ships[t.ship]
    state.log(f"{state.players[t.player].id} divided ship {t.ship + 1} into "
              f"{move.first} / {move.second}")
    push(state, T.Choose(t.ship, (move.first, move.second), t.player,
                         player=cast(int, ship.large)))


def _divide_fallback(state: State, t: T.Divide) -> None:
    """0 or 1 good: the chooser takes it (reference §9)."""
    ship = state.ships[t.ship]
    gain(state, ship.large, E.letters(ship.goods), ship.goods)  # type: ignore[arg-type]
    finish_trade(state, t.ship)


def _choose_options(state: State, t: T.Choose) -> list[Any]:
    return [Choose(g) for g in dict.fromkeys(t.groups)]


def _choose(state: State, t: T.Choose, move: Choose) -> None:
    ship = state.ships[t.ship]
    groups = list(t.groups)
    groups.remove(move.goods)
    gain(state, t.player, move.goods, ship.goods)
    gain(state, t.divider, groups[0], ship.goods)
    state.log(f"{state.players[t.player].id} chose {move.goods}; "
              f"{state.name(t.divider)} took {groups[0]}")
    finish_trade(state, t.ship)


def _ship_take_options(state: State, t: T.SelfTake | T.LoneTake) -> list[Any]:
    goods = state.ships[t.ship].goods
    return [Take(g, "ship") for g in sub_multisets(goods, min(2, sum(goods))) if g]


def _ship_take(state: State, t: T.SelfTake | T.LoneTake, move: Take) -> None:
    gain(state, t.player, move.goods, state.ships[t.ship].goods)
    state.log(f"{state.players[t.player].id} took {move.goods} from ship {t.ship + 1}")


def _self_take(state: State, t: T.SelfTake, move: Take) -> None:
    _ship_take(state, t, move)
    finish_trade(state, t.ship)


def _self_take_fallback(state: State, t: T.SelfTake) -> None:
    finish_trade(state, t.ship)


def _lone_take(state: State, t: T.LoneTake, move: Take) -> None:
    _ship_take(state, t, move)
    _lone_take_fallback(state, t)


def _lone_take_fallback(state: State, t: T.LoneTake) -> None:
    """The lone figure leaves the ship for its supply."""
    state.ships[t.ship].large = None
    state.players[t.player].supply += 1


# --- taking goods (personalities, bonus spaces) ------------------------------------------------
def _take_ship_options(state: State, t: T.TakeShip) -> list[Any]:
    return [Take(COLOURS[c], str(s + 1)) for s, ship in enumerate(state.ships)
            for c in range(5) if ship.goods[c]]


def _take_ship(state: State, t: T.TakeShip, move: Take) -> None:
    s = int(move.source) - 1
    gain(state, t.player, move.goods, state.ships[s].goods)
    touched = tuple(sorted(set(t.touched) | {s}))
    state.log(f"{state.players[t.player].id} took {move.goods} from ship {s + 1}")
    if t.left > 1:
        push(state, T.TakeShip(t.left - 1, touched, player=t.player))
    else:
        push(state, T.Refill(touched))


def _take_ship_fallback(state: State, t: T.TakeShip) -> None:
    if t.touched:
        push(state, T.Refill(t.touched))


def _take_bag_options(state: State, t: T.TakeBag) -> list[Any]:
    size = min(t.count, sum(state.bag))
    return [Take(g, "bag") for g in sub_multisets(state.bag, size) if g]


def _take_bag(state: State, t: T.TakeBag, move: Take) -> None:
    gain(state, t.player, move.goods, state.bag)
    state.log(f"{state.players[t.player].id} took {move.goods} from the bag")


# --- The Marriage: the dowry dice --------------------------------------------------------------
def _dowry_divide_options(state: State, t: T.DowryDivide) -> list[Any]:
    divisions: dict[DivideDice, None] = {}  # (in order, without repeats)
    for i, face in enumerate(t.dice):
        rest = t.dice[:i] + t.dice[i + 1:]
        divisions[DivideDice(face, faces_str(rest, state.data.face_order))] = None
    return list(divisions)


def _dowry_divide(state: State, t: T.DowryDivide, move: DivideDice) -> None:
    push(state, T.DowryChoose(t.city, (move.single, move.pair), t.player, player=t.chooser))
    state.log(f"{state.players[t.player].id} divided the dowry: {move.single} / {move.pair}")


def _dowry_choose_options(state: State, t: T.DowryChoose) -> list[Any]:
    return [ChooseDice(g) for g in dict.fromkeys(t.groups)]


def _dowry_choose(state: State, t: T.DowryChoose, move: ChooseDice) -> None:
    groups = list(t.groups)
    groups.remove(move.faces)
    state.log(f"{state.players[t.player].id} chose {move.faces}; "
              f"{state.name(t.divider)} gets {groups[0]}")
    push(state, T.DiceEffects(move.faces, t.city, player=t.player),
         T.DiceEffects(groups[0], t.city, player=t.divider))


def _neutral_dice_options(state: State, t: T.NeutralDice) -> list[Any]:
    pairs = dict.fromkeys(faces_str(c, state.data.face_order)
                          for c in combinations(t.dice, t.keep))
    return [ChooseDice(g) for g in pairs]


def _neutral_dice(state: State, t: T.NeutralDice, move: ChooseDice) -> None:
    state.log(f"{state.players[t.player].id} kept {move.faces}")
    push(state, T.DiceEffects(move.faces, t.city, player=t.player))


# --- personalities and book tiles -------------------------------------------------------------
def _keep_scoring_options(state: State, t: T.KeepScoring) -> list[Any]:
    return [KeepScoring(c) for c in dict.fromkeys(state.players[t.player].looking)]


def _keep_scoring(state: State, t: T.KeepScoring, move: KeepScoring) -> None:
    pl = state.players[t.player]
    pl.scoring.append(move.card)
    pl.looking.remove(move.card)
    state.yellow.extend(pl.looking)  # the others go under the deck
    pl.looking.clear()
    state.log(f"{pl.id} kept 1 scoring card")


def _upgrade_options(state: State, t: T.Upgrade) -> list[Any]:
    return [Country("upgrade", c) for c in state.data.countries if c not in state.upgraded]


def _upgrade(state: State, t: T.Upgrade, move: Country) -> None:
    state.upgraded.append(move.country)
    state.log(f"{state.players[t.player].id} put the upgrader on "
              f"{state.data.country_names[move.country]}")


def _wild_options(state: State, t: T.Wild) -> list[Any]:
    return [Country("wild", c) for c in state.data.countries]


def _wild(state: State, t: T.Wild, move: Country) -> None:
    state.players[t.player].wild[t.tile] = move.country


def _envoy_options(state: State, t: T.Envoy) -> list[Any]:
    if state.players[t.player].supply == 0:
        return []
    return [Envoy(c) for c, who in state.free_cities.items() if who is None]


def _envoy(state: State, t: T.Envoy, move: Envoy) -> None:
    p = t.player
    pl = state.players[p]
    state.free_cities[move.city] = p
    pl.supply -= 1
    state.log(f"{pl.id} went to the free city {move.city}")
    if move.city == "points":
        E.gain_points(state, p, 2, "free city")
    elif move.city == "anchor":
        E.draw_goods(state, pl.goods, 1)
    else:
        E.take_book(state, p, state.free_books)


def _marry_options(state: State, t: T.Marry) -> list[Any]:
    return [Marry(c) for c in lone_cities(state, t.player)] if state.neutral else []


def _marry(state: State, t: T.Marry, move: Marry) -> None:
    p = t.player
    c = state.cities[move.city]
    info = state.data.cities[move.city]
    setattr(c, "princess" if c.prince == p else "prince", -1)
    state.neutral -= 1
    dice = roll(state, state.data.dice)
    state.log(f"{state.players[p].id} married a neutral figure in {info.name}; rolled "
              f"{', '.join(dice)}")
    push(state, T.NeutralDice(move.city, tuple(dice), t.keep, player=p))


# --- optional choices: a second trade, a bonus action -----------------------------------------
def _second_trade_options(state: State, t: T.SecondTrade) -> list[Any]:
    """"You may carry out the Trade action twice": optional."""
    ships = range(state.data.ships) if state.players[t.player].supply else range(0)
    return [*(SecondTrade(s + 1) for s in ships), Done()]


def _second_trade(state: State, t: T.SecondTrade, move: SecondTrade | Done) -> None:
    if isinstance(move, SecondTrade):
        push(state, T.Trade(move.ship - 1, player=t.player))
    else:
        state.log(f"{state.players[t.player].id} made no second trade")


def _bonus_options(state: State, t: T.Bonus) -> list[Any]:
    """"all players may move their family member": optional."""
    return [*(Bonus(b) for b, info in state.data.bonus.items()
              if info.shareable or not state.bonus[b]), Done()]


def _bonus(state: State, t: T.Bonus, move: Bonus | Done) -> None:
    if isinstance(move, Bonus):
        take_bonus(state, t.player, move.space, t.leonardo)
    else:
        state.log(f"{state.players[t.player].id} took no bonus action")


# --- Round Scoring ----------------------------------------------------------------------------
def _monastery_options(state: State, t: T.Monastery) -> list[Any]:
    save = [Monastery(t.city, True)] if state.players[t.player].goods[P] else []
    return [*save, Monastery(t.city, False)]


def _monastery(state: State, t: T.Monastery, move: Monastery) -> None:
    monastery(state, t.player, t.city, move.save)


def _score_cards_options(state: State, t: T.ScoreCards) -> list[Any]:
    pl = state.players[t.player]
    out: list[Any] = [Score(c) for c in dict.fromkeys(pl.scoring)]
    if state.round < ROUNDS and len(pl.scoring) <= state.data.carry_max:
        out.append(Done())
    return out


def _score_cards(state: State, t: T.ScoreCards, move: Score | Done) -> None:
    if not isinstance(move, Score):
        return
    p = t.player
    pl = state.players[p]
    pts = S.card_points(state, p, move.card)
    pl.scoring.remove(move.card)
    (state.yellow_discard if move.card in state.data.yellow else state.scored).append(move.card)
    E.gain_points(state, p, pts, f"scoring card {move.card}")
    push(state, T.ScoreCards(player=p))


DECISIONS: dict[type[T.Decision], Kind[Any]] = {
    T.Divide: Kind(_divide_options, _divide, _divide_fallback),
    T.Choose: Kind(_choose_options, _choose),
    T.SelfTake: Kind(_ship_take_options, _self_take, _self_take_fallback),
    T.LoneTake: Kind(_ship_take_options, _lone_take, _lone_take_fallback),
    T.TakeShip: Kind(_take_ship_options, _take_ship, _take_ship_fallback),
    T.TakeBag: Kind(_take_bag_options, _take_bag),
    T.DowryDivide: Kind(_dowry_divide_options, _dowry_divide),
    T.DowryChoose: Kind(_dowry_choose_options, _dowry_choose),
    T.NeutralDice: Kind(_neutral_dice_options, _neutral_dice),
    T.KeepScoring: Kind(_keep_scoring_options, _keep_scoring),
    T.Upgrade: Kind(_upgrade_options, _upgrade),
    T.Wild: Kind(_wild_options, _wild),
    T.Envoy: Kind(_envoy_options, _envoy),
    T.Marry: Kind(_marry_options, _marry),
    T.SecondTrade: Kind(_second_trade_options, _second_trade),
    T.Bonus: Kind(_bonus_options, _bonus),
    T.Monastery: Kind(_monastery_options, _monastery),
    T.ScoreCards: Kind(_score_cards_options, _score_cards),
}
