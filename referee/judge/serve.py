"""The judge's one serve loop, over whatever doors it was asked for.

One pass (:func:`run_once`): every door delivers what waits in its queue; the sweep tells
every game's players what changed and tends deadlines and clocks
(:func:`referee.judge.tend.sweep`); each door takes what came in (its texts handed to
the core one by one, :meth:`referee.judge.door.Door.take`); the texts kept over a rate
whose time has come are handled; the queues are delivered again. A door that is down
(:class:`~referee.judge.door.DoorDown`: its server cannot be reached) is one log line:
the other doors' pass goes on, and it is tried again at the next pass.

The loop (:func:`serve`): a pass that read something is followed by another at once
(more may have come meanwhile); only a pass that read nothing, or failed, waits, on the
last door (the chat door's sync, IMAP IDLE, a Maildir's listing) for at most the poll's
seconds. A failure of the disk (RetryLater) waits too, and the same pass is tried again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.judge import handling
from referee.judge.door import DoorDown, Taken
from referee.judge.failures import RetryLater
from referee.judge.tend import sweep

if TYPE_CHECKING:
    from referee.judge.core import Judge


def run_once(judge: Judge, wait: float = 0.0, *, strict: bool = False) -> dict[str, Taken]:
    """One pass over every door (the last door waits up to ``wait`` seconds for its
    first event); what each door took, by its name. ``strict``: a door that is down
    raises DoorDown (else it is logged once and passed over). Raises RetryLater (the
    disk)."""
    found: dict[str, Taken] = {}
    down: dict[str, str] = {}
    _deliver(judge, strict, down)
    sweep(judge)
    doors = judge.doors.doors
    for k, door in enumerate(doors):
        try:
            found[door.name] = door.take(wait if k == len(doors) - 1 else 0.0)
        except DoorDown as exc:
            if strict:
                raise
            if door.name not in down:
                judge.config.log(door.down_line(exc.message))
            down[door.name] = exc.message
            found[door.name] = Taken(down=exc.message)
    later = handling.run_later(judge)
    if later or any(t.read for t in found.values()):
        sweep(judge)  # (nothing read: the sweep before this one saw every change)
    _deliver(judge, strict, down)
    return found


def _deliver(judge: Judge, strict: bool, down: dict[str, str]) -> None:
    """Every door delivers its queue; one that is down is logged once a pass (or,
    ``strict``, raises)."""
    for door in judge.doors.doors:
        try:
            door.flush()
        except DoorDown as exc:
            if strict:
                raise
            if door.name not in down:
                judge.config.log(door.down_line(exc.message))
            down[door.name] = exc.message


def serve(judge: Judge, log: Callable[[str], None], wait: float | None) -> None:
    """``wait`` None: one pass (a door that is down, or the disk, raises). Otherwise run
    until stopped, waiting at most ``wait`` seconds between passes that read nothing; a
    door that is down or the disk failing is logged and tried again after the wait."""
    doors = judge.doors.doors
    while True:
        try:
            found = run_once(judge, 0.0 if wait is None else wait, strict=wait is None)
        except RetryLater as exc:
            if wait is None:
                raise
            log(f"cannot go on, will retry: {exc.message}")
            doors[-1].wait(wait)
            continue
        for door in doors:
            taken = found.get(door.name)
            if taken is not None and taken.read:
                log(door.summary(taken))
        if wait is None:
            return
        if any(t.read for t in found.values()):
            continue  # more may have come while these were handled: look at once
        if any(t.down for t in found.values()) or not doors[-1].waits_in_take:
            doors[-1].wait(wait)
