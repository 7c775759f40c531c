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
"""

from __future__ import annotations

import datetime as dt
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

    def due(self, path: Path, mark: Mark | None, now: Now) -> bool:
        """Whether the game at ``path`` (its file as ``mark``) needs a look at ``now``."""
        last = self._last.get(path)
        if last is None or mark is None or last.mark != mark:
            return True
        if now[0] < last.at[0] or now[1] < last.at[1]:
            return True  # a clock went back: look anew
        return (last.deadline is not None and now[0] >= last.deadline) or \
            (last.clock is not None and now[1] >= last.clock)

    def done(self, path: Path, look: Look) -> None:
        self._last[path] = look

    def keep_only(self, paths: set[Path]) -> None:
        """Forget the files no longer served (once they are many)."""
        if len(self._last) > 2 * len(paths) + 64:
            self._last = {p: v for p, v in self._last.items() if p in paths}

    def clear(self) -> None:
        self._last.clear()
