"""One pass of the judge in chat: deliver the posts, sweep, read the new events once.

:func:`run_once` is what ``referee judge --matrix`` does each look: the queued posts
delivered, the games that changed told (:func:`referee.judge.tend.sweep`), one sync of
the judge's account read event by event (:class:`referee.judge.chatincoming.
ChatIncoming`), and only then the sync position saved, so a judge stopped at any point
reads again what it had not finished (each event is handled once: its id is kept). An
invitation to a room the judge did not make (a stranger's direct message) is declined.
A hostile or malformed event is logged and passed over; it never stops the judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from referee.judge.chatfront import MatrixDoor
from referee.judge.chatincoming import ChatIncoming
from referee.judge.core import Judge
from referee.judge.failures import RetryLater, describe
from referee.judge.outcome import Outcome
from referee.judge.tend import sweep
from referee.matrix import events
from referee.matrix.link import MatrixError


@dataclass
class ChatStats:
    read: int = 0
    played: int = 0

    def summary(self) -> str:
        return f"read {self.read} chat {'message' if self.read == 1 else 'messages'}, " \
               f"{self.played} played"


def run_once(judge: Judge, door: MatrixDoor, wait_ms: int = 0) -> ChatStats:
    """One pass (waiting up to ``wait_ms`` for an event). Raises MatrixError (the
    homeserver) or RetryLater (the disk)."""
    stats = ChatStats()
    judge.flush()
    sweep(judge)
    since = door.state["since"]
    batch = door.link.sync(since, wait_ms)
    for room, inviter in batch.invites.items():
        if events.valid_room(room) and door.game_of(room) is None:
            judge.config.log(f"declined an invitation from {inviter[:100] or 'someone'}: "
                             "the judge joins only its own rooms")
            try:
                door.link.leave(room)
            except MatrixError as exc:
                judge.config.log(f"could not decline {room[:80]}: {exc.message}")
    for room in batch.gaps:
        judge.config.log(f"room {room[:80]}: more events came than one sync carries; "
                         "the oldest were passed over")
    for room, source in batch.events:
        said = events.read(room, source) if events.valid_room(room) else None
        if said is None:
            continue
        outcome = handle(judge, door, said)
        if outcome.action == "ignored" and outcome.detail in ("the judge's own", "chat"):
            continue
        stats.read += 1
        stats.played += outcome.action == "played"
    door.state["since"] = batch.next_batch
    judge.store.save()
    if stats.read:
        sweep(judge)
    return stats


def handle(judge: Judge, door: MatrixDoor, said: events.Said) -> Outcome:
    """Handle one event; a failure that is a bug is logged and the event passed over
    (marked handled); the disk and the homeserver raise."""
    try:
        outcome = ChatIncoming(judge, door, said).handle()
    except Exception as exc:
        judge.failed(exc)  # re-raises a failure of the disk or of the homeserver
        judge.store.mark_answered(said.event_id)
        judge.store.save()
        outcome = Outcome("skipped", detail=describe(exc))
    if outcome.detail not in ("the judge's own",):
        judge.config.log(f"chat {outcome.action}: {outcome.game or '-'} "
                         f"{said.sender} {outcome.detail}".rstrip())
    return outcome


def serve(judge: Judge, door: MatrixDoor, log: Callable[[str], None], wait: float | None,
          also: Callable[[], None] | None = None) -> None:
    """``wait`` None: one pass (a failure raised). Otherwise run until stopped: a sync
    that waits up to ``wait`` seconds for an event (``also``, the mail's pass, between
    them); the homeserver down or the disk failing is one log line and a retry."""
    import time

    while True:
        try:
            if also is not None:
                also()
            stats = run_once(judge, door, 0 if wait is None else int(wait * 1000))
        except (MatrixError, RetryLater) as exc:
            if wait is None:
                raise
            log(f"chat: cannot go on, will retry: {exc.message}")
            time.sleep(min(wait, 30.0))
            continue
        if stats.read:
            log(stats.summary())
        if wait is None:
            return
