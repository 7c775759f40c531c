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

One kind of second file is harmless: a **copy** (``cp game.json backup.json``), a file
with the same header whose log is the game's log or a part of it from the start. It
holds nothing the game does not, so ``pending``, ``site`` and ``views`` list the game
once and name the copy beside it (:func:`sort_copies`); where a game is served to others
(the site, the views), a copy of a sealed game must hold the very same log, since a file
that went on from a copy could show a future the real game never reached. Every other
second file (a changed header, another header under the same seed or id, logs that went
apart) is refused, both files.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.ledger.gamefile import GameFile

# Checked in this order: the first shared key names the reason.
KINDS = ("header", "commitment", "id")
REASONS = {
    "header": "the same header (a copy of that game)",
    "apart": "the same header, and logs that went apart (neither is a copy of the other)",
    "ahead": "the same header, and moves the other does not have: a copy of a sealed game "
             "is served beside it only with the very same log",
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


# --- copies: a second file that holds nothing the game does not -------------------------


@dataclass(frozen=True)
class Copy:
    """``file`` is a copy of the game in ``of``: the same header, its log the game's
    (``older``: only the game's first entries)."""

    file: str
    of: str
    older: bool = False

    @property
    def message(self) -> str:
        return (f"{self.file} is a copy of {self.of}"
                + (f" (an older one: the game went on in {self.of})" if self.older else ""))

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "copy_of": self.of, "older": self.older,
                "message": self.message}


@dataclass(frozen=True)
class Held:
    """What :func:`sort_copies` needs of one file of a group of one game: its header key,
    its log entries, whether the game is sealed (its seed not in the file), and its rank
    among files with the same log (lowest first: the oldest file, then the first
    listed)."""

    file: str
    header: str | None
    log: Sequence[Mapping[str, Any]]
    sealed: bool
    rank: tuple[Any, ...] = ()


def held_of(file: str, game: GameFile, rank: tuple[Any, ...] = ()) -> Held:
    """:class:`Held` of a parsed game file."""
    rng = game.data.get("rng", {})
    return Held(file, keys(game).get("header"), game.log,
                "commitment" in rng and "seed" not in rng, rank)


def sort_copies(found: Sequence[Duplicate], held: Callable[[str], Held | None], *,
                served: bool = False) -> tuple[dict[str, Copy], dict[str, Duplicate]]:
    """The files of ``found`` (:func:`duplicates`) split into copies, each naming the game
    it copies (listed once, as that file), and the files refused (both sides of every
    other duplicate, as :func:`duplicated_files`). ``held``: a file's :class:`Held`, or
    None when it cannot be read (its group is refused). ``served``: the game is shown to
    others (the site, views): a sealed game's copy must then hold its very log."""
    named = duplicated_files(found)
    copies: dict[str, Copy] = {}
    refused: dict[str, Duplicate] = {}
    for group in _groups(found):
        infos = [held(f) for f in group]
        sorted_out = _one_game(infos, served) if None not in infos else None
        if sorted_out is None:
            refused.update({f: _apart(named[f], infos) for f in group})
        else:
            copies.update({c.file: c for c in sorted_out})
    return copies, refused


def _apart(found: Duplicate, infos: Sequence[Held | None]) -> Duplicate:
    """The duplicate that names a refused file, said as logs that went apart when its
    group shares one header (else as found)."""
    files = [i for i in infos if i is not None]
    if found.kind != "header" or len(files) < len(infos):
        return found
    longest = max(files, key=lambda i: len(i.log))
    ahead = all(list(i.log) == list(longest.log[:len(i.log)]) for i in files)
    return Duplicate(found.file, found.other, "ahead" if ahead else "apart", found.game_id)


def _groups(found: Sequence[Duplicate]) -> list[list[str]]:
    """The files of ``found`` linked by a duplicate, directly or through another, each
    group in the order its files were first named."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for d in found:
        parent[root(d.file)] = root(d.other)
    groups: dict[str, list[str]] = {}
    for name in list(parent):
        groups.setdefault(root(name), []).append(name)
    return list(groups.values())


def _one_game(infos: Sequence[Held | None], served: bool) -> list[Copy] | None:
    """The copies of the group's game (the file with the longest log; of equal ones the
    lowest rank), when every file has its header and a log the game's log starts with;
    else None."""
    files = [i for i in infos if i is not None]
    if len({i.header for i in files}) != 1 or files[0].header is None:
        return None
    game = min(files, key=lambda i: (-len(i.log), i.rank))
    out = []
    for info in files:
        if info is game:
            continue
        older = len(info.log) < len(game.log)
        if list(info.log) != list(game.log[:len(info.log)]) or (older and served
                                                                 and game.sealed):
            return None
        out.append(Copy(info.file, game.file, older))
    return out
