"""The game seen by player id, as the referee's core asks it (the rules work by seat):
whose turn, legal moves, applying a move, why one is not legal, the result."""

from __future__ import annotations

from typing import Any

from . import illegal, rules
from .state import State


def seat(state: State, player: str) -> int:
    """The seat of ``player`` (-1: not in this game)."""
    for i, pl in enumerate(state.players):
        if pl.id == player:
            return i
    return -1


def to_move(state: State) -> list[str]:
    if state.phase == "over":
        return []
    t = rules.pending(state)
    return [state.name(t.player if t is not None else state.active)]


def legal_moves(state: State, player: str) -> list[Any]:
    p = seat(state, player)
    return rules.legal_moves(state, p) if p >= 0 else []


def is_legal(state: State, player: str, move: Any) -> bool:
    """Asks the one generator for only the moves that could equal ``move``."""
    p = seat(state, player)
    return p >= 0 and move in rules.legal_moves(state, p, like=move)


def apply(state: State, player: str, move: Any) -> None:
    rules.apply(state, seat(state, player), move)


def why_illegal(state: State, player: str, move: Any) -> str:
    return illegal.why_illegal(state, seat(state, player), move)


def finished(state: State) -> bool:
    return state.phase == "over"


def scores(state: State) -> dict[str, int]:
    return {pl.id: pl.score for pl in state.players}


def ranking(state: State) -> list[list[str]]:
    """Most points wins; a tie goes to more goods left in the supply (Final Scoring)."""
    keyed: dict[tuple[int, int], list[str]] = {}
    for pl in state.players:
        keyed.setdefault((pl.score, sum(pl.goods)), []).append(pl.id)
    return [keyed[k] for k in sorted(keyed, reverse=True)]
