"""Determinization for Dynasties: re-deal what a player cannot see.

Hidden from PLAYER: the other players' action cards, scoring cards (kept and drawn) and
face-down book tiles; the action deck, the yellow scoring deck, the green cards left in
the box; the face-down book tiles on the book cities, the free-city pile and in the box;
and the generator's future (bag draws, dice, reshuffles, personalities). Re-dealt per
kind: action cards among action-card places, green and yellow scoring cards each among
their own places (their backs differ), book tiles among book-tile places.

Kept: the bag's contents (every good outside it is on view, so its contents follow from
the public goods), discards, open tiles, PLAYER's own hand, cards and tiles.
A player's memory of cards seen privately (the drawn scoring cards put under the yellow
deck) is not used: those places are re-dealt like any other hidden place.
"""

from __future__ import annotations

from referee.engine.deal import Slot, fresh_rng, redeal, redeal_by_kind, slots_of
from referee.engine.rng import Rng

from .state import State


def determinize(state: State, player: str, rng: Rng) -> State:
    """A copy of ``state`` with every part ``player`` cannot see re-dealt from ``rng``."""
    out = state.copy()
    out.rng = fresh_rng(state.rng, rng)
    others = [pl for pl in out.players if pl.id != player]
    cards: list[Slot] = slots_of(out.deck)
    scoring: list[Slot] = slots_of(out.yellow) + slots_of(out.green_box)
    books: list[Slot] = []
    for pl in others:
        cards += slots_of(pl.hand)
        scoring += slots_of(pl.scoring) + slots_of(pl.looking)
        books += slots_of(pl.books)
    for city in out.cities.values():
        books += slots_of(city.books)
    books += slots_of(out.free_books) + slots_of(out.book_box)
    redeal(cards, rng)
    scoring_cards = state.data.scoring
    redeal_by_kind(scoring, lambda card: scoring_cards[card].deck, rng)
    redeal(books, rng)
    return out
