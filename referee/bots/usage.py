"""Which components a finished game used or scored, read from its move log and final state
(the same facts every player saw), and which assumed component values that covers.

Usage keys are ``kind:name`` strings (``privilege:7``, ``personality:drake``); an
assumption (``engine.assumptions(game)``) is matched to the usage keys that exercise it by
a key prefix, so that ``simulate`` can flag assumed values that (almost) never come up.

What a game's keys are is the game's own: its ``usage`` capability (a module of its
package, e.g. ``referee/games/staufer/usage.py``) gives ``extract(moves, state)`` (its own keys; the
moves by kind are counted for every game),
``PREFIXES`` (assumption key prefix -> usage key prefix) and optionally
``in_play(assumption_key, players)``. A game without one gets the generic count of its
moves by kind (``move:Take``), and no assumption is matched to usage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from referee import engine
from referee.engine import Game, Move, State


def _game(game: Game | str) -> Game:
    return engine.get_game(game) if isinstance(game, str) else game


def moves_by_kind(moves: Iterable[Move]) -> Counter[str]:
    """The generic usage: each move counted as ``move:<its type's name>``."""
    return Counter(f"move:{type(move).__name__}" for move in moves)


def usage_prefix(game: Game | str, assumption_key: str) -> str | None:
    """The usage key (or key prefix, ending in ":" or "-") that exercises
    ``assumption_key``; None when the log does not show it (the board layout, the figure
    colours: every game uses them)."""
    table: Mapping[str, str] = getattr(engine.usage(_game(game)), "PREFIXES", {})
    for prefix in sorted(table, key=len, reverse=True):
        if assumption_key.startswith(prefix):
            rest = assumption_key[len(prefix):]
            if prefix.endswith(".") and rest:
                return table[prefix] + rest.split(".", 1)[0]
            return table[prefix]
    return None


def matches(usage_key: str, target: str) -> bool:
    """Whether ``usage_key`` exercises ``target`` (an exact key, its ``target:...``
    refinements, or every key under a prefix ending in ":" or "-")."""
    if target.endswith((":", "-")):
        return usage_key.startswith(target)
    return usage_key == target or usage_key.startswith(target + ":")


def in_play(game: Game | str, assumption_key: str, players: int) -> bool:
    """Whether the assumed value is on the table at all with ``players`` players (a
    region's seat row for another player count, a city of a larger map, is not)."""
    check: Any = getattr(engine.usage(_game(game)), "in_play", None)
    return bool(check(assumption_key, players)) if check else True


def game_usage(game: Game, moves: Iterable[Move], state: State) -> Counter[str]:
    """Usage keys of one finished game: its moves by kind, and the game's own keys (its
    extraction) beside them."""
    moves = list(moves)
    used = moves_by_kind(moves)
    extract: Any = getattr(engine.usage(game), "extract", None)
    if extract is not None:
        used.update(extract(moves, state))
    return used
