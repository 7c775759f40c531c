"""Setup, legal moves and their effects (rulebook sections named in comments).

Flow: ``state.queue`` holds what must happen next, front first. Automatic steps run at
once (:func:`advance`); a *decision* waits for its owner's move. When the queue is empty
during play, the active player owes a turn. A decision with exactly one legal move is
carried out automatically; one with none is skipped (its ``ON_EMPTY`` fallback runs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from referee.games.dynasties import data as D
from referee.games.dynasties import effects as E
from referee.games.dynasties import scoring as S
from referee.games.dynasties.effects import push, task
from referee.games.dynasties.moves import (
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
    faces_str,
    goods_pair,
)
from referee.games.dynasties.state import CityState, Player, Ship, State
from referee.rng import Rng

Task = dict[str, Any]
LIGHT_BLUE_COSTS_VIEW = D.LIGHT_BLUE_COSTS
MAX_COST = max(max(c.prince, c.princess) for c in D.CITIES.values())


# --- setup ------------------------------------------------------------------------------------
def setup(players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
    """Components and Setup, box by box; the Banker (first player) starts."""
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
    for _ in range(D.SHIPS):
        ship = Ship([0] * 5)
        E.draw_goods(state, ship.goods, D.PER_SHIP)
        state.ships.append(ship)
    for pl in ps:  # starting capital: 1 good of each colour, searched out of the bag
        for colour in range(5):
            state.bag[colour] -= 1
            pl.goods[colour] += 1
    _deal_personalities(state)
    state.neutral = D.NEUTRAL
    state.arms = [D.ARMS_PER_COUNTRY] * len(D.COUNTRIES)
    state.bonus = {k: [] for k in D.BONUS}
    state.log(f"round 1 begins; {players[0]} (the Banker) starts")
    return state


def _deal_personalities(state: State) -> None:
    """Shuffle the 8 personalities onto the 6 light-blue and 2 gold-yellow spaces."""
    keys = list(D.PERSONALITIES)
    state.rng.shuffle(keys, "personalities")
    state.personalities = keys
    state.used = [False] * len(keys)


# --- helpers ------------------------------------------------------------------------------------
def payments(goods: list[int], colour: int, n: int) -> tuple[str, ...]:
    """Distinct ways to pay n goods of a colour; 2 pink stand in for any one other good."""
    return _payments(goods[colour], goods[D.P], colour, n)


@lru_cache(maxsize=4096)
def _payments(have: int, pink: int, colour: int, n: int) -> tuple[str, ...]:
    if n == 0:
        return ("",)
    if colour == D.P:
        return ("p" * n,) if pink >= n else ()
    out = []
    for x in range(min(have, n), -1, -1):
        if 2 * (n - x) > pink:
            break
        out.append(D.COLOURS[colour] * x + "p" * (2 * (n - x)))
    return tuple(out)


def sub_multisets(goods: list[int], size: int) -> list[str]:
    """Distinct multisets of ``size`` goods out of a goods vector, as letters."""
    out: list[str] = []

    def rec(colour: int, left: int, acc: str) -> None:
        if left == 0:
            out.append(acc)
            return
        if colour == 5:
            return
        for k in range(min(goods[colour], left), -1, -1):
            rec(colour + 1, left - k, acc + D.COLOURS[colour] * k)

    rec(0, size, "")
    return out


def splits(goods: list[int]) -> list[tuple[str, str]]:
    """Distinct divisions of the goods into 2 non-empty groups (Dividing and Choosing)."""
    total = sum(goods)
    seen: dict[tuple[str, str], None] = {}
    for size in range((total + 1) // 2, total):
        for part in sub_multisets(goods, size):
            rest = [g - E.vec(part)[c] for c, g in enumerate(goods)]
            seen[goods_pair(part, E.letters(rest))] = None
    return list(seen)


def track_order(state: State) -> list[tuple[int, bool]]:
    """Players on the passing track, frontmost first, with 'has a figure there'."""
    out = [(p, True) for p in state.top if p is not None]
    return out + [(p, bool(f)) for p, f in state.long]


def turn_order(state: State) -> list[int]:
    return [(state.start + i) % state.n for i in range(state.n)]


def lone_cities(state: State, p: int) -> list[str]:
    return [c for c, _ in S.unmarried(state, p)]


def usable(state: State, p: int, key: str) -> bool:
    """Whether a personality's effect can be carried out at all."""
    op = D.PERSONALITIES[key]["effects"][0]["op"]
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
def turn_moves(state: State, p: int) -> list[Any]:
    pl = state.players[p]
    fig = pl.supply > 0
    place: dict[str, list[tuple[str, str]]] = {"prince": [], "princess": []}
    if fig:
        goods = pl.goods
        black = [payments(goods, D.K, n) for n in range(MAX_COST + 1)]
        white = [payments(goods, D.W, n) for n in range(MAX_COST + 1)]
        for key, c in state.cities.items():
            if c.prince == p or c.princess == p:
                continue
            city = D.CITIES[key]
            if c.prince is None:
                place["prince"] += [(key, pay) for pay in black[city.prince]]
            if c.princess is None:
                place["princess"] += [(key, pay) for pay in white[city.princess]]
    persons = []
    for i in range(len(D.LIGHT_BLUE_COSTS)):
        key = state.personalities[i]
        if not state.used[i] and usable(state, p, key):
            persons += [(key, pay) for pay in payments(pl.goods, D.B, D.LIGHT_BLUE_COSTS[i])]
    keeps_after = {c: [k for k in pl.hand if k != c] for c in pl.hand}
    moves: list[Any] = []
    for card in pl.hand:
        info = D.ACTION_CARDS[card]
        acts = info.actions
        if "trade" in acts and fig:
            moves += [Trade(card, s + 1) for s in range(D.SHIPS)]
        for figure in ("prince", "princess"):
            if figure in acts:
                moves += [Place(card, figure, key, pay) for key, pay in place[figure]]
        if "personality" in acts:
            moves += [Use(card, key, pay) for key, pay in persons]
        if info.special is not None:
            moves += special_moves(state, p, card, info.special, keeps_after[card])
        moves.append(SitOut(card))
    keeps = pl.hand or [0]
    for i, who in enumerate(state.top):
        if who is None and fig and pl.goods[D.P] >= D.TRACK_COSTS[i]:
            moves += [Pass(i + 1, 0, k) for k in keeps]
    moves += [Pass(0, 0, k) for k in keeps]
    return moves


