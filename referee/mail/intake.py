"""One intake for a player's (or the game master's) mail: the checks that the judge
(:mod:`referee.judge.incoming`) and `referee move --from-email` share.

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
has one game file and no state. :func:`say_text` bounds a ``say``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.i18n import domain
from referee.ledger.fileformat import SAY_MAX
from referee.mail.replies import Reply, parse_reply
from referee.mail.tokens import MailError, MailId, check_id, check_token, find_ids

_, N_, ngettext = domain("referee")
STALE = N_("this answers an old mail; reply to the latest one")
MSGID_MAX = 200  # longer or non-ASCII Message-IDs are replaced by a digest of the mail
SAY_MARKS = 5  # combining marks in a row on one character
# letters and a mark that print as nothing (Unicode "default ignorable"): no hidden text
_BLANK = frozenset("\u034f\u115f\u1160\u3164\uffa0")
_MSGID_RE = re.compile(rf"^<[\x21-\x3b\x3d\x3f-\x7e]{{1,{MSGID_MAX - 2}}}>$")


class Refusal(MailError):
    """A mail that does not count; ``reason`` names the check that failed. ``public``:
    what its sender may be told when they are not authenticated (default: the
    message), which names no text of the mail that an authenticated referee did not
    write (see :func:`referee.mail.rejections.stranger_answer`)."""

    def __init__(self, reason: str, message: str, hints: Sequence[str] = (),
                 public: str | None = None) -> None:
        super().__init__(message, hints=list(hints))
        self.reason = reason
        self.public = public if public is not None else message


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
          log: Sequence[Mapping[str, Any]]) -> None:
    """Checks 3-6 for a mail answering ``mid`` (already MAC-checked) from ``seat``.
    Raises Refusal (replayed, sender, forward, token, stale)."""
    check_unplayed(mail, log)
    sender = mail.reply.sender
    if not sender or sender.lower() not in (a.lower() for a in seat.addresses):
        raise Refusal("sender", _("this address ({address}) is not registered for {player} "
                                  "in game {game}").format(address=sender or "none",
                                                           player=seat.player, game=game_id))
    if not check_token(key, game_id, seat.token_name, mail.reply.token):
        if mail.reply.forwarded:
            raise Refusal("forward", _("the mail is not authenticated: it is a forward, and "
                                       "its subject's token does not count"))
        raise Refusal("token", _("the mail is not authenticated: its token is missing or "
                                 "wrong (reply to the referee's mail and keep the [#...] tag "
                                 "in the subject)"))
    check_fresh(mid, log)


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


# --------------------------------------------------------------------------- say


def say_text(reply: Reply) -> str:
    """The text of a ``say`` command: the rest of its line and the own lines after it up
    to a blank line, joined with single spaces. Plain text only: letters, marks, digits,
    punctuation, symbols and spaces; at most :data:`SAY_MAX` characters. Raises Refusal
    (``say``) naming the first character or bound that fails."""
    first = reply.moves[0] if reply.moves else ""
    m = re.match(r"(?i)^say(?=\s|$)", first)
    if not m:
        raise Refusal("say", _("not a say command"))
    parts = [first[m.end():]]
    own = list(reply.own)
    start = reply.origins[0] if reply.origins and reply.lines[0] == first else \
        own.index(first) if first in own else None
    if start is not None:
        for line in own[start + 1:]:
            if not line.strip() or re.match(r"(?i)^(token|game|player)\s*:", line):
                break
            parts.append(line)
    text = unicodedata.normalize("NFC", " ".join(parts))
    if len(text) > SAY_MAX * 4:  # no need to look at every character of a huge one
        raise _too_long(len(text))
    marks = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in _BLANK or (ch != "\t" and cat[0] not in "LMNPS" and cat != "Zs"):
            name = unicodedata.name(ch, cat)
            raise Refusal("say", _("say not relayed: it contains {code} ({name}); a say is "
                                   "plain text on one paragraph: no control, format, line or "
                                   "paragraph separator characters").format(
                                       code=f"U+{ord(ch):04X}", name=name))
        marks = marks + 1 if cat[0] == "M" else 0
        if marks > SAY_MARKS:
            raise Refusal("say", _("say not relayed: more than {n} combining marks on one "
                                   "character").format(n=SAY_MARKS))
    text = re.sub(r"[\t\s]+", " ", text).strip()
    if not text:
        raise Refusal("say", _("say: nothing to say"))
    if len(text) > SAY_MAX:
        raise _too_long(len(text))
    return text


def _too_long(length: int) -> Refusal:
    return Refusal("say", _("say not relayed: {length} characters, at most {most}").format(
        length=length, most=SAY_MAX))


# --- plans (referee/ledger/plans.py) ------------------------------------------------------------

PLAN_WORD = "plan"


def plan_lines(reply: Reply) -> list[str] | None:
    """The lines of a ``plan`` command: its first own line is ``plan`` (with a first line
    after it, or ``--clear``), the plan's lines follow, one a line, up to an empty line.
    None when the mail is no plan command."""
    own = list(reply.own)
    start = reply.origins[0] if reply.origins else next(
        (k for k, line in enumerate(own) if line and not _PLAN_SKIP.match(line)), None)
    if start is None:
        return None
    words = own[start].split(None, 1)
    if words[0].lower() != PLAN_WORD:
        return None
    lines = [words[1].strip()] if len(words) > 1 else []
    for line in own[start + 1:]:
        if _PLAN_SKIP.match(line):
            continue
        if not line:
            break
        lines.append(line)
    return lines


_PLAN_SKIP = re.compile(r"^(?:token|game|player)\s*:", re.I)


# --- which line is the move or the command ---------------------------------------------


@dataclass(frozen=True)
class Taken:
    """The line of a reply that is read: ``index`` in :attr:`Reply.lines`, the ``line``
    (tidied), and its ``number`` among the player's own lines as they count them."""

    index: int
    line: str
    number: int


