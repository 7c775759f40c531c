"""The answers to a mail that was not played: to an authenticated player (threaded to
their mail, its subject rebuilt from the game and their token) and to a sender who is
not authenticated (:func:`stranger_answer`: a fixed subject and text that quote nothing
of the mail).

Neither copies a header of the incoming mail into its own but a Message-ID of the
intake's clean form (:func:`referee.mail.headers.msgids`) and the recipient's address:
a subject or a name that held broken encoded words, raw 8-bit bytes or control
characters never reaches the standard library's header folding, which raises on some
of them (a decoded lone surrogate).
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import textwrap
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


def reference(msgid: str) -> str:
    """The fixed reference of an incoming mail in an answer to a stranger (8 hex digits
    of the SHA-256 of its Message-ID): the answer names the mail without quoting it."""
    return hashlib.sha256(msgid.encode("utf-8", "replace")).hexdigest()[:8]


def _when(date: datetime | None) -> datetime:
    when = date if date is not None else datetime.now(UTC)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def rejection(
    reply: Reply,
    reason: str,
    legal: Sequence[str],
    *,
    sender: str,
    to: str,
    game_id: str,
    player: str,
    token: str | None,
    date: datetime | None = None,
) -> EmailMessage:
    """The answer to an authenticated player's rejected reply, to their registered
    address ``to``, threaded to it (In-Reply-To its Message-ID). Its subject is
    rebuilt: ``Re: [referee] GAME: move not accepted [#TOKEN]``, so that a reply to it
    carries the token whatever the player's subject held. ``legal``: the legal moves
    now. Written in the current language (``with i18n.language(...)``: the player's).
    An answer to a mail that is not authenticated is :func:`stranger_answer`."""
    msg = EmailMessage(policy=email.policy.default)
    subj = "Re: " + _("[referee] {game}: move not accepted").format(game=game_id)
    if token:
        subj += f" [#{token}]"
    seed = reply.message_id or f"{reply.sender}\0{reply.subject}\0{reply.moves}"
    digest = hashlib.sha256(seed.encode("utf-8", "replace")).hexdigest()[:20]
    try:
        msg["From"] = sender
        msg["To"] = to
        msg["Subject"] = subj
        msg["Date"] = format_datetime(_when(date))
        msg["Message-ID"] = f"<referee-reject.{digest}@{DOMAIN}>"
        refs = list(reply.references)
        if reply.message_id:
            msg["In-Reply-To"] = reply.message_id
            refs.append(reply.message_id)
        if refs:
            msg["References"] = " ".join(dict.fromkeys(refs))
        msg["Auto-Submitted"] = "auto-replied"
        msg["X-Referee-Game"] = game_id
        msg["X-Referee-Player"] = player
        _check_addresses(msg, ("From", "To"))
    except (ValueError, TypeError, IndexError) as exc:
        raise MailError(f"cannot build the rejection to {to!r}: {exc}") from exc

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


def stranger_answer(to: str, text: str, *, sender: str, msgid: str,
                    date: datetime | None = None) -> EmailMessage:
    """The answer to a mail whose sender is not authenticated (not a seat's registered
    address with its token, or no referee mail answered): to ``to`` (its From), with
    ``text`` (the referee's own words: a reason that names no text of the mail) and a
    fixed subject that names the mail only by :func:`reference`. It quotes nothing of
    the mail (no subject, no line of its body) and is threaded to nothing, so that a
    forged From cannot make the referee send someone a text of the forger's choice.
    Raises MailError for an address the standard library refuses."""
    ref = reference(msgid)
    digest = hashlib.sha256(msgid.encode("utf-8", "replace")).hexdigest()[:24]
    msg = EmailMessage(policy=email.policy.default)
    try:
        msg["From"] = sender
        msg["To"] = to
        msg["Subject"] = _("[referee] your mail (ref {ref})").format(ref=ref)
        msg["Date"] = format_datetime(_when(date))
        msg["Message-ID"] = f"<rf-answer.{digest}@{DOMAIN}>"
        msg["Auto-Submitted"] = "auto-replied"
        _check_addresses(msg, ("From", "To"))
    except (ValueError, TypeError, IndexError) as exc:
        raise MailError(f"cannot build the answer to {to!r}: {exc}") from exc
    note = _("This answer quotes nothing of the mail it answers (ref {ref}). If you did not "
             "send it, someone else used your address: ignore this answer.").format(ref=ref)
    set_text(msg, text.rstrip("\n") + "\n\n" + textwrap.fill(note, 78) + "\n")
    return msg
