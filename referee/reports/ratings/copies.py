"""One game in several files counts once (referee/reports/ratings/).

Two files that replay are one game when they share the moves as played (the content
hash of referee/reports/ratings/results.py: the same moves by the same seat numbers, whatever
the file's name, id, creation time, seat ids, names, entry times, records or undone
moves), the header, the rng commitment or the game id (referee/ledger/identity.py); one game is
every file linked so, directly or through another. Then:

* if every file names the same people at the same places (and all or none of them have
  bots), the game counts **once**: the first file in the rating order is rated, the
  others are listed as copies counted once;
* otherwise (a copy that puts other people at the seats, or a fork of one game's start
  that ended another way) the files **dispute** the game and none of them counts: each
  is listed with the others, so that whoever lost a game to a copy sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.reports.ratings.results import Result

KINDS = ("content", "header", "commitment", "id")  # the first shared one names the reason
REASONS = {"content": "the same moves", "header": "the same header",
           "commitment": "the same rng commitment", "id": "the same game id"}


@dataclass(frozen=True)
class Copy:
    """``file`` is a copy of ``of``, which is rated in its place."""

    file: str
    of: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "copy_of": self.of, "why": self.why}


def groups(results: Sequence[Result]) -> list[list[Result]]:
    """The results, grouped by game: files linked by any shared key (union-find), each
    group in rating order, the groups in the order of their first file."""
    parent = list(range(len(results)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: dict[tuple[str, str], int] = {}
    for i, result in enumerate(results):
        for kind in KINDS:
            value = result.keys.get(kind)
            if value is None:
                continue
            j = seen.setdefault((kind, value), i)
            parent[root(i)] = root(j)
    found: dict[int, list[Result]] = {}
    for i, result in enumerate(results):
        found.setdefault(root(i), []).append(result)
    out = [sorted(group, key=Result.key) for group in found.values()]
    return sorted(out, key=lambda g: g[0].key())


def why_one(result: Result, kept: Result) -> str:
    shared = [REASONS[k] for k in KINDS
              if k in result.keys and result.keys[k] == kept.keys.get(k)]
    return ", ".join(shared) if shared else "linked through another copy"


def dedupe(results: Sequence[Result]
           ) -> tuple[list[Result], list[Copy], list[tuple[str, str]]]:
    """The results with each game once (in rating order), the copies counted once, and
    the files of disputed games with the reason each is not counted."""
    kept: list[Result] = []
    copies: list[Copy] = []
    disputed: list[tuple[str, str]] = []
    for group in groups(results):
        first = group[0]
        if all(r.outcome() == first.outcome() for r in group):
            kept.append(first)
            copies += [Copy(r.file, first.file, why_one(r, first)) for r in group[1:]]
            continue
        for result in group:
            others = ", ".join(r.file for r in group if r is not result)
            disputed.append((result.file, f"one game in several files ({others}) that do "
                             "not agree on who played it or how it ended: none of them is "
                             "rated"))
    return kept, copies, disputed
