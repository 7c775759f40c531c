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

The package loads its parts when they are first asked for (``referee.judge.Judge``,
``run_once``, ...): importing the core (:mod:`referee.judge.core`) loads nothing of mail,
so a second front door (chat) can sit beside the mail door over the same core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.judge.basics import Config
    from referee.judge.failures import RetryLater, describe
    from referee.judge.mailfront import MailJudge as Judge
    from referee.judge.mailrun import QUARANTINED, Stats, process, run_once
    from referee.judge.outcome import Outcome
    from referee.judge.tend import sweep
    from referee.judge.transport import Inbox, Outbox

__all__ = ["QUARANTINED", "Config", "Inbox", "Judge", "Outbox", "Outcome", "RetryLater",
           "Stats", "describe", "process", "run_once", "sweep"]

#: where each public name lives (the module, and its name there)
_WHERE = {
    "Config": ("basics", "Config"), "RetryLater": ("failures", "RetryLater"),
    "describe": ("failures", "describe"), "Judge": ("mailfront", "MailJudge"),
    "QUARANTINED": ("mailrun", "QUARANTINED"), "Stats": ("mailrun", "Stats"),
    "process": ("mailrun", "process"), "run_once": ("mailrun", "run_once"),
    "Outcome": ("outcome", "Outcome"), "sweep": ("tend", "sweep"),
    "Inbox": ("transport", "Inbox"), "Outbox": ("transport", "Outbox"),
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _WHERE[name]
    found = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = found
    return found
