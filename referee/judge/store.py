"""What the judge remembers: one SQLite database per games folder (the standard
library's :mod:`sqlite3`, WAL mode), rows per game.

The core's rows: per game what was told (the log length last notified, each reader's
last message, the ID counter, the deadlines' marks: :meth:`Store.game`); the references
of the texts already handled (:meth:`Store.answered`); the answers of the last hour to
senders who were not authenticated (:meth:`Store.may_answer`: a digest of each address,
not the address); small named parts (:meth:`Store.part`: the rates, the texts kept for
later). Each door's rows: its own per game (:meth:`Store.door_game`: a mail thread's
root, a chat game's rooms), an index of its own keys (:meth:`Store.door_key`: which game
a room is), and its queue of messages not yet delivered (:meth:`Store.queue`).

A save (:meth:`Store.save`) writes in one transaction what changed since the last one:
the rows handed out since (to read or change) and the new queue items; it costs what
changed, the same at 10 games or 10,000. A message delivered is taken off its queue at
once (:meth:`Store.dequeue`, its own small transaction), so a judge killed after a
delivery never sends it again, and one killed before it sends it under the same id. The
database is written with ``synchronous=FULL``: a commit is on the disk when it returns.
The judge saves after a text's answers are queued and before they are sent, so a judge
killed at any moment restarts from the last complete state.

The state before SQLite (a JSON file with a hand-made journal) is read once and moved in
(:mod:`referee.judge.legacy`); the old files are renamed ``*.migrated``. An exclusive
lock (:func:`exclusive`) keeps a second judge off the folder. The files are the owner's
only (mode 0600): they hold queued mails with the players' tokens.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from referee.errors import GameFileError, UsageError
from referee.ledger import fileio

STATE_NAME = ".referee-judge.sqlite"
JOURNAL_NAME = STATE_NAME + "-wal"  # SQLite's write-ahead log beside it
LOCK_NAME = ".referee-judge.lock"
FORMAT = 1  # PRAGMA user_version of the database
ANSWERED_KEPT = 50_000  # references of handled texts kept (a played one is in its log too)
# answers to senders who are not authenticated, in any hour (docs/judge.md, "Answers to
# senders who are not authenticated")
HOUR = 3600.0
STRANGER_ANSWERS_EACH = 1  # to one address that no game here knows
STRANGER_ANSWERS = 20  # to all of those
KNOWN_ANSWERS_EACH = 3  # to one registered address (a player whose token got lost)
KNOWN_KEPT = 1000  # records of answers to registered addresses

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, file TEXT, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answered (ref TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS door_games (door TEXT, game TEXT, value TEXT NOT NULL,
                                       PRIMARY KEY (door, game));
CREATE TABLE IF NOT EXISTS door_keys (door TEXT, key TEXT, game TEXT NOT NULL,
                                      value TEXT NOT NULL, PRIMARY KEY (door, key));
CREATE TABLE IF NOT EXISTS queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, door TEXT NOT NULL,
                                  game TEXT, item TEXT NOT NULL);
"""

# SQLite's primary result codes that are the judge's surroundings, as errno values
_ERRNOS = {13: errno.ENOSPC, 8: errno.EROFS, 10: errno.EIO, 14: errno.EACCES,
           23: errno.EACCES, 3: errno.EACCES}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, sort_keys=True)  # (\udcxx survive)