def special_moves(state: State, p: int, card: int, spec: dict[str, Any],
                  keeps: list[int]) -> list[Any]:
    """Special Actions (lower part of the card)."""
    pl = state.players[p]
    kind = spec["kind"]
    if kind == "pass":
        if pl.supply == 0:
            return []
        return [Pass(frontmost_free(state), card, k) for k in (keeps or [0])]
    pays = payments(pl.goods, D.G, spec["gold"])
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


def roll(state: State, n: int) -> list[str]:
    dice = [D.FACES[state.rng.below(len(D.FACES), "dice")] for _ in range(n)]
    state.dice = dice
    return dice


def marriage(state: State, city: str) -> None:
    """The Marriage: the small-space player rolls and divides 1/2; the large one chooses."""
    c = state.cities[city]
    info = D.CITIES[city]
    large, small = getattr(c, info.large), getattr(c, info.small)
    dice = roll(state, D.DICE)
    state.log(f"marriage in {info.name}: {state.name(small)} rolled {', '.join(dice)}")
    push(state, task("dowry_divide", small, city=city, dice=dice, chooser=large))


# --- decisions: legal moves ------------------------------------------------------------
def decision_moves(state: State, t: Task) -> list[Any]:
    k, p = t["k"], t["p"]
    pl = state.players[p]
    if k == "divide":
        return [Divide(a, b) for a, b in splits(state.ships[t["ship"]].goods)]
    if k == "choose":
        return [Choose(g) for g in dict.fromkeys(t["groups"])]
    if k in ("self_take", "lone_take"):
        goods = state.ships[t["ship"]].goods
        return [Take(g, "ship") for g in sub_multisets(goods, min(2, sum(goods)))
                if g]
    if k == "take_ship":
        return [Take(D.COLOURS[c], str(s + 1)) for s, ship in enumerate(state.ships)
                for c in range(5) if ship.goods[c]]
    if k == "take_bag":
        size = min(t["count"], sum(state.bag))
        return [Take(g, "bag") for g in sub_multisets(state.bag, size) if g]
    if k == "dowry_divide":
        out = {}
        for i, face in enumerate(t["dice"]):
            rest = t["dice"][:i] + t["dice"][i + 1:]
            out[DivideDice(face, faces_str(rest))] = None
        return list(out)
    if k == "dowry_choose":
        return [ChooseDice(g) for g in dict.fromkeys(t["groups"])]
    if k == "neutral_dice":
        pairs = dict.fromkeys(faces_str(c) for c in combinations(t["dice"], t["keep"]))
        return [ChooseDice(g) for g in pairs]
    if k == "keep_scoring":
        return [KeepScoring(c) for c in dict.fromkeys(pl.looking)]
    if k == "arms_any":
        return [Country("arms", c) for i, c in enumerate(D.COUNTRIES) if state.arms[i]]
    if k == "upgrade":
        return [Country("upgrade", c) for c in D.COUNTRIES if c not in state.upgraded]
    if k == "wild":
        return [Country("wild", c) for c in D.COUNTRIES]
    if k == "envoy":
        if pl.supply == 0:
            return []
        return [Envoy(c) for c, who in state.free_cities.items() if who is None]
    if k == "marry":
        return [Marry(c) for c in lone_cities(state, p)] if state.neutral else []
    if k == "second_trade":
        return [SecondTrade(s + 1) for s in range(D.SHIPS)] if pl.supply else []
    if k == "bonus":
        return [Bonus(b) for b, info in D.BONUS.items()
                if info["shareable"] or not state.bonus[b]]
    if k == "monastery":
        return ([Monastery(t["city"], True)] if pl.goods[D.P] else []) + \
            [Monastery(t["city"], False)]
    if k == "score_cards":
        out = [Score(c) for c in dict.fromkeys(pl.scoring)]
        if state.round < D.ROUNDS and len(pl.scoring) <= D.CARRY_MAX:
            out.append(Done())
        return out
    raise AssertionError(f"unknown decision {k}")


