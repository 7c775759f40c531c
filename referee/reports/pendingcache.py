"""A cache for `pending`: what a game file says (whose turn, since when), keyed by the
SHA-256 of the file's exact bytes.

All rows live in one index file per version of the referee's code,
``<cache dir>/<code fingerprint>/rows.msgpack``: a changed file has other bytes and a
changed referee another folder, so neither ever meets an old row. `pending` reads the
index once, hashes each file's bytes (the file must be read anyway to be sure of it)
and writes the index back once at the end, only if it changed, atomically but without
fsync: a crash may lose the cache's latest rows, never leave a wrong one, since each row
is found by the bytes it was computed from.

Why the bytes and not the file's size and times: a file rewritten in place within one
tick of the file system's clock, or whose mtime was set back (``touch -d``), keeps its
size and mtime; only its bytes tell. Hashing costs about 20 µs for a 30 KB game, far
below replaying it.

The cache lives under ``$XDG_CACHE_HOME/referee`` (default ``~/.cache/referee``;
``REFEREE_CACHE_DIR`` overrides it, ``REFEREE_CACHE_DIR=off`` turns it off), is safe to
delete at any time, and is used only by `pending`, which reports and decides nothing:
`check` never reads it. Only successful rows are stored; a file that cannot be read is
replayed every time. Rows not used for 30 days are dropped, and at most ``MAX_ROWS``
are kept.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

import referee
from referee.errors import GameFileError
from referee.ledger import fileio

MAX_ROWS = 20_000  # about 4 MB
FORGET_AFTER_S = 30 * 24 * 3600
REFRESH_AFTER_S = 24 * 3600  # a used row's age is rewritten at most once a day
INDEX_NAME = "rows.msgpack"


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


class _Stored(msgspec.Struct, array_like=True):
    row: Row
    used: int  # when the row was last used (seconds since the epoch)


class _Index(msgspec.Struct):
    rows: dict[str, _Stored]


_DECODER = msgspec.msgpack.Decoder(_Index)
_ENCODER = msgspec.msgpack.Encoder()


def cache_dir() -> Path | None:
    """Where the entries go, or None when caching is off."""
    configured = os.environ.get("REFEREE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee" / "pending-1"


@functools.cache
def code_fingerprint() -> bytes:
    """The referee's version and the size and time of each of its source and data files:
    any change to the code or the component data gives new keys."""
    root = Path(referee.__file__).parent
    digest = hashlib.sha256(referee.__version__.encode())
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".py", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.digest()


def key(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


class _Open:
    """The index of one folder, read once; written back by :meth:`close` if it changed."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / code_fingerprint().hex()[:32] / INDEX_NAME
        self.now = int(time.time())
        self.changed = False
        try:
            self.rows = _DECODER.decode(fileio.read_bytes(self.path, "cache index")).rows
        except (GameFileError, msgspec.DecodeError):
            self.rows = {}

    def get(self, k: str) -> Row | None:
        stored = self.rows.get(k)
        if stored is None:
            return None
        if self.now - stored.used > REFRESH_AFTER_S:
            stored.used, self.changed = self.now, True
        return stored.row

    def put(self, k: str, row: Row) -> None:
        self.rows[k] = _Stored(row, self.now)
        self.changed = True

    def close(self) -> None:
        """Write the index back (best effort: never raises), dropping old rows."""
        if not self.changed:
            return
        keep = sorted(((s.used, k) for k, s in self.rows.items()
                       if self.now - s.used <= FORGET_AFTER_S), reverse=True)[:MAX_ROWS]
        data = _ENCODER.encode(_Index({k: self.rows[k] for _, k in keep}))
        with contextlib.suppress(OSError, GameFileError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fileio.write_atomic(self.path, data, mode=0o600, durable=False, what="cache index")


_session: _Open | None = None


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Read the index once for many lookups and stores, and write it back once."""
    global _session
    folder = cache_dir()
    outer, _session = _session, (_Open(folder) if folder is not None else None)
    try:
        yield
    finally:
        if _session is not None:
            _session.close()
        _session = outer


def lookup(raw: bytes) -> dict[str, Any] | None:
    """The stored row for a file with these bytes, if any."""
    index = _session  # (in a session, as `pending` asks: no context manager a file)
    if index is None:
        with _index() as opened:
            row = None if opened is None else opened.get(key(raw))
    else:
        row = index.get(key(raw))
    return None if row is None else msgspec.structs.asdict(row)


def store(raw: bytes, row: dict[str, Any]) -> None:
    """Remember ``row`` for files with these bytes. Best effort: never raises; a row
    that is not of the expected shape is not stored."""
    try:
        checked = msgspec.convert(row, Row)
    except msgspec.ValidationError:
        return
    with _index() as index:
        if index is not None:
            index.put(key(raw), checked)


@contextlib.contextmanager
def _index() -> Iterator[_Open | None]:
    """The session's index, else one opened (and written back) for this call alone;
    None when caching is off."""
    if _session is not None:
        yield _session
        return
    with session():
        yield _session
