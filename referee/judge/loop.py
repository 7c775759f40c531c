"""The judge's loop: look at the inbox, handle what is there, wait, look again.

A look that handled mail is followed by another at once (more may have come meanwhile);
only a look that found nothing, or failed, waits: for the inbox's next mail or the
poll's seconds, whichever comes first (:meth:`Inbox.wait`: IMAP IDLE where the server
offers it, a Maildir's ``new/`` listed every few ms after activity).
"""

from __future__ import annotations

from collections.abc import Callable

from referee.judge.failures import RetryLater
from referee.judge.mailfront import MailJudge
from referee.judge.mailrun import run_once
from referee.judge.transport import Inbox, Outbox
from referee.mail import MailError


def serve(judge: MailJudge, inbox: Inbox, out: Outbox, log: Callable[[str], None],
          wait: float | None) -> None:
    """``wait`` None: one look (a failure raised). Otherwise run until stopped, waiting
    at most ``wait`` seconds between looks; a failure of the outgoing mail or of the
    disk is logged and tried again after the wait."""
    while True:
        try:
            stats = run_once(judge, inbox)
        except MailError as exc:
            if wait is None:
                raise
            # the outgoing server is down: the mails stay queued in the state file and
            # the unhandled mails unmarked; try again later
            log(f"mail delivery failed, will retry: {exc.message}")
            out.close()
        except RetryLater as exc:
            if wait is None:
                raise
            log(f"cannot go on, will retry: {exc.message}")
        else:
            if stats.processed:
                log(stats.summary())
            if wait is None:
                return
            if stats.processed:
                continue  # more may have come while these were handled: look at once
        inbox.wait(wait)