# --- decisions: carrying out ------------------------------------------------------------
def finish_trade(state: State, s: int) -> None:
    """Both trading partners take their figures back; the Banker refills the ship."""
    ship = state.ships[s]
    for who in (ship.large, ship.small):
        if who is not None:
            state.players[who].supply += 1
    ship.large = ship.small = None
    E.to_bag(state, ship.goods)
    E.refill_ship(state, s)


def _gain(state: State, p: int, letters: str, src: list[int]) -> None:
    for ch in letters:
        c = D.COLOURS.index(ch)
        src[c] -= 1
        state.players[p].goods[c] += 1


def resolve(state: State, t: Task, move: Any) -> None:
    k, p = t["k"], t["p"]
    pl = state.players[p]
    if k == "divide":
        ship = state.ships[t["ship"]]
        state.log(f"{pl.id} divided ship {t['ship'] + 1} into {move.first} / {move.second}")
        push(state, task("choose", ship.large, ship=t["ship"], groups=[move.first, move.second],
                         divider=p))
    elif k == "choose":
        ship = state.ships[t["ship"]]
        groups = list(t["groups"])
        groups.remove(move.goods)
        _gain(state, p, move.goods, ship.goods)
        _gain(state, t["divider"], groups[0], ship.goods)
        state.log(f"{pl.id} chose {move.goods}; {state.name(t['divider'])} took {groups[0]}")
        finish_trade(state, t["ship"])
    elif k in ("self_take", "lone_take"):
        ship = state.ships[t["ship"]]
        _gain(state, p, move.goods, ship.goods)
        state.log(f"{pl.id} took {move.goods} from ship {t['ship'] + 1}")
        if k == "self_take":
            finish_trade(state, t["ship"])
        else:
            ship.large = None
            pl.supply += 1
    elif k == "take_ship":
        s = int(move.source) - 1
        _gain(state, p, move.goods, state.ships[s].goods)
        touched = sorted(set(t["touched"]) | {s})
        state.log(f"{pl.id} took {move.goods} from ship {s + 1}")
        if t["left"] > 1:
            push(state, task("take_ship", p, left=t["left"] - 1, touched=touched))
        else:
            push(state, task("refill", ships=touched))
    elif k == "take_bag":
        _gain(state, p, move.goods, state.bag)
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
    elif k == "arms_any":
        E.take_arms(state, p, move.country, t["fallback"])
    elif k == "upgrade":
        state.upgraded.append(move.country)
        state.log(f"{pl.id} put the upgrader on {D.COUNTRY_NAMES[move.country]}")
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
        info = D.CITIES[move.city]
        setattr(c, "princess" if c.prince == p else "prince", -1)
        state.neutral -= 1
        dice = roll(state, D.DICE)
        state.log(f"{pl.id} married a neutral figure in {info.name}; rolled {', '.join(dice)}")
        push(state, task("neutral_dice", p, city=move.city, dice=dice, keep=t["keep"]))
    elif k == "second_trade":
        push(state, task("trade", p, ship=move.ship - 1))
    elif k == "bonus":
        _bonus(state, p, move.space, t["leonardo"])
    elif k == "monastery":
        _monastery(state, p, t["city"], move.save)
    elif k == "score_cards" and isinstance(move, Score):
        pts = S.card_points(state, p, move.card)
        pl.scoring.remove(move.card)
        (state.yellow_discard if move.card in D.YELLOW else state.scored).append(move.card)
        E.gain_points(state, p, pts, f"scoring card {move.card}")
        push(state, task("score_cards", p))


