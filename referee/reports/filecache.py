"""What a report learnt from one game file, kept between runs in the cache database
(referee/ledger/cachedb.py): the rows that `pending` (referee/reports/pendingcache.py) and
`ratings` (referee/reports/ratings/cache.py) share the machinery of, each report its own
kind of row, of its own type.

A row is found by everything the report's answer for that file depends on
(:func:`referee.ledger.cachedb.file_key`): the file's bytes (their SHA-256; the file must
be read anyway to be sure of it, and a file rewritten in place with its size and mtime
kept is still seen), its path (messages name it), the language, which secret was used
and the referee's code digest. A changed file, another secret or another referee is a
miss, never an old row. Only reports read these rows, and they decide nothing: `check`
never reads them.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Generic, TypeVar

import msgspec

from referee.ledger import cachedb

T = TypeVar("T")

_ENCODER = msgspec.msgpack.Encoder()


class Index(Generic[T]):
    """One report's rows of type ``row_type`` in the cache (``cache`` None: no cache,
    nothing found or kept). Used in a :func:`session`."""

    def __init__(self, kind: str, row_type: type[T], cache: cachedb.Cache | None) -> None:
        self.kind = kind
        self.row_decoder = msgspec.msgpack.Decoder(row_type)
        self.cache = cache
        self.sources = cachedb.Sources()
        self.prefix = cachedb.key_prefix(kind) if cache is not None else b""

    def key(self, raw: bytes, path: Path, *, fresh: bool = False) -> bytes:
        """The row's key for the file at ``path`` with bytes ``raw``. The secrets beside
        the games are found by listing each folder once a session; ``fresh``: read again
        instead (:meth:`put` checks that nothing changed). No cache: ``b""``."""
        if self.cache is None:
            return b""
        source = cachedb.secret_source(path) if fresh else self.sources.of(path)
        return cachedb.file_key(self.kind, hashlib.sha256(raw).digest(), path, source,
                                self.prefix)

    def get(self, key: bytes) -> T | None:
        """The row stored under ``key`` (:meth:`key`), if any (a row that does not decode
        as the report's type is a miss)."""
        if self.cache is None:
            return None
        value = self.cache.get(self.kind, key)
        if value is None:
            return None
        try:
            return self.row_decoder.decode(value)
        except msgspec.DecodeError:
            return None

    def put(self, key: bytes, raw: bytes, path: Path, row: T) -> None:
        """Keep ``row`` under ``key``, the key :meth:`get` missed, unless the secret it
        was computed with changed meanwhile (the key made afresh differs)."""
        if self.cache is None or self.key(raw, path, fresh=True) != key:
            return
        self.cache.put(self.kind, key, _ENCODER.encode(row))


@contextlib.contextmanager
def session(kind: str, row_type: type[T]) -> Iterator[Index[T]]:
    """A report's rows, the cache opened once for many lookups and written back once."""
    with cachedb.session() as cache:
        yield Index(kind, row_type, cache)
