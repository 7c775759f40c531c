"""The answer to a rejected reply, threaded to it."""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

from referee.i18n import domain
from referee.mail.outgoing import _check_addresses, set_text
from referee.mail.replies import Reply
from referee.mail.tokens import DOMAIN, MailError

_, N_, ngettext = domain("referee")

# --------------------------------------------------------------------------- rejections


def rejection(
    reply: Reply,
    reason: str,
    legal: Sequence[str],
    *,
    sender: str,
    to: str | None = None,
    date: datetime | None = None,
) -> EmailMessage:
    """The answer to a rejected reply, threaded to it (In-Reply-To its Message-ID).

    It goes to ``to`` or else ``reply.sender``. Pass ``legal`` moves only for a reply
    that ``is_authentic``; otherwise anyone could learn a player's options by naming them.
    Written in the current language (``with i18n.language(...)``: the recipient's).
    """
    recipient = to or reply.sender
    if not recipient:
        raise MailError("the rejected mail has no sender address to answer")
    msg = EmailMessage(policy=email.policy.default)
    subj = reply.subject or _("[referee] {game}: move not accepted").format(
        game=reply.game_id or _("game"))
    if not re.match(r"^\s*re\s*:", subj, re.I):
        subj = f"Re: {subj}"
    when = date if date is not None else datetime.now(UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seed = reply.message_id or f"{reply.sender}\0{reply.subject}\0{reply.moves}"
    digest = hashlib.sha256(seed.encode("utf-8", "replace")).hexdigest()[:20]
    try:
        msg["From"] = sender
        msg["To"] = recipient
        msg["Subject"] = subj
        msg["Date"] = format_datetime(when)
        msg["Message-ID"] = f"<referee-reject.{digest}@{DOMAIN}>"
        refs = list(reply.references)
        if reply.message_id:
            msg["In-Reply-To"] = reply.message_id
            refs.append(reply.message_id)
        if refs:
            msg["References"] = " ".join(dict.fromkeys(refs))
        msg["Auto-Submitted"] = "auto-replied"
        if reply.game_id is not None:
            msg["X-Referee-Game"] = reply.game_id
        if reply.player is not None:
            msg["X-Referee-Player"] = reply.player
        _check_addresses(msg, ("From", "To"))
    except (ValueError, TypeError, IndexError) as exc:
        raise MailError(f"cannot build the rejection to {recipient!r}: {exc}") from exc

    what = " / ".join(reply.moves) if reply.moves else _("(no move found)")
    lines = [_("Your move was not accepted: {moves}").format(moves=what), "", reason.rstrip(),
             ""]
    if legal:
        lines += [_("Legal moves now:"), *(f"    {move}" for move in legal), ""]
    lines += [
        _("Reply to this mail with your move on the first line, and keep the subject as it"),
        _("is (it carries your token)."),
    ]
    set_text(msg, "\n".join(lines))
    return msg

