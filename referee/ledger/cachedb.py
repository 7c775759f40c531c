"""What the referee remembers between runs: one SQLite database (the standard library's
``sqlite3``), ``cache.sqlite3`` in the user's cache folder, for `pending`, `ratings`,
`site` and `views`.

**Where.** ``REFEREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/referee`` (default
``~/.cache/referee``); ``REFEREE_CACHE_DIR=off`` remembers nothing. Safe to delete at any
time: every command gives the same output without it, only slower.

**Keys.** A row is found by content (:func:`file_key`): the SHA-256 of the game file's
bytes, the installed referee's code digest (:func:`referee.ledger.codedigest.code_digest`:
another referee, template, catalog or component data never reuses a row), the language,
the path (messages name the file) and which secret was used (:func:`secret_source`), each
hashed together; a row names nothing of the file in the clear. A changed file, another
secret, language or referee is a miss, never an old row. Nothing that decides (`check`,
`move`, the judge) reads the cache.

**Trust.** The cache folder is as trusted as the user's own files (docs/security.md, "What
the referee remembers"): a row is used as it is, without a signature. So it is made
owner-only (the folder 0700, the database 0600), and a folder or database that another
user owns or that others may write, or a database that is a link, is not used at all: the
run goes on without a cache, with one note on stderr. The GitHub Action gives every job a
fresh cache folder of its own and restores none (action.yml).

**Writing.** Reads go to the database as they come; what a run learns is kept in memory
and written at its end in one short transaction (:meth:`Cache.flush`), in WAL mode with
``synchronous=NORMAL``: a crash may lose the latest rows, never leave a wrong one. A row
not used for 30 days is dropped, and each kind keeps at most ``MAX_ROWS``. A database that
cannot be read (cut short, not a database) is noted, removed and made anew; a database
that is busy or cannot be written only costs the next run its rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import GameFileError
from referee.ledger import fileio
from referee.ledger.codedigest import code_digest
from referee.ledger.secretplace import secret_place

if TYPE_CHECKING:
    import sqlite3

FILE_NAME = "cache.sqlite3"
SCHEMA = 2  # PRAGMA user_version: another one is dropped and made anew
MAX_ROWS = 50_000  # per kind (a few hundred bytes a row)
FORGET_AFTER_S = 30 * 24 * 3600
REFRESH_AFTER_S = 24 * 3600  # a used row's time is written at most once a day
BUSY_MS = 5_000
PREFETCH_CHUNK = 500  # keys a statement (SQLite allows 32,766 parameters)

_TABLES = (
    # content-keyed rows of every kind (pending, ratings)
    "CREATE TABLE rows (kind TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL, "
    "used INTEGER NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID",
    # what `referee site` wrote into each OUT (by the digest of OUT's real path)
    "CREATE TABLE site_games (out BLOB NOT NULL, file TEXT NOT NULL, value BLOB NOT NULL, "
    "PRIMARY KEY (out, file)) WITHOUT ROWID",
    "CREATE TABLE sites (out BLOB PRIMARY KEY, build TEXT NOT NULL) WITHOUT ROWID",
    # what `referee views` wrote into each OUT, per game file (referee/git/viewcache.py)
    "CREATE TABLE views_games (out BLOB NOT NULL, file TEXT NOT NULL, hot BLOB NOT NULL, "
    "crc INTEGER NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (out, file)) WITHOUT ROWID",
    "CREATE TABLE views_rests (out BLOB NOT NULL, file TEXT NOT NULL, value BLOB NOT NULL, "
    "PRIMARY KEY (out, file)) WITHOUT ROWID",
    "CREATE TABLE views_runs (out BLOB PRIMARY KEY, run BLOB NOT NULL, twice TEXT NOT NULL, "
    "folder BLOB NOT NULL) WITHOUT ROWID",
)


def cache_dir() -> Path | None:
    """The cache folder, or None when caching is off."""
    configured = os.environ.get("REFEREE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee"


def note(path: Path | str, why: str) -> None:
    """One line on stderr."""
    sys.stderr.write(f"referee: note: the cache {path} {why}\n")


def digest(*parts: bytes) -> bytes:
    """The SHA-256 of ``parts``, each prefixed by its length (no two lists give one
    stream), fed part by part."""
    found = hashlib.sha256()
    for part in parts:
        found.update(len(part).to_bytes(8, "big"))
        found.update(part)
    return found.digest()


def key_prefix(kind: str) -> bytes:
    """What every key of ``kind`` made in this run starts from: the kind, this referee
    (its code digest) and the current language (:func:`file_key`)."""
    from referee.i18n import current

    return digest(kind.encode(), code_digest().encode(), current().encode())


def file_key(kind: str, raw_sha: bytes, path: str | Path, source: bytes,
             prefix: bytes | None = None) -> bytes:
    """The key of a row of ``kind`` about the game file at ``path`` whose bytes hash to
    ``raw_sha`` (SHA-256), read with the secret ``source`` names (:func:`secret_source`),
    in the current language, by this referee (its code digest; ``prefix``: the kind's
    :func:`key_prefix`, if made already)."""
    return digest(prefix if prefix is not None else key_prefix(kind), os.fsencode(path),
                  source, raw_sha)


def secret_source(game_path: Path | str, listed: frozenset[str] | None = None,
                  secret: Path | None = None) -> bytes:
    """What :func:`referee.ledger.secret.find_seed` reads besides the game file, where
    :func:`referee.ledger.secretplace.secret_place` says it looks: the bytes of the secret
    file (``secret``, or REFEREE_SECRET_FILE), REFEREE_SECRET's value, or the bytes of
    FILE.secret beside the game; else nothing. ``listed``: the names in the game's folder
    that end in ``.secret``, if listed already (FILE.secret then counts as there only
    when it is among them: no stat a file). Only ever hashed into a key."""
    exists = Path.exists if listed is None else (lambda p: p.name in listed)
    place = secret_place(secret, Path(game_path), exists)
    if place is None:
        return b"none"
    kind, where = place
    if kind == "env":
        return b"env\0" + str(where).encode()
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


class Sources:
    """:func:`secret_source` for many game files of one run: a secret named or in the
    environment read once (it is every game's), else each folder listed once."""

    def __init__(self, secret: Path | None = None) -> None:
        self.secret = secret
        self.listed: dict[str, frozenset[str]] = {}
        self.fixed: bytes | None = None  # every game's, when one is named
        self.asked = False

    def of(self, path: Path | str) -> bytes:
        if not self.asked:
            self.asked = True
            if (self.secret is not None or os.environ.get("REFEREE_SECRET_FILE")
                    or os.environ.get("REFEREE_SECRET")):
                self.fixed = secret_source(path, secret=self.secret)
        if self.fixed is not None:
            return self.fixed
        folder = os.path.dirname(path)
        listed = self.listed.get(folder)
        if listed is None:
            listed = self.listed[folder] = secrets_listed(folder)
        return secret_source(path, listed)


# --- the database ----------------------------------------------------------------------


CHECK_BYTES = 16


def sealed(key: bytes, value: bytes) -> bytes:
    """``value`` as stored under ``key``: after a BLAKE2b of both. A database cut short or
    damaged on disk can hand back a row with zeros or other bytes in it (SQLite reads
    past a file's end as zeros); with the check, such a row is a miss, never a wrong
    answer."""
    return hashlib.blake2b(key + value, digest_size=CHECK_BYTES).digest() + value


def unsealed(key: bytes, stored: bytes) -> bytes | None:
    """The value :func:`sealed` stored under ``key``, or None when its check fails."""
    check, value = stored[:CHECK_BYTES], stored[CHECK_BYTES:]
    if hashlib.blake2b(key + value, digest_size=CHECK_BYTES).digest() != check:
        return None
    return value


def _unsafe(st: os.stat_result, what: str) -> str | None:
    """Why a folder or file with this stat is not the user's own, or None."""
    if st.st_uid != os.geteuid():
        return f"its {what} belongs to another user"
    if st.st_mode & 0o022:
        return f"others may write its {what}"
    return None


class Cache:
    """The open database: rows read as they are asked for, rows learnt kept until
    :meth:`flush`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.now = int(time.time())
        self.pending: dict[tuple[str, bytes], bytes] = {}
        self.refresh: set[tuple[str, bytes]] = set()
        self.fetched: dict[tuple[str, bytes], bytes | None] = {}  # (by :meth:`prefetch`)

    def prefetch(self, kind: str, keys: list[bytes]) -> None:
        """Read the rows of ``keys`` in a few statements (a statement a row cost 25 µs,
        more than the row): :meth:`get` then answers them from memory."""
        todo = [k for k in dict.fromkeys(keys) if (kind, k) not in self.fetched]
        try:
            _reading(self.conn)
            for start in range(0, len(todo), PREFETCH_CHUNK):
                chunk = todo[start:start + PREFETCH_CHUNK]
                rows = self.conn.execute(
                    "SELECT key, value, used FROM rows WHERE kind = ? AND key IN "
                    f"({', '.join('?' * len(chunk))})", (kind, *chunk)).fetchall()
                found = {bytes(key): (stored, used) for key, stored, used in rows}
                for key in chunk:
                    self.fetched[(kind, key)] = self._value(kind, key, found.get(key))
        except _errors() as exc:
            self.broken(exc)

    def _value(self, kind: str, key: bytes, row: tuple[bytes, int] | None) -> bytes | None:
        """The value of a stored row if its check holds (its use noted), else None."""
        if row is None:
            return None
        stored, used = row
        value = unsealed(kind.encode() + key, stored)
        if value is not None and self.now - used > REFRESH_AFTER_S:
            self.refresh.add((kind, key))
        return value

    def get(self, kind: str, key: bytes) -> bytes | None:
        """The value stored under ``key`` (this run's first), or None."""
        found = self.pending.get((kind, key))
        if found is not None:
            return found
        if (kind, key) in self.fetched:
            return self.fetched[(kind, key)]
        try:
            _reading(self.conn)
            row = self.conn.execute("SELECT value, used FROM rows WHERE kind = ? AND key = ?",
                                    (kind, key)).fetchone()
        except _errors() as exc:
            self.broken(exc)
            return None
        return self._value(kind, key, row)

    def put(self, kind: str, key: bytes, value: bytes) -> None:
        """Remember ``value`` under ``key`` (written by :meth:`flush`)."""
        self.pending[(kind, key)] = value

    def query(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Rows of a SELECT ([] when the database cannot be read)."""
        try:
            _reading(self.conn)
            return self.conn.execute(sql, args).fetchall()
        except _errors() as exc:
            self.broken(exc)
            return []

    def write_now(self, statements: list[tuple[str, tuple[object, ...]]]) -> bool:
        """Run ``statements`` in one transaction now (the site's record of OUT, dropped
        before OUT changes). False when it could not be written."""
        try:
            with _transaction(self.conn):
                for sql, args in statements:
                    self.conn.execute(sql, args)
        except _errors():
            return False
        return True

    def flush(self) -> None:
        """Write what this run learnt in one transaction, drop rows unused for 30 days
        and keep each kind within MAX_ROWS. Best effort: never raises."""
        if not (self.pending or self.refresh):
            return
        kinds = {kind for kind, _ in self.pending}
        try:
            with _transaction(self.conn):
                self.conn.executemany(
                    "INSERT OR REPLACE INTO rows (kind, key, value, used) VALUES (?, ?, ?, ?)",
                    [(k, key, sealed(k.encode() + key, v), self.now)
                     for (k, key), v in self.pending.items()])
                self.conn.executemany(
                    "UPDATE rows SET used = ? WHERE kind = ? AND key = ?",
                    [(self.now, k, key) for k, key in self.refresh])
                if kinds:
                    self.conn.execute("DELETE FROM rows WHERE used < ?",
                                      (self.now - FORGET_AFTER_S,))
                for kind in sorted(kinds):
                    (count,) = self.conn.execute("SELECT count(*) FROM rows WHERE kind = ?",
                                                 (kind,)).fetchone()
                    if count > MAX_ROWS:
                        self.conn.execute(
                            "DELETE FROM rows WHERE kind = ? AND key NOT IN (SELECT key FROM "
                            "rows WHERE kind = ? ORDER BY used DESC LIMIT ?)",
                            (kind, kind, MAX_ROWS))
        except _errors():
            pass  # (busy or read-only: the next run learns it again)
        self.pending.clear()
        self.refresh.clear()

    def broken(self, exc: Exception) -> None:
        """A database that fails while in use: noted, and nothing more asked of it; one
        that is damaged (not merely busy) is removed, to be made anew by the next run."""
        import sqlite3

        if isinstance(self.conn, _Closed):
            return  # (noted once, when it failed)
        damaged = (isinstance(exc, sqlite3.DatabaseError)
                   and not isinstance(exc, sqlite3.OperationalError))
        note(self.path, f"cannot be read ({exc}); the run goes on without it"
             + ("; it is removed, to be made anew" if damaged else ""))
        self.close()
        self.conn = _Closed()  # type: ignore[assignment]
        if damaged:
            _remove(self.path)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")  # (the reads' transaction)
        with contextlib.suppress(Exception):
            self.conn.close()


class _Closed:
    """A connection that answers nothing (after a failure)."""

    in_transaction = False  # (so a later read fails in execute, as an sqlite3.Error)

    def execute(self, *args: object) -> _Closed:
        import sqlite3

        raise sqlite3.OperationalError("the cache is closed")

    def close(self) -> None:
        pass


def _errors() -> tuple[type[Exception], ...]:
    import sqlite3

    return (sqlite3.Error,)


def _reading(conn: sqlite3.Connection) -> None:
    """One read transaction for the run's lookups (in WAL mode each statement on its own
    takes and drops a read lock: 30 µs a row, more than the row); a write ends it."""
    if not conn.in_transaction:
        conn.execute("BEGIN")


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (after the reads' transaction, if one is open)."""
    if conn.in_transaction:
        conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def open_cache() -> Cache | None:
    """The cache database, made if needed; None when caching is off or the folder or
    database is not the user's own (noted), or cannot be made."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        why = _unsafe(os.stat(folder), "folder")
    except OSError:
        return None  # (no folder can be made there: nothing to remember, nothing to say)
    if why is not None:
        note(folder, f"is not used: {why} (the cache is trusted as your own files)")
        return None
    path = folder / FILE_NAME
    if not os.path.lexists(path):
        _forget_old(folder)
    for attempt in range(2):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            note(path, f"cannot be used ({exc.strerror}); the run goes on without it")
            return None
        if st is not None:
            why = ("it is not a regular file" if not stat.S_ISREG(st.st_mode)
                   else _unsafe(st, "database"))
            if why is not None:
                note(path, f"is not used: {why} (the cache is trusted as your own files)")
                return None
            if st.st_size and _head(path) != HEADER:  # (SQLite takes a tiny file for new)
                note(path, "is ignored and made anew: it is not an SQLite database")
                _remove(path)
        try:
            return _connect(path)
        except _errors() as exc:
            if attempt or "database is locked" in str(exc):
                return None
            note(path, f"is ignored and made anew: it cannot be read ({exc})")
            _remove(path)
    return None


HEADER = b"SQLite format 3\0"
# What the caches before the database left: the reports' signed indexes, the site's
# manifests, and the key the indexes were signed with (outside the cache folder).
OLD_FOLDERS = ("pending-2", "ratings-2", "site-1")


def _forget_old(folder: Path) -> None:
    """Remove what the caches before this database left (once: when it is first made)."""
    old = [folder / name for name in OLD_FOLDERS if (folder / name).is_dir()]
    if old:
        import shutil

        for gone in old:
            shutil.rmtree(gone, ignore_errors=True)
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".local", "state")
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(state, "referee", "cache-key"))


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(HEADER))
    except OSError:
        return b""


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            os.unlink(f"{path}{suffix}")


def _connect(path: Path) -> Cache:
    import sqlite3

    old = os.umask(0o077)  # (the database and its WAL files: owner-only)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None,
                               check_same_thread=False)
    finally:
        os.umask(old)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA:
            with _transaction(conn):
                if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                    for table in ("rows", "site_games", "sites", "views_games", "views_rests",
                                  "views_runs"):
                        conn.execute(f"DROP TABLE IF EXISTS {table}")
                    for sql in _TABLES:
                        conn.execute(sql)
                    conn.execute(f"PRAGMA user_version = {SCHEMA}")
    except BaseException:
        conn.close()
        raise
    return Cache(conn, path)


@contextlib.contextmanager
def session() -> Iterator[Cache | None]:
    """The cache opened for a run (None: no cache) and flushed and closed at its end."""
    cache = open_cache()
    try:
        yield cache
    finally:
        if cache is not None:
            cache.flush()
            cache.close()
