"""One intake for a player's (or the game master's) mail: the checks that the judge
(:mod:`referee.doors.mail.incoming`) and `referee move --from-email` share.

A mail counts only if all of these hold, checked in this order; the first that fails is
the reason given (:class:`Refusal`, whose ``reason`` is one of the names in brackets):

1. it is no automatic reply (``automatic``);
2. it answers (In-Reply-To, else References newest first) a Message-ID that this referee
   made for the game: the MAC of :func:`referee.mail.tokens.make_id` under the game's
   mail key is right (``unanswered``: it answers no referee mail; ``forged``: it names
   the game but no referee wrote that ID; ``other-game``); the ID names the seat;
3. its own Message-ID is in no log entry's ``mail`` (``replayed``: an accepted mail is
   refused a second time);
4. its From address is one of the seat's registered addresses (``sender``);
5. it carries the seat's token, from the subject's ``[#...]`` tag or an own ``token:``
   line; a forward's subject never counts (``forward``, ``token``);
6. it is fresh: the ID it answers was written at the game's current play number
   (:func:`plays`), for a move and for every command alike (``stale``). A mail
   written since then (an answer to ``status``, a rejection) is as fresh as the latest.

The judge adds what only it keeps (the answered-mail list, the ``say`` rate); the CLI
has one game file and no state. Reading the mail's lines (its moves, a ``say``, a
``plan``) is :mod:`referee.play.reading`, shared with every other door.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import domain
from referee.mail.replies import Reply, parse_reply
from referee.mail.tokens import MailError, MailId, check_id, check_token, find_ids
from referee.play.reading import Refused

_, N_, ngettext = domain("referee")
STALE = N_("this answers an old mail; reply to the latest one")
MSGID_MAX = 200  # longer or non-ASCII Message-IDs are replaced by a digest of the mail
_MSGID_RE = re.compile(rf"^<[\x21-\x3b\x3d\x3f-\x7e]{{1,{MSGID_MAX - 2}}}>$")


class Refusal(Refused, MailError):
    """A mail that does not count; ``reason`` names the check that failed. ``public``:
    what its sender may be told when they are not authenticated (default: the
    message), which names no text of the mail that an authenticated referee did not
    write (see :func:`referee.mail.rejections.stranger_answer`)."""


@dataclass(frozen=True)
class Mail:
    """One incoming mail, read once: nothing in it is trusted yet."""

    raw: bytes
    reply: Reply
    msgid: str  # its own Message-ID, or a stand-in made from its bytes
    answers: tuple[MailId, ...]  # referee IDs it names, In-Reply-To first (MACs unchecked)


@dataclass(frozen=True)
class Seat:
    """Who a mail must come from: a player (or ``gm``), what their token is computed
    over, and their registered addresses."""

    player: str
    token_name: str
    addresses: tuple[str, ...]


def read(raw: bytes) -> Mail:
    """Parse ``raw``. Raises MailError for a mail that cannot be taken apart at all."""
    reply = parse_reply(raw)
    own = reply.message_id
    if own is None or not _MSGID_RE.match(own):
        own = "<nomid." + hashlib.sha256(raw).hexdigest()[:24] + "@referee.invalid>"
    named = [*reply.replies_to, *reversed(reply.references)]
    return Mail(raw, reply, own, tuple(dict.fromkeys(find_ids(named))))


def plays(log: Iterable[Mapping[str, Any]]) -> int:
    """The play number (:func:`referee.ledger.gamefile.play_number`): a reply must answer
    a referee mail written at the current number."""
    from referee.ledger import gamefile

    return gamefile.play_number(log)


def answered(mail: Mail, game_id: str, key: bytes) -> MailId:
    """The referee ID of ``game_id`` that ``mail`` answers, its MAC checked with ``key``.
    Raises Refusal (automatic, unanswered, forged, other-game)."""
    if mail.reply.automatic:
        raise Refusal("automatic", _("an automatic reply (Auto-Submitted, Precedence or "
                                     "X-Autoreply): ignored, not answered"))
    mine = [mid for mid in mail.answers if mid.game == game_id]
    for mid in mine:
        if check_id(key, mid):
            return mid
    if mine:
        raise Refusal("forged", _("the referee mail it answers (In-Reply-To) was not written "
                                  "by this referee: its Message-ID is forged or edited; reply "
                                  "to the latest mail"))
    if mail.answers:
        raise Refusal("other-game", _("this mail is for game {game}, not {other}").format(
            game=repr(mail.answers[0].game), other=repr(game_id)),  # (repr: no line breaks)
            public=_("this mail answers a mail of another game"))
    raise Refusal("unanswered", _("cannot tell which referee mail this answers: reply to the "
                                  "latest mail and keep its subject"))


def admit(mail: Mail, mid: MailId, seat: Seat, *, key: bytes, game_id: str,
          log: Sequence[Mapping[str, Any]], fresh: bool = True) -> None:
    """Checks 3-6 for a mail answering ``mid`` (already MAC-checked) from ``seat``
    (without ``fresh``: 3-5, the judge's core checks freshness for every door). Raises
    Refusal (replayed, sender, forward, token, stale)."""
    check_unplayed(mail, log)
    check_sender(mail, seat, game_id)
    if not check_token(key, game_id, seat.token_name, mail.reply.token):
        if mail.reply.forwarded:
            raise Refusal("forward", _("the mail is not authenticated: it is a forward, and "
                                       "its subject's token does not count"))
        raise Refusal("token", _("the mail is not authenticated: its token is missing or "
                                 "wrong (reply to the referee's mail and keep the [#...] tag "
                                 "in the subject)"))
    if fresh:
        check_fresh(mid, log)


def admit_link(mail: Mail, seat: Seat, *, game_id: str,
               log: Sequence[Mapping[str, Any]]) -> None:
    """Checks 3-4 for a mail made from a one-click link of ``seat`` (its tag's MAC
    already checked): not played yet, from one of the seat's registered addresses. The
    tag stands in for the token and the Message-ID answered; freshness is the judge's.
    Raises Refusal (replayed, sender)."""
    check_unplayed(mail, log)
    check_sender(mail, seat, game_id)


def check_sender(mail: Mail, seat: Seat, game_id: str) -> None:
    """Check 4: the mail comes from one of ``seat``'s registered addresses. Raises
    Refusal (sender)."""
    sender = mail.reply.sender
    if not sender or sender.lower() not in (a.lower() for a in seat.addresses):
        raise Refusal("sender", _("this address ({address}) is not registered for {player} "
                                  "in game {game}").format(address=sender or "none",
                                                           player=seat.player, game=game_id))


def check_unplayed(mail: Mail, log: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a mail whose Message-ID is already in the log (``replayed``)."""
    for entry in log:
        if entry.get("mail") == mail.msgid:
            raise Refusal("replayed", _("this mail was already played: its Message-ID is in "
                                        "log entry {n}; the game is at move {now} now: reply "
                                        "to the latest mail").format(n=entry.get("n"),
                                                                     now=plays(log)))


def check_fresh(mid: MailId, log: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a mail answering a referee mail of an earlier play number (``stale``)."""
    now = plays(log)
    if mid.n != now:
        raise Refusal("stale", _("your mail answers the referee's mail of move {old}, but the "
                                 "game is at move {now}: {advice}").format(
                                     old=mid.n, now=now, advice=_(STALE)))
