"""Outgoing mail: subjects, Message-IDs and threading, composing the players' mails."""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime

from referee import i18n
from referee.i18n import domain
from referee.mail.tokens import (
    DOMAIN,
    MailError,
    make_id,
    parse_id,
    player_token,
    quote_id_part,
    unquote_id_part,
)

_, N_, ngettext = domain("referee")

# --------------------------------------------------------------------------- outgoing


@dataclass(frozen=True)
class Outgoing:
    """One mail to one player: ``to`` is an address ("ann@example.org" or "Ann <ann@...>");
    ``lang`` the language its footer is written in (the subject and body are given)."""

    player: str
    to: str
    subject: str
    body: str
    lang: str = i18n.ENGLISH


def subject(game_title: str, game_id: str, waiting: Sequence[str]) -> str:
    """A subject like ``[referee] staufer game-42: ann and bob to move`` (in the current
    language)."""
    names = list(waiting)
    if not names:
        state = _("game over")
    elif len(names) == 1:
        state = _("{player} to move").format(player=names[0])
    else:
        state = _("{players} and {last} to move").format(players=", ".join(names[:-1]),
                                                          last=names[-1])
    return f"[referee] {game_title} {game_id}: {state}"


def thread_id(game_id: str) -> str:
    """The stable thread root of a game: ``<referee.GAME@referee.invalid>``."""
    return f"<referee.{quote_id_part(game_id)}@{DOMAIN}>"


def message_id(game_id: str, move_number: int, player: str) -> str:
    """The unauthenticated Message-ID of a mail composed without a key (no reply to it
    is ever accepted: :mod:`referee.mail.intake` needs a MAC'd one, see ``make_id``)."""
    return f"<referee.{quote_id_part(game_id)}.{move_number}.{quote_id_part(player)}@{DOMAIN}>"


_MOVE_ID_RE = re.compile(rf"^<referee\.([A-Za-z0-9_=-]+)\.(\d+)\.([A-Za-z0-9_=-]+)@{DOMAIN}>$")
_ROOT_ID_RE = re.compile(rf"^<referee\.([A-Za-z0-9_=-]+)@{DOMAIN}>$")


def _parse_our_id(msgid: str) -> tuple[str, int | None, str | None] | None:
    """(game, move, player) for a Message-ID made by compose or the judge, (game, None,
    None) for a root. A hint only: nothing here checks a MAC."""
    mid = parse_id(msgid)
    if mid is not None:
        return mid.game, mid.n, mid.player
    m = _MOVE_ID_RE.match(msgid)
    if m:
        game, player = unquote_id_part(m.group(1)), unquote_id_part(m.group(3))
        if game is not None and player is not None:
            return game, int(m.group(2)), player
    m = _ROOT_ID_RE.match(msgid)
    if m:
        game = unquote_id_part(m.group(1))
        if game is not None:
            return game, None, None
    return None


def set_text(msg: EmailMessage, body: str) -> None:
    if not body.endswith("\n"):
        body += "\n"
    if body.isascii():
        msg.set_content(body, charset="us-ascii", cte="7bit")
    else:  # quoted-printable: 7-bit clean on any SMTP path, still legible raw
        msg.set_content(body, charset="utf-8", cte="quoted-printable")


def _footer(game_id: str, player: str, token: str | None) -> str:
    lines = ["", "-- "]
    if token is not None:
        lines += [
            _("Reply to this mail with your move on the first line"),
            _("(several moves: one line `move: ...` for each)."),
            _("Keep the subject as it is: its tag"),
            _("[#{token}] is your token for this game").format(token=token),
            _("and proves that the reply comes from you. Do not forward this mail."),
            _("If your mail program loses the subject, add a line of its own:"),
            f"    token: {token}",
        ]
    lines += [f"game: {game_id}", f"player: {player}"]
    return "\n".join(lines) + "\n"


def compose(
    outgoing: Sequence[Outgoing],
    *,
    sender: str,
    game_id: str,
    move_number: int,
    date: datetime | None = None,
    key: bytes | None = None,
    token_names: Mapping[str, str] | None = None,
) -> list[EmailMessage]:
    """One RFC 5322 message per ``Outgoing``, threaded per game and deterministic.

    With ``key`` each subject gets the player's token tag ``[#...]``, the Message-ID a
    MAC (:func:`referee.mail.tokens.make_id`, counter 0; ``move_number`` is the play
    number a reply must still find) and the body a footer saying how to reply; without it
    the body gets only ``game:``/``player:`` lines and the ID no MAC.
    ``token_names`` maps a player to what their token is computed over (a replaced
    seat's generation, ``ben#1``); default: the player id.
    """
    when = date if date is not None else datetime.now(UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    root = thread_id(game_id)
    messages = []
    for out in outgoing:
        name = (token_names or {}).get(out.player, out.player)
        token = player_token(key, game_id, name) if key is not None else None
        msgid = (make_id(key, game_id, out.player, move_number, 0) if key is not None
                 else message_id(game_id, move_number, out.player))
        msg = EmailMessage(policy=email.policy.default)
        try:
            msg["From"] = sender
            msg["To"] = out.to
            msg["Subject"] = f"{out.subject} [#{token}]" if token else out.subject
            msg["Date"] = format_datetime(when)
            msg["Message-ID"] = msgid
            msg["In-Reply-To"] = root
            msg["References"] = root
            msg["Auto-Submitted"] = "auto-generated"
            msg["X-Referee-Game"] = game_id
            msg["X-Referee-Player"] = out.player
            msg["X-Referee-Move"] = str(move_number)
            _check_addresses(msg, ("From", "To"))
        except (ValueError, TypeError, IndexError) as exc:
            raise MailError(f"cannot build the mail to {out.player} ({out.to!r}): {exc}") from exc
        with i18n.language(out.lang):
            footer = _footer(game_id, out.player, token)
        body = out.body.rstrip("\n") + "\n" + footer
        set_text(msg, body)
        messages.append(msg)
    return messages


def _check_addresses(msg: EmailMessage, names: Iterable[str]) -> None:
    for name in names:
        header = msg[name]
        addresses = getattr(header, "addresses", ())
        defects = getattr(header, "defects", ())
        if not addresses or defects or any(not a.username or not a.domain for a in addresses):
            raise ValueError(f"{name} is not a valid address: {str(header)!r}")


