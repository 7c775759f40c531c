"""Which Staufer components a finished game used or scored (for ``referee simulate``):
usage keys ``kind:name`` read from the move log and the final state, and the assumption
key prefixes they exercise (:mod:`referee.bots.usage`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

# assumption key prefix -> usage key prefix (the longest matching assumption prefix wins)
PREFIXES = {
    "chests.mix.": "chest:",  # + colour
    "contracts.blue": "contract-scored:blue-",
    "contracts.red": "contract-scored:red-",
    "privileges.vp_values": "privilege:1",
    "privileges.decks": "privilege:",
    "supply_board.spaces": "supply-space:",
    "regions.regions.": "seat:",  # + region
}


def extract(moves: Iterable[Any], state: Any) -> Counter[str]:
    """The game's own usage keys of one finished game (the moves by kind are counted
    by :func:`referee.bots.usage.game_usage`)."""
    used: Counter[str] = Counter()
    chest_kind = state.data.chest_kind
    chest_colour = {ctype: colour for colour, ctype in chest_kind.values()}
    for move in moves:
        kind = type(move).__name__
        if kind == "Privilege":
            used[f"privilege:{move.number}"] += 1
        elif kind == "Pick":
            used[f"chest:{chest_colour.get(move.chest, move.chest)}:{move.chest}"] += 1
        elif kind == "First":
            used["chest:turquoise:first"] += 1
        elif kind == "Deploy":
            used[f"seat:{move.region}:{move.seat}"] += 1
            for flag in ("free-move", "free-pay"):
                if getattr(move, flag.replace("-", "_")):
                    used[f"chest:turquoise:{flag}"] += 1
        elif kind == "Keep" and move.region:
            used["chest:turquoise:keep"] += 1
        elif kind == "Supply":
            used[f"supply-space:{move.space}"] += 1
    for held in state.held:
        for cid in held:
            colour, ctype = chest_kind[cid]
            used[f"chest:{colour}:{ctype}"] += 1
    for parts in state.final.values():
        for what, points in parts.items():
            if what.startswith("contract:") and points > 0:
                used[f"contract-scored:{what.removeprefix('contract:')}"] += 1
    return used


def in_play(assumption_key: str, players: int) -> bool:
    """A region's seat row for 2 players is on the table only with 2, the other only
    with 3 to 5."""
    if assumption_key.startswith("regions.regions."):
        side = assumption_key.rsplit(".", 1)[-1]
        return (side == "2") == (players == 2)
    return True
