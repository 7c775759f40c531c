"""The judge's clock timelines, one replay per game file version, and the clock block of
its mails (docs/clocks.md); the reminders and timeouts are :mod:`referee.judge.clocks`."""

from __future__ import annotations

from referee.clocks import clock, clockview
from referee.errors import RefereeError
from referee.ledger import gamefile, replay

# game id -> (log length, hash of the last entry, timeline): one replay per file version
_TIMELINES: dict[str, tuple[int, str, clock.Timeline]] = {}
_KEPT = 256  # games whose timelines are kept (a judge serves fewer)


def timeline(gf: gamefile.GameFile, seed: str) -> clock.Timeline:
    """The game's clock timeline, kept while the file is unchanged."""
    mark = (len(gf.log), gamefile.next_prev(gf.data))
    cached = _TIMELINES.get(gf.game_id)
    if cached is not None and cached[:2] == mark:
        return cached[2]
    found = clock.timeline(gf, seed)
    if len(_TIMELINES) >= _KEPT:
        _TIMELINES.pop(next(iter(_TIMELINES)))
    _TIMELINES[gf.game_id] = (*mark, found)
    return found


def mail_lines(gf: gamefile.GameFile, seed: str | None) -> list[str]:
    """The clock block of a mail (empty for a game without a clock)."""
    if seed is None or not replay.has_time_control(gf.data):
        return []
    try:
        rep = clockview.report(timeline(gf, seed), clock.now())
    except RefereeError:
        return []
    return [*clockview.lines(rep), ""]
