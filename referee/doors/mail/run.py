"""One pass of a judge served by mail, and one mail handled by such a judge.

:func:`run_once` is one pass of a judge whose doors include mail, over ``inbox`` (the
core's pass, :func:`referee.judge.serve.run_once`): what ``referee judge --maildir/--imap``
does each look. :func:`process` handles one raw mail (``--stdin``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.doors.mail import incoming
from referee.doors.mail.door import MailDoor
from referee.doors.mail.incoming import QUARANTINED, Stats

if TYPE_CHECKING:
    from referee.doors.mail.transport import Inbox
    from referee.judge.core import Judge
    from referee.judge.outcome import Outcome

__all__ = ["QUARANTINED", "Stats", "mail_door", "process", "run_once"]


def mail_door(judge: Judge) -> MailDoor:
    """The mail door of ``judge``."""
    door = judge.doors.named(MailDoor.name)
    assert isinstance(door, MailDoor), "this judge has no mail door"
    return door


def process(judge: Judge, raw: bytes) -> Outcome:
    """Handle one incoming mail (:func:`referee.doors.mail.incoming.process`)."""
    return incoming.process(judge, mail_door(judge), raw)


def run_once(judge: Judge, inbox: Inbox) -> Stats:
    """One pass of a judge served by mail, over ``inbox``: deliver the queue, tell every
    game's players what changed, process every pending mail (each marked done, or
    quarantined, only after it was handled), check deadlines. Raises DoorDown (the
    outgoing mail) or RetryLater (the disk)."""
    from referee.judge import serve

    door = mail_door(judge)
    door.inbox = inbox
    taken = serve.run_once(judge, strict=True)[door.name]
    return Stats(taken.read, taken.played, taken.lines.count(QUARANTINED))
