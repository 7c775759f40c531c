"""The arithmetic of time banks and vacations (docs/clocks.md): pure functions of
times and events, in whole seconds; :mod:`referee.clocks.clock` makes the events from a game
file and judges the log with them.

A game's time control (the header's ``clock``, changed by the game master's ``clock``
record) gives every seat a **bank** at the start; while the seat is awaited (it owes a
decision) its bank runs down; each time it finishes its turn (it is no longer awaited) the
**increment** is added, up to the **cap**. With ``pause: weekends`` no time runs on
Saturdays and Sundays (UTC). Each player has **vacation** days: taken by a ``vacation``
record (the clock stops for that many days), and used one day at a time, automatically,
when the bank is empty while any are left. When bank and vacation are both gone the seat
is **out of time**, and the referee writes a ``timeout`` record.

Times are whole seconds since the epoch (UTC), durations whole seconds. :func:`fold`
walks a list of :class:`Event` and returns each seat's clock.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from referee.errors import ReplayError, UsageError
from referee.i18n import domain
from referee.ledger.fileformat import (
    CLOCK_SECONDS_MAX,
    CLOCK_SECONDS_MIN,
    VACATION_DAYS_MAX,
)

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import ClockRecord

_, N_, ngettext = domain("referee")

MINUTE, HOUR, DAY, WEEK = 60, 3600, 86400, 7 * 86400
UNITS = {"m": MINUTE, "h": HOUR, "d": DAY}
TIMEOUTS = ("bot", "gm", "forfeit")
DEFAULT_LEVEL = "greedy"  # the bot of `--timeout bot` and `forfeit` without a level
REMINDERS = (24 * HOUR, 4 * HOUR)  # the judge reminds an awaited player this long before
_FAR = 2**62  # "never"

# --- reading a time control ---------------------------------------------------------


def parse_duration(text: str, what: str = N_("duration")) -> int:
    """``3d``, ``12h``, ``90m`` or ``1d12h`` in seconds. Raises UsageError."""
    text = text.strip().lower()
    parts = re.findall(r"(\d{1,6})([mhd])", text)
    if not text or "".join(n + u for n, u in parts) != text:
        raise UsageError(_("{what}: {text} is not a duration like 3d, 12h, 90m or 1d12h")
                         .format(what=_(what), text=repr(text)))
    return sum(int(n) * UNITS[u] for n, u in parts)


def parse_pace(text: str) -> tuple[int, int, int]:
    """``BANK[+INCREMENT][/CAP]`` (``3d+12h/5d``) as (bank, increment, cap) in seconds;
    the cap defaults to the bank. Raises UsageError."""
    m = re.fullmatch(r"\s*([^+/\s]+)\s*(?:\+\s*([^/\s]+)\s*)?(?:/\s*(\S+)\s*)?", text or "")
    if m is None:
        raise UsageError(_("--clock: {text} is not BANK[+INCREMENT][/CAP], e.g. 3d+12h/5d")
                         .format(text=repr(text)))
    bank = parse_duration(m.group(1), N_("--clock bank"))
    increment = parse_duration(m.group(2), N_("--clock increment")) if m.group(2) else 0
    cap = parse_duration(m.group(3), N_("--clock cap")) if m.group(3) else bank
    for name, value, low in ((N_("the bank"), bank, CLOCK_SECONDS_MIN),
                             (N_("the increment"), increment, 0),
                             (N_("the cap"), cap, CLOCK_SECONDS_MIN)):
        if not low <= value <= CLOCK_SECONDS_MAX:
            raise UsageError(_("--clock: {part} must be {low} to 365d, not {value}").format(
                part=_(name), low=format_duration(low), value=format_duration(value)))
    if cap < bank:
        raise UsageError(_("--clock: the cap ({cap}) is less than the bank ({bank})").format(
            cap=format_duration(cap), bank=format_duration(bank)))
    return bank, increment, cap


def parse_timeout(text: str) -> tuple[str, str | None]:
    """``bot:LEVEL``, ``bot``, ``gm``, ``forfeit`` or ``forfeit:LEVEL`` as (kind, level).
    Raises UsageError."""
    from referee.ledger.seats import LEVELS

    kind, _sep, level = text.strip().lower().partition(":")
    if kind not in TIMEOUTS or (kind == "gm" and level):
        raise UsageError(_("--timeout: {text} is not bot:LEVEL, gm or forfeit").format(
            text=repr(text)), hints=[_("levels: {levels}").format(levels=", ".join(LEVELS))])
    if kind == "gm":
        return kind, None
    if level and level not in LEVELS:
        raise UsageError(_("--timeout: unknown bot level {level}").format(level=repr(level)),
                         hints=[_("levels: {levels}").format(levels=", ".join(LEVELS))])
    return kind, level or DEFAULT_LEVEL


def control(pace: str, vacation: int = 0, pause: str | None = None,
            timeout: str = "gm") -> ClockRecord:
    """The header's ``clock`` object from the command line's options. Raises UsageError."""
    bank, increment, cap = parse_pace(pace)
    if not 0 <= vacation <= VACATION_DAYS_MAX:
        raise UsageError(_("--vacation: 0-{most} days, not {days}").format(
            most=VACATION_DAYS_MAX, days=vacation))
    if pause not in (None, "weekends"):
        raise UsageError(_("--pause: only `weekends`, not {pause}").format(pause=repr(pause)))
    kind, level = parse_timeout(timeout)
    out: ClockRecord = {"bank": bank, "increment": increment, "cap": cap,
                        "vacation": vacation, "timeout": kind}
    if pause:
        out["pause"] = pause
    if level:
        out["level"] = level
    return out


def control_of(ctl: Mapping[str, Any] | None) -> ClockRecord | None:
    """A time control as a file holds it (its schema checked it on reading), copied:
    None for none."""
    return cast("ClockRecord", dict(ctl)) if ctl else None


def format_duration(seconds: int) -> str:
    """``2d 3h``, ``4h 20m``, ``45m``, ``0m`` (rounded down to the minute)."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes = rest // MINUTE
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "",
             f"{minutes}m" if minutes and not days else ""]
    return " ".join(p for p in parts if p) or "0m"


