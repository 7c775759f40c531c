"""The judge's own durable state: one small JSON file per games directory.

What was sent (per game: the log length last notified, each player's last mail and
thread root, the ID counter), the mails not yet delivered (the outbox queue), the
incoming Message-IDs already answered, and the answers of the last hour to senders who
were not authenticated (:meth:`Store.may_answer`: a digest of each address, not the
address). The state is saved once per incoming mail, after
its answers are queued and before they are sent, atomically and durably
(``fileio.write_atomic``: temporary file, fsync, rename, fsync of the directory), so a
judge killed at any moment restarts from the last complete state. An exclusive lock
keeps a second judge off the directory.

A mail sent is not a save of its own: its Message-ID is appended to a small journal
beside the state (``.referee-judge.sent``, one line each, not fsynced), the next save
writes the queue without it and removes the journal, and a judge that starts after a
crash drops from the queue every mail the journal names. A process that is killed loses
nothing (the journal's lines are written before it dies); a power failure may lose the
last lines of the journal, and the mails they name are then sent once more, under the
same Message-ID. The journal never names a mail that was not sent, and a line cut short
by a crash is ignored, so the queue is never wrong.

A save costs what changed, not the whole state (one entry per game a judge ever served:
rewriting them all after each mail made a judge's first look at N new games quadratic).
The state file is the base; each save appends one record to a write-ahead journal beside
it (``.referee-judge.wal``, :mod:`referee.judge.statejournal`): the entries of the games
changed since the last save (those handed out by :meth:`Store.game`), the Message-IDs
answered since, and the rest of the state, which holds no entry per game served (the
queue, the answers to strangers; a chat door's rooms and the players' channels, one
entry per game that has them). One write, one fsync: the save is as atomic and as
durable as before. Loading applies the records to the base in order; a last record cut
short by a crash (or whose checksum fails) is ignored, so a judge killed at any moment
restarts from the last complete save. When the journal has grown past the base's size
(or at least :data:`JOURNAL_MIN` bytes), the next save writes the whole state as the new
base (atomically, as above) and removes the journal: a cost of the base's size once per
as many bytes of records, a constant a save. The journal names the digest of its base,
so a journal left behind by a compaction that died before removing it (or a base
restored from a backup) is ignored. A state file without a journal (every judge before
the journal) loads as it is.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.errors import GameFileError, UsageError
from referee.judge import statejournal
from referee.ledger import fileio

STATE_NAME = ".referee-judge.json"
SENT_NAME = ".referee-judge.sent"  # the Message-IDs sent since the last save
LOCK_NAME = ".referee-judge.lock"
JOURNAL_NAME = ".referee-judge.wal"  # what each save changed, after the state file
JOURNAL_MIN = 256 * 1024  # the journal is folded into the base past max(this, the base)
ANSWERED_KEPT = 5000
# answers to senders who are not authenticated, in any hour (docs/judge.md, "Answers to
# senders who are not authenticated")
HOUR = 3600.0
STRANGER_ANSWERS_EACH = 1  # to one address that no game here knows
STRANGER_ANSWERS = 20  # to all of those
KNOWN_ANSWERS_EACH = 3  # to one registered address (a player whose token got lost)
KNOWN_KEPT = 1000  # records of answers to registered addresses


def _empty() -> dict[str, Any]:
    return {"format": "referee-judge/1", "games": {}, "queue": [], "answered": [],
            "strangers": []}


class Store:
    """The state file of one games directory, loaded once and saved after each change."""

    def __init__(self, games_dir: Path, *, drop_sent: bool = True) -> None:
        self.path = games_dir / STATE_NAME
        self.journal_path = games_dir / JOURNAL_NAME
        try:
            self._base: bytes | None = self.path.read_bytes()
            self.data: dict[str, Any] = json.loads(self._base)
        except FileNotFoundError:
            self._base, self.data = None, _empty()
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read the judge state {self.path}: {exc}",
                             hints=["restore it from a backup or remove it "
                                    "(every game then gets a fresh mail)"]) from None
        if not isinstance(self.data, dict) or self.data.get("format") != "referee-judge/1":
            raise UsageError(f"{self.path} is not a judge state file")
        self._dirty: set[str] = set()  # games handed out since the last save
        self._answered: list[str] = []  # Message-IDs answered since the last save
        self._apply_journal()
        self.sent_path = games_dir / SENT_NAME
        self.unsaved = False  # mails sent since the last save (named in the journal)
        if drop_sent:
            self._drop_sent()

    def _apply_journal(self) -> None:
        """The saves after the base, from the journal (a torn last record ignored)."""
        try:
            found = statejournal.read(self.journal_path, self._base)
        except OSError as exc:
            raise UsageError(f"cannot read the judge's journal {self.journal_path}: "
                             f"{exc.strerror or exc}") from None
        for record in found.records:
            apply(self.data, record)
        self._journal_size = found.size
        self._compact = not found.clean or self._base is None  # the next save: a new base

    def _drop_sent(self) -> None:
        """Drop from the queue the mails the journal says were sent (a judge stopped
        between sending them and its next save); only whole lines count."""
        try:
            journal = self.sent_path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UsageError(f"cannot read the judge's journal {self.sent_path}: "
                             f"{exc.strerror or exc}") from None
        sent = set(journal.decode("ascii", "replace").split("\n")[:-1])
        queue = self.data["queue"]
        self.data["queue"] = [item for item in queue if item["id"] not in sent]
        self.unsaved = True

    def game(self, game_id: str) -> dict[str, Any]:
        """The state of one game, to read or change (created empty on first use; saved
        with :meth:`save`, which writes the games handed out since the last save)."""
        self._dirty.add(game_id)
        return self.data["games"].setdefault(game_id, {  # type: ignore[no-any-return]
            "seen": None, "counter": 0, "last": {}, "asked": {}, "roots": {},
            "waiting": [], "since": None, "reminded": None, "expired": None,
        })

    def peek(self, game_id: str) -> dict[str, Any] | None:
        """The state of one game to read only (None: the judge has none): a change to it
        would not be saved, use :meth:`game`."""
        return self.data["games"].get(game_id)  # type: ignore[no-any-return]

    def next_counter(self, game_id: str) -> int:
        state = self.game(game_id)
        state["counter"] += 1
        return int(state["counter"])

    def answered(self, msgid: str) -> bool:
        return msgid in self.data["answered"]

    def mark_answered(self, msgid: str | None) -> None:
        if msgid and msgid not in self.data["answered"]:
            _answer(self.data, msgid)
            self._answered.append(msgid)

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
        recent = [entry for entry in self.data.get("strangers", [])
                  if _entry(entry) and 0 <= now - entry[1] < HOUR]
        self.data["strangers"] = recent
        mine = sum(1 for k, _, _ in recent if k == key)
        alike = sum(1 for _, _, kind in recent if kind == int(known))
        if known and (mine >= KNOWN_ANSWERS_EACH or alike >= KNOWN_KEPT):
            return False
        if not known and (mine >= STRANGER_ANSWERS_EACH or alike >= STRANGER_ANSWERS):
            return False
        recent.append([key, now, int(known)])
        return True

    def enqueue(self, msgid: str, recipients: list[str], raw: bytes) -> None:
        self.data["queue"].append({"id": msgid, "to": recipients,
                                   "raw": raw.decode("utf-8", "surrogateescape")})

    def sent(self) -> None:
        """The first queued mail was sent: take it off the queue and name it in the
        journal (appended, not fsynced: see the module's docstring). Raises OSError."""
        item = self.data["queue"].pop(0)
        fd = os.open(self.sent_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                     0o600)
        try:
            os.write(fd, f"{item['id']}\n".encode("ascii", "replace"))
        finally:
            os.close(fd)
        self.unsaved = True

    def save(self) -> None:
        """Write what changed since the last save atomically and durably (mode 0600: it
        holds queued mails with the players' tokens): one record appended to the journal,
        or now and then the whole state as a new base (see the module's docstring);
        then remove the journal of mails sent, which the state now holds. Raises
        GameFileError (a full or read-only disk), the state on disk then unchanged."""
        if self._compact or self._base is None or self._journal_size > max(
                JOURNAL_MIN, len(self._base)):
            self._write_base()
        else:
            games = self.data["games"]
            record = {"games": {g: games.get(g) for g in sorted(self._dirty)},
                      "answered": self._answered,
                      "rest": {k: v for k, v in self.data.items() if k not in _OWN}}
            line = statejournal.line(record)  # (before the write: \udcxx survive)
            self._journal_size += statejournal.append(self.journal_path, self._base, line)
        self._dirty.clear()
        self._answered = []
        if self.unsaved:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.sent_path)
            self.unsaved = False

    def _write_base(self) -> None:
        """The whole state as the new base, then the journal removed (a journal left by
        a crash between the two names the old base: it is ignored)."""
        text = json.dumps(self.data, ensure_ascii=True, sort_keys=True)  # \udcxx survive
        base = text.encode("ascii")
        fileio.write_atomic(self.path, base, mode=0o600, what="judge state")
        self._base, self._compact = base, False
        try:
            os.unlink(self.journal_path)
        except FileNotFoundError:
            pass
        except OSError:  # (a journal that names another base is ignored)
            self._compact = True
        self._journal_size = 0


