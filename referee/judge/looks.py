"""Which games the judge's sweep looks at (:func:`referee.judge.tend.sweep`).

After each mail the judge looks over the games it serves: to mail what changed (a
move by mail, or by another writer such as ``referee move``), and to tell the deadline
reminders, the passed deadlines and the time banks' reminders and timeouts. A game is
looked at again only when its file changed since its last look (its inode, mtime and
size), or when the next moment one of those falls due has come (by the judge's clock
for deadlines, the referee's clock for time banks), or when either clock went back.
Otherwise the look would do nothing: the notification, the deadline and the clocks of a
game depend only on its file, the judge's state of it (which only a look, or the
handling of a mail that writes the file, changes) and the time.

Nor does the sweep ask every game whether it is due: :meth:`Looks.candidates` names the
games that may be, from what changed (the files whose mark changed since the last
sweep, which the core's listing says), the games whose look failed or never was, and
the times that have come (a heap of the next deadline and time-bank moments, each
checked against the game's last look). All of them are named after a clock went back
and after :meth:`Looks.clear`.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

#: the moment of a look: the judge's clock (deadlines) and the referee's (time banks)
Now = tuple[dt.datetime, int]
Mark = tuple[int, int, int]


@dataclass(frozen=True)
class Look:
    """The last look at one game file: the file as it was then, when that was, and the
    next moments a deadline (the judge's clock) or a time bank (the referee's clock)
    falls due (None: none until the file changes)."""

    mark: Mark
    at: Now
    deadline: dt.datetime | None
    clock: int | None


class Looks:
    """The last look at each game file of the folder."""

    def __init__(self) -> None:
        self._last: dict[Path, Look] = {}
        self._all = True  # the next sweep looks at every game
        self._retry: set[Path] = set()  # due, but not looked at (a failure)
        self._newest: Now | None = None  # the latest moment of a sweep
        self._deadlines: list[tuple[dt.datetime, str, Path]] = []  # heaps of due moments
        self._clocks: list[tuple[int, str, Path]] = []

    def due(self, path: Path, mark: Mark | None, now: Now) -> bool:
        """Whether the game at ``path`` (its file as ``mark``) needs a look at ``now``."""
        last = self._last.get(path)
        if last is None or mark is None or last.mark != mark:
            return True
        if now[0] < last.at[0] or now[1] < last.at[1]:
            return True  # a clock went back: look anew
        return (last.deadline is not None and now[0] >= last.deadline) or \
            (last.clock is not None and now[1] >= last.clock)

    def candidates(self, paths: Mapping[str, Path], order: Mapping[Path, int],
                   changed: Collection[Path], now: Now) -> list[Path]:
        """The games of ``paths`` that may be due at ``now`` (in ``paths``' order, which
        ``order`` numbers): those of ``changed`` (their file changed since the last
        sweep), those to try again, those whose next moment has come; every game after
        a clock went back or :meth:`clear`. Each is still to be asked :meth:`due`."""
        back = self._newest is not None and (now[0] < self._newest[0]
                                             or now[1] < self._newest[1])
        self._newest = now if self._newest is None or back else \
            (max(now[0], self._newest[0]), max(now[1], self._newest[1]))
        if self._all or back:
            self._all = False
            return list(paths.values())
        found = {p for p in changed if p in order} | {p for p in self._retry if p in order}
        while self._deadlines and self._deadlines[0][0] <= now[0]:
            found.add(heapq.heappop(self._deadlines)[2])
        while self._clocks and self._clocks[0][0] <= now[1]:
            found.add(heapq.heappop(self._clocks)[2])
        return sorted((p for p in found if p in order), key=order.__getitem__)

    def missed(self, path: Path) -> None:
        """``path`` was due but not looked at (its handling failed): again next sweep."""
        self._retry.add(path)

    def done(self, path: Path, look: Look) -> None:
        self._last[path] = look
        self._retry.discard(path)
        if look.deadline is not None:
            heapq.heappush(self._deadlines, (look.deadline, str(path), path))
        if look.clock is not None:
            heapq.heappush(self._clocks, (look.clock, str(path), path))

    def keep_only(self, paths: Collection[Path]) -> None:
        """Forget the files no longer served, and the moments of looks since replaced
        (once they are many)."""
        if len(self._last) > 2 * len(paths) + 64:
            kept = set(paths)
            self._last = {p: v for p, v in self._last.items() if p in kept}
            self._retry &= kept
        if len(self._deadlines) + len(self._clocks) > 4 * len(self._last) + 64:
            looks = self._last.items()
            self._deadlines = [(v.deadline, str(p), p) for p, v in looks if v.deadline]
            self._clocks = [(v.clock, str(p), p) for p, v in looks if v.clock is not None]
            heapq.heapify(self._deadlines)
            heapq.heapify(self._clocks)

    def clear(self) -> None:
        self._last.clear()
        self._retry.clear()
        self._deadlines.clear()
        self._clocks.clear()
        self._all = True
