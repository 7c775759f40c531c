"""Setup, the turn (legal moves and their effects) and the flow of the game (rulebook
sections named in comments).

Flow: ``state.queue`` holds what must happen next, front first. Automatic steps run at
once (:func:`advance`; the end-of-round steps are in roundend.py); a *decision* waits for
its owner's move (decisions.py). When the queue is empty during play, the active player
owes a turn. A decision with exactly one legal move is carried out automatically; one with
none is skipped (its fallback, :func:`decisions.on_empty`, runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.engine.rng import Rng

from . import effects as E
from . import records as R
from . import tasks as T
from .board import (
    deal_personalities,
    pay_table,
    payments,
    roll,
    track_order,
)
from .data import Data
from .decisions import decision_moves, on_empty, resolve
from .effects import push
from .moves import Pass, Place, SitOut, Trade, TradeTwice, Use
from .roundend import ROUND_END, STEPS
from .state import B, CityState, G, K, P, Player, Ship, State, W

__all__ = ["RULES_VERSIONS", "advance", "apply", "decision_moves", "legal_moves", "pending",
           "setup", "track_order"]

# The rules versions, oldest first. dynasties-1 draws the starting capital before loading
# the ships (reading D-SETUP of its time); dynasties-2 loads the ships first, as printed.
RULES_VERSIONS = ("dynasties-1", "dynasties-2")


# --- setup ------------------------------------------------------------------------------------
def setup(data: Data, rules: str, players: Sequence[str], options: Mapping[str, str],
          rng: Rng) -> State:
    """Components and Setup, box by box, with the component data ``data`` and the rules
    version ``rules``; the Banker (first player) starts."""
    d = data
    n = len(players)
    ps = [Player(pid, d.family_colours[i], [0] * 5, d.per_colour - 1)
          for i, pid in enumerate(players)]
    state = State(ps, rng, {k: CityState() for k in d.cities_in_play(n)},
                  [], list(d.goods_counts), [], data=d)
    tiles = list(d.book_tiles)
    rng.shuffle(tiles, "setup")
    for key, c in state.cities.items():
        if d.cities[key].symbol == "book":
            c.books = [tiles.pop(0) for _ in range(d.per_book_city)]
    state.free_books = [tiles.pop(0) for _ in range(d.free_book_city)]
    state.book_box = tiles
    tablets = list(d.tablets)
    rng.shuffle(tablets, "setup")
    state.tablets = dict(zip(d.countries, tablets, strict=True))
    state.deck = list(d.action_cards)
    rng.shuffle(state.deck, "deck")
    for pl in ps:
        pl.hand = [state.deck.pop(0) for _ in range(d.deal[n])]
    state.free_cities = dict.fromkeys(d.free_cities)
    green = list(d.green)
    rng.shuffle(green, "setup")
    for pl in ps:
        pl.scoring = [green.pop(0) for _ in range(d.green_each)]
    state.green_box = green
    state.yellow = list(d.yellow)
    rng.shuffle(state.yellow, "yellow")
    # Components and Setup (72 goods): the ships are loaded, "then" the starting capital
    # is searched out; dynasties-1 did it the other way round (its reading D-SETUP).
    if rules == "dynasties-1":
        capital_then_ships(state)
    else:
        ships_then_capital(state)
    deal_personalities(state)
    state.neutral = d.neutral
    state.arms = [d.arms_per_country] * len(d.countries)
    state.bonus = {k: [] for k in d.bonus}
    state.log(f"round 1 begins; {players[0]} (the Banker) starts")
    return state


def load_ships(state: State) -> None:
    """5 goods from the bag on each ship."""
    for _ in range(state.data.ships):
        ship = Ship([0] * 5)
        E.draw_goods(state, ship.goods, state.data.per_ship)
        state.ships.append(ship)


def capital_then_ships(state: State) -> None:
    """dynasties-1: the starting capital (1 good of each colour per player) is searched
    out of the bag before the ships are loaded, so that the bag always holds it."""
    for pl in state.players:
        for colour in range(5):
            state.bag[colour] -= 1
            pl.goods[colour] += 1
    load_ships(state)


def ships_then_capital(state: State) -> None:
    """dynasties-2, Components and Setup (72 goods): "for each ship ... the Banker draws
    5 goods from the bag and places them on the ship. He then searches out 1 good of each
    color from the bag for each player as 'starting capital.'" The rulebook is silent when
    the bag no longer holds a colour for every player (the ships took 8 or more of the 12
    of a colour: about 1 setup in 1,900 with 5 players; reading D-SETUP): the missing good
    is taken from the ship holding most of that colour (the first such ship), and the
    ships so robbed are topped up from the bag once the capital is handed out."""
    load_ships(state)
    hand_out_capital(state)


def hand_out_capital(state: State) -> None:
    """The starting capital searched out of the bag after the ships are loaded (see
    :func:`ships_then_capital`), a colour the bag lacks taken from a ship."""
    short: list[int] = []
    for pl in state.players:
        for colour in range(5):
            if state.bag[colour]:
                state.bag[colour] -= 1
            else:
                s = max(range(len(state.ships)), key=lambda i: state.ships[i].goods[colour])
                state.ships[s].goods[colour] -= 1
                short.append(s)
            pl.goods[colour] += 1
    for s in dict.fromkeys(short):
        E.refill_ship(state, s)


def usable(state: State, p: int, key: str) -> bool:
    """Whether a personality's effect can be carried out at all: an effect that asks a
    decision (marriage, free city, upgrade) when that decision has options, the very
    options the decision will offer (decisions.py)."""
    first = state.data.personalities[key].effects[0]
    if isinstance(first, R.Leonardo):
        return state.leonardo is None and state.players[p].supply > 0
    ask = E.ASKS.get(type(first))
    return ask is None or bool(decision_moves(state, ask(first, p)))


def play_card(state: State, p: int, card: int) -> None:
    state.players[p].hand.remove(card)
    state.discard.append(card)


def frontmost_free(state: State) -> int:
    for i, who in enumerate(state.top):
        if who is None:
            return i + 1
    return 0


# --- the turn: legal moves ------------------------------------------------------------------------
# What does not change during a game is looked up per turn in the data (data.Data): what
# each action card's upper part allows, the moves that depend on the card alone, the
# pink-paid passes and the city costs.
# The move kinds a Special Action makes, by its ``kind`` in the data.
SPECIAL_MAKES: dict[type[R.Special], type] = {
    R.PassSpecial: Pass, R.CitySpecial: Place, R.PersonalitySpecial: Use,
    R.TradeTwiceSpecial: TradeTwice}
CARD_KINDS = (Trade, TradeTwice, Place, Use, SitOut, Pass)
NO_PLACES: dict[str, list[tuple[str, str]]] = {"prince": [], "princess": []}


def turn_moves(state: State, p: int, like: Any = None) -> list[Any]:
    """The active player's turn: per action card in hand its Basic Actions, its Special
    Action and sitting out; then passing. With ``like``, only the moves that could equal
    it (the same kind and card, figure and city, personality): see :func:`legal_moves`."""
    pl = state.players[p]
    d = state.data
    kind = type(like)
    if like is None:
        cards = pl.hand
        place, persons = place_offers(state, p), person_offers(state, p)
    else:
        cards = [c for c in pl.hand if c == like.card] if kind in CARD_KINDS and like.card \
            else []
        basic = not getattr(like, "special", True)  # a Special Action is not basic
        place = place_offers(state, p, like.city) if basic and kind is Place else NO_PLACES
        persons = person_offers(state, p, like.personality) if basic and kind is Use else []
    trade = pl.supply > 0 and (like is None or kind is Trade)
    moves: list[Any] = []
    for card in cards:
        if trade and d.card_trades[card]:
            moves += d.trades[card]
        for figure in d.card_figures[card]:
            moves += [Place(card, figure, key, pay) for key, pay in place[figure]]
        if d.card_personality[card]:
            moves += [Use(card, key, pay) for key, pay in persons]
        spec = d.action_cards[card].special
        if spec is not None and (like is None or SPECIAL_MAKES[type(spec)] is kind):
            moves += special_moves(state, p, card, spec)
        if like is None or kind is SitOut:
            moves.append(d.sit_out[card])
    if like is None or (kind is Pass and not like.card):
        moves += pass_moves(state, p)
    return moves


def place_offers(state: State, p: int, only: str | None = None) -> dict[str, list[tuple[str, str]]]:
    """Prince/Princess: (city, payment) for each free space in a city where p has no
    figure yet (``only``: that city alone). The same for every card of the turn."""
    pl = state.players[p]
    if pl.supply <= 0:
        return NO_PLACES
    goods = pl.goods
    d = state.data
    black = pay_table(goods[K], goods[P], K, d.max_cost)
    white = pay_table(goods[W], goods[P], W, d.max_cost)
    prince_cost, princess_cost = d.prince_cost, d.princess_cost
    cities = state.cities.items() if only is None else \
        [(only, state.cities[only])] if only in state.cities else []
    return {"prince": [(key, pay) for key, c in cities if c.prince is None and c.princess != p
                       for pay in black[prince_cost[key]]],
            "princess": [(key, pay) for key, c in cities if c.princess is None and c.prince != p
                         for pay in white[princess_cost[key]]]}


def person_offers(state: State, p: int, only: str | None = None) -> list[tuple[str, str]]:
    """Personality: (personality, payment) for each unused, usable light-blue space."""
    goods = state.players[p].goods
    out: list[tuple[str, str]] = []
    for i, cost in enumerate(state.data.light_blue_costs):
        key = state.personalities[i]
        if (only is None or key == only) and not state.used[i]:
            pays = payments(goods, B, cost)
            if pays and usable(state, p, key):
                out += [(key, pay) for pay in pays]
    return out


def pass_moves(state: State, p: int) -> list[Any]:
    """Passing without a card: a free top-row space (paying pink) or the long space,
    keeping at most one action card."""
    pl = state.players[p]
    keeps = pl.hand or [0]
    moves: list[Any] = []
    passes = state.data.passes
    if pl.supply > 0:
        costs = state.data.track_costs
        for i, who in enumerate(state.top):
            if who is None and pl.goods[P] >= costs[i]:
                space = passes[i + 1]
                moves += [space[k] for k in keeps]
    long = passes[0]
    moves += [long[k] for k in keeps]
    return moves


def special_moves(state: State, p: int, card: int, spec: R.Special) -> list[Any]:
    """Special Actions (lower part of the card)."""
    pl = state.players[p]
    if isinstance(spec, R.PassSpecial):
        if pl.supply == 0:
            return []
        keeps = [k for k in pl.hand if k != card] or [0]
        return [Pass(frontmost_free(state), card, k) for k in keeps]
    pays = payments(pl.goods, G, spec.gold)
    if not pays:  # every other Special Action is paid in gold-yellow
        return []
    out: list[Any] = []
    if isinstance(spec, R.CitySpecial):
        c = state.cities.get(spec.city)
        if c is None or pl.supply == 0 or p in (c.prince, c.princess):
            return []
        for figure in ("prince", "princess"):
            if getattr(c, figure) is None:
                out += [Place(card, figure, spec.city, pay, True) for pay in pays]
    elif isinstance(spec, R.PersonalitySpecial):
        for i in range(len(state.data.light_blue_costs), len(state.personalities)):
            key = state.personalities[i]
            if not state.used[i] and usable(state, p, key):
                out += [Use(card, key, pay, True) for pay in pays]
    elif pl.supply > 0:  # Trade Twice
        out += [TradeTwice(card, s + 1, pay) for pay in pays for s in range(state.data.ships)]
    return out


# --- the turn: carrying out moves -----------------------------------------------------------------
def do_turn(state: State, p: int, move: Any) -> None:
    TURN[type(move)](state, p, move)


def _trade(state: State, p: int, move: Trade) -> None:
    play_card(state, p, move.card)
    push(state, T.Trade(move.ship - 1, player=p), T.EndTurn())


def _trade_twice(state: State, p: int, move: TradeTwice) -> None:
    play_card(state, p, move.card)
    E.pay(state, p, move.pay)
    state.log(f"{state.players[p].id} trades twice")
    push(state, T.Trade(move.ship - 1, player=p), T.SecondTrade(player=p), T.EndTurn())


def _place(state: State, p: int, move: Place) -> None:
    play_card(state, p, move.card)
    E.pay(state, p, move.pay)
    push(state, T.EndTurn())
    place_figure(state, p, move.figure, move.city, move.pay)


def _use(state: State, p: int, move: Use) -> None:
    play_card(state, p, move.card)
    E.pay(state, p, move.pay)
    i = state.personalities.index(move.personality)
    state.used[i] = True
    info = state.data.personalities[move.personality]
    state.log(f"{state.players[p].id} used {info.name}"
              + (f" paying {move.pay}" if move.pay else ""))
    push(state, T.EndTurn())
    E.run_all(state, p, info.effects, None)


def _sit_out(state: State, p: int, move: SitOut) -> None:
    play_card(state, p, move.card)
    got = E.draw_goods(state, state.players[p].goods, 1)
    state.log(f"{state.players[p].id} sat out (discarded a{move.card:02d}, drew {got} good)")
    push(state, T.EndTurn())


def _pass(state: State, p: int, move: Pass) -> None:
    do_pass(state, p, move)
    push(state, T.EndTurn())


#: what each kind of turn does
TURN: dict[type, Callable[[State, int, Any], None]] = {
    Trade: _trade, TradeTwice: _trade_twice, Place: _place, Use: _use, SitOut: _sit_out,
    Pass: _pass,
}


def do_pass(state: State, p: int, move: Pass) -> None:
    """Passing: a figure on the track; keep at most one action card."""
    pl = state.players[p]
    if move.card:
        play_card(state, p, move.card)
    elif move.space:
        E.pay(state, p, "p" * state.data.track_costs[move.space - 1])
    if move.space:
        state.top[move.space - 1] = p
        pl.supply -= 1
    else:  # the long space, behind those already there
        state.long.append([p, 1 if pl.supply > 0 else 0])
        pl.supply -= 1 if pl.supply > 0 else 0
    for card in [c for c in pl.hand if c != move.keep]:
        play_card(state, p, card)
    pl.passed = True
    where = f"space {move.space}" if move.space else "the long space"
    state.log(f"{pl.id} passed to {where}" + (" with a Pass card" if move.card else ""))


def place_figure(state: State, p: int, figure: str, city: str, paid: str = "") -> None:
    """Place a Prince/Princess, use the city symbol, and marry if both spaces are full."""
    c = state.cities[city]
    info = state.data.cities[city]
    setattr(c, figure, p)
    state.players[p].supply -= 1
    state.log(f"{state.name(p)} placed a {figure.capitalize()} in {info.name}"
              + (f" paying {paid}" if paid else ""))
    if info.symbol == "points":
        E.gain_points(state, p, 2, f"{info.name}")
    elif info.symbol == "anchor":
        got = E.draw_goods(state, state.players[p].goods, 1)
        state.log(f"{state.name(p)} drew {got} good (anchor)")
    elif info.symbol == "book":
        E.take_book(state, p, c.books)
    if c.prince is not None and c.princess is not None:
        marriage(state, city)


def marriage(state: State, city: str) -> None:
    """The Marriage: the small-space player rolls and divides 1/2; the large one chooses."""
    c = state.cities[city]
    info = state.data.cities[city]
    large, small = getattr(c, info.large), getattr(c, info.small)
    dice = roll(state, state.data.dice)
    state.log(f"marriage in {info.name}: {state.name(small)} rolled {', '.join(dice)}")
    push(state, T.DowryDivide(city, tuple(dice), large, player=small))


# --- automatic steps ------------------------------------------------------------------------------
def auto_trade(state: State, t: T.Trade) -> None:
    """Trade: the first figure takes the large space; the second triggers the split."""
    p, s = t.player, t.ship
    ship = state.ships[s]
    state.players[p].supply -= 1
    if ship.large is None:
        ship.large = p
        state.log(f"{state.name(p)} stands on ship {s + 1}")
        return
    ship.small = p
    state.log(f"{state.name(p)} joins ship {s + 1}: trade")
    if ship.large == p:  # trading with yourself
        push(state, T.SelfTake(s, player=p))
    else:
        push(state, T.Divide(s, player=p))


def auto_effects(state: State, t: T.Effects) -> None:
    effects = t.effects
    if len(effects) > 1:
        push(state, T.Effects(effects[1:], t.city, player=t.player))
    E.run(state, t.player, effects[0], t.city)


def auto_dice(state: State, t: T.DiceEffects) -> None:
    effects = state.data.face_effects
    effs = tuple(e for f in t.faces.split("+") for e in effects[f])
    E.run_all(state, t.player, effs, t.city)


def auto_refill(state: State, t: T.Refill) -> None:
    for s in t.ships:
        E.refill_ship(state, s)


def end_turn(state: State, t: T.EndTurn) -> None:
    """The next player who has not passed; when all have passed, the round ends."""
    for step in range(1, state.n + 1):
        q = (state.active + step) % state.n
        if not state.players[q].passed:
            state.active = q
            return
    state.phase = "end"
    state.log(f"all players have passed: end of round {state.round}")
    push(state, *ROUND_END)


#: what each automatic step does (the end of a round's in roundend.py)
AUTO: dict[type[T.Task], Callable[[State, Any], None]] = {
    T.Trade: auto_trade, T.Effects: auto_effects, T.DiceEffects: auto_dice,
    T.Refill: auto_refill, T.EndTurn: end_turn, **STEPS,
}


def advance(state: State) -> None:
    """Run automatic steps until a decision with a real choice (or a turn) is owed."""
    queue = state.queue
    while queue:
        t = queue[0]
        step = AUTO.get(type(t))
        if step is not None:
            queue.pop(0)
            step(state, t)
            continue
        assert isinstance(t, T.Decision)
        options = decision_moves(state, t)
        if len(options) > 1:
            return
        queue.pop(0)
        if options:
            resolve(state, t, options[0])
        else:
            on_empty(state, t)


def pending(state: State) -> T.Decision | None:
    """The decision first in the queue (between moves the queue holds no step first)."""
    t = state.queue[0] if state.queue else None
    assert t is None or isinstance(t, T.Decision)
    return t


def legal_moves(state: State, p: int, like: Any = None) -> list[Any]:
    """Player p's legal moves, in their fixed order. With ``like`` (any move), only those
    that could equal it, from the same generator, so that ``like in legal_moves(state, p,
    like)`` exactly when ``like in legal_moves(state, p)`` (what replay asks of every
    logged move): a turn is masked by kind, card, city and personality, the way
    python-chess masks its generator by squares; a decision's few options all come."""
    if state.phase == "over":
        return []
    t = pending(state)
    if t is not None:
        return decision_moves(state, t) if t.player == p else []
    return turn_moves(state, p, like) if p == state.active else []


def apply(state: State, p: int, move: Any) -> None:
    t = pending(state)
    if t is not None:
        state.queue.pop(0)
        resolve(state, t, move)
    else:
        do_turn(state, p, move)
    advance(state)
