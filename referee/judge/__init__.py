"""`referee judge`: a mail robot that runs whole games by itself.

It reads the players' mails from a Maildir or an IMAP mailbox, finds each mail's game
among the game files of one directory, authenticates it, plays it through
:func:`referee.play.submit.submit`, and sends every answer and notification itself (to a
Maildir or an SMTP server). See docs/judge.md.

Exactly once: an incoming mail is marked done only after its game file is durably
written and the answers are queued in the judge's state file; an accepted mail's
Message-ID is in its log entry, so a mail delivered or fetched again is recognised.

Nobody can stop it with a mail: whatever goes wrong while one mail is handled (a mail
too large, too deep or unreadable, a bug) is logged with the reason, the mail is moved
to the quarantine (the Maildir's ``.Quarantine`` folder, an IMAP flag), and the next
mail is handled. Only a failure of the judge's surroundings (a full or read-only disk:
RetryLater; the outgoing mail: DeliveryError) stops the round, and leaves the mail to
be tried again.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.judge.core import Config, Judge
from referee.judge.failures import RetryLater, describe
from referee.judge.incoming import Incoming, Outcome
from referee.judge.tend import sweep
from referee.judge.transport import Inbox, Outbox
from referee.mail import MailError

__all__ = ["Config", "Inbox", "Judge", "Outbox", "Outcome", "RetryLater", "Stats", "process",
           "run_once",
           "sweep"]

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
