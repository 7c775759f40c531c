"""The one write core: every change to a game file is one transaction.

Moves, undo, void, nonces, reveal, seats, upgrades, the judge's meta records and the bots'
replies, from the CLI and the judge alike, are written by :func:`transaction`, in these
steps, all inside one exclusive lock on the file:

1. **lock and read** the file, and parse it as any reader would;
2. **replay** it with the secret where there is one (:attr:`Transaction.match`), or,
   when the file holds exactly the bytes this process wrote last with that secret, start
   from a copy of the state it wrote then (:class:`Replayed`: the same bytes replay to
   the same state);
3. the caller **checks and appends** its entries (or changes the header: nonces, reveal);
4. the new entries get their hash chain and, in a sealed game whose secret is at hand,
   the referee's **MAC**;
5. the new file is **checked** as a reader will check it: size within the read cap, the
   format and its bounds (a parse of the new bytes), and a replay of the whole log with
   the secret (or, without the secret, the checks that need none);
6. one **atomic write** (temporary file, fsync, rename), refused if the file changed.

A MAC says "the referee accepted this entry and everything before it", so one is only
ever written on a log that replayed in full inside the same lock: the MACs are made in
step 4 and the file is written only if step 5 then replays it. Anything that fails leaves
the file byte for byte as it was. Surfaces (the CLI, the judge, the bots) parse and print;
they never write a game file themselves.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from referee.engine import Match, Move
from referee.errors import (
    GameFileError,
    IllegalMove,
    RefereeError,
    SealedError,
)
from referee.i18n import domain
from referee.ledger import fileio, gamefile, replay, secret, vouch

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import Entry, NewEntry

_, N_, ngettext = domain("referee")


class Transaction:
    """One write to one game file, open inside :func:`transaction`.

    ``gf`` is the parsed file (its ``data`` is changed in place), ``seed`` the secret seed
    if known, ``match`` the state replayed inside the lock (None when it cannot be rebuilt:
    a sealed game without its secret, or a log that does not replay; ``problem`` then says
    why). (A plain class: a dataclass is made by compiling its methods when imported, a
    millisecond of every `move`.)"""

    def __init__(self, path: Path, old: bytes, gf: gamefile.GameFile, seed: str | None,
                 start: int = 0) -> None:
        self.path = path
        self.old = old
        self.gf = gf
        self.seed = seed
        self.match: Match | None = None
        self.problem: RefereeError | None = None
        self.start = start  # log length before this transaction
        self.header_changed = False
        # True while every appended entry is a move played on ``match`` (checked there):
        # the replay in step 5 is then the one already done, move by move.
        self.only_played = True
        self.written = False
        self._checked: tuple[int, bool, str] | None = None
        self._new: gamefile.GameFile | None = None
        self._entries: list[Entry] = []
        self._timed: set[str] = set()  # players whose clock play() asked

    # --- what the caller reads ----------------------------------------------------------

    def state(self) -> Match:
        """The replayed state; raises why it could not be rebuilt (SealedError without
        the secret, or the replay's error)."""
        if self.match is None:
            raise self.problem or SealedError("the state cannot be rebuilt")
        return self.match

    # --- what the caller writes ---------------------------------------------------------

    def play(self, player: str, move: Move, extra: Mapping[str, Any] | None = None
             ) -> Entry:
        """Play ``move`` for ``player`` on the replayed state and append its entry. The move
        is checked here too (whose turn, legality, and a person's clock: a move after their
        time ran out is refused, referee/clocks/clock.py), whatever the caller resolved."""
        match = self.state()
        why = replay.refusal(match, player, move, self.gf.sealed)
        if why is not None:
            raise IllegalMove(why)
        if self.seed is not None and not (extra or {}).keys() & {"bot", "plan"}:
            self._refuse_late(player)
        match.play(player, move)
        return self._append_move(player, move, extra)

    def append_unchecked(self, player: str, move: Move,
                         extra: Mapping[str, Any] | None = None) -> Entry:
        """Append a move whose legality cannot be checked here (a sealed game without its
        secret): it carries no MAC, and a referee with the secret checks it later."""
        if self.seed is not None:
            raise SealedError("the secret is at hand: play the move checked")
        self.only_played = False
        return self._append_move(player, move, extra)

    def append(self, entry: dict[str, Any], extra: Mapping[str, Any] | None = None
               ) -> dict[str, Any]:
        """Append a raw entry (an undo, a void, a meta record); ``n`` is filled in. The
        replay of step 5 decides whether it stands, with every rule a reader applies
        (who may write it, a player's records between two plays and take-backs in a row:
        referee/ledger/replay.py)."""
        added = self.record(cast("NewEntry", entry), extra)
        return cast(dict[str, Any], added)  # (the entry itself, as the plain JSON it is)

    def record(self, entry: NewEntry, extra: Mapping[str, Any] | None = None) -> Entry:
        """:meth:`append` of a typed entry."""
        self.only_played = False
        return self._add({"n": len(self.gf.log) + 1, **entry}, extra)

    def touch_header(self) -> None:
        """The caller changed the header (a nonce, the revealed seed)."""
        self.header_changed = True
        self.only_played = False
        self._checked = None

    def _refuse_late(self, player: str) -> None:
        """A person's first move in this transaction, at the moment it is written (what
        its MAC will vouch for): refused if their time ran out before it."""
        if player in self._timed or not (self.gf.sealed and replay.has_time_control(
                self.gf.data)):
            return  # (no clock to run out: the clocks are not even imported)
        from referee.clocks import clock

        clock.refuse_late_move(self.gf, self.seed, player, clock.now())
        self._timed.add(player)

    def _append_move(self, player: str, move: Move, extra: Mapping[str, Any] | None
                     ) -> Entry:
        entry = gamefile.move_entry(self.gf.data, player, move)
        return self._add(entry, extra)

    def _add(self, entry: Entry, extra: Mapping[str, Any] | None) -> Entry:
        entry.update(extra or {})  # type: ignore[typeddict-item]  # (the doors' fields)
        entry["prev"] = gamefile.next_prev(self.gf.data)
        entry["at"] = gamefile.now()
        self.gf.data["log"].append(entry)
        self._entries.append(entry)
        self._checked = None
        return entry

    # --- commit -------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        return bool(self._entries) or self.header_changed

    def verify(self) -> Match | None:
        """Steps 4 and 5: chain and MACs, then the checks a reader makes of the new file
        (size, format and bounds, the replay). Returns the new state (None without the
        secret of a sealed game). A caller may call it before the end of the block, to
        turn a refusal into its own message or to check more before the write; appending
        afterwards needs another verify, which :meth:`commit` does."""
        self._chain_and_macs()
        text = gamefile.dumps(self.gf.data)
        raw = text.encode()
        check_size(raw, self.path)
        new = gamefile.parse(raw, str(self.path))
        if self._can_replay(new):
            if not self.only_played or self.header_changed:
                self.match = replay.replay(new, self.seed)
            self._refuse_late_vouching(new)
        else:
            replay.check_structure(new)
        self._checked = (len(self.gf.log), self.header_changed, text)
        self._new = new
        return self.match

    def _refuse_late_vouching(self, new: gamefile.GameFile) -> None:
        """The new MACs vouch for the entries after the file's last MAC, at this write's
        time: in a game with a clock none of them may be a move the log proves late
        (referee/clocks/clock.py)."""
        log = new.log
        if not (self._macs() and self._entries and self.start
                and "mac" not in log[self.start - 1] and replay.has_time_control(new.data)):
            return
        from referee.clocks import clock

        first = max((i + 1 for i in range(self.start) if "mac" in log[i]), default=0)
        assert self.seed is not None
        clock.refuse_late_vouching(new, self.seed, first, self.start)

    def _macs(self) -> bool:
        """Whether this write MACs its entries: a sealed game whose secret is at hand and
        whose seed is not revealed."""
        rng = self.gf.data["rng"]
        return self.seed is not None and "commitment" in rng and "seed" not in rng

    def commit(self) -> None:
        """Step 6, after :meth:`verify` if the log changed since: the atomic write. The
        transaction calls it at the end of its block."""
        if self.written:
            raise GameFileError("this transaction has already been written")
        if self._checked is None or self._checked[:2] != (len(self.gf.log),
                                                          self.header_changed):
            self.verify()
        assert self._checked is not None and self._new is not None
        fileio.replace(self.path, self.old, self._checked[2])
        self.gf = self._new
        self.written = True
        if self.match is not None and self._can_replay(self._new):
            _REPLAYED.keep(self.path, self._checked[2].encode(), self.seed, self.match)

    def _can_replay(self, gf: gamefile.GameFile) -> bool:
        return self.seed is not None or not gf.sealed

    def _chain_and_macs(self) -> None:
        """Fill in ``prev`` of each new entry (in order: each covers the one before,
        MAC included) and the referee's MAC where the secret is at hand."""
        data = self.gf.data
        log = data["log"]
        mac = self._macs()
        for i in range(self.start, len(log)):
            entry = log[i]
            entry.pop("mac", None)
            entry["prev"] = (gamefile.entry_hash(log[i - 1]) if i
                             else gamefile.header_hash(data))
            if mac:
                assert self.seed is not None
                entry["mac"] = vouch.entry_mac(self.seed, entry)


def check_size(raw: bytes, path: Path) -> None:
    """A write may never make a file that a read refuses. Raises GameFileError."""
    cap = fileio.MAX_GAME_FILE_BYTES
    if len(raw) > cap:
        raise GameFileError(
            _("this change would make {path} {size} bytes, more than the {cap} MiB a game "
              "file may hold; nothing was changed").format(
                  path=path, size=f"{len(raw):,}", cap=cap // (1024 * 1024)))


# Called inside the lock with the file as it is then, before anything else: raises to
# refuse the write (e.g. a mailed command that the file has made stale meanwhile).
Guard = Callable[[gamefile.GameFile], None]


@contextlib.contextmanager
def transaction(path: Path, *, secret_path: Path | None = None, replayed: bool = True,
                guard: Guard | None = None) -> Iterator[Transaction]:
    """Open one write to the game file at ``path`` (see the module's docstring).

    Yields a :class:`Transaction`; if the block ends without an exception and something
    was appended or changed, the new file is checked and written atomically; otherwise
    nothing is written. ``replayed=False`` skips the replay of step 2 (for a change that
    needs no state; step 5 still replays the result). ``guard`` is called with the file
    as read inside the lock, before anything else, and may raise to refuse. Raises
    GameFileError, ReplayError, SealedError, ConcurrentWriteError and the caller's
    errors."""
    with fileio.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        if guard is not None:
            guard(gf)
        seed = secret.find_seed(gf, secret_path, path)
        tx = Transaction(path, old, gf, seed, start=len(gf.log))
        if replayed:
            _replay_into(tx)
        yield tx
        if tx.changed and not tx.written:
            tx.commit()


class Replayed:
    """The states this process wrote, by file: the state after a write, kept (a copy)
    with the bytes written and the secret it was replayed with. The next transaction on
    the same file starts from a copy of it when the file still holds exactly those bytes
    (the same bytes and secret replay to the same state: replay is deterministic), instead
    of replaying the log from the setup again; a judge writes each game again and again.
    Holds the latest KEEP files; an entry is used once (a failed transaction leaves
    none behind)."""

    KEEP = 128

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[bytes, str | None, Match]] = OrderedDict()

    def keep(self, path: Path, raw: bytes, seed: str | None, match: Match) -> None:
        key = str(path)
        self._kept[key] = (raw, seed, _copy(match))
        self._kept.move_to_end(key)
        while len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)

    def match(self, path: Path, raw: bytes, seed: str | None) -> Match | None:
        """The state kept for ``path`` if it was written as ``raw`` with ``seed``, handed
        over (no longer kept: the transaction plays on it, and its write keeps the next
        one); None otherwise."""
        found = self._kept.pop(str(path), None)
        if found is None or found[1] != seed or found[0] != raw:
            return None
        return found[2]


def _copy(match: Match) -> Match:
    """An independent copy of ``match`` (state, generator, log) that moves can be played on."""
    state, rng = replay.copy_position(match)
    return Match(match.game, list(match.players), dict(match.options), state, rng,
                 list(match.log))


_REPLAYED = Replayed()


def _replay_into(tx: Transaction) -> None:
    if tx.seed is None and tx.gf.sealed:
        tx.problem = SealedError(
            _("this game is sealed: its seed is secret, so the state cannot be rebuilt"),
            hints=[_("give the game's secret with --secret FILE (or REFEREE_SECRET)")])
        return
    try:
        known = _REPLAYED.match(tx.path, tx.old, tx.seed)
        if known is not None:
            replay.check_header(tx.gf)  # sets the file's game (its data version), as replay
            tx.match = known
            return
        tx.match = replay.replay(tx.gf, tx.seed)
    except RefereeError as exc:
        tx.problem = exc


def create(path: Path, data: Mapping[str, Any], *, secret_path: Path | None = None,
           secret_text: str | None = None) -> None:
    """Write a new game file (and, for a sealed game with its own secret, the secret file
    beside it, both or neither), after the checks a reader makes. Refuses to overwrite.
    Raises UsageError, GameFileError."""
    text = gamefile.dumps(data)
    raw = text.encode()
    check_size(raw, path)
    gamefile.parse(raw, str(path))
    if secret_path is not None and secret_text is not None:
        fileio.create_pair(path, text, secret_path, secret_text)
    else:
        fileio.create(path, text)
