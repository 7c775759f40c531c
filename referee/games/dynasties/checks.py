"""Conservation invariants (for tests and ``check``)."""

from __future__ import annotations

from .state import NEUTRAL_FIGURE, State


def _figures_of(state: State, p: int) -> int:
    pl = state.players[p]
    n = 1 + pl.supply  # the score marker
    for c in state.cities.values():
        n += (c.prince == p) + (c.princess == p) + (c.star == p)
    for ship in state.ships:
        n += (ship.large == p) + (ship.small == p)
    n += sum(1 for who in state.top if who == p)
    n += sum(f for who, f in state.long if who == p)
    n += sum(space.count(p) for space in state.bonus.values())
    n += state.leonardo == p
    n += sum(1 for who in state.free_cities.values() if who == p)
    return n


def invariants(state: State) -> list[str]:
    d = state.data
    bad = []
    goods = list(state.bag)
    for holder in [pl.goods for pl in state.players] + [s.goods for s in state.ships]:
        for c in range(5):
            goods[c] += holder[c]
    if goods != d.goods_counts or min(goods) < 0:
        bad.append(f"goods by colour {goods} != {d.goods_counts}")
    for name in ("bag",):
        if min(state.bag) < 0:
            bad.append(f"negative {name}")
    for p, pl in enumerate(state.players):
        if min(pl.goods) < 0:
            bad.append(f"{pl.id} has negative goods")
        if pl.supply < 0:
            bad.append(f"{pl.id} has a negative supply")
        n = _figures_of(state, p)
        if n != d.per_colour:
            bad.append(f"{pl.colour} family members: {n} != {d.per_colour}")
    neutral = state.neutral + sum((c.prince == NEUTRAL_FIGURE) + (c.princess == NEUTRAL_FIGURE)
                                  for c in state.cities.values())
    if neutral != d.neutral:
        bad.append(f"neutral figures: {neutral}")
    cards = state.deck + state.discard + [c for pl in state.players for c in pl.hand]
    if sorted(cards) != sorted(d.action_cards):
        bad.append(f"action cards: {len(cards)} (or duplicated)")
    scoring = (state.yellow + state.yellow_discard + state.scored + state.green_box
               + [c for pl in state.players for c in pl.scoring + pl.looking])
    if sorted(scoring) != sorted(d.scoring):
        bad.append(f"scoring cards: {len(scoring)} (or duplicated)")
    books = (state.book_box + state.free_books + [b for c in state.cities.values() for b in c.books]
             + [b for pl in state.players for b in pl.books + pl.books_open])
    if sorted(books) != sorted(d.book_tiles):
        bad.append(f"book tiles: {len(books)} (or duplicated)")
    for i, country in enumerate(d.countries):
        n = state.arms[i] + sum(pl.arms[i] for pl in state.players)
        if n != d.arms_per_country:
            bad.append(f"coats of arms of {country}: {n}")
    return bad
