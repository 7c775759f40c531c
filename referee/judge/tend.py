"""The judge's sweep: every game whose file changed since its last look, or whose next
reminder, deadline or timeout has come, is looked at: its players told what changed
(:meth:`~referee.judge.core.Judge.notify`), its deadline tended
(:mod:`referee.judge.deadlines`) and its clocks (:mod:`referee.judge.clocks`).

Above the core: the core keeps the games and says what changed; it knows nothing of
deadlines or clocks. Which games are due is :mod:`referee.judge.looks`.
"""

from __future__ import annotations

from referee.clocks import clock
from referee.judge import clocks, deadlines
from referee.judge.core import Judge
from referee.judge.failures import describe
from referee.judge.looks import Look


def sweep(judge: Judge) -> None:
    """Notify and check the deadlines and clocks of every game whose file changed
    since its last look, or whose next reminder, deadline or timeout has come: the
    others are passed over, their look would do nothing, and not even asked
    (:meth:`~referee.judge.looks.Looks.candidates`). A game whose handling fails (a
    bug) is logged and skipped this round; the others go on. A failure of the disk
    raises RetryLater; a door that is down waits (its own pass says so)."""
    now = (judge.config.clock(), clock.now())
    paths = judge.game_paths()
    for path in judge.looks.candidates(paths, judge.paths_order(), judge.take_marked(), now):
        mark = judge.marks.get(path)  # (as the listing saw it: a write since is seen next)
        if not judge.looks.due(path, mark, now):
            continue
        try:
            judge.notify(path)
            deadline = deadlines.tend(judge, path)  # a reminder, the deadline's mail or bot
            timebanks = clocks.tend(judge, path)  # reminders at 24 h and 4 h, timeouts
        except Exception as exc:
            judge.looks.missed(path)
            judge.failed(exc)
            judge.config.log(f"skipping {path.name} this round: {describe(exc)}")
            continue
        if mark is not None:
            judge.looks.done(path, Look(mark, now, deadline, timebanks))
        else:
            judge.looks.missed(path)
    judge.looks.keep_only(paths.values())
    try:
        judge.settle()
    except Exception as exc:
        judge.failed(exc)  # the disk: RetryLater (what was sent is off its queue already)
