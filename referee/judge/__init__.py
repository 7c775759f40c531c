"""`referee judge`: a mail robot that runs whole games by itself.

It reads the players' mails from a Maildir or an IMAP mailbox, finds each mail's game
among the game files of one directory, authenticates it, plays it through
:func:`referee.submit.submit`, and sends every answer and notification itself (to a
Maildir or an SMTP server). See docs/judge.md.

Exactly once: an incoming mail is marked done only after its game file is durably
written and the answers are queued in the judge's state file; an accepted mail's
Message-ID is in its log entry, so a mail delivered or fetched again is recognised.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.judge.core import Config, Judge
from referee.judge.incoming import Incoming, Outcome
from referee.judge.transport import Inbox, Outbox
from referee.mail import MailError

__all__ = ["Config", "Inbox", "Judge", "Outbox", "Outcome", "Stats", "process", "run_once"]


@dataclass
class Stats:
    processed: int = 0
    played: int = 0


def process(judge: Judge, raw: bytes) -> Outcome:
    """Handle one incoming mail (deliver what is still queued first)."""
    judge.flush()
    try:
        incoming = Incoming(judge, raw)
    except MailError as exc:
        outcome = Outcome("ignored", detail=exc.message)
    else:
        outcome = incoming.handle()
    judge.config.log(f"{outcome.action}: {outcome.game or '-'} {outcome.detail}".rstrip())
    return outcome


def run_once(judge: Judge, inbox: Inbox) -> Stats:
    """One pass: deliver the queue, mail new games and changes, process every pending
    message (each marked done only after it was handled), check deadlines."""
    stats = Stats()
    judge.flush()
    judge.notify_all()
    for item in inbox.pending():
        outcome = process(judge, item.raw)
        inbox.done(item)
        stats.processed += 1
        stats.played += outcome.action == "played"
    judge.notify_all()
    return stats
