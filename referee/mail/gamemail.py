"""The mails of one game file, without the judge: the mails after a move (`mail`: each
waiting player's private view and how to reply, the public update to the others) and
their delivery, and a reply mail played with `move --from-email` (authenticated with the
judge's checks, :mod:`referee.mail.intake`) and the answer to a rejected one
(`--reply-out`)."""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.engine import Match
from referee.errors import RefereeError, SealedError, UsageError
from referee.i18n import domain
from referee.ledger import gamefile, roster, secret
from referee.play import reading
from referee.play.statusview import status_text

if TYPE_CHECKING:
    from referee.play.submit import Fields

_, N_, ngettext = domain("referee")


def mail_date() -> dt.datetime:
    return dt.datetime.fromisoformat(gamefile.now().replace("Z", "+00:00"))


class MailIdentify:
    """The ``identify`` step of :func:`referee.play.submit.submit` for a reply mail: reads the
    mail once, authenticates it inside the game's lock with the judge's checks
    (:mod:`referee.mail.intake`), and keeps its bytes (``raw``), the authenticated
    player (``found``) and their token (``token``) for the answer to a rejection
    (``read`` gives the mail's bytes). The accepted mail's Message-ID goes into the log
    entry, so the same mail is refused a second time. The sequence around it (submit,
    answer a rejection, let the bots play) is the judge's too: referee/play/reply.py."""

    def __init__(self, read: Callable[[], bytes], player: str | None,
                 reply_out: Path | None, sender: str) -> None:
        self.read, self.player = read, player
        self.reply_out, self.sender = reply_out, sender
        self.raw = b""
        self.found: str | None = None
        self.token: str | None = None
        self.taken: Any = None  # the line read as the move (reading.Taken), if chat came first

    def __call__(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], Fields]:
        self.raw = self.read()
        found = from_email(gf, seed, self.raw, self.player, self.reply_out, self.sender)
        self.found, self.token, self.taken = found.player, found.token, found.taken
        return found.player, found.moves, {"mail": found.msgid}

    def note(self) -> list[str]:
        """The line that says which line of the mail was read as the move, when chat came
        before it (the judge's words, :func:`referee.play.reading.taken_note`)."""

        return reading.taken_note(self.taken)


@dataclass(frozen=True)
class Found:
    """An authenticated reply mail: its player and their token, its moves, its
    Message-ID, and the line read as the move when chat came before it
    (:class:`referee.play.reading.Taken`, or None)."""

    player: str
    token: str
    moves: list[str]
    msgid: str
    taken: Any


def from_email(gf: gamefile.GameFile, seed: str | None, raw: bytes, player: str | None,
               reply_out: Path | None, sender: str) -> Found:
    """The authenticated reply mail ``raw``: the same checks and the same reading as the
    judge's (a MAC'd referee Message-ID of this game answered at the current play
    number, a registered From address, the token, not played before; the first line
    that reads as a move). Raises MailError (after writing the answer to
    ``reply_out``: to the player when the mail was authenticated but holds no move,
    else to its sender, quoting nothing of it)."""
    from referee import mail as mailmod
    from referee.mail import intake

    if seed is None:
        raise SealedError("mail tokens need the game's secret", hints=["give --secret FILE"])
    mail = intake.read(raw)
    key = secret.mail_key(seed)
    settings = roster.settings(gf.data)
    authenticated: str | None = None
    try:
        mid = intake.answered(mail, gf.game_id, key)
        if mid.player not in gf.players:
            raise intake.Refusal("seat", _("this mail answers a mail to {seat}, who plays "
                                           "no seat: only players move").format(
                                               seat=repr(mid.player)))
        if player is not None and player != mid.player:
            raise intake.Refusal("seat", _("the mail is {author}'s, not {player}'s").format(
                author=mid.player, player=player))
        seat = intake.Seat(mid.player, settings.token_name(mid.player),
                           tuple(settings.emails.get(mid.player, [])))
        intake.admit(mail, mid, seat, key=key, game_id=gf.game_id, log=gf.log)
        authenticated = mid.player
        if not mail.reply.moves:
            raise intake.Refusal("no-move", _("no move found in the mail: write it on the "
                                              "first line, or as 'move: ...'"))
    except intake.Refusal as exc:
        # a vacation notice or a bounce is never answered; a mail without a From neither
        if exc.reason != "automatic" and (mail.reply.sender or authenticated):
            token = mailmod.player_token(key, gf.game_id, settings.token_name(
                authenticated)) if authenticated else None
            answer_rejection(gf, raw, exc, reply_out, sender, authenticated, token=token)
        raise
    taken = _taken(gf, seed, mail.reply, mid.player)
    moves = [taken.line] if taken is not None else list(mail.reply.moves)
    token = mailmod.player_token(key, gf.game_id, seat.token_name)
    return Found(mid.player, token, moves, mail.msgid,
                 taken if taken and taken.index else None)


def _taken(gf: gamefile.GameFile, seed: str, reply: Any, player: str) -> Any:
    """The line of ``reply`` that reads as ``player``'s move now (the judge's reading:
    chat before it is passed over); None for ``move:`` lines."""
    from referee.ledger import replay

    if len(reply.lines) < 2:
        return None
    match = replay.replay(gf, seed)
    return reading.take_line(reply, (), match.game, match.state, player)