def _bonus(state: State, p: int, space: str, leonardo: bool) -> None:
    """Bonus Action: move the figure from the track (or the Leonardo tile) to a space."""
    if leonardo:
        state.leonardo = None
    else:
        if p in state.top:
            state.top[state.top.index(p)] = None
        else:
            state.long = [e for e in state.long if e[0] != p]
    state.bonus[space].append(p)
    state.log(f"{state.name(p)} took the bonus action {space}")
    E.run_all(state, p, D.BONUS[space]["effects"], None)


def _monastery(state: State, p: int, city: str, save: bool) -> None:
    """After round 2: pay 1 pink to keep an unmarried figure, or it leaves the board."""
    c = state.cities[city]
    if save:
        E.pay(state, p, "p")
        state.log(f"{state.name(p)} paid 1 pink to keep the figure in {D.CITIES[city].name}")
        return
    for figure in ("prince", "princess"):
        if getattr(c, figure) == p:
            setattr(c, figure, None)
    state.players[p].supply += 1
    state.log(f"{state.name(p)}'s figure in {D.CITIES[city].name} went to the monastery")


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
    elif k == "arms_any":
        E.gain_points(state, p, t["fallback"], "no coat of arms left")
    elif k == "divide":  # 0 or 1 good: the chooser takes it (reference §9)
        ship = state.ships[t["ship"]]
        _gain(state, ship.large, E.letters(ship.goods), ship.goods)  # type: ignore[arg-type]
        finish_trade(state, t["ship"])


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


def lone_figures(state: State, t: Task) -> None:
    """End of a Round 1: a lone figure on a ship takes 2 of its goods."""
    push(state, *(task("lone_take", ship.large, ship=s) for s, ship in enumerate(state.ships)
                  if ship.large is not None))


def lone_cleanup(state: State, t: Task) -> None:
    for s, ship in enumerate(state.ships):
        E.to_bag(state, ship.goods)
        E.refill_ship(state, s)


def redeal(state: State, t: Task) -> None:
    """End of a Round 2: the personalities are reshuffled and laid out again."""
    _deal_personalities(state)


def new_start(state: State, t: Task) -> None:
    """End of a Round 3: the frontmost player on the track takes the rose basket."""
    state.start = state.active = track_order(state)[0][0]
    state.log(f"{state.name(state.start)} is the new starting player")


