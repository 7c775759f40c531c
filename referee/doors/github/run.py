"""One pass of a judge through the GitHub door alone: the one event of a workflow run
handled, its answer written for the workflow to post.

The pass is the door's only: no sweep of deadlines and clocks over the folder (in a
repository they are the `clock` job's, `referee tick`), so that the run changes the
game its event names and no other. The judge's state (referee/judge/store.py) is the
folder's as for any judge; a workflow's checkout starts without one, and a text is
still handled once, by its log entry's ``github`` field.
"""

from __future__ import annotations

from pathlib import Path

from referee.doors.github.door import GitHubDoor, Result
from referee.doors.github.event import Event
from referee.errors import GameFileError, UsageError
from referee.judge.basics import Config
from referee.ledger import fileio


def check_answer_out(path: Path) -> None:
    """``--answer-out``: a file in a folder that exists. Raises UsageError."""
    if path.is_dir():
        raise UsageError(f"--answer-out: {path} is a folder; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"--answer-out: no such folder: {path.parent}")


def play_event(config: Config, event: Event, answer_out: Path) -> Result:
    """Handle ``event`` through the GitHub door, under the judge lock of the games
    folder; write its answer to ``answer_out`` (none: an event not for the referee, and
    the file is left as it was). Raises UsageError (another judge runs there) or
    GameFileError (the answer cannot be written)."""
    from referee.judge import store
    from referee.judge.core import Judge

    door = GitHubDoor(event)
    with store.exclusive(config.games_dir):
        judge = Judge(config, [door])
        try:
            door.take()
            judge.flush()
        finally:
            judge.close()
    result = door.result
    assert result is not None
    if result.answer is not None:
        try:
            fileio.write_atomic(answer_out, result.answer.encode(), what="answer")
        except GameFileError as exc:
            raise UsageError(exc.message) from None
    return result