# the parts of the state a journal record holds on their own (the rest is written whole)
_OWN = ("games", "answered")


def apply(data: dict[str, Any], record: dict[str, Any]) -> None:
    """One journal record applied to the state ``data`` (as :meth:`Store.save` wrote it):
    each game's entry replaced (None: removed), the answered Message-IDs added, the rest
    replaced."""
    games = data["games"]
    for gid, entry in (record.get("games") or {}).items():
        if entry is None:
            games.pop(gid, None)
        else:
            games[gid] = entry
    for msgid in record.get("answered") or []:
        if msgid not in data["answered"]:
            _answer(data, msgid)
    for key, value in (record.get("rest") or {}).items():
        if key not in _OWN:
            data[key] = value


def _answer(data: dict[str, Any], msgid: str) -> None:
    data["answered"].append(msgid)
    del data["answered"][:-ANSWERED_KEPT]


def read_state(games_dir: Path, *, drop_sent: bool = True) -> dict[str, Any]:
    """The judge's state of ``games_dir`` as a judge starting now would load it: the
    base with the journal's records applied, the mails named sent dropped from the
    queue (unless not ``drop_sent``: the state as last saved)."""
    return Store(games_dir, drop_sent=drop_sent).data


def write_state(games_dir: Path, data: dict[str, Any]) -> None:
    """Replace the judge's state of ``games_dir`` by ``data`` (a new base, no journal):
    for a state changed by hand."""
    store = Store(games_dir)
    store.data = data
    store._write_base()


def _entry(entry: Any) -> bool:
    """A record of :meth:`Store.may_answer`: [digest, seconds, 0 or 1]."""
    return isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) \
        and type(entry[1]) in (int, float) and entry[2] in (0, 1)


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