def bonus_start(state: State, t: Task) -> None:
    """End of a Round 4: bonus actions in track order, Leonardo last."""
    tasks = [task("bonus", p, leonardo=False) for p, fig in track_order(state) if fig]
    if state.leonardo is not None:
        tasks.append(task("bonus", state.leonardo, leonardo=True))
    push(state, *tasks)


def bonus_end(state: State, t: Task) -> None:
    for space in state.bonus.values():
        for p in space:
            state.players[p].supply += 1
        space.clear()
    for p, fig in track_order(state):
        state.players[p].supply += int(fig)
    state.top = [None] * 4
    state.long = []
    for key, p in state.free_cities.items():
        if p is not None:
            state.players[p].supply += 1
            state.free_cities[key] = None


def books_reveal(state: State, t: Task) -> None:
    """Book tiles taken this round are revealed and resolved (reference §8.2, ASSUMPTION)."""
    tasks = []
    for p in turn_order(state):
        pl = state.players[p]
        for tile in pl.books:
            pl.books_open.append(tile)
            state.log(f"{pl.id} revealed book tile {tile}")
            tasks.append(task("effects", p, effects=D.BOOK_TILES[tile]["effects"], city=None))
        pl.books = []
    push(state, *tasks)


def figure_scoring(state: State, t: Task) -> None:
    """Round Scoring 1: unmarried Princes and Princesses (4/2, then 6/3)."""
    if state.round not in D.FIGURE_SCORING:
        return
    for p in range(state.n):
        pts, parts = S.unmarried_points(state, p, state.round)
        if pts:
            E.gain_points(state, p, pts, "unmarried figures: " + ", ".join(parts))


def monastery_start(state: State, t: Task) -> None:
    if state.round != D.MONASTERY_ROUND:
        return
    push(state, *(task("monastery", p, city=city) for p in turn_order(state)
                  for city in lone_cities(state, p)))


def cards_start(state: State, t: Task) -> None:
    """Round Scoring 2: scoring cards, in turn order from the starting player."""
    push(state, *(task("score_cards", p) for p in turn_order(state)))


def next_round(state: State, t: Task) -> None:
    """End of a Round 5 (4 new cards each), or the final scoring after round 3."""
    if state.round >= D.ROUNDS:
        tasks = [task("wild", p, tile=tile) for p in turn_order(state)
                 for tile in state.players[p].books_open
                 if D.BOOK_TILES[tile]["kind"] == "sword"]
        push(state, *tasks, task("final"))
        return
    state.round += 1
    for p in turn_order(state):
        state.players[p].passed = False
        for _ in range(D.LATER_DEAL):
            E.draw_action_card(state, p)
    state.phase = "play"
    state.active = state.start
    state.log(f"round {state.round} begins; {state.name(state.start)} starts")


def final(state: State, t: Task) -> None:
    state.final = S.final_scoring(state)
    state.phase = "over"
    state.log("final scoring done; the game is over")


ROUND_END = ["lone_figures", "lone_cleanup", "redeal", "new_start", "bonus_start", "bonus_end",
             "books_reveal", "figure_scoring", "monastery_start", "cards_start", "next_round"]
AUTO: dict[str, Callable[[State, Task], None]] = {
    "trade": auto_trade, "effects": auto_effects, "dice_effects": auto_dice,
    "refill": auto_refill, "end_turn": end_turn, "lone_figures": lone_figures,
    "lone_cleanup": lone_cleanup, "redeal": redeal, "new_start": new_start,
    "bonus_start": bonus_start, "bonus_end": bonus_end, "books_reveal": books_reveal,
    "figure_scoring": figure_scoring, "monastery_start": monastery_start,
    "cards_start": cards_start, "next_round": next_round, "final": final,
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


def legal_moves(state: State, p: int) -> list[Any]:
    if state.phase == "over":
        return []
    t = pending(state)
    if t is not None:
        return decision_moves(state, t) if t["p"] == p else []
    return turn_moves(state, p) if p == state.active else []


def apply(state: State, p: int, move: Any) -> None:
    t = pending(state)
    if t is not None:
        state.queue.pop(0)
        resolve(state, t, move)
    else:
        do_turn(state, p, move)
    advance(state)
