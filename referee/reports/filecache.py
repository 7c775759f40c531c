"""What a report learnt from one game file, kept between runs: the machinery that
`pending` (referee/reports/pendingcache.py) and `ratings` (referee/reports/ratings/cache.py)
share. Each report keeps its own rows, of its own type, in an index of its own.

**Keys.** A row is found by an HMAC of everything the report's answer for that file
depends on: the file's exact bytes, its path (error messages name it), the language text
is produced in, and what :func:`referee.ledger.secret.find_seed` reads besides the file
(:func:`secret_source`, where :func:`referee.ledger.secretplace.secret_place` says it looks:
``REFEREE_SECRET_FILE``'s bytes, ``REFEREE_SECRET``, or the bytes of FILE.secret beside
it; a sealed game replays otherwise with its secret than without).
The version of the referee's code and data (:func:`code_fingerprint`) names the index
file. A changed file, another secret or another referee is therefore a miss, never an
old row. Why the bytes and not the size and times: a file rewritten in place within one
tick of the file system's clock, or whose mtime was set back (``touch -d``), keeps its
size and mtime; only its bytes tell. Hashing costs about 20 µs for a 30 KB game, far
below replaying it.

**Who can change a row.** The index is signed: ``MAGIC``, then an HMAC-SHA256 of the
report's name, the code fingerprint and the payload, under a key of 32 random bytes kept
*outside* the cache folder (``$XDG_STATE_HOME/referee/cache-key``, default
``~/.local/state/referee/cache-key``, owner-only). Someone who can write the cache folder
but not that key (a shared or restored ``REFEREE_CACHE_DIR``, a CI cache from another
job) cannot make a row the referee will use: an index whose MAC does not match is
ignored with a note on stderr and rebuilt, and every file is read and replayed as
without a cache. The keys of rows are HMACs under the same key, so the index does not
let anyone test guesses of a secret either. Someone who can write the key file can
write your HOME: the cache is then as trusted as HOME is.

**Writing.** The index is read once per run and written back once at the end, only if
it changed, atomically but without fsync: a crash may lose the latest rows, never leave
a wrong one. Rows not used for 30 days are dropped, and at most ``MAX_ROWS`` are kept.

The cache lives under ``$XDG_CACHE_HOME/referee`` (default ``~/.cache/referee``;
``REFEREE_CACHE_DIR`` overrides it, ``REFEREE_CACHE_DIR=off`` turns it off), is safe to
delete at any time, and is read only by reports, which decide nothing: `check` never
reads it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Generic, TypeVar

import msgspec

import referee
from referee.errors import GameFileError, UsageError
from referee.i18n import current
from referee.ledger import fileio
from referee.ledger.secretplace import secret_place

MAX_ROWS = 20_000  # per report; about 4 MB
FORGET_AFTER_S = 30 * 24 * 3600
REFRESH_AFTER_S = 24 * 3600  # a used row's age is rewritten at most once a day
MAGIC = b"referee-cache-2\n"
KEY_BYTES = 32

T = TypeVar("T")


class _Stored(msgspec.Struct, array_like=True):
    value: msgspec.Raw  # the report's row, decoded with its own type when it is used
    used: int  # when the row was last used (seconds since the epoch)


class _Index(msgspec.Struct):
    rows: dict[str, _Stored]


_DECODER = msgspec.msgpack.Decoder(_Index)
_ENCODER = msgspec.msgpack.Encoder()


def cache_dir() -> Path | None:
    """The folder of every report's index, or None when caching is off."""
    configured = os.environ.get("REFEREE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee"


def key_path() -> Path:
    """The MAC key's file: outside the cache folder, so that writing there is not enough."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                            "state")
    return Path(base) / "referee" / "cache-key"


def _mac_key() -> tuple[bytes, bool] | None:
    """The key and whether it existed before this run (made now if not); None when it
    can be neither read nor made: the run then uses no cache."""
    path = key_path()
    for _ in range(2):
        try:
            found = fileio.read_bytes(path, "cache key")
        except GameFileError:
            found = b""
        if len(found) == KEY_BYTES:
            return found, True
        made = os.urandom(KEY_BYTES)
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if found:  # not a key of ours (cut short, or written by hand): replaced
                path.unlink()
            fileio.write_atomic(path, made, mode=0o600, exclusive=True, durable=False,
                                what="cache key")  # (lost in a crash: the caches rebuilt)
        except UsageError:  # another run made it first: read theirs
            continue
        except (OSError, GameFileError):
            return None
        return made, False
    return None


@functools.cache
def code_fingerprint() -> bytes:
    """The referee's version and the size and time of each of its source and data files:
    any change to the code or the component data gives another index."""
    root = Path(referee.__file__).parent
    digest = hashlib.sha256(referee.__version__.encode())
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".py", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.digest()


def secret_source(game_path: Path, listed: frozenset[str] | None = None,
                  named: bytes | None = None) -> bytes:
    """What ``secret.find_seed(gf, None, game_path)`` reads besides the game file, where
    :func:`referee.ledger.secretplace.secret_place` says it looks: the bytes of the secret
    file (``named``: REFEREE_SECRET_FILE's bytes, if read already), REFEREE_SECRET's
    value, or the bytes of FILE.secret beside the game; else nothing. ``listed``: the
    names in the game's folder that end in ``.secret``, if listed already (FILE.secret
    then counts as there only when it is among them: no stat a file)."""
    exists = Path.exists if listed is None else (lambda p: p.name in listed)
    place = secret_place(None, game_path, exists)
    if place is None:
        return b"none"
    kind, where = place
    if kind == "env":
        return b"env\0" + str(where).encode()
    if kind == "file" and named is not None:
        return b"file\0" + named
    try:
        return kind.encode() + b"\0" + fileio.read_bytes(Path(where), "secret")
    except GameFileError as exc:
        return kind.encode() + b"\0unreadable\0" + exc.message.encode()


def secrets_listed(folder: str) -> frozenset[str]:
    """The names in ``folder`` that end in ``.secret`` (none if it cannot be listed)."""
    try:
        return frozenset(n for n in os.listdir(folder or ".") if n.endswith(".secret"))
    except OSError:
        return frozenset()


def _length_prefixed(*parts: bytes) -> bytes:
    return b"".join(len(p).to_bytes(8, "big") + p for p in parts)


class Index(Generic[T]):
    """One report's rows of type ``row_type``, read once (:meth:`open`) and written back
    by :meth:`close` if they changed. Used in a :func:`session`."""

    def __init__(self, name: str, row_type: type[T]) -> None:
        self.name = name
        self.row_decoder = msgspec.msgpack.Decoder(row_type)
        self.mac_key = b""
        self.path: Path | None = None  # None: caching is off (or the key unusable)
        self.rows: dict[str, _Stored] = {}
        self.now = int(time.time())
        self.changed = False
        self.listed: dict[str, frozenset[str]] = {}  # folder -> its *.secret names
        self.named: bytes | None = None  # REFEREE_SECRET_FILE's bytes, once read

    # --- reading and writing the index -----------------------------------------------

    def open(self) -> None:
        folder = cache_dir()
        made = _mac_key() if folder is not None else None
        if folder is None or made is None:
            return
        self.mac_key, existed = made
        self.path = folder / f"{self.name}-2" / f"{code_fingerprint().hex()[:32]}.index"
        self.now, self.changed, self.rows = int(time.time()), False, {}
        try:
            data = fileio.read_bytes(self.path, "cache index")
        except GameFileError:
            return  # none yet (or unreadable: rewritten at the end)
        payload = self._verified(data)
        if payload is None:
            if existed:
                self._note("its MAC does not match this user's cache key (changed or "
                           "copied from elsewhere)")
            return
        try:
            self.rows = _DECODER.decode(payload).rows
        except msgspec.DecodeError:
            self._note("it cannot be decoded")

    def _mac(self, payload: bytes) -> bytes:
        head = _length_prefixed(self.name.encode(), code_fingerprint())
        return hmac.new(self.mac_key, head + payload, "sha256").digest()

    def _verified(self, data: bytes) -> bytes | None:
        """The payload of a signed index, or None if it is not one signed with our key."""
        start = len(MAGIC) + 32
        if not data.startswith(MAGIC) or len(data) < start:
            return None
        payload = data[start:]
        return payload if hmac.compare_digest(data[len(MAGIC):start], self._mac(payload)) \
            else None

    def _note(self, why: str) -> None:
        sys.stderr.write(f"referee: note: the {self.name} cache {self.path} is ignored "
                         f"and rebuilt: {why}; every file is read again\n")

    def close(self) -> None:
        """Write the index back (best effort: never raises), dropping old rows."""
        if self.path is None or not self.changed:
            return
        keep = sorted(((s.used, k) for k, s in self.rows.items()
                       if self.now - s.used <= FORGET_AFTER_S), reverse=True)[:MAX_ROWS]
        payload = _ENCODER.encode(_Index({k: self.rows[k] for _, k in keep}))
        data = MAGIC + self._mac(payload) + payload
        with contextlib.suppress(OSError, GameFileError):
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fileio.write_atomic(self.path, data, mode=0o600, durable=False, what="cache index")

    # --- rows ------------------------------------------------------------------------

    def key(self, raw: bytes, path: Path, *, fresh: bool = False) -> str:
        """The row's key for the file at ``path`` with bytes ``raw`` (module docstring).
        The secrets beside the games are found by listing each folder once a session;
        ``fresh``: read again instead (:meth:`put` checks that nothing changed). With
        caching off: ``""``, under which nothing is found or stored."""
        if self.path is None:
            return ""
        if fresh:
            source = secret_source(path)
        else:
            folder = os.path.dirname(path)
            listed = self.listed.get(folder)
            if listed is None:
                listed = self.listed[folder] = secrets_listed(folder)
            if self.named is None and os.environ.get("REFEREE_SECRET_FILE"):
                self.named = secret_source(path)[len(b"file\0"):]
            source = secret_source(path, listed, self.named)
        context = _length_prefixed(current().encode(), os.fsencode(path), source)
        mac = hmac.new(self.mac_key, context, "sha256")
        mac.update(raw)
        return mac.hexdigest()

    def get(self, key: str) -> T | None:
        """The row stored under ``key`` (:meth:`key`), if any (a row that does not decode
        as the report's type is a miss)."""
        stored = self.rows.get(key)
        if stored is None:
            return None
        try:
            row = self.row_decoder.decode(stored.value)
        except msgspec.DecodeError:
            return None
        if self.now - stored.used > REFRESH_AFTER_S:
            stored.used, self.changed = self.now, True
        return row

    def put(self, key: str, raw: bytes, path: Path, row: T) -> None:
        """Store ``row`` under ``key``, the key :meth:`get` missed, unless the secret it
        was computed with changed meanwhile (the key made afresh differs)."""
        if self.path is None or self.key(raw, path, fresh=True) != key:
            return
        self.rows[key] = _Stored(msgspec.Raw(_ENCODER.encode(row)), self.now)
        self.changed = True


@contextlib.contextmanager
def session(index: Index[T]) -> Iterator[Index[T]]:
    """``index`` opened for many lookups and stores, and written back once."""
    index.open()
    try:
        yield index
    finally:
        index.close()
