"""Helpers for the hidden-information tests: real positions and a re-deal of the secrets."""

from __future__ import annotations

import copy
from typing import Any

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.dynasties import GAME
from referee.games.dynasties.state import State


def positions(n: int, seed: str) -> dict[str, State]:
    """Copies of the first position of a random game at each kind of pending decision
    ("turn" when a player owes a turn)."""
    match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, seed)
    rng = Rng(f"{seed}-moves")
    state = match.state
    found: dict[str, State] = {}
    while not GAME.finished(state):
        kind = state.queue[0].kind if state.queue else "turn"
        found.setdefault(kind, copy.deepcopy(state))
        player = GAME.to_move(state)[0]
        match.play(player, rng.choice(GAME.legal_moves(state, player), "playout"))
    return found


def named_in(move: Any) -> set[Any]:
    """Cards the move itself names (they keep their place when secrets are re-dealt)."""
    return {getattr(move, f) for f in ("card", "keep") if hasattr(move, f)}


def redeal_secrets(state: State, keep: set[Any]) -> State:
    """A copy in which every player's hidden cards and tiles are exchanged for others
    from the face-down decks and the box (counts unchanged, ``keep`` left in place)."""
    s = copy.deepcopy(state)
    for pl in s.players:
        _swap(pl.hand, s.deck, keep)
        _swap(pl.scoring, s.yellow, keep)
        _swap(pl.looking, s.yellow, keep)
        _swap(pl.books, s.book_box, keep)
    return s


def _swap(held: list[Any], pool: list[Any], keep: set[Any]) -> None:
    for i, item in enumerate(held):
        if item in keep:
            continue
        j = next((j for j, other in enumerate(pool) if other not in keep), None)
        if j is None:
            return
        held[i], pool[j] = pool[j], item
