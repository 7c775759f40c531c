"""Hidden state of Dynasties, item by item (for leak tests), and whether a move touched
it (for undo).

Hidden from the other players: each player's action cards, scoring cards (kept and
drawn) and face-down book tiles. Hidden from everyone: the action deck and the yellow
scoring deck (the future draws, top first), the green scoring cards left in the box,
and the face-down book tiles on the book cities, on the free-city pile and in the box.
Every card and tile has its own id, so each item is found by its id alone: views write
``a07``, ``y05``, ``ship-1`` (the forms ``card:a07``, ``scoring:y05``, ``book:ship-1`` are
searched too), and a card's text, in English and in German, where no other card has the
same (a book tile's name, ``Ship (2 goods)``, is its kind's: two tiles share it, and the
public events name open tiles so). A deck's order is
also one item, the run of its next ids (``a12, a03, a27``). An id that the public events
on view name (``sat out (discarded a07...)``, ``scoring card y05``) was seen by everyone
before the card was shuffled back into its deck: its plain form is left out, the other
forms stay (a scoring card's text goes too: the events write it beside the id of a card
played). The bag is not hidden: every good outside it is on view, so its contents follow
from the public goods (its draws are the generator's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from functools import cache, partial
from typing import Any

from referee import i18n
from referee.engine import HiddenItem

from .data import Data
from .state import State
from .words import card_text, name

Tokens = Callable[[Any, Container[str]], tuple[str, ...]]
ORDER_RUN = 3  # plain ids of the next draws that make one "deck order" token
ORDER_MIN = 2


def _texts(english: str, german: Callable[[], str]) -> tuple[str, ...]:
    """A card's text as the views write it in English and in German."""
    with i18n.language("de"):
        other = german()
    return (english,) if other == english else (english, other)


@cache
def _card_forms(data: Data, n: int, seen: bool) -> tuple[str, ...]:
    card = data.action_cards[n]
    text = card.describe()
    return ((f"card:a{n:02d}",) + (() if seen else (f"a{n:02d}",))
            + (_texts(text, lambda: card_text(card, data.cities))
               if data.card_text_counts[text] == 1 else ()))


@cache
def _scoring_forms(data: Data, key: str, seen: bool) -> tuple[str, ...]:
    text = data.scoring[key].text
    unique = data.scoring_text_counts[text] == 1
    return ((f"scoring:{key}",) + (() if seen else (key,))
            + (_texts(text, lambda: name(text)) if unique and not seen else ()))


def card_tokens(data: Data, n: int, named: Container[str]) -> tuple[str, ...]:
    return _card_forms(data, n, f"a{n:02d}" in named)


def scoring_tokens(data: Data, key: str, named: Container[str]) -> tuple[str, ...]:
    return _scoring_forms(data, key, key in named)


def book_tokens(tile: str, named: Container[str]) -> tuple[str, ...]:
    return (f"book:{tile}",) + (() if tile in named else (tile,))


def named_in_events(state: State) -> set[str]:
    """The words of the public events on view (ids of cards seen by everyone)."""
    return set(re.findall(r"[\w-]+", " ".join(state.events)))


def _pile(kind: str, where: str, ids: list[Any], tokens: Tokens, named: set[str],
          numbered: bool) -> list[HiddenItem]:
    return [HiddenItem(kind, f"{where}, no. {i + 1} from the top" if numbered else where,
                       tokens(x, named)) for i, x in enumerate(ids)]


def _players(state: State, viewer: str | None, named: set[str]) -> list[HiddenItem]:
    d = state.data
    items: list[HiddenItem] = []
    for pl in state.players:
        if pl.id == viewer:
            continue
        items += [HiddenItem("card", f"{pl.id}'s hand", card_tokens(d, n, named), pl.id)
                  for n in pl.hand]
        items += [HiddenItem("card", f"{pl.id}'s scoring cards", scoring_tokens(d, c, named),
                             pl.id) for c in pl.scoring]
        items += [HiddenItem("card", f"{pl.id}'s drawn scoring cards",
                             scoring_tokens(d, c, named), pl.id) for c in pl.looking]
        items += [HiddenItem("tile", f"{pl.id}'s face-down book tiles",
                             book_tokens(b, named), pl.id) for b in pl.books]
    return items


def _order(where: str, plain: list[str]) -> list[HiddenItem]:
    """The order of a deck as the next draws' plain ids, top first or bottom first (an id
    seen in the events still tells nothing of its place)."""
    if len(plain) < ORDER_MIN:
        return []
    run = plain[:ORDER_RUN]
    return [HiddenItem("draw", f"the order of {where} (next {len(run)} draws)",
                       (", ".join(run), ", ".join(reversed(run))))]


def hidden_items(state: State, viewer: str | None) -> list[HiddenItem]:
    named = named_in_events(state)
    cards, scoring = partial(card_tokens, state.data), partial(scoring_tokens, state.data)
    items = _players(state, viewer, named)
    items += _pile("draw", "the action deck", state.deck, cards, named, True)
    items += _order("the action deck", [f"a{n:02d}" for n in state.deck])
    items += _pile("draw", "the yellow scoring deck", state.yellow, scoring, named,
                   True)
    items += _order("the yellow scoring deck", list(state.yellow))
    items += _pile("card", "the green scoring cards in the box", state.green_box,
                   scoring, named, False)
    for key, city in state.cities.items():
        items += _pile("tile", f"the book tiles of {state.data.cities[key].name}", city.books,
                       book_tokens, named, True)
    items += _pile("draw", "the free-city book tiles", state.free_books, book_tokens, named,
                   True)
    items += _pile("tile", "the book tiles in the box", state.book_box, book_tokens, named,
                   False)
    return items


def _secret(state: State) -> tuple[Any, ...]:
    hands = [(pl.hand, pl.scoring, pl.looking, pl.books) for pl in state.players]
    cities = [c.books for c in state.cities.values()]
    return (hands, cities, state.deck, state.yellow, state.green_box, state.book_box,
            state.free_books, state.bag)


def reveals(before: State, after: State) -> bool:
    """A card or tile dealt, played, drawn or opened, or goods taken from the bag."""
    return _secret(before) != _secret(after)
