"""One pass of the judge served by mail: deliver the queue, sweep, handle each mail.

:func:`run_once` is what ``referee judge`` does each look (referee/judge/loop.py);
:func:`process` handles one raw mail through the dispatcher
(:class:`referee.judge.incoming.Incoming`). Part of the mail door, over the core.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.judge.failures import RetryLater, describe
from referee.judge.incoming import Incoming
from referee.judge.mailfront import MailJudge as Judge
from referee.judge.outcome import Outcome
from referee.judge.tend import sweep
from referee.judge.transport import Inbox
from referee.mail import MailError

QUARANTINED = "quarantined"


@dataclass
class Stats:
    processed: int = 0
    played: int = 0
    quarantined: int = 0

    def summary(self) -> str:
        """The log line of a pass: ``processed 1 mail, 1 played, 0 quarantined`` (a mail
        counts as played when any of its moves was)."""
        mails = "mail" if self.processed == 1 else "mails"
        return f"processed {self.processed} {mails}, {self.played} played, " \
               f"{self.quarantined} quarantined"


def process(judge: Judge, raw: bytes) -> Outcome:
    """Handle one incoming mail (deliver what is still queued first). A mail that cannot
    be read, or whose handling fails (a bug), is "quarantined" (logged by the caller);
    raises RetryLater (the disk) or DeliveryError (the outgoing mail)."""
    judge.flush()
    try:
        try:
            incoming = Incoming(judge, raw)
        except MailError as exc:
            return Outcome(QUARANTINED, detail=exc.message)
        outcome = incoming.handle()
    except Exception as exc:
        judge.failed(exc)  # re-raises a failure of the disk or of the outgoing mail
        return Outcome(QUARANTINED, detail=describe(exc))
    judge.config.log(f"{outcome.action}: {outcome.game or '-'} {outcome.detail}".rstrip())
    return outcome


def run_once(judge: Judge, inbox: Inbox) -> Stats:
    """One pass: deliver the queue, mail new games and changes, process every pending
    message (each marked done, or quarantined, only after it was handled), check
    deadlines."""
    stats = Stats()
    judge.flush()
    sweep(judge)
    for item in inbox.pending():
        outcome = Outcome(QUARANTINED, detail=item.unread) if item.unread else \
            process(judge, item.raw)
        try:
            if outcome.action == QUARANTINED:
                where = inbox.quarantine(item)
                judge.config.log(f"{QUARANTINED}: mail {item.key}: {outcome.detail} ({where})")
                stats.quarantined += 1
            else:
                inbox.done(item)
        except OSError as exc:  # a Maildir on a full or read-only disk
            raise RetryLater(f"cannot move the mail {item.key} in the inbox: "
                             f"{exc.strerror or exc}; it stays for the next run") from exc
        stats.processed += 1
        stats.played += outcome.action == "played"
    if stats.processed:  # (no mail: the look before this one saw every change)
        sweep(judge)
    return stats