def failure(exc: sqlite3.Error, what: str) -> tuple[GameFileError, OSError]:
    """A failed read or write of the database as the judge's other disk failures are
    told: a GameFileError, to be raised from an OSError of the matching errno (a full
    disk: ENOSPC), which :func:`referee.judge.failures.environment_failure` knows."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return (GameFileError(f"cannot {what} the judge state: {exc}"),
            OSError(_ERRNOS.get(code, errno.EIO), str(exc)))


class Store:
    """The judge's state of one games folder (:data:`STATE_NAME`)."""

    def __init__(self, games_dir: Path) -> None:
        self.path = games_dir / STATE_NAME
        self.db = _open(self.path)
        self._games: dict[str, dict[str, Any]] = {}
        self._parts: dict[str, Any] = {}
        self._door_games: dict[tuple[str, str], dict[str, Any]] = {}
        self._keys: dict[tuple[str, str], tuple[str, Any] | None] = {}
        self._queues: dict[str, list[dict[str, Any]]] = {}
        self._dirty: set[tuple[str, Any]] = set()
        self._answered: dict[str, None] = {}  # handled since the last save
        # queue items not yet saved: (door, item, game id)
        self._new: list[tuple[str, dict[str, Any], str | None]] = []
        self._marked = 0  # references marked handled since the oldest were last forgotten
        self.unsaved = False  # something changed since the last save
        _migrate(games_dir, self)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    def snapshot(self, like: Store | None = None) -> dict[str, Any]:
        """The rows this store holds in memory (those of ``like``: the same rows as
        this store reads them), as JSON would keep them: what a test compares with a
        fresh store after a save."""
        like = like or self
        found = {
            "games": {g: self._game(g) for g in sorted(like._games)},
            "parts": {n: self.part(n) for n in sorted(like._parts)},
            "door_games": {f"{d}|{g}": self.door_game(d, g) for d, g in
                           sorted(like._door_games)},
            "keys": {f"{d}|{k}": self.door_key(d, k) for d, k in sorted(like._keys)},
            "queues": {d: [_item(i) for i in self.queue(d)] for d in sorted(like._queues)},
        }
        self._dirty.clear()  # (read to compare: nothing changed)
        return json.loads(_dumps(found))

    # ------------------------------------------------------------------ the games

    def game(self, game_id: str) -> dict[str, Any]:
        """The state of one game, to read or change (created empty on first use; saved
        with :meth:`save`, which writes the games handed out since the last save)."""
        found = self._game(game_id)
        if found is None:
            found = self._games[game_id] = {
                "seen": None, "counter": 0, "last": {}, "asked": {}, "waiting": [],
                "since": None, "reminded": None, "expired": None}
        self._dirty.add(("game", game_id))
        return found

    def peek(self, game_id: str) -> dict[str, Any] | None:
        """The state of one game to read only (None: the judge has none): a change to it
        would not be saved, use :meth:`game`."""
        return self._game(game_id)

    def _game(self, game_id: str) -> dict[str, Any] | None:
        if game_id not in self._games:
            row = self._one("SELECT state FROM games WHERE id = ?", (game_id,))
            if row is None:
                return None
            self._games[game_id] = json.loads(row[0])
        return self._games[game_id]

    def next_counter(self, game_id: str) -> int:
        state = self.game(game_id)
        state["counter"] += 1
        return int(state["counter"])

    def served_files(self) -> frozenset[str]:
        """The file names of every game the judge has served."""
        rows = self._all("SELECT file FROM games WHERE file IS NOT NULL", ())
        return frozenset([*(r[0] for r in rows),
                          *(g["file"] for g in self._games.values() if g.get("file"))])

    # ------------------------------------------------------------------ handled once

    def answered(self, ref: str) -> bool:
        return ref in self._answered or self._one(
            "SELECT 1 FROM answered WHERE ref = ?", (ref,)) is not None

    def mark_answered(self, ref: str | None) -> None:
        if ref and not self.answered(ref):
            self._answered[ref] = None
            self.unsaved = True

    # ------------------------------------------------------------------ parts

    def part(self, name: str, default: Any = None, *, change: bool = True) -> Any:
        """The named part of the state (a JSON value: a dict or a list), to read or
        change; ``default`` when there is none yet. Saved with :meth:`save` (not
        ``change``: to read only, and a change to it would not be saved)."""
        if name not in self._parts:
            row = self._one("SELECT value FROM parts WHERE name = ?", (name,))
            if row is None and not change:
                return default  # (nothing to keep: read only, and there is none)
            self._parts[name] = json.loads(row[0]) if row is not None else default
        if change:
            self._dirty.add(("part", name))
        return self._parts[name]

    # ------------------------------------------------------------------ a door's rows

    def door_game(self, door: str, game_id: str) -> dict[str, Any]:
        """A door's own state of one game (created empty), to read or change."""
        key = (door, game_id)
        if key not in self._door_games:
            row = self._one("SELECT value FROM door_games WHERE door = ? AND game = ?", key)
            self._door_games[key] = json.loads(row[0]) if row is not None else {}
        self._dirty.add(("door_game", key))
        return self._door_games[key]

    def door_games(self, door: str) -> list[str]:
        """The games a door keeps state of."""
        rows = self._all("SELECT game FROM door_games WHERE door = ?", (door,))
        return sorted({*(r[0] for r in rows), *(g for d, g in self._door_games if d == door)})

    def door_key(self, door: str, key: str) -> tuple[str, Any] | None:
        """(game id, value) a door filed under ``key`` (a room id), or None."""
        if (door, key) not in self._keys:
            row = self._one("SELECT game, value FROM door_keys WHERE door = ? AND key = ?",
                            (door, key))
            self._keys[(door, key)] = (row[0], json.loads(row[1])) if row else None
        return self._keys[(door, key)]

    def set_door_key(self, door: str, key: str, game_id: str | None, value: Any = None
                     ) -> None:
        """File (or with ``game_id`` None, remove) ``key`` of a door."""
        self._keys[(door, key)] = None if game_id is None else (game_id, value)
        self._dirty.add(("key", (door, key)))

    # ------------------------------------------------------------------ queues

    def queue(self, door: str) -> list[dict[str, Any]]:
        """A door's messages not yet delivered, in order (read only: change it with
        :meth:`enqueue` and :meth:`dequeue`)."""
        if door not in self._queues:
            rows = self._all("SELECT seq, item FROM queue WHERE door = ? ORDER BY seq",
                             (door,))
            self._queues[door] = [{**json.loads(item), "_seq": seq} for seq, item in rows]
        return self._queues[door]

    def enqueue(self, door: str, item: dict[str, Any], game_id: str | None = None) -> None:
        """Keep ``item`` to be delivered by ``door`` (saved with the next save)."""
        self.queue(door).append(item)
        self._new.append((door, item, game_id))
        self.unsaved = True

    def dequeue(self, door: str, item: Mapping[str, Any]) -> None:
        """``item`` (an item of :meth:`queue`: that very object) was delivered (or
        dropped for good): off the queue at once, durably. Raises GameFileError (a full
        or read-only disk)."""
        queue = self.queue(door)
        queue[:] = [kept for kept in queue if kept is not item]
        if "_seq" in item:
            self._write([("DELETE FROM queue WHERE seq = ?", (item["_seq"],))])
        else:
            self._new = [n for n in self._new if n[1] is not item]

    # ------------------------------------------------------------------ strangers

    def may_answer(self, address: str, now: float, known: bool = False) -> bool:
        """Whether the judge may answer ``address``, a sender who is not authenticated,
        at ``now`` (seconds since the epoch); a yes is recorded (saved with the next
        :meth:`save`). In any hour: an address no game here knows gets at most
        :data:`STRANGER_ANSWERS_EACH` answers, and all of them together
        :data:`STRANGER_ANSWERS`; an address registered in a game here (``known``: a
        seat's, a game master's or a watcher's: its owner expects the judge's mail)
        :data:`KNOWN_ANSWERS_EACH`, apart from that sum. The record holds the answers of
        the last hour only, each as a digest of the lowercased address, its time and
        whether it was known: at most STRANGER_ANSWERS + :data:`KNOWN_KEPT` entries (a
        full record refuses), and no stranger's address. An entry later than ``now``
        (a clock set back) is dropped."""
        key = hashlib.sha256(address.strip().lower().encode("utf-8", "replace")).hexdigest()
        key = key[:16]
        kept = self.part("strangers", [])
        recent = [entry for entry in kept if _entry(entry) and 0 <= now - entry[1] < HOUR]
        kept[:] = recent
        mine = sum(1 for k, _, _ in recent if k == key)
        alike = sum(1 for _, _, kind in recent if kind == int(known))
        if known and (mine >= KNOWN_ANSWERS_EACH or alike >= KNOWN_KEPT):
            return False
        if not known and (mine >= STRANGER_ANSWERS_EACH or alike >= STRANGER_ANSWERS):
            return False
        kept.append([key, now, int(known)])
        return True

    # ------------------------------------------------------------------ saving

    def set_part(self, name: str, value: Any) -> None:
        """Replace the named part (saved with the next save)."""
        self._parts[name] = value
        self._dirty.add(("part", name))

    def save(self) -> None:
        """Write what changed since the last save, in one transaction. Raises
        GameFileError (a full or read-only disk), the state on disk then unchanged."""
        self._save()

    def _save(self) -> None:
        steps = [self._step(kind, key) for kind, key in sorted(self._dirty, key=repr)]
        steps += [("INSERT OR IGNORE INTO answered (ref) VALUES (?)", (ref,))
                  for ref in self._answered]
        steps += [("INSERT INTO queue (door, game, item) VALUES (?, ?, ?)",
                   (door, game, _dumps(_item(item)))) for door, item, game in self._new]
        if steps:
            seqs = self._write(steps, inserted=len(self._new))
            for (_, item, _), seq in zip(self._new, seqs, strict=True):
                item["_seq"] = seq
            self._marked += len(self._answered)
        self._dirty.clear()
        self._answered.clear()
        self._new = []
        self.unsaved = False
        if self._marked > ANSWERED_KEPT // 10:  # now and then: the oldest forgotten
            self._marked = 0
            count = self._one("SELECT count(*) FROM answered", ())[0]
            if count > ANSWERED_KEPT:
                self._write([("DELETE FROM answered WHERE rowid IN (SELECT rowid FROM "
                              "answered ORDER BY rowid LIMIT ?)", (count - ANSWERED_KEPT,))])

    def _step(self, kind: str, key: Any) -> tuple[str, tuple[Any, ...]]:
        if kind == "game":
            state = self._games[key]
            return ("INSERT OR REPLACE INTO games (id, file, state) VALUES (?, ?, ?)",
                    (key, state.get("file"), _dumps(state)))
        if kind == "part":
            return ("INSERT OR REPLACE INTO parts (name, value) VALUES (?, ?)",
                    (key, _dumps(self._parts[key])))
        if kind == "door_game":
            return ("INSERT OR REPLACE INTO door_games (door, game, value) VALUES (?, ?, ?)",
                    (*key, _dumps(self._door_games[key])))
        filed = self._keys[key]
        if filed is None:
            return ("DELETE FROM door_keys WHERE door = ? AND key = ?", key)
        return ("INSERT OR REPLACE INTO door_keys (door, key, game, value) VALUES "
                "(?, ?, ?, ?)", (*key, filed[0], _dumps(filed[1])))

    def _write(self, steps: list[tuple[str, tuple[Any, ...]]], inserted: int = 0
               ) -> list[int]:
        """Run ``steps`` in one transaction; the row ids of the last ``inserted``
        statements."""
        ids: list[int] = []
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for k, (sql, args) in enumerate(steps):
                    cursor = self.db.execute(sql, args)
                    if k >= len(steps) - inserted:
                        ids.append(int(cursor.lastrowid or 0))
                self.db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            error, cause = failure(exc, "write")
            raise error from cause
        return ids

    def _one(self, sql: str, args: tuple[Any, ...]) -> Any:
        try:
            return self.db.execute(sql, args).fetchone()
        except sqlite3.Error as exc:
            error, cause = failure(exc, "read")
            raise error from cause

    def _all(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            error, cause = failure(exc, "read")
            raise error from cause


def _open(path: Path) -> sqlite3.Connection:
    """The database at ``path``, made (owner-only) if there is none."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.close(fd)
    except OSError as exc:
        if not path.exists():
            raise GameFileError(f"cannot make the judge state {path}: "
                                f"{exc.strerror or exc}") from exc
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, FORMAT):
            raise UsageError(f"{path} is a judge state of another version ({version})")
        if version == 0:  # (a new database: nothing is written to one made before)
            db.executescript(SCHEMA)
            db.execute(f"PRAGMA user_version = {FORMAT}")
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"cannot read the judge state {path}: {exc}",
                         hints=["restore it from a backup or remove it "
                                "(every game then gets a fresh message)"]) from None
    return db


def _item(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != "_seq"}


def _entry(entry: Any) -> bool:
    """A record of :meth:`Store.may_answer`: [digest, seconds, 0 or 1]."""
    return isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) \
        and type(entry[1]) in (int, float) and entry[2] in (0, 1)


# --------------------------------------------------------------------------- the old state


def _migrate(games_dir: Path, store: Store) -> None:
    """Move the state of a judge before SQLite into ``store`` once (its files renamed
    ``*.migrated``)."""
    from referee.judge import legacy

    try:
        old = legacy.read(games_dir)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the judge state {games_dir / legacy.STATE_NAME} "
                         f"(before SQLite): {exc}",
                         hints=["restore it from a backup or remove it "
                                "(every game then gets a fresh message)"]) from None
    if old is None:
        return
    if not store.part("legacy", {}).get("migrated"):
        load(store, old)
        store.set_part("legacy", {"migrated": True})  # (in the same transaction)
        store._save()
    for name in legacy.names():
        fileio.set_aside(games_dir / name, ".migrated")


def load(store: Store, data: dict[str, Any]) -> None:
    """Put ``data`` (a state as one JSON-like value: the JSON file of earlier versions,
    or one changed by hand in a test) into ``store`` (saved with its next save)."""
    for gid, given in (data.get("games") or {}).items():
        state = json.loads(_dumps(given))
        roots = state.pop("roots", None)
        tiles = state.pop("tiles", None)
        store.game(gid).clear()
        store.game(gid).update(state)
        if roots or tiles:
            mail = store.door_game("mail", gid)
            mail.update({k: v for k, v in (("roots", roots), ("tiles", tiles)) if v})
    for ref in data.get("answered") or []:
        store.mark_answered(ref)
    for item in data.get("queue") or []:
        store.enqueue("mail", dict(item))
    for name in ("strangers", "channels", "rates", "later", "later_told"):
        if name in data:
            store.set_part(name, data[name])
    if data.get("matrix"):  # the chat door's, before its rows (referee/doors/chat)
        store.set_part("legacy.matrix", data["matrix"])


def peek_part(games_dir: Path, name: str) -> Any:
    """The named part of the state of ``games_dir``, read without changing anything
    (None: no state, or no such part); the database opened read only."""
    path = games_dir / STATE_NAME
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM parts WHERE name = ?", (name,)).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return json.loads(row[0]) if row is not None else None


@contextlib.contextmanager
def exclusive(games_dir: Path) -> Iterator[None]:
    """Hold the judge lock of ``games_dir``; refuse if another judge holds it."""
    if not games_dir.is_dir():
        raise UsageError(f"{games_dir} is not a directory")
    path = games_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:  # a read-only folder: an existing lock file still locks (flock)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise GameFileError(f"cannot take the judge lock {path}: "
                                f"{exc.strerror or exc}; no mail was read") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(f"another judge is running on {games_dir}") from None
        yield
    finally:
        os.close(fd)