def answer_rejection(gf: gamefile.GameFile, raw: bytes, exc: RefereeError,
                     reply_out: Path | None, sender: str, player: str | None,
                     taken: Any = None, token: str | None = None) -> None:
    """Write the mail that answers a rejected reply (one mail, to ``reply_out``; ``-``:
    standard output). ``player``: the authenticated player, whose registered address
    gets the reason and the legal moves, under a subject rebuilt from the game and
    their ``token``; it is written in their recorded language. None: the mail was not
    authenticated, and its From address gets a fixed answer that quotes nothing of it
    (:func:`referee.mail.rejections.stranger_answer`), in the current language.
    ``taken``: the line read as the move when chat came first (the answer names it).
    Unlike the judge, this keeps no record of whom it answered: each run writes one
    answer, and whoever sends it on decides (docs/mail.md)."""
    from referee import mail
    from referee.mail import MailError, intake

    if reply_out is None:
        return
    reply = mail.parse_reply(raw)
    if taken is not None:
        reply = reading.from_taken(reply, taken)
    settings = roster.settings(gf.data)
    to = settings.address(player) if player is not None and player in gf.players else None
    if player is not None and to is not None:
        with i18n.language(settings.lang(player)):
            reason = "\n".join([*reading.taken_note(taken), exc.message])
            message = mail.rejection(reply, reason, getattr(exc, "legal", []), sender=sender,
                                     to=to, game_id=gf.game_id, player=player, token=token,
                                     date=mail_date())
    else:
        if not reply.sender or not isinstance(exc, intake.Refusal):
            return  # (nobody to tell; a move is refused only after the intake passed)
        try:
            message = mail.stranger_answer(
                reply.sender, _("Not accepted: {reason}. Nothing was done.").format(
                    reason=exc.public), sender=sender, msgid=intake.read(raw).msgid,
                date=mail_date())
        except MailError:  # an address no mail can go to: no answer (the refusal stands)
            return
    _write_answer(message, reply_out)


def _write_answer(message: Any, reply_out: Path) -> None:
    """``message`` as an mbox to ``reply_out`` (``-``: standard output)."""
    from referee import mail

    if str(reply_out) == "-":
        mail.write_stdout([message], sys.stdout)
        return
    import io  # the one atomic write: it replaces a symlink there, never writes through it

    from referee.errors import GameFileError
    from referee.ledger import fileio

    text = io.StringIO()
    mail.write_stdout([message], text)
    try:
        fileio.write_atomic(reply_out, text.getvalue().encode("utf-8", "surrogateescape"),
                            durable=False, what="answer")
    except GameFileError as exc:  # "cannot write the answer PATH: REASON; ..."
        reason = exc.message.rsplit(": ", 1)[-1].removesuffix("; nothing was changed")
        raise UsageError(f"cannot write {reply_out}: {reason}") from None


def game_mails(path: Path, secret_path: Path | None, sender: str, waiting_only: bool
               ) -> tuple[gamefile.GameFile, list[Any], list[str]]:
    """The game at ``path`` replayed with its secret, its mails (to the players who must
    move their view and options, to the others the public update) and the players left
    out for want of an address. Raises SealedError without the secret, and the errors of
    reading and replaying."""
    from referee.ledger import replay

    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        raise SealedError("mailing needs the game's secret", hints=["give --secret"])
    match = replay.replay(gf, seed)
    messages, skipped = build_mails(gf, match, seed, sender, waiting_only, path.name)
    return gf, messages, skipped


def build_mails(gf: gamefile.GameFile, match: Match, seed: str, sender: str,
                waiting_only: bool, name: str) -> tuple[list[Any], list[str]]:
    from referee import mail
    from referee.mail import intake

    game = match.game
    waiting = gamefile.waiting(gf, match)
    settings = roster.settings(gf.data)
    outgoing, skipped = [], []
    for pid in gf.players:
        if waiting_only and pid not in waiting:
            continue
        to = settings.to(pid)  # the name quoted: it can add no recipient
        if not to:
            skipped.append(pid)
            continue
        lang = settings.lang(pid)  # each player reads their own language
        with i18n.language(lang):
            subject = mail.subject(game.title, gf.game_id, waiting)
            if pid in waiting:
                body = status_text(gf, match, pid, name) + "\n\n" + _(
                    "Reply to this mail with your move on the first line (or lines "
                    "'move: ...' for several). Keep the [#...] tag in the subject: it is "
                    "your token.") + "\n"
            else:
                body = status_text(gf, match, None, name) + "\n"
        outgoing.append(mail.Outgoing(pid, to, subject, body, lang))
    messages = mail.compose(outgoing, sender=sender, game_id=gf.game_id,
                            move_number=intake.plays(gf.log), date=mail_date(),
                            key=secret.mail_key(seed),
                            token_names={p: settings.token_name(p) for p in gf.players})
    return messages, skipped


def deliver(messages: list[Any], maildir: Path | None, smtp: str | None, starttls: bool,
            user: str | None, password_env: str, quiet: bool) -> list[str]:
    from referee import mail

    if maildir is not None:
        return mail.write_maildir(messages, maildir)
    if smtp is not None:
        host, _, port = smtp.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--smtp takes HOST:PORT, got {smtp!r}")
        password = os.environ.get(password_env) if user else None
        if user and password is None:
            raise UsageError(f"--user needs the password in the environment variable "
                             f"{password_env}")
        return mail.send_smtp(messages, host, int(port), starttls=starttls, username=user,
                              password=password)
    if not quiet:
        mail.write_stdout(messages, sys.stdout)
    return []

