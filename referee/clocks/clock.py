"""Each seat's clock from a game file (docs/clocks.md), and what the clocks refuse; the
arithmetic itself is :mod:`referee.clocks.clockmath` (its names are re-exported here).

**Vouched times.** A player's own ``at`` never makes an entry early: the time of an entry
is the ``at`` of the first entry at or after it that carries the referee's MAC (in a
mail game the judge MACs every entry it writes; in a git game the CI job writes a MAC'd
``stamp`` record after each push, ``referee tick``). So the clocks need a sealed game,
whose secret only the referee holds. Entries after the last MAC are *pending*: they count
at "now" for display and at the last vouched time for checks.

**Late moves.** A person's move that comes after their bank and vacation days ran out,
before a timeout was recorded in that turn, does not stand: the timeout wins. When the
move came is known as well as the log proves it:

* a move the referee writes itself (the judge's, `move` with the secret) comes at the
  moment it is written, the ``at`` its own MAC vouches for: :func:`refuse_late_move`,
  which the write core asks before it plays a person's move;
* a move appended without the secret (git) is pending. It was written after the entry
  before it (its ``prev`` is that entry's hash), so after the last vouched time before
  it; and not before its own ``at`` (an author may say they were late, never that they
  were early). It is late when either bound is past its mover's time, in a turn that
  began at a vouched time (a turn that began at a pending entry began at a time nobody
  vouched for, so it is given the benefit of the doubt): :func:`refuse_late_pending`,
  in ``check`` and, before a MAC vouches for pending entries, in the write core
  (:func:`refuse_late_vouching`).

A move the referee saw only after the time ran out but that no bound proves late (a
pull request merged after the deadline) is vouched at the stamp's time: it stands, and
its seat's bank is 0 plus the increment (``late`` counts such turns).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.clocks.clockmath import (
    DAY,
    DEFAULT_LEVEL,
    HOUR,
    MINUTE,
    REMINDERS,
    TIMEOUTS,
    UNITS,
    WEEK,
    ClockError,
    Clocks,
    Event,
    Interval,
    SeatClock,
    apply,
    charged,
    control,
    describe,
    fold,
    format_duration,
    now,
    parse_duration,
    parse_pace,
    parse_timeout,
    run_out,
    seconds,
    start,
    utc,
    utc_json,
)
from referee.errors import IllegalMove
from referee.ledger.fileformat import CLOCK_KINDS, GAME_MASTER

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import ClockRecord

__all__ = [
    "DAY", "DEFAULT_LEVEL", "HOUR", "MINUTE", "REMINDERS", "TIMEOUTS", "UNITS", "WEEK",
    "ClockError", "Clocks", "Event", "Interval", "SeatClock", "Timeline", "apply",
    "charged", "control", "describe", "fold", "format_duration", "now", "parse_duration",
    "parse_pace", "parse_timeout", "refuse_late_move", "refuse_late_pending",
    "refuse_late_vouching", "run_out", "seconds", "start", "timeline", "utc", "utc_json",
    "verify",
]


@dataclasses.dataclass
class Timeline:
    """What the clocks need of a game file, from one replay: the time control at the
    start, the players, the start time and who is awaited then, and one event per
    entry."""

    control: ClockRecord | None
    players: list[str]
    t0: int
    awaited0: tuple[str, ...]
    bots0: set[str]
    events: list[Event]
    sealed: bool
    ranking: list[list[str]] | None = None  # the game's own, once it is over

    def clocks(self, at: int | None = None) -> Clocks:
        """The clocks after the whole log, advanced to ``at`` (pending entries count at
        ``at``); ``at`` None: at the last vouched time (what ``check`` verifies)."""
        clocks = fold(self.control, self.players, self.t0, self.awaited0, self.bots0,
                      self.events, at)
        if at is not None:
            clocks.advance(at)
        return clocks


def _awaited(gf: Any, match: Any) -> tuple[str, ...]:
    from referee.ledger import gamefile

    return tuple(gamefile.waiting(gf, match)) if not gamefile.missing_nonces(gf) else ()


# The timelines of the game files seen last, by their whole content and the seed: the
# same bytes replay the same (a judge, the write core and `tick` ask for one version
# several times).
_TIMELINES: OrderedDict[tuple[str, str], Timeline] = OrderedDict()
_KEPT = 64


def timeline(gf: Any, seed: str | None, match: Any = None) -> Timeline:
    """The clock timeline of the game file ``gf`` (one replay with the seed). The time of
    each entry is the ``at`` of the first MAC'd entry at or after it (None after the last
    one); the start is the header's ``created``, never after the first vouched time.
    Raises the errors of a replay."""
    from referee.ledger import gamefile

    key = (hashlib.sha256(gamefile.canonical(gf.data)).hexdigest(),
           hashlib.sha256((seed or "").encode()).hexdigest())
    found = _TIMELINES.get(key)
    if found is None:
        found = _timeline(gf, seed)
        _TIMELINES[key] = found
        while len(_TIMELINES) > _KEPT:
            _TIMELINES.popitem(last=False)
    _TIMELINES.move_to_end(key)
    return found


def _timeline(gf: Any, seed: str | None) -> Timeline:
    from referee.ledger import replay, seats

    awaited: list[tuple[str, ...]] = []

    def seen(i: int, m: Any) -> None:
        awaited.append(_awaited(gf, m))

    final = replay.replay(gf, seed, on_entry=seen)
    over = final.game.finished(final.state)
    first = replay.start_state(gf, seed)
    log = gf.log
    vouched: list[int | None] = [None] * len(log)
    nxt: int | None = None
    for i in range(len(log) - 1, -1, -1):
        if "mac" in log[i] and "at" in log[i]:
            nxt = seconds(log[i]["at"])
        vouched[i] = nxt
    created = gf.data.get("created")
    first_vouched = next((t for t in vouched if t is not None), None)
    t0 = seconds(created) if created else (first_vouched or now())
    if first_vouched is not None:
        t0 = min(t0, first_vouched)
    awaited0 = () if "nonces" in gf.data["rng"] else _awaited(gf, first)
    _keep_through_undos(log, awaited, awaited0)
    struck = replay.voided(gf)
    events = [Event(e["n"], vouched[i], e["by"], _clock_meta(e), awaited[i], "mac" in e,
                    _counts_late(log, i, struck), _claimed(e))
              for i, e in enumerate(log)]
    return Timeline(gf.doc.get("clock"), list(gf.players), t0, awaited0,
                    set(seats.header_seats(gf.data)), events, gf.sealed,
                    final.game.ranking(final.state) if over else None)


def _counts_late(log: Sequence[Mapping[str, Any]], i: int, struck: Mapping[int, int]
                 ) -> bool:
    """Whether entry ``i`` is a move that a clock may find late: not struck by a void,
    not taken back by the next entry (it never ended the turn). A bot seat's clock does
    not run, so its moves are never late; an entry's own ``bot`` or ``plan`` field
    exempts nothing (a pending entry's fields are its author's word: the referee's own
    stand-ins and planned moves are judged as it writes them, referee/play/writecore.py)."""
    entry = log[i]
    if "move" not in entry or entry["n"] in struck:
        return False
    return not (i + 1 < len(log) and log[i + 1].get("undo") == entry["n"])


def _claimed(entry: Mapping[str, Any]) -> int | None:
    """The time an entry's own ``at`` says (its author's word), None if it has none."""
    try:
        return seconds(str(entry["at"]))
    except (KeyError, ValueError):
        return None


def _keep_through_undos(log: Sequence[Mapping[str, Any]], awaited: list[tuple[str, ...]],
                        awaited0: tuple[str, ...]) -> None:
    """A move taken back by the next entry never ended its author's turn: who is awaited
    stays as before it (else a move and its undo would earn the increment again and
    again)."""
    for i in range(len(log) - 1):
        if log[i + 1].get("undo") == i + 1 and "move" in log[i]:
            awaited[i] = awaited[i - 1] if i else awaited0


def _clock_meta(entry: Mapping[str, Any]) -> Mapping[str, Any] | None:
    meta = entry.get("meta")
    if isinstance(meta, dict) and meta.get("kind") in (*CLOCK_KINDS, "bot"):
        return meta
    return None


def verify(gf: Any, tl: Timeline) -> Clocks:
    """Refuse what the vouched times do not support: a clock in a game without a secret
    to vouch for time, a stamp that vouches for nothing new, a vacation beyond the
    allowance, a timeout before the time ran out, a pending move the log proves late.
    Returns the clocks at the last vouched time. Raises ClockError."""
    from referee.ledger import replay

    if replay.has_time_control(gf.data) and not tl.sealed:
        raise ClockError("a time control needs a sealed game: only the referee's MACs "
                         "vouch for time, and an open game has no secret to make them",
                         hints=["start the game with --sealed"])
    previous_mac = True
    for event in tl.events:
        kind = event.meta.get("kind") if event.meta else None
        if kind in ("stamp", "timeout", "clock") and event.by != GAME_MASTER:
            raise ClockError(f"entry {event.n}: a {kind!r} record by {event.by}: only the "
                             "referee writes it")
        if kind == "stamp" and previous_mac:
            raise ClockError(f"entry {event.n}: a stamp that vouches for nothing new (the "
                             "entry before it already carries the referee's MAC)")
        previous_mac = event.mac
    refuse_late_pending(tl)
    return tl.clocks(None)


# --- late moves ------------------------------------------------------------------------


LATE_HINTS = {
    "bot": "a bot ({level}) plays the owed decisions once the timeout is written",
    "forfeit": "the seat forfeits once the timeout is written: a bot ({level}) plays on",
    "gm": "the game master is asked once the timeout is written; until they decide, the "
          "seat may move again",
}


def _what_follows(clocks: Clocks) -> str:
    ctl = clocks.control
    then = ctl["timeout"] if ctl else "gm"
    return LATE_HINTS[then].format(level=ctl.get("level", DEFAULT_LEVEL) if ctl
                                   else DEFAULT_LEVEL)


def refuse_late_move(gf: Any, seed: str | None, player: str, t: int) -> None:
    """Refuse a move by ``player`` that the referee would write at ``t`` (and vouch for
    at ``t``) after the whole log of ``gf``, when their time ran out before ``t`` and no
    timeout was recorded in this turn. Nothing to do in a game without a time control or
    without the secret. Raises IllegalMove naming when the time ran out."""
    from referee.ledger import replay

    if seed is None or not gf.sealed or not replay.has_time_control(gf.data):
        return
    clocks = timeline(gf, seed).clocks(t)
    out = clocks.ran_out_by(player, t)
    if out is None:
        return
    raise IllegalMove(
        f"{player}'s time ran out at {utc(out)} (bank and vacation days used up), before "
        f"this move came at {utc(t)}: the timeout wins, the move is not played",
        hints=[_what_follows(clocks) + " (the judge's next round, or `referee tick`)"])


def refuse_late_pending(tl: Timeline, first: int | None = None,
                        stop: int | None = None) -> None:
    """Refuse a pending move the log proves late (see the module's docstring). ``first``
    and ``stop``: judge the entries of indices ``first`` to ``stop`` as pending (what a
    write is about to vouch for) and ignore those from ``stop`` on; by default the entries
    after the last MAC. Raises ClockError."""
    events = tl.events[:stop]
    if first is not None:
        events = [*events[:first], *(dataclasses.replace(e, t=None) for e in events[first:])]
    clocks = start(tl.control, tl.players, tl.t0, tl.awaited0, tl.bots0)
    last = tl.t0
    for event in events:
        if event.t is None and event.move:
            _refuse_if_late(clocks, event, last)
        t = max(event.t if event.t is not None else last, last)
        apply(clocks, event, t)
        last = t


def _refuse_if_late(clocks: Clocks, event: Event, vouched: int) -> None:
    """A pending move: came after ``vouched`` (the last vouched time before it) and not
    before its own ``at``; late if its mover ran out by then in a turn that began at a
    vouched time."""
    seat = clocks.seats.get(event.by)
    if seat is None or not seat.since_vouched:
        return
    low = max(vouched, event.claimed or vouched)
    out = clocks.ran_out_by(event.by, low)
    if out is None:
        return
    if out <= vouched:
        proof = f"the referee had vouched for {utc(vouched)} before it was written"
    else:
        proof = f"its own time says {utc(low)}"
    raise ClockError(
        f"entry {event.n}: {event.by}'s move came after their time ran out at {utc(out)} "
        f"({proof}), before a timeout was recorded: the timeout wins, the move does not "
        "stand",
        hints=["in git: revert the commit that added it; " + _what_follows(clocks)])


def refuse_late_vouching(gf: Any, seed: str, first: int, stop: int) -> None:
    """Before a write's MACs vouch for the pending entries ``first`` to ``stop`` of the
    new file ``gf`` (indices): none may be a move the log proves late. Raises
    ClockError."""
    from referee.ledger import replay

    if first >= stop or not replay.has_time_control(gf.data):
        return
    refuse_late_pending(timeline(gf, seed), first, stop)
