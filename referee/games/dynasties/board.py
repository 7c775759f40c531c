"""Small shared operations on the board: payments, divisions, turn and track order.

Used by the turn (rules.py), the decisions (decisions.py) and the end of a round
(roundend.py); it imports none of them. Payments, sub-multisets and divisions are pure
functions of a few numbers, cached by them: the same goods always give the same answer,
so no cache can go stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from . import effects as E
from . import scoring as S
from .moves import goods_pair
from .state import COLOURS, P, State


def payments(goods: list[int], colour: int, n: int) -> tuple[str, ...]:
    """Distinct ways to pay n goods of a colour; 2 pink stand in for any one other good."""
    return _payments(goods[colour], goods[P], colour, n)


@lru_cache(maxsize=4096)
def pay_table(have: int, pink: int, colour: int, most: int) -> tuple[tuple[str, ...], ...]:
    """:func:`payments` for every city cost 0..``most`` (the dearest space), by cost: one
    look-up per turn."""
    return tuple(_payments(have, pink, colour, n) for n in range(most + 1))


@lru_cache(maxsize=4096)
def _payments(have: int, pink: int, colour: int, n: int) -> tuple[str, ...]:
    if n == 0:
        return ("",)
    if colour == P:
        return ("p" * n,) if pink >= n else ()
    out = []
    for x in range(min(have, n), -1, -1):
        if 2 * (n - x) > pink:
            break
        out.append(COLOURS[colour] * x + "p" * (2 * (n - x)))
    return tuple(out)


def sub_multisets(goods: Sequence[int], size: int) -> tuple[str, ...]:
    """Distinct multisets of ``size`` goods out of a goods vector, as letters."""
    return _sub_multisets(tuple(goods), size)


@lru_cache(maxsize=4096)
def _sub_multisets(goods: tuple[int, ...], size: int) -> tuple[str, ...]:
    out: list[str] = []

    def rec(colour: int, left: int, acc: str) -> None:
        if left == 0:
            out.append(acc)
            return
        if colour == 5:
            return
        for k in range(min(goods[colour], left), -1, -1):
            rec(colour + 1, left - k, acc + COLOURS[colour] * k)

    rec(0, size, "")
    return tuple(out)


def splits(goods: Sequence[int]) -> tuple[tuple[str, str], ...]:
    """Distinct divisions of the goods into 2 non-empty groups (Dividing and Choosing)."""
    return _splits(tuple(goods))


@lru_cache(maxsize=1024)
def _splits(goods: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    total = sum(goods)
    seen: dict[tuple[str, str], None] = {}
    for size in range((total + 1) // 2, total):
        for part in sub_multisets(goods, size):
            rest = [g - E.vec(part)[c] for c, g in enumerate(goods)]
            seen[goods_pair(part, E.letters(rest))] = None
    return tuple(seen)


def track_order(state: State) -> list[tuple[int, bool]]:
    """Players on the passing track, frontmost first, with 'has a figure there'."""
    out = [(p, True) for p in state.top if p is not None]
    return out + [(p, bool(f)) for p, f in state.long]


def turn_order(state: State) -> list[int]:
    return [(state.start + i) % state.n for i in range(state.n)]


def lone_cities(state: State, p: int) -> list[str]:
    return [c for c, _ in S.unmarried(state, p)]


def deal_personalities(state: State) -> None:
    """Shuffle the 8 personalities onto the 6 light-blue and 2 gold-yellow spaces."""
    keys = list(state.data.personalities)
    state.rng.shuffle(keys, "personalities")
    state.personalities = keys
    state.used = [False] * len(keys)


def roll(state: State, n: int) -> list[str]:
    faces = state.data.faces
    dice = [faces[state.rng.below(len(faces), "dice")] for _ in range(n)]
    state.dice = dice
    return dice


def gain(state: State, p: int, letters: str, src: list[int]) -> None:
    """Move goods (letters) from ``src`` into player p's supply."""
    for ch in letters:
        c = COLOURS.index(ch)
        src[c] -= 1
        state.players[p].goods[c] += 1


def finish_trade(state: State, s: int) -> None:
    """Both trading partners take their figures back; the Banker refills the ship."""
    ship = state.ships[s]
    for who in (ship.large, ship.small):
        if who is not None:
            state.players[who].supply += 1
    ship.large = ship.small = None
    E.to_bag(state, ship.goods)
    E.refill_ship(state, s)
