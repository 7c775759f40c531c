"""The mail door: a judge's games played by mail (docs/judge.md).

:class:`~referee.doors.mail.door.MailDoor` makes each notice of the core a mail and
delivers it through an outbox (a Maildir, SMTP); :mod:`referee.doors.mail.incoming`
authenticates each mail of the inbox (a Maildir, IMAP) and hands it to the core;
:mod:`referee.doors.mail.run` is one pass of a judge served by mail. The package loads its
parts when they are first asked for: importing it loads nothing of mail.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.doors.mail.door import MailDoor, MailJudge, mail_judge
    from referee.doors.mail.run import QUARANTINED, Stats, process, run_once
    from referee.doors.mail.transport import (
        ImapInbox,
        Inbox,
        MaildirInbox,
        MaildirOutbox,
        Outbox,
        SmtpOutbox,
    )

__all__ = ["QUARANTINED", "ImapInbox", "Inbox", "MailDoor", "MailJudge", "MaildirInbox",
           "MaildirOutbox", "Outbox", "SmtpOutbox", "Stats", "mail_judge", "process",
           "run_once"]

#: where each public name lives (the module, and its name there)
_WHERE = {
    "MailDoor": "door", "MailJudge": "door", "mail_judge": "door", "QUARANTINED": "run",
    "Stats": "run",
    "process": "run", "run_once": "run", "ImapInbox": "transport", "Inbox": "transport",
    "MaildirInbox": "transport", "MaildirOutbox": "transport", "Outbox": "transport",
    "SmtpOutbox": "transport",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module when first asked for (PEP 562)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = found
    return found
