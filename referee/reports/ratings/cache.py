"""A cache for `ratings` (and the site's league): the result of each game file (its
places, players, rating order and copy keys) or why it is skipped, found by the file's
exact bytes, its path, the language, the game's secret and the referee's code, in the
cache database (referee/ledger/cachedb.py, whose folder is as trusted as the user's own
files; the rows: referee/reports/filecache.py).

What is cached is what :func:`referee.reports.ratings.results.result_of` returns for one
file, which depends on nothing else; the rating itself (openskill over the games in
order), the copies counted once and the labels are computed afresh on every run. A file
that cannot be read, or whose replay hits a bug, is not cached.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import msgspec

from referee.errors import RefereeError
from referee.ledger import fileio
from referee.ledger.fileformat import other_json
from referee.reports import filecache
from referee.reports.ratings import results
from referee.reports.ratings.results import Result

KIND = "ratings"


class Entry(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A file's result (its ``file`` left empty: the same bytes may lie under another
    name) or the reason it is skipped."""

    result: Result | None = None
    reason: str = ""


@contextlib.contextmanager
def session() -> Iterator[filecache.Index[Entry]]:
    """The rows, the cache opened once for a folder of games and written back once."""
    with filecache.session(KIND, Entry) as index:
        yield index


class NoGameFile(RefereeError):
    """A ``.json`` file in the folder that is other JSON than a game file (the index of the
    views, a clock view): passed over, not skipped."""


def result_of(index: filecache.Index[Entry], path: Path, name: str) -> Result:
    """:func:`results.result_of` for the file at ``path``, from ``index`` when it has
    seen these bytes there. Raises RefereeError saying why the file cannot count
    (NoGameFile: it is none)."""
    raw = fileio.read_bytes(path)
    if other_json(raw):
        raise NoGameFile(f"{name} is no game file")
    key = index.key(raw, path)
    entry = index.get(key)
    if entry is None:
        try:
            found = results.result_from(raw, path, "")
        except RefereeError as exc:
            index.put(key, raw, path, Entry(reason=exc.message))
            raise
        index.put(key, raw, path, Entry(result=found))
    elif entry.result is None:
        raise RefereeError(entry.reason)
    else:
        found = entry.result
    return dataclasses.replace(found, file=name)
