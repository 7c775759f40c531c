"""A cache for `pending`: what a game file says (whose turn, since when), found by the
file's exact bytes, its path, the language, the game's secret and the referee's code, in
the cache database (referee/ledger/cachedb.py; the rows: referee/reports/filecache.py).

`pending` opens the cache once per run (:func:`session`), hashes each file's bytes (the
file must be read anyway to be sure of it) and writes what it learnt once at the end.
Only successful rows are stored; a file that cannot be read is replayed every time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from referee.reports import filecache


class Row(msgspec.Struct, forbid_unknown_fields=True):
    """What `pending` says of a game file that replayed."""

    game: str
    id: str | None
    finished: bool
    since: str | None
    waiting: list[str]
    prompt: str
    bots: list[str] = []
    identity: dict[str, str] = {}  # referee.ledger.identity.keys: how copies are found
    times_out: dict[str, str] = {}


_session: filecache.Index[Row] | None = None


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Open the cache once for many lookups and stores, and write it back once."""
    global _session
    outer = _session
    with filecache.session("pending", Row) as index:
        _session = index
        try:
            yield
        finally:
            _session = outer


def lookup(raw: bytes, path: Path) -> tuple[bytes, dict[str, Any] | None]:
    """The key of the file at ``path`` with these bytes, and its stored row if any."""
    with _index() as index:
        key = index.key(raw, path)
        row = index.get(key)
    if row is None:
        return key, None
    out = msgspec.structs.asdict(row)
    if not out["times_out"]:
        del out["times_out"]  # as _pending_state makes it: only a game with a clock has it
    return key, out


def store(key: bytes, raw: bytes, path: Path, row: dict[str, Any]) -> None:
    """Remember ``row`` under ``key`` (:func:`lookup`'s). Best effort: never raises; a
    row that is not of the expected shape is not stored."""
    try:
        checked = msgspec.convert(row, Row)
    except msgspec.ValidationError:
        return
    with _index() as index:
        index.put(key, raw, path, checked)


@contextlib.contextmanager
def _index() -> Iterator[filecache.Index[Row]]:
    """The session's rows, else the cache opened (and written back) for this call alone."""
    if _session is not None:
        yield _session
        return
    with session():
        assert _session is not None
        yield _session
