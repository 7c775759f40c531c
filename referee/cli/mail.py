"""Mail: the `mail` command and the e-mail side of `move --from-email`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from referee import gamefile, secret
from referee.cli import main
from referee.cli.common import (
    emit_json,
    handles_errors,
    mail_date,
    read_bytes,
    read_stdin,
    secret_option,
    status_text,
)
from referee.engine import Match
from referee.errors import RefereeError, SealedError, UsageError


class mail_identify:
    """The ``identify`` step of :func:`referee.submit.submit` for a reply mail: reads the
    mail once, authenticates it inside the game's lock, and keeps its bytes (``raw``) for
    the answer to a rejection."""

    def __init__(self, email_path: Path, player: str | None, reply_out: Path | None,
                 sender: str) -> None:
        self.email_path, self.player = email_path, player
        self.reply_out, self.sender = reply_out, sender
        self.raw = b""

    def __call__(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], dict[str, Any]]:
        player, texts, self.raw = from_email(gf, seed, self.email_path, self.player,
                                             self.reply_out, self.sender)
        return player, texts, {}


def from_email(gf: gamefile.GameFile, seed: str | None, email_path: Path,
               player: str | None, reply_out: Path | None, sender: str
               ) -> tuple[str, list[str], bytes]:
    """The authenticated player, the moves and the raw bytes of a reply mail.
    Raises MailError (after writing the rejection to ``reply_out``)."""
    from referee import mail

    if seed is None:
        raise SealedError("mail tokens need the game's secret",
                                   hints=["give --secret FILE"])
    raw = read_stdin() if str(email_path) == "-" else read_bytes(email_path)
    reply = mail.parse_reply(raw)

    def refuse(reason: str) -> mail.MailError:
        exc = mail.MailError(reason)
        answer_rejection(gf, raw, exc, reply_out, sender, authentic=False)
        return exc

    if reply.game_id != gf.game_id:
        raise refuse(f"this mail is for game {reply.game_id!r}, not {gf.game_id!r}")
    if not mail.is_authentic(reply, secret.mail_key(seed)):
        raise refuse("the mail is not authenticated: its token is missing or wrong (reply to "
                     "the referee's mail and keep the [#...] tag in the subject)")
    assert reply.player is not None
    if player is not None and player != reply.player:
        raise refuse(f"the mail is {reply.player}'s, not {player}'s")
    if reply.move_number != len(gf.log):
        # A replayed or stale mail: it answers another state of the game than this one.
        raise refuse(
            f"this mail answers the referee's mail after move {reply.move_number}, but the "
            f"game is at move {len(gf.log)}: reply to the latest mail"
            if reply.move_number is not None else
            "cannot tell which referee mail this answers: reply to the latest mail"
        )
    if not reply.moves:
        raise refuse("no move found in the mail: write it on the first line, or as 'move: ...'")
    return reply.player, list(reply.moves), raw



def answer_rejection(gf: gamefile.GameFile, raw: bytes, exc: RefereeError,
                     reply_out: Path | None, sender: str, authentic: bool) -> None:
    """Write the mail that answers a rejected reply (only legal moves if authentic)."""
    from referee import mail

    if reply_out is None:
        return
    reply = mail.parse_reply(raw)
    legal = getattr(exc, "legal", []) if authentic else []
    to = None
    if authentic and reply.player in gf.players:
        to = gf.player(reply.player).get("email")
    message = mail.rejection(reply, exc.message, legal, sender=sender, to=to, date=mail_date())
    if str(reply_out) == "-":
        mail.write_stdout([message], sys.stdout)
    else:
        try:
            with reply_out.open("w") as f:
                mail.write_stdout([message], f)
        except OSError as exc:
            raise UsageError(f"cannot write {reply_out}: {exc.strerror}") from None



# --- mail -----------------------------------------------------------------------------


@main.command(name="mail")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@secret_option
@click.option("--from", "sender", required=True, help="The referee's From address.")
@click.option("--waiting-only", is_flag=True, help="Mail only the players who must move.")
@click.option("--maildir", type=click.Path(path_type=Path), help="Deliver into this Maildir.")
@click.option("--smtp", metavar="HOST:PORT", help="Send through this SMTP server.")
@click.option("--starttls", is_flag=True, help="With --smtp: upgrade with STARTTLS.")
@click.option("--user", help="With --smtp: log in as USER.")
@click.option("--password-env", metavar="VAR", default="REFEREE_SMTP_PASSWORD",
              show_default=True, help="With --user: the environment variable with the password.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON (a summary).")
@handles_errors
def mail_command(path: Path, secret_path: Path | None, sender: str, waiting_only: bool,
                 maildir: Path | None, smtp: str | None, starttls: bool, user: str | None,
                 password_env: str, as_json: bool) -> None:
    """Mail the players after a move: to each player who must move, their private view,
    legal moves and how to reply (with their token); to the others, the public update.

    Output: an mbox stream on stdout (default), a Maildir, or an SMTP server.
    """

    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        raise SealedError("mailing needs the game's secret", hints=["give --secret"])
    match = gamefile.replay(gf, seed)
    messages, skipped = build_mails(gf, match, seed, sender, waiting_only, path.name)
    delivered = deliver(messages, maildir, smtp, starttls, user, password_env, as_json)
    if as_json:
        emit_json({"mailed": [m["To"] for m in messages], "skipped": skipped,
                   "delivered": delivered})
    elif maildir or smtp:
        click.echo(f"mailed {len(messages)} players: {', '.join(m['To'] for m in messages)}")
    for pid in skipped:
        click.echo(f"note: {pid} has no e-mail address in the game file; not mailed", err=True)
    if not gf.sealed:
        click.echo("note: this game is not sealed; anyone with the file can compute the mail "
                   "tokens. Use `referee new --sealed` for games played by mail.", err=True)


def build_mails(gf: gamefile.GameFile, match: Match, seed: str, sender: str,
                waiting_only: bool, name: str) -> tuple[list[Any], list[str]]:
    from referee import mail

    game = match.game
    waiting = gamefile.waiting(gf, match)
    subject = mail.subject(game.title, gf.game_id, waiting)
    outgoing, skipped = [], []
    for pid in gf.players:
        if waiting_only and pid not in waiting:
            continue
        address = gf.player(pid).get("email")
        if not address:
            skipped.append(pid)
            continue
        to = f"{gf.player(pid).get('name', pid)} <{address}>"
        if pid in waiting:
            body = status_text(gf, match, pid, name) + (
                "\n\nReply to this mail with your move on the first line (or lines "
                "'move: ...' for several). Keep the [#...] tag in the subject: it is your "
                "token.\n")
        else:
            body = status_text(gf, match, None, name) + "\n"
        outgoing.append(mail.Outgoing(pid, to, subject, body))
    messages = mail.compose(outgoing, sender=sender, game_id=gf.game_id,
                            move_number=len(gf.log), date=mail_date(),
                            key=secret.mail_key(seed))
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

