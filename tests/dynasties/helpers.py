"""Build positions from a real setup, then play real moves through the engine."""

from __future__ import annotations

from typing import Any

from referee.engine import resolve_move
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties import effects as E
from referee.games.dynasties.moves import Bonus, Done, Monastery
from referee.games.dynasties.rules import advance
from referee.games.dynasties.state import COLOURS, State

D = GAME.data  # the component data of the current game

NAMES = ("blue", "red", "yellow", "green", "orange")


def new_game(n: int = 4, seed: str = "example") -> State:
    """A real setup; players are named after their colours (seat order = colour order)."""
    return GAME.setup(list(NAMES[:n]), {}, Rng(seed))


def idx(state: State, who: str) -> int:
    return [pl.id for pl in state.players].index(who)


def set_goods(state: State, who: str, letters: str) -> None:
    """The player's supply becomes exactly ``letters`` (exchanged with the bag)."""
    goods = state.players[idx(state, who)].goods
    E.to_bag(state, goods)
    _from_bag(state, goods, letters)


def set_ship(state: State, ship: int, letters: str) -> None:
    goods = state.ships[ship - 1].goods
    E.to_bag(state, goods)
    _from_bag(state, goods, letters)


def _from_bag(state: State, into: list[int], letters: str) -> None:
    for ch in letters:
        c = COLOURS.index(ch)
        if state.bag[c] == 0:  # fetch it from another player's supply or a ship
            for holder in [pl.goods for pl in state.players] + [s.goods for s in state.ships]:
                if holder is not into and holder[c]:
                    holder[c] -= 1
                    state.bag[c] += 1
                    break
        state.bag[c] -= 1
        into[c] += 1


def grant_card(state: State, who: str, action: str | None = None,
               special: str | None = None, city: str | None = None) -> int:
    """Move a matching action card (from the deck, discard or a hand) into who's hand."""
    for number, card in D.action_cards.items():
        if action and action not in card.actions:
            continue
        if special and (card.special is None or card.special.__struct_config__.tag != special):
            continue
        if city and getattr(card.special, "city", None) != city:
            continue
        for pile in [state.deck, state.discard] + [pl.hand for pl in state.players]:
            if number in pile:
                pile.remove(number)
        state.players[idx(state, who)].hand.append(number)
        return number
    raise LookupError("no such card")


def put(state: State, who: str, role: str, city: str) -> None:
    """Stand a family member of ``who`` on a city space (prince, princess or child)."""
    c = state.cities[city]
    setattr(c, "star" if role == "child" else role, idx(state, who))
    state.players[idx(state, who)].supply -= 1


def turn_of(state: State, who: str) -> None:
    state.queue.clear()
    state.active = idx(state, who)


def play(state: State, who: str, text: str) -> Any:
    """Resolve notation exactly as the CLI does, then apply it."""
    move = resolve_move(GAME, state, who, text)
    GAME.apply(state, who, move)
    return move


def everyone_else_passed(state: State, who: str) -> None:
    """All players but ``who`` have passed onto the long space (with a figure)."""
    for i, pl in enumerate(state.players):
        if pl.id != who:
            pl.passed = True
            state.long.append([i, 1])
            pl.supply -= 1


def settle(state: State, stop: Any = None) -> None:
    """Make the plain choices (3 points bonus, done, first option) until ``stop(state)``
    is true or a turn is owed."""
    while state.queue and not (stop and stop(state)):
        who = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, who)
        pick = next((m for m in legal if m in (Bonus("points"), Done())), None)
        if pick is None:
            pick = next((m for m in legal if isinstance(m, Monastery) and m.save), legal[0])
        GAME.apply(state, who, pick)
    advance(state)
    assert not GAME.invariants(state), GAME.invariants(state)
