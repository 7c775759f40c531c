"""A game's identity is unique: no two game files may be the same game.

A sealed game's seed is bound to its header (referee/ledger/secret.py), so a copy with any
header change cannot be replayed with the repository secret. A copy is still refused on
sight wherever many games are served together (``check --since``, ``pending``, ``site``,
``views``, the judge), because games of earlier releases derive their seed from the id
alone, and because two files of one game would share a page, a view and a mail thread.

Two game files are one game when they share

* the header (everything but the log and what is derived from the seed: a copy),
* the rng commitment (a copy of a sealed game's seed under another header), or
* the game id, compared ignoring case (site URLs, views and caches are named by it, and
  ``G`` and ``g`` are one name on a case-insensitive disk).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.ledger.gamefile import GameFile

# Checked in this order: the first shared key names the reason.
KINDS = ("header", "commitment", "id")
REASONS = {
    "header": "the same header (a copy of that game)",
    "commitment": "the same rng commitment (a copy of that game's seed)",
    "id": "the same game id",
}


@dataclass(frozen=True)
class Duplicate:
    """``file`` is the same game as ``other`` (seen before it), for ``kind``."""

    file: str
    other: str
    kind: str
    game_id: str

    @property
    def message(self) -> str:
        return (f"{self.file} is the same game as {self.other}: {REASONS[self.kind]} "
                f"({self.game_id!r}); a game's identity cannot be copied")

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "other": self.other, "kind": self.kind,
                "id": self.game_id, "message": self.message}


def header_of(game: GameFile | Mapping[str, Any]) -> Mapping[str, Any]:
    return game if isinstance(game, Mapping) else game.data


def keys(game: GameFile | Mapping[str, Any]) -> dict[str, str]:
    """The identity keys of a game (its parsed file or its JSON header): kind -> value.
    A header too damaged to have one gives no key of that kind."""
    from referee.ledger import secret  # (not at import: `pending` reads its rows from a cache)

    header = header_of(game)
    out: dict[str, str] = {}
    with contextlib.suppress(Exception):  # a damaged header: no key of this kind
        out["header"] = hashlib.sha256(secret.identity(header)).hexdigest()
    rng = header.get("rng")
    if isinstance(rng, Mapping) and isinstance(rng.get("commitment"), str):
        out["commitment"] = rng["commitment"]
    if isinstance(header.get("id"), str):
        out["id"] = header["id"].casefold()
    return out


def game_id(game: GameFile | Mapping[str, Any]) -> str:
    value = header_of(game).get("id")
    return value if isinstance(value, str) else "?"


def duplicates(games: Sequence[tuple[Any, GameFile | Mapping[str, Any]]]
               ) -> list[Duplicate]:
    """Every file of ``games`` ((path, game file or header) pairs) that is the same game
    as one listed before it, with the first one it repeats and why. A file listed twice
    under one path is one file, not a copy."""
    return duplicates_of_keys([(str(path), keys(game), game_id(game))
                               for path, game in games])


def duplicates_of_keys(games: Sequence[tuple[str, Mapping[str, str], str]]
                       ) -> list[Duplicate]:
    """:func:`duplicates` of (path, :func:`keys`, game id) triples, for a caller that
    keeps the keys (a cache) rather than the files."""
    seen: dict[tuple[str, str], str] = {}
    found: list[Duplicate] = []
    for name, mine, gid in games:
        clash = next(((kind, seen[(kind, mine[kind])]) for kind in KINDS
                      if kind in mine and seen.get((kind, mine[kind]), name) != name), None)
        if clash is not None:
            found.append(Duplicate(name, clash[1], clash[0], gid))
        for kind, value in mine.items():
            seen.setdefault((kind, value), name)
    return found


def clashes(file: str, game: GameFile | Mapping[str, Any],
            others: Sequence[tuple[Any, GameFile | Mapping[str, Any]]]) -> list[Duplicate]:
    """The games of ``others`` (other than ``file`` itself) that ``game`` is the same game
    as: one Duplicate per other file, with the first shared key."""
    mine = keys(game)
    found = []
    for path, other in others:
        if str(path) == file:
            continue
        theirs = keys(other)
        kind = next((k for k in KINDS if k in mine and theirs.get(k) == mine[k]), None)
        if kind is not None:
            found.append(Duplicate(file, str(path), kind, game_id(game)))
    return found


def duplicated_files(found: Sequence[Duplicate]) -> dict[str, Duplicate]:
    """Both sides of every duplicate: file -> the duplicate that names it."""
    out: dict[str, Duplicate] = {}
    for d in found:
        out.setdefault(d.file, d)
        out.setdefault(d.other, d)
    return out