def describe(ctl: Mapping[str, Any]) -> str:
    """A time control as people read it: ``3d +12h a turn, at most 5d; 7 vacation days;
    paused at weekends; out of time: a bot (greedy) plays``."""
    parts = [format_duration(ctl["bank"])]
    if ctl["increment"]:
        parts[0] += _(" +{increment} a turn").format(increment=format_duration(ctl["increment"]))
    parts[0] += _(", at most {cap}").format(cap=format_duration(ctl["cap"]))
    parts.append(ngettext("{n} vacation day", "{n} vacation days", ctl["vacation"]).format(
        n=ctl["vacation"]))
    if ctl.get("pause") == "weekends":
        parts.append(_("paused at weekends"))
    level = ctl.get("level", DEFAULT_LEVEL)
    then = {"bot": _("a bot ({level}) plays the owed decisions"),
            "gm": _("the game master is asked"),
            "forfeit": _("the seat forfeits (a bot, {level}, plays on; it ranks last)"),
            }[ctl["timeout"]].format(level=level)
    return "; ".join(parts) + _("; out of time: {then}").format(then=then)


# --- times --------------------------------------------------------------------------


def seconds(text: str) -> int:
    """An RFC 3339 UTC time (``2026-11-30T10:00:00Z``) in seconds since the epoch."""
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def utc(t: int) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def utc_json(t: int) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now() -> int:
    """Now (REFEREE_NOW overrides it, as for every entry's ``at``)."""
    from referee.ledger.gamefile import now as file_now

    return seconds(file_now())


# --- the arithmetic: charged time, with weekends and vacations ----------------------

Interval = tuple[int, int]