def take_line(reply: Reply, commands: Iterable[str] = (), game: Any = None,
              state: Any = None, player: str | None = None) -> Taken | None:
    """Which of the reply's lines (:attr:`Reply.lines`, without ``move:`` lines) is read:
    the first whose first word is one of ``commands``, or that reads as a move in
    ``game``'s notation for ``player`` now (legal, illegal or ambiguous, but no "cannot
    read"), so that chat before it (``Thanks, good move!``) is passed over and never
    played. The first line (as before) when none is, and when the reply has one line;
    moves are looked for only while ``player`` has a decision in ``game`` (give no
    ``game`` for commands only). None for a reply without such lines (``move:`` lines,
    or no text). The judge and `referee move --from-email` both read a mail with it;
    quoted text and attributions never reach :attr:`Reply.lines`."""
    lines = reply.lines
    if not lines:
        return None
    words = frozenset(w.lower() for w in commands)
    reads = _move_reader(game, state, player) if len(lines) > 1 else None
    for k, line in enumerate(lines if len(lines) > 1 else ()):
        first = line.split(None, 1)[0].lower() if line.split() else ""
        if first in words or (reads is not None and reads(line)):
            return Taken(k, line, reply.line_number(k))
    return Taken(0, lines[0], reply.line_number(0))


def _move_reader(game: Any, state: Any, player: str | None) -> Any:
    """A test whether a line reads as a move of ``player`` now, or None when they have
    no decision (or there is no game)."""
    from referee.errors import MalformedMove, MoveError

    if game is None or player is None or game.finished(state) or \
            player not in game.to_move(state):
        return None
    legal = game.legal_moves(state, player)

    def reads(line: str) -> bool:
        try:
            game.parse_move(line, legal)
        except MalformedMove:
            return False
        except MoveError:  # ambiguous, or a reading the game refuses: a move all the same
            return True
        return True

    return reads


def from_taken(reply: Reply, taken: Taken) -> Reply:
    """``reply`` as if its player had written nothing before the taken line: its first
    move is that line (what ``say`` and ``plan`` read starts there)."""
    from dataclasses import replace

    k = taken.index
    return replace(reply, moves=(taken.line,), lines=reply.lines[k:],
                   origins=reply.origins[k:])


def taken_note(taken: Taken | None) -> list[str]:
    """The line an answer opens with when chat came before the line read (in the
    current language); [] when the first line was read."""
    if taken is None or not taken.index:
        return []
    return [_("Took line {number} of your mail: `{line}`; the text before it is not read "
              "as a move or a command.").format(number=taken.number, line=taken.line)]
