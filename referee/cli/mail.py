"""Mail: the `mail` command and the e-mail side of `move --from-email` (the library's
:mod:`referee.mail.gamemail`)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.cli.common import (
    PATH,
    command,
    count,
    emit_json,
    read_bytes,
    read_stdin,
    secret_option,
)
from referee.mail.gamemail import MailIdentify, answer_rejection, deliver, game_mails

__all__ = ["answer_rejection", "mail_command", "mail_identify"]


def mail_identify(email_path: Path, player: str | None, reply_out: Path | None,
                  sender: str) -> MailIdentify:
    """The ``identify`` step of `move --from-email MESSAGE` (``-``: standard input)."""
    def read() -> bytes:
        return read_stdin() if str(email_path) == "-" else read_bytes(email_path)

    return MailIdentify(read, player, reply_out, sender)


# --- mail -----------------------------------------------------------------------------


@command("mail", json_help="Output JSON (a summary).")
@click.argument("path", metavar="FILE", type=PATH)
@secret_option
@click.option("--from", "sender", required=True, help="The referee's From address.")
@click.option("--waiting-only", is_flag=True, help="Mail only the players who must move.")
@click.option("--maildir", type=PATH, help="Deliver into this Maildir.")
@click.option("--smtp", metavar="HOST:PORT", help="Send through this SMTP server.")
@click.option("--starttls", is_flag=True, help="With --smtp: upgrade with STARTTLS.")
@click.option("--user", help="With --smtp: log in as USER.")
@click.option("--password-env", metavar="VAR", default="REFEREE_SMTP_PASSWORD",
              show_default=True, help="With --user: the environment variable with the password.")
def mail_command(path: Path, secret_path: Path | None, sender: str, waiting_only: bool,
                 maildir: Path | None, smtp: str | None, starttls: bool, user: str | None,
                 password_env: str, as_json: bool) -> None:
    """Mail the players after a move: to each player who must move, their private view,
    legal moves and how to reply (with their token); to the others, the public update.

    Output: an mbox stream on stdout (default), a Maildir, or an SMTP server.
    """

    gf, messages, skipped = game_mails(path, secret_path, sender, waiting_only)
    delivered = deliver(messages, maildir, smtp, starttls, user, password_env, as_json)
    if as_json:
        emit_json({"mailed": [m["To"] for m in messages], "skipped": skipped,
                   "delivered": delivered})
    elif maildir or smtp:
        click.echo(f"mailed {count(len(messages), 'player', 'players')}: "
                   f"{', '.join(m['To'] for m in messages)}")
    for pid in skipped:
        click.echo(f"note: {pid} has no e-mail address in the game file; not mailed", err=True)
    if not gf.sealed:
        click.echo("note: this game is not sealed; anyone with the file can compute the mail "
                   "tokens. Use `referee new --sealed` for games played by mail.", err=True)
