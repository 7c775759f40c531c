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

from referee.rng import Rng

from . import data as D
from . import effects as E
from .board import (
    deal_personalities,
    lone_cities,
    pay_table,
    payments,
    roll,
    track_order,
)
from .decisions import decision_moves, on_empty, resolve
from .effects import push, task
from .moves import Pass, Place, SitOut, Trade, TradeTwice, Use
from .roundend import ROUND_END, STEPS
from .state import CityState, Player, Ship, State

__all__ = ["advance", "apply", "decision_moves", "legal_moves", "pending", "setup",
           "track_order"]

Task = dict[str, Any]
LIGHT_BLUE_COSTS_VIEW = D.LIGHT_BLUE_COSTS


# --- setup ------------------------------------------------------------------------------------
def setup(players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
    """Components and Setup, box by box; the Banker (first player) starts.

    The starting capital (1 good of each colour per player) is searched out of the bag
    before the 15 ship goods are drawn: drawn first, the ships could hold so many
    gold-yellow goods that 5 players cannot each get one (interpretation D-SETUP)."""
    n = len(players)
    ps = [Player(pid, D.FAMILY_COLOURS[i], [0] * 5, D.PER_COLOUR - 1)
          for i, pid in enumerate(players)]
    state = State(ps, rng, {k: CityState() for k in D.cities_in_play(n)},
                  [], list(D.GOODS_COUNTS), [])
    tiles = list(D.BOOK_TILES)
    rng.shuffle(tiles, "setup")
    for key, c in state.cities.items():
        if D.CITIES[key].symbol == "book":
            c.books = [tiles.pop(0) for _ in range(D.BOOK_SETUP["per_book_city"])]
    state.free_books = [tiles.pop(0) for _ in range(D.BOOK_SETUP["free_book_city"])]
    state.book_box = tiles
    tablets = list(D.TABLETS)
    rng.shuffle(tablets, "setup")
    state.tablets = dict(zip(D.COUNTRIES, tablets, strict=True))
    state.deck = list(D.ACTION_CARDS)
    rng.shuffle(state.deck, "deck")
    for pl in ps:
        pl.hand = [state.deck.pop(0) for _ in range(D.DEAL[n])]
    state.free_cities = dict.fromkeys(D.FREE_CITIES)
    green = list(D.GREEN)
    rng.shuffle(green, "setup")
    for pl in ps:
        pl.scoring = [green.pop(0) for _ in range(D.GREEN_EACH)]
    state.green_box = green
    state.yellow = list(D.YELLOW)
    rng.shuffle(state.yellow, "yellow")
    for pl in ps:  # starting capital, searched out before the ships are loaded (D-SETUP)
        for colour in range(5):
            state.bag[colour] -= 1
            pl.goods[colour] += 1
    for _ in range(D.SHIPS):
        ship = Ship([0] * 5)
        E.draw_goods(state, ship.goods, D.PER_SHIP)
        state.ships.append(ship)
    deal_personalities(state)
    state.neutral = D.NEUTRAL
    state.arms = [D.ARMS_PER_COUNTRY] * len(D.COUNTRIES)
    state.bonus = {k: [] for k in D.BONUS}
    state.log(f"round 1 begins; {players[0]} (the Banker) starts")
    return state



PERSONALITY_OP = {key: info["effects"][0]["op"] for key, info in D.PERSONALITIES.items()}


def usable(state: State, p: int, key: str) -> bool:
    """Whether a personality's effect can be carried out at all."""
    op = PERSONALITY_OP[key]
    supply = state.players[p].supply
    if op == "leonardo":
        return state.leonardo is None and supply > 0
    if op == "neutral_marriage":
        return state.neutral > 0 and bool(lone_cities(state, p))
    if op == "free_city":
        return supply > 0 and any(v is None for v in state.free_cities.values())
    if op == "upgrade":
        return len(state.upgraded) < len(D.COUNTRIES)
    return True


def play_card(state: State, p: int, card: int) -> None:
    state.players[p].hand.remove(card)
    state.discard.append(card)


def frontmost_free(state: State) -> int:
    for i, who in enumerate(state.top):
        if who is None:
            return i + 1
    return 0


# --- the turn: legal moves ------------------------------------------------------------------------
# What does not change during a game, looked up per turn: what each action card's upper
# part allows, the moves that depend on the card alone, and the pink-paid passes.
CARD_TRADES = {n: "trade" in c.actions for n, c in D.ACTION_CARDS.items()}
CARD_FIGURES = {n: tuple(f for f in ("prince", "princess") if f in c.actions)
                for n, c in D.ACTION_CARDS.items()}
CARD_PERSONALITY = {n: "personality" in c.actions for n, c in D.ACTION_CARDS.items()}
TRADES = {n: tuple(Trade(n, s + 1) for s in range(D.SHIPS)) for n in D.ACTION_CARDS}
SIT_OUT = {n: SitOut(n) for n in D.ACTION_CARDS}
PASSES = [[Pass(space, 0, keep) for keep in range(max(D.ACTION_CARDS) + 1)]
          for space in range(len(D.TRACK_COSTS) + 1)]  # by space (0 = long), then kept card
PRINCE_COST = {key: c.prince for key, c in D.CITIES.items()}
PRINCESS_COST = {key: c.princess for key, c in D.CITIES.items()}
# The move kinds a Special Action makes, by its ``kind`` in the data.
SPECIAL_MAKES: dict[str, type] = {"pass": Pass, "city": Place, "personality": Use,
                                  "trade_twice": TradeTwice}
CARD_KINDS = (Trade, TradeTwice, Place, Use, SitOut, Pass)
NO_PLACES: dict[str, list[tuple[str, str]]] = {"prince": [], "princess": []}


def turn_moves(state: State, p: int, like: Any = None) -> list[Any]:
    """The active player's turn: per action card in hand its Basic Actions, its Special
    Action and sitting out; then passing. With ``like``, only the moves that could equal
    it (the same kind and card, figure and city, personality): see :func:`legal_moves`."""
    pl = state.players[p]
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
        if trade and CARD_TRADES[card]:
            moves += TRADES[card]
        for figure in CARD_FIGURES[card]:
            moves += [Place(card, figure, key, pay) for key, pay in place[figure]]
        if CARD_PERSONALITY[card]:
            moves += [Use(card, key, pay) for key, pay in persons]
        spec = D.ACTION_CARDS[card].special
        if spec is not None and (like is None or SPECIAL_MAKES[spec["kind"]] is kind):
            moves += special_moves(state, p, card, spec)
        if like is None or kind is SitOut:
            moves.append(SIT_OUT[card])
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
    black = pay_table(goods[D.K], goods[D.P], D.K)
    white = pay_table(goods[D.W], goods[D.P], D.W)
    cities = state.cities.items() if only is None else \
        [(only, state.cities[only])] if only in state.cities else []
    return {"prince": [(key, pay) for key, c in cities if c.prince is None and c.princess != p
                       for pay in black[PRINCE_COST[key]]],
            "princess": [(key, pay) for key, c in cities if c.princess is None and c.prince != p
                         for pay in white[PRINCESS_COST[key]]]}


def person_offers(state: State, p: int, only: str | None = None) -> list[tuple[str, str]]:
    """Personality: (personality, payment) for each unused, usable light-blue space."""
    goods = state.players[p].goods
    out: list[tuple[str, str]] = []
    for i, cost in enumerate(D.LIGHT_BLUE_COSTS):
        key = state.personalities[i]
        if (only is None or key == only) and not state.used[i]:
            pays = payments(goods, D.B, cost)
            if pays and usable(state, p, key):
                out += [(key, pay) for pay in pays]
    return out


def pass_moves(state: State, p: int) -> list[Any]:
    """Passing without a card: a free top-row space (paying pink) or the long space,
    keeping at most one action card."""
    pl = state.players[p]
    keeps = pl.hand or [0]
    moves: list[Any] = []
    if pl.supply > 0:
        for i, who in enumerate(state.top):
            if who is None and pl.goods[D.P] >= D.TRACK_COSTS[i]:
                space = PASSES[i + 1]
                moves += [space[k] for k in keeps]
    long = PASSES[0]
    moves += [long[k] for k in keeps]
    return moves


def special_moves(state: State, p: int, card: int, spec: dict[str, Any]) -> list[Any]:
    """Special Actions (lower part of the card)."""
    pl = state.players[p]
    kind = spec["kind"]
    if kind == "pass":
        if pl.supply == 0:
            return []
        keeps = [k for k in pl.hand if k != card] or [0]
        return [Pass(frontmost_free(state), card, k) for k in keeps]
    pays = payments(pl.goods, D.G, spec["gold"])
    if not pays:  # every other Special Action is paid in gold-yellow
        return []
    out: list[Any] = []
    if kind == "city":
        c = state.cities.get(spec["city"])
        if c is None or pl.supply == 0 or p in (c.prince, c.princess):
            return []
        for figure in ("prince", "princess"):
            if getattr(c, figure) is None:
                out += [Place(card, figure, spec["city"], pay, True) for pay in pays]
    elif kind == "personality":
        for i in range(len(D.LIGHT_BLUE_COSTS), len(state.personalities)):
            key = state.personalities[i]
            if not state.used[i] and usable(state, p, key):
                out += [Use(card, key, pay, True) for pay in pays]
    elif kind == "trade_twice" and pl.supply > 0:
        out += [TradeTwice(card, s + 1, pay) for pay in pays for s in range(D.SHIPS)]
    return out


# --- the turn: carrying out moves -----------------------------------------------------------------
def do_turn(state: State, p: int, move: Any) -> None:
    pl = state.players[p]
    if isinstance(move, Trade):
        play_card(state, p, move.card)
        push(state, task("trade", p, ship=move.ship - 1), task("end_turn"))
    elif isinstance(move, TradeTwice):
        play_card(state, p, move.card)
        E.pay(state, p, move.pay)
        state.log(f"{pl.id} trades twice")
        push(state, task("trade", p, ship=move.ship - 1), task("second_trade", p),
             task("end_turn"))
    elif isinstance(move, Place):
        play_card(state, p, move.card)
        E.pay(state, p, move.pay)
        push(state, task("end_turn"))
        place_figure(state, p, move.figure, move.city, move.pay)
    elif isinstance(move, Use):
        play_card(state, p, move.card)
        E.pay(state, p, move.pay)
        i = state.personalities.index(move.personality)
        state.used[i] = True
        state.log(f"{pl.id} used {D.PERSONALITIES[move.personality]['name']}"
                  + (f" paying {move.pay}" if move.pay else ""))
        push(state, task("end_turn"))
        E.run_all(state, p, D.PERSONALITIES[move.personality]["effects"], None)
    elif isinstance(move, SitOut):
        play_card(state, p, move.card)
        got = E.draw_goods(state, pl.goods, 1)
        state.log(f"{pl.id} sat out (discarded a{move.card:02d}, drew {got} good)")
        push(state, task("end_turn"))
    elif isinstance(move, Pass):
        do_pass(state, p, move)
        push(state, task("end_turn"))


def do_pass(state: State, p: int, move: Pass) -> None:
    """Passing: a figure on the track; keep at most one action card."""
    pl = state.players[p]
    if move.card:
        play_card(state, p, move.card)
    elif move.space:
        E.pay(state, p, "p" * D.TRACK_COSTS[move.space - 1])
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
    info = D.CITIES[city]
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
    info = D.CITIES[city]
    large, small = getattr(c, info.large), getattr(c, info.small)
    dice = roll(state, D.DICE)
    state.log(f"marriage in {info.name}: {state.name(small)} rolled {', '.join(dice)}")
    push(state, task("dowry_divide", small, city=city, dice=dice, chooser=large))


# --- automatic steps ------------------------------------------------------------------------------
def auto_trade(state: State, t: Task) -> None:
    """Trade: the first figure takes the large space; the second triggers the split."""
    p, s = t["p"], t["ship"]
    ship = state.ships[s]
    state.players[p].supply -= 1
    if ship.large is None:
        ship.large = p
        state.log(f"{state.name(p)} stands on ship {s + 1}")
        return
    ship.small = p
    state.log(f"{state.name(p)} joins ship {s + 1}: trade")
    if ship.large == p:  # trading with yourself
        push(state, task("self_take", p, ship=s))
    else:
        push(state, task("divide", p, ship=s))


def auto_effects(state: State, t: Task) -> None:
    effects = t["effects"]
    if len(effects) > 1:
        push(state, task("effects", t["p"], effects=effects[1:], city=t["city"]))
    E.run(state, t["p"], effects[0], t["city"])


def auto_dice(state: State, t: Task) -> None:
    effs = [e for f in t["faces"].split("+") for e in D.FACE_EFFECTS[f]]
    E.run_all(state, t["p"], effs, t["city"])


def auto_refill(state: State, t: Task) -> None:
    for s in t["ships"]:
        E.refill_ship(state, s)


def end_turn(state: State, t: Task) -> None:
    """The next player who has not passed; when all have passed, the round ends."""
    for step in range(1, state.n + 1):
        q = (state.active + step) % state.n
        if not state.players[q].passed:
            state.active = q
            return
    state.phase = "end"
    state.log(f"all players have passed: end of round {state.round}")
    push(state, *(task(k) for k in ROUND_END))


AUTO: dict[str, Callable[[State, Task], None]] = {
    "trade": auto_trade, "effects": auto_effects, "dice_effects": auto_dice,
    "refill": auto_refill, "end_turn": end_turn, **STEPS,
}



def advance(state: State) -> None:
    """Run automatic steps until a decision with a real choice (or a turn) is owed."""
    queue = state.queue
    while queue:
        t = queue[0]
        step = AUTO.get(t["k"])
        if step is not None:
            queue.pop(0)
            step(state, t)
            continue
        options = decision_moves(state, t)
        if len(options) > 1:
            return
        queue.pop(0)
        if options:
            resolve(state, t, options[0])
        else:
            on_empty(state, t)


def pending(state: State) -> Task | None:
    return state.queue[0] if state.queue else None


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
        return decision_moves(state, t) if t["p"] == p else []
    return turn_moves(state, p, like) if p == state.active else []


def apply(state: State, p: int, move: Any) -> None:
    t = pending(state)
    if t is not None:
        state.queue.pop(0)
        resolve(state, t, move)
    else:
        do_turn(state, p, move)
    advance(state)
