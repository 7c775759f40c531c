"""Determinization for The Staufer Dynasty: re-deal what a player cannot see.

Hidden from PLAYER: the order and contents of the face-down chest stack, the other
players' contract cards and the contracts left in the box (re-dealt per category: Region,
blue, red; everyone holds one of each), and the generator's future (reshuffles of the
discards). Everything else is public or PLAYER's own: the board, the held chests (face
up), the discard pile (each discarded chest was seen face up), PLAYER's contracts.
"""

from __future__ import annotations

from referee.engine.deal import Slot, fresh_rng, redeal, redeal_by_kind, slots_of
from referee.engine.rng import Rng

from .state import State


def contract_category(cid: str) -> str:
    """"contract:blue-2-gap" -> "blue" (the card's back: Region, blue or red)."""
    return cid.removeprefix("contract:").split("-", 1)[0]


def determinize(state: State, player: str, rng: Rng) -> State:
    """A copy of ``state`` with every part ``player`` cannot see re-dealt from ``rng``."""
    out = state.copy()
    out.rng = fresh_rng(state.rng, rng)
    if state.finished:  # everything is open at the end
        return out
    me = state.players.index(player) if player in state.players else -1
    redeal(slots_of(out.stack), rng)
    slots: list[Slot] = []
    for p, held in enumerate(out.contracts):
        if p != me:
            slots += slots_of(held)
    slots += slots_of(out.unused_contracts)
    redeal_by_kind(slots, contract_category, rng)
    return out
