"""What everyone sees of the clocks (referee/clocks/clock.py, docs/clocks.md): the report of
`referee clock`, `status`, `pending`, the judge's mails and the published clock views, as
JSON and as text lines of at most 78 characters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NotRequired, TypedDict

from referee.clocks.clock import Timeline, describe, format_duration, utc_json
from referee.i18n import domain

if TYPE_CHECKING:
    from referee.ledger.records import ClockRecord

_, N_, ngettext = domain("referee")


class SeatReport(TypedDict):
    """One seat's clock: its bank (seconds, and in words), vacation days left, whether it
    is awaited or a bot's, its timeouts, whether it forfeited, its late moves; while
    away, the end of its vacation; while awaited, when it times out and what is left."""

    bank: int
    bank_text: str
    vacation_left: int
    awaited: bool
    bot: bool
    timeouts: int
    forfeited: bool
    late: int
    on_vacation_until: NotRequired[str]
    times_out: NotRequired[str]
    left: NotRequired[int]
    out_of_time: NotRequired[bool]


class ClockReport(TypedDict):
    """The clocks at a moment (`referee clock --json`): the time control in force and in
    words, each seat's clock, and once the game is over its ranking."""

    now: str
    control: ClockRecord | None
    pace: str | None
    seats: dict[str, SeatReport]
    ranking: NotRequired[list[list[str]]]


def report(tl: Timeline, at: int) -> ClockReport:
    """The clocks at ``at`` as JSON: the time control, and per seat its bank, vacation
    left, whether it is awaited and when it would time out."""
    clocks = tl.clocks(at)
    running = clocks.running()
    seats: dict[str, SeatReport] = {}
    for pid, seat in clocks.seats.items():
        row: SeatReport = {
            "bank": max(seat.bank, 0), "bank_text": format_duration(seat.bank),
            "vacation_left": seat.vacation_left, "awaited": pid in running,
            "bot": pid in clocks.bots, "timeouts": seat.timeouts,
            "forfeited": seat.forfeited, "late": seat.late,
        }
        away = seat.on_vacation(at)
        if away is not None:
            row["on_vacation_until"] = utc_json(away[1])
        due = clocks.due(pid)
        if due is not None:
            row["times_out"] = utc_json(due)
            row["left"] = max(0, due - at)
            row["out_of_time"] = due <= at
        seats[pid] = row
    out: ClockReport = {"now": utc_json(at), "control": clocks.control,
                        "pace": describe(clocks.control) if clocks.control else None,
                        "seats": seats}
    if tl.ranking is not None:
        out["ranking"] = ranked(tl.ranking, [p for p, s in clocks.seats.items()
                                             if s.forfeited])
    return out


def ranked(ranking: Sequence[Sequence[str]], forfeits: Sequence[str]
           ) -> list[list[str]]:
    """The game's ranking with the seats that forfeited on time moved to a last place
    of their own (together, if several)."""
    out = [[p for p in place if p not in forfeits] for place in ranking]
    out = [place for place in out if place]
    return out + ([sorted(forfeits)] if forfeits else [])


def seat_prefix(pid: str) -> str:
    """How a seat's line of :func:`lines` begins: its id, indented and padded to a column
    (the judge's HTML finds the seat lines by it)."""
    return f"  {pid:<12} "


def lines(rep: ClockReport, width: int = 78) -> list[str]:
    """The report as text lines of at most ``width`` characters (``clock``, the judge's
    mails): the time control, then one seat a line (continued, indented, if long)."""
    import textwrap

    if rep["control"] is None:
        return [_("clock: none")]
    out = textwrap.wrap(_("clock: {pace}").format(pace=rep["pace"]), width,
                        subsequent_indent="  ")
    for pid, row in rep["seats"].items():
        out += textwrap.wrap(seat_prefix(pid) + ", ".join(_seat_parts(row)), width,
                             subsequent_indent=" " * 16)
    if "ranking" in rep:
        out += textwrap.wrap(_ranking(rep["ranking"]), width, subsequent_indent="  ")
    return out


def _seat_parts(row: SeatReport) -> list[str]:
    """What ``clock`` says of one seat: its bank, vacation, and whether it is awaited."""
    parts = [_("bank {bank}").format(bank=row["bank_text"]),
             _("vacation {days}d").format(days=row["vacation_left"])]
    if row["bot"]:
        parts.append(_("bot seat"))
    if "on_vacation_until" in row:
        parts.append(_("on vacation until {time}").format(
            time=_short(row["on_vacation_until"])))
    if row.get("out_of_time"):
        parts.append(_("OUT OF TIME since {time}").format(time=_short(row["times_out"])))
    elif "times_out" in row:
        parts.append(_("awaited: times out {time} (in {left})").format(
            time=_short(row["times_out"]), left=format_duration(row["left"])))
    if row["forfeited"]:
        parts.append(_("forfeited (ranks last)"))
    return parts


def _ranking(ranking: Sequence[Sequence[str]]) -> str:
    places = ", ".join(f"{i}. " + _(" and ").join(place)
                       for i, place in enumerate(ranking, start=1))
    return _("ranking (a forfeit ranks last): {places}").format(places=places)


def line(rep: ClockReport) -> str | None:
    """One line for ``status``: the awaited seats' time left (None: no clock)."""
    if rep["control"] is None:
        return None
    waits = [_("{player} {left} left (times out {time})").format(
        player=pid, left=format_duration(row["left"]), time=_short(row["times_out"]))
        for pid, row in rep["seats"].items() if "times_out" in row]
    banks = ", ".join(f"{pid} {row['bank_text']}" for pid, row in rep["seats"].items())
    text = _("clock: {waits}banks {banks}").format(
        waits="; ".join(waits) + "; " if waits else "", banks=banks)
    if "ranking" in rep and any(row["forfeited"] for row in rep["seats"].values()):
        text += "; " + _ranking(rep["ranking"])
    return text


def _short(stamp: str) -> str:
    return stamp.replace("T", " ")[:16] + " UTC"


def forfeited(tl: Timeline) -> list[str]:
    """The seats that forfeited on time (they rank last)."""
    return [p for p, s in tl.clocks(None).seats.items() if s.forfeited]
