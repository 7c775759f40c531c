"""Pending decisions: their legal moves, their effects and their fallbacks.

A decision is a task in ``state.queue`` owed by one player (rules.py explains the flow).
:func:`decision_moves` lists its legal moves, :func:`resolve` carries one out and
:func:`on_empty` runs the fallback of a decision without options.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, cast

from . import effects as E
from . import scoring as S
from .board import (
    finish_trade,
    gain,
    lone_cities,
    roll,
    splits,
    sub_multisets,
)
from .effects import push, task
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

Task = dict[str, Any]


def decision_moves(state: State, t: Task) -> list[Any]:
    k, p = t["k"], t["p"]
    pl = state.players[p]
    d = state.data
    if k == "divide":
        return [Divide(a, b) for a, b in splits(state.ships[t["ship"]].goods)]
    if k == "choose":
        return [Choose(g) for g in dict.fromkeys(t["groups"])]
    if k in ("self_take", "lone_take"):
        goods = state.ships[t["ship"]].goods
        return [Take(g, "ship") for g in sub_multisets(goods, min(2, sum(goods)))
                if g]
    if k == "take_ship":
        return [Take(COLOURS[c], str(s + 1)) for s, ship in enumerate(state.ships)
                for c in range(5) if ship.goods[c]]
    if k == "take_bag":
        size = min(t["count"], sum(state.bag))
        return [Take(g, "bag") for g in sub_multisets(state.bag, size) if g]
    if k == "dowry_divide":
        divisions: dict[DivideDice, None] = {}  # (in order, without repeats)
        for i, face in enumerate(t["dice"]):
            rest = t["dice"][:i] + t["dice"][i + 1:]
            divisions[DivideDice(face, faces_str(rest, d.face_order))] = None
        return list(divisions)
    if k == "dowry_choose":
        return [ChooseDice(g) for g in dict.fromkeys(t["groups"])]
    if k == "neutral_dice":
        pairs = dict.fromkeys(faces_str(c, d.face_order)
                              for c in combinations(t["dice"], t["keep"]))
        return [ChooseDice(g) for g in pairs]
    if k == "keep_scoring":
        return [KeepScoring(c) for c in dict.fromkeys(pl.looking)]
    if k == "upgrade":
        return [Country("upgrade", c) for c in d.countries if c not in state.upgraded]
    if k == "wild":
        return [Country("wild", c) for c in d.countries]
    if k == "envoy":
        if pl.supply == 0:
            return []
        return [Envoy(c) for c, who in state.free_cities.items() if who is None]
    if k == "marry":
        return [Marry(c) for c in lone_cities(state, p)] if state.neutral else []
    if k == "second_trade":  # "You may carry out the Trade action twice": optional
        return ([SecondTrade(s + 1) for s in range(d.ships)] if pl.supply else []) + [Done()]
    if k == "bonus":  # "all players may move their family member": optional
        return [Bonus(b) for b, info in d.bonus.items()
                if info["shareable"] or not state.bonus[b]] + [Done()]
    if k == "monastery":
        return ([Monastery(t["city"], True)] if pl.goods[P] else []) + \
            [Monastery(t["city"], False)]
    if k == "score_cards":
        out: list[Any] = [Score(c) for c in dict.fromkeys(pl.scoring)]
        if state.round < ROUNDS and len(pl.scoring) <= d.carry_max:
            out.append(Done())
        return out
    raise AssertionError(f"unknown decision {k}")



def resolve(state: State, t: Task, move: Any) -> None:
    k, p = t["k"], t["p"]
    pl = state.players[p]
    if k == "divide":
        ship = state.ships[t["ship"]]
        state.log(f"{pl.id} divided ship {t['ship'] + 1} into {move.first} / {move.second}")
        push(state, task("choose", cast(int, ship.large), ship=t["ship"],
                         groups=[move.first, move.second],
                         divider=p))
    elif k == "choose":
        ship = state.ships[t["ship"]]
        groups = list(t["groups"])
        groups.remove(move.goods)
        gain(state, p, move.goods, ship.goods)
        gain(state, t["divider"], groups[0], ship.goods)
        state.log(f"{pl.id} chose {move.goods}; {state.name(t['divider'])} took {groups[0]}")
        finish_trade(state, t["ship"])
    elif k in ("self_take", "lone_take"):
        ship = state.ships[t["ship"]]
        gain(state, p, move.goods, ship.goods)
        state.log(f"{pl.id} took {move.goods} from ship {t['ship'] + 1}")
        if k == "self_take":
            finish_trade(state, t["ship"])
        else:
            ship.large = None
            pl.supply += 1
    elif k == "take_ship":
        s = int(move.source) - 1
        gain(state, p, move.goods, state.ships[s].goods)
        touched = sorted(set(t["touched"]) | {s})
        state.log(f"{pl.id} took {move.goods} from ship {s + 1}")
        if t["left"] > 1:
            push(state, task("take_ship", p, left=t["left"] - 1, touched=touched))
        else:
            push(state, task("refill", ships=touched))
    elif k == "take_bag":
        gain(state, p, move.goods, state.bag)
        state.log(f"{pl.id} took {move.goods} from the bag")
    elif k == "dowry_divide":
        push(state, task("dowry_choose", t["chooser"], city=t["city"],
                         groups=[move.single, move.pair], divider=p))
        state.log(f"{pl.id} divided the dowry: {move.single} / {move.pair}")
    elif k == "dowry_choose":
        groups = list(t["groups"])
        groups.remove(move.faces)
        state.log(f"{pl.id} chose {move.faces}; {state.name(t['divider'])} gets {groups[0]}")
        push(state, task("dice_effects", p, faces=move.faces, city=t["city"]),
             task("dice_effects", t["divider"], faces=groups[0], city=t["city"]))
    elif k == "neutral_dice":
        state.log(f"{pl.id} kept {move.faces}")
        push(state, task("dice_effects", p, faces=move.faces, city=t["city"]))
    elif k == "keep_scoring":
        pl.scoring.append(move.card)
        pl.looking.remove(move.card)
        state.yellow.extend(pl.looking)  # the others go under the deck
        pl.looking.clear()
        state.log(f"{pl.id} kept 1 scoring card")
    elif k == "upgrade":
        state.upgraded.append(move.country)
        state.log(f"{pl.id} put the upgrader on {state.data.country_names[move.country]}")
    elif k == "wild":
        pl.wild[t["tile"]] = move.country
    elif k == "envoy":
        state.free_cities[move.city] = p
        pl.supply -= 1
        state.log(f"{pl.id} went to the free city {move.city}")
        if move.city == "points":
            E.gain_points(state, p, 2, "free city")
        elif move.city == "anchor":
            E.draw_goods(state, pl.goods, 1)
        else:
            E.take_book(state, p, state.free_books)
    elif k == "marry":
        c = state.cities[move.city]
        info = state.data.cities[move.city]
        setattr(c, "princess" if c.prince == p else "prince", -1)
        state.neutral -= 1
        dice = roll(state, state.data.dice)
        state.log(f"{pl.id} married a neutral figure in {info.name}; rolled {', '.join(dice)}")
        push(state, task("neutral_dice", p, city=move.city, dice=dice, keep=t["keep"]))
    elif k == "second_trade" and isinstance(move, SecondTrade):
        push(state, task("trade", p, ship=move.ship - 1))
    elif k == "second_trade":
        state.log(f"{pl.id} made no second trade")
    elif k == "bonus" and isinstance(move, Bonus):
        take_bonus(state, p, move.space, t["leonardo"])
    elif k == "bonus":
        state.log(f"{pl.id} took no bonus action")
    elif k == "monastery":
        monastery(state, p, t["city"], move.save)
    elif k == "score_cards" and isinstance(move, Score):
        pts = S.card_points(state, p, move.card)
        pl.scoring.remove(move.card)
        (state.yellow_discard if move.card in state.data.yellow else state.scored).append(move.card)
        E.gain_points(state, p, pts, f"scoring card {move.card}")
        push(state, task("score_cards", p))



def on_empty(state: State, t: Task) -> None:
    """A decision without options: its fallback (or nothing)."""
    k, p = t["k"], t["p"]
    if k == "lone_take":
        state.ships[t["ship"]].large = None
        state.players[p].supply += 1
    elif k == "self_take":
        finish_trade(state, t["ship"])
    elif k == "take_ship" and t["touched"]:
        push(state, task("refill", ships=t["touched"]))
    elif k == "divide":  # 0 or 1 good: the chooser takes it (reference §9)
        ship = state.ships[t["ship"]]
        gain(state, ship.large, E.letters(ship.goods), ship.goods)  # type: ignore[arg-type]
        finish_trade(state, t["ship"])