def _weekday(t: int) -> int:
    return (t // DAY + 3) % 7  # Monday 0 (1970-01-01 was a Thursday)


def _free_end(t: int, pause: bool, vacations: Sequence[Interval]) -> int | None:
    """If no time is charged at ``t`` (a weekend, a vacation): when charging starts
    again; else None."""
    end, moved = t, True
    while moved:
        moved = False
        if pause and _weekday(end) >= 5:
            end = (end // DAY + 7 - _weekday(end)) * DAY
            moved = True
        for start, stop in vacations:
            if start <= end < stop:
                end, moved = stop, True
    return None if end == t else end


def _next_free(t: int, pause: bool, vacations: Sequence[Interval]) -> int:
    """The start of the next stretch after ``t`` in which no time is charged."""
    found = _FAR
    if pause:
        found = (t // DAY + (5 - _weekday(t)) % 7) * DAY
    for start, _end in vacations:
        if t < start < found:
            found = start
    return found


def charged(a: int, b: int, pause: bool = False, vacations: Sequence[Interval] = ()) -> int:
    """The seconds of [a, b) that count on a clock: not at a weekend (with ``pause``)
    nor in a vacation."""
    total, t = 0, a
    while t < b:
        free = _free_end(t, pause, vacations)
        if free is not None:
            t = free
            continue
        stop = min(b, _next_free(t, pause, vacations))
        total += stop - t
        t = stop
    return total


def run_out(a: int, budget: int, pause: bool = False,
            vacations: Sequence[Interval] = ()) -> int:
    """The moment a clock started at ``a`` with ``budget`` seconds is empty: the first
    charged instant after ``budget`` charged seconds."""
    t, left = a, budget
    while True:
        free = _free_end(t, pause, vacations)
        if free is not None:
            t = free
            continue
        stop = _next_free(t, pause, vacations)
        if t + left < stop or stop >= _FAR:
            return t + left
        left -= stop - t
        t = stop


# --- one seat's clock, and the fold over the log's events ---------------------------


@dataclass
class SeatClock:
    """One seat's clock at a point of the log."""

    bank: int
    vacation_left: int
    vacations: list[Interval] = field(default_factory=list)
    since: int | None = None  # awaited since (the start of this turn)
    since_vouched: bool = False  # this turn began at an entry the referee vouched for
    out: int | None = None  # the moment bank and vacation ran out, in this turn
    timed_out: bool = False  # a timeout was written in this turn
    forfeited: bool = False
    timeouts: int = 0
    late: int = 0  # turns finished after running out, before a timeout was written
    used: int = 0  # vacation days used (taken or automatic)
    taken: int = 0  # vacation days asked for by record

    def on_vacation(self, t: int) -> Interval | None:
        return next(((a, b) for a, b in self.vacations if a <= t < b), None)


@dataclass
class Event:
    """One log entry as the clocks see it: its number, its vouched time (None: pending),
    its author, its clock or bot record, who is awaited after it, whether it carries a
    MAC of its own, whether it is a move that a clock may find late (not struck, not
    taken back by the next entry), and the time its own ``at`` claims (the author's
    word: it can prove the entry late, never early)."""

    n: int
    t: int | None
    by: str
    meta: Mapping[str, Any] | None
    awaited: tuple[str, ...]
    mac: bool = False
    move: bool = False
    claimed: int | None = None


@dataclass
class Clocks:
    """Every seat's clock at a moment: the time control in force (None: none), the
    seats, who is awaited, and the moment the clocks were last advanced to."""

    control: ClockRecord | None
    seats: dict[str, SeatClock]
    awaited: tuple[str, ...]
    at: int
    bots: set[str] = field(default_factory=set)

    def running(self) -> list[str]:
        """The awaited seats whose clocks run (people, with a time control)."""
        if self.control is None:
            return []
        return [p for p in self.awaited if p in self.seats and p not in self.bots]

    def due(self, player: str) -> int | None:
        """When ``player`` (awaited) runs out of time, vacation days included (None: not
        awaited or no clock); the moment already passed if they are out of time."""
        if player not in self.running():
            return None
        seat = self.seats[player]
        if seat.out is not None:
            return seat.out
        probe = copy.deepcopy(seat)
        _charge(probe, self.at, _FAR, self.pause)
        return probe.out

    @property
    def pause(self) -> bool:
        return self.control is not None and self.control.get("pause") == "weekends"

    def ran_out_by(self, player: str, t: int) -> int | None:
        """When ``player``, awaited now (at :attr:`at`), ran out of time if they are still
        awaited at ``t`` (None: not by then, not awaited, or timed out in this turn)."""
        if player not in self.running() or self.seats[player].timed_out:
            return None
        due = self.due(player)
        return due if due is not None and due <= max(t, self.at) else None

    def advance(self, t: int) -> None:
        """Run the awaited seats' clocks up to ``t``."""
        if t <= self.at:
            return
        for pid in self.running():
            _charge(self.seats[pid], self.at, t, self.pause)
        self.at = t


def _charge(seat: SeatClock, a: int, b: int, pause: bool) -> None:
    """Charge [a, b) to ``seat``; when its bank is empty, a vacation day is used while
    any are left, then the seat is out of time (``out``)."""
    while a < b and seat.out is None:
        end = run_out(a, seat.bank, pause, seat.vacations)
        if end > b:
            seat.bank -= charged(a, b, pause, seat.vacations)
            return
        seat.bank = 0
        if seat.vacation_left > 0:
            seat.vacation_left -= 1
            seat.used += 1
            seat.vacations.append((end, end + DAY))
            a = end
        else:
            seat.out = end


def start(ctl: Mapping[str, Any] | None, players: Sequence[str], t: int,
          awaited: Sequence[str], bots: set[str]) -> Clocks:
    """The clocks at the start of a game (or of a log prefix)."""
    seats = {p: SeatClock(ctl["bank"] if ctl else 0, ctl["vacation"] if ctl else 0)
             for p in players}
    clocks = Clocks(control_of(ctl), seats, (), t, set(bots))
    _await(clocks, tuple(awaited), t)
    return clocks


def _await(clocks: Clocks, awaited: tuple[str, ...], t: int, vouched: bool = True) -> None:
    """Who is awaited changes at ``t`` (``vouched``: a time the referee vouched for): a
    seat whose turn ended gets the increment (up to the cap); a seat whose turn begins
    starts its clock."""
    ctl = clocks.control
    for pid, seat in clocks.seats.items():
        was, now_awaited = pid in clocks.awaited, pid in awaited
        if was and not now_awaited:
            if seat.out is not None and not seat.timed_out:
                seat.late += 1
            if ctl is not None and pid not in clocks.bots:
                seat.bank = min(ctl["cap"], max(seat.bank, 0) + ctl["increment"])
            seat.since = seat.out = None
            seat.timed_out = False
        elif now_awaited and not was:
            seat.since, seat.since_vouched = t, vouched
    clocks.awaited = awaited


class ClockError(ReplayError):
    """A clock record the vouched times (or the allowance) do not support."""


def apply(clocks: Clocks, event: Event, t: int) -> None:
    """One event at its time ``t``: the clocks run up to ``t``, its record (if any)
    applies, then who is awaited changes. Raises ClockError for a record that does not
    stand."""
    clocks.advance(t)
    meta = event.meta
    if meta is not None:
        _record(clocks, event, meta, t)
    _await(clocks, event.awaited, t, event.t is not None)


def _record(clocks: Clocks, event: Event, meta: Mapping[str, Any], t: int) -> None:
    kind = meta.get("kind")
    where = f"entry {event.n}"
    if kind == "bot":
        if meta.get("level") is None:
            clocks.bots.discard(meta["player"])
        else:
            clocks.bots.add(meta["player"])
    elif kind == "clock":
        _new_control(clocks, meta.get("control"))
    elif kind == "vacation":
        _vacation(clocks, where, meta["player"], int(meta["days"]), t)
    elif kind == "timeout":
        _timeout(clocks, where, meta["player"], t)


def _new_control(clocks: Clocks, ctl: Mapping[str, Any] | None) -> None:
    """The game master's new time control: each bank carries on (within the new cap),
    the vacation days left are the new allowance less those used."""
    before = clocks.control
    clocks.control = control_of(ctl)
    if ctl is None:
        return
    for seat in clocks.seats.values():
        seat.bank = ctl["bank"] if before is None else min(seat.bank, ctl["cap"])
        seat.vacation_left = max(0, ctl["vacation"] - seat.used)


def _vacation(clocks: Clocks, where: str, player: str, days: int, t: int) -> None:
    """A ``vacation`` record: the days a player takes by record are within the
    allowance (what the player controls: refused otherwise). Days used automatically
    before the referee saw the record are gone, so it grants what is left, and nothing
    once the player is out of time (a record is never refused for the time it took the
    referee to see it: that would strand the game)."""
    seat = clocks.seats[player]
    if clocks.control is None:
        raise ClockError(f"{where}: {player}'s vacation: this game has no clock")
    allowance = int(clocks.control["vacation"])
    if seat.taken + days > allowance:
        left = max(0, allowance - seat.taken)
        raise ClockError(f"{where}: {player} asks for {days} vacation day(s) and has "
                         f"{min(left, seat.vacation_left)} left: a vacation is within the "
                         "allowance")
    seat.taken += days
    granted = 0 if seat.out is not None else min(days, seat.vacation_left)
    if granted:
        begin = max([t, *(b for _a, b in seat.vacations)])
        seat.vacations.append((begin, begin + granted * DAY))
        seat.vacation_left -= granted
        seat.used += granted


def _timeout(clocks: Clocks, where: str, player: str, t: int) -> None:
    seat = clocks.seats[player]
    if player not in clocks.running():
        raise ClockError(f"{where}: a timeout of {player}, who was not awaited (or has no "
                         "running clock) at that point")
    if seat.timed_out:
        raise ClockError(f"{where}: {player} was already timed out in this turn")
    due = clocks.due(player)  # (an empty bank at the start of a turn: due at once)
    if due is None or due > t:
        raise ClockError(f"{where}: a timeout of {player} at {utc(t)}, but by the vouched "
                         f"times their time runs out only at "
                         f"{utc(due) if due is not None else 'never'}")
    seat.timed_out = True
    seat.timeouts += 1
    if clocks.control is not None and clocks.control["timeout"] == "forfeit":
        seat.forfeited = True


def fold(ctl: Mapping[str, Any] | None, players: Sequence[str], t0: int,
         awaited0: Sequence[str], bots0: set[str], events: Sequence[Event],
         pending_at: int | None = None) -> Clocks:
    """The clocks after ``events``: vouched events at their time, pending ones (``t``
    None) at ``pending_at`` (None: the last vouched time). Raises ClockError."""
    clocks = start(ctl, players, t0, awaited0, bots0)
    last = t0
    for event in events:
        t = event.t if event.t is not None else max(last, pending_at or last)
        t = max(t, last)  # vouched times never run backwards
        apply(clocks, event, t)
        last = t
    return clocks
