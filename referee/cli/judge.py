"""`referee judge`: the mail robot (thin: options to transports, then the library)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from referee.cli.common import PATH, command
from referee.errors import UsageError

EX_TEMPFAIL = 75  # sysexits.h: an MTA keeps a piped mail and delivers it again later


def _smtp(spec: str, sender: str, starttls: bool, user: str | None):
    from email.utils import parseaddr

    from referee.judge.transport import SmtpOutbox
    from referee.mail.delivery import SmtpClient

    host, _, port = spec.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--smtp takes HOST:PORT, got {spec!r}")
    password = os.environ.get("REFEREE_SMTP_PASSWORD") if user else None
    if user and password is None:
        raise UsageError("--user needs the password in REFEREE_SMTP_PASSWORD")
    client = SmtpClient(host, int(port), starttls=starttls, username=user, password=password)
    return SmtpOutbox(client, parseaddr(sender)[1] or sender)


def _stdin_mail(judge, log) -> None:  # type: ignore[no-untyped-def]
    """One mail on standard input (an MTA pipe): nowhere to keep a bad one, so it is
    logged and dropped; a failure of the disk or of the outgoing mail exits EX_TEMPFAIL
    (the MTA keeps the mail and pipes it again later: a mail already handled is then
    recognised)."""
    import sys

    from referee import judge as judgemod
    from referee.judge.transport import MAX_MAIL_BYTES, too_large
    from referee.mail.delivery import DeliveryError

    raw = sys.stdin.buffer.read(MAX_MAIL_BYTES + 1)
    size = len(raw)
    while size > MAX_MAIL_BYTES and (rest := sys.stdin.buffer.read(1 << 16)):
        size += len(rest)  # read to the end: the MTA must not see a broken pipe
    try:
        judgemod.sweep(judge)
        if size > MAX_MAIL_BYTES:
            log(f"quarantined: mail on stdin: {too_large(size)} (dropped)")
        else:
            outcome = judgemod.process(judge, raw)
            if outcome.action == judgemod.QUARANTINED:
                log(f"quarantined: mail on stdin: {outcome.detail} (dropped)")
        judgemod.sweep(judge)
    except (judgemod.RetryLater, DeliveryError) as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(EX_TEMPFAIL)


@command("judge", json_help=None)
@click.argument("games_dir", metavar="GAMES_DIR",
                type=click.Path(path_type=Path, file_okay=False))
@click.option("--imap", metavar="URL", help="Read mail from imap[s]://USER[:PW]@HOST[:PORT]/FOLDER.")
@click.option("--maildir", "maildir_in", metavar="IN", type=PATH,
              help="Read mail from this Maildir.")
@click.option("--stdin", "from_stdin", is_flag=True,
              help="Read one message on stdin (an MTA pipe).")
@click.option("--smtp", metavar="HOST:PORT", help="Send through this SMTP server.")
@click.option("--starttls", is_flag=True, help="With --smtp: upgrade with STARTTLS.")
@click.option("--user", help="With --smtp: log in (password in REFEREE_SMTP_PASSWORD).")
@click.option("--outbox", metavar="MAILDIR", type=PATH,
              help="Write outgoing mail into this Maildir instead of sending it.")
@click.option("--from", "sender", help="The judge's From address (with the mail options).")
@click.option("--matrix", "matrix_url", metavar="URL",
              help="Play in chat too (or only): the judge's Matrix homeserver, http(s)://HOST"
                   "[:PORT] (docs/chat.md).")
@click.option("--matrix-user", metavar="@USER:SERVER",
              help="With --matrix: the judge's account (password in REFEREE_MATRIX_PASSWORD, "
                   "or an access token in REFEREE_MATRIX_TOKEN).")
@click.option("--gm", metavar="ADDRESS", help="The game master's address (all games).")
@click.option("--deadline", "deadline_hours", type=click.IntRange(1, 8760), metavar="HOURS",
              help="Time for each decision (a game's meta entry overrides it).")
@click.option("--deadline-bot", type=click.Choice(("random", "greedy", "mcts")),
              metavar="LEVEL", help="At a missed deadline a bot of LEVEL (random, greedy, "
                                    "mcts) plays the missed decision instead of only a mail "
                                    "(a game's deadline entry overrides it).")
@click.option("--site-url", metavar="URL",
              help="The games' site (`referee site`): notices link to URL/GAME-ID/.")
@click.option("--notify-private", is_flag=True,
              help="Let players' channels post to this machine or a private network "
                   "(refused by default).")
@click.option("--once", is_flag=True, help="Process what is there, then stop (default).")
@click.option("--poll", type=click.FloatRange(0.01), metavar="SECONDS",
              help="Run until stopped, looking for mail every SECONDS.")
@click.option("--idle", is_flag=True, help="With --imap: run until stopped, woken by IMAP IDLE.")
@click.option("--quiet", "-q", is_flag=True, help="Do not log each message.")
def judge_command(games_dir: Path, imap: str | None, maildir_in: Path | None,
                  from_stdin: bool, smtp: str | None, starttls: bool, user: str | None,
                  outbox: Path | None, sender: str | None, matrix_url: str | None,
                  matrix_user: str | None, gm: str | None,
                  deadline_hours: int | None, deadline_bot: str | None,
                  site_url: str | None, notify_private: bool, once: bool,
                  poll: float | None, idle: bool, quiet: bool) -> None:
    """Run the games in GAMES_DIR by mail: read the players' replies, play them, and
    send every answer and notification (docs/judge.md)."""
    from referee import judge as judgemod
    from referee.judge import loop, store
    from referee.judge.transport import ImapInbox, MaildirInbox, MaildirOutbox

    mail = any((imap, maildir_in, from_stdin, smtp, outbox, sender))
    if matrix_url is None or mail:
        _check_mail(imap, maildir_in, from_stdin, smtp, outbox, sender)
    if sum((once, poll is not None, idle)) > 1:
        raise UsageError("give at most one of --once, --poll, --idle")
    if idle and imap is None:
        raise UsageError("--idle needs --imap")
    if matrix_url is not None and (idle or from_stdin):
        raise UsageError("--matrix goes with --once or --poll (or alone: a long-running "
                         "judge that waits on the homeserver), not with --idle or --stdin")
    if site_url is not None and not re.match(r"^https?://[\x21-\x7e]{1,300}$", site_url):
        raise UsageError("--site-url takes an http:// or https:// URL without spaces")

    def log(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    config = judgemod.Config(games_dir, sender or "", gm=gm, deadline_hours=deadline_hours,
                             deadline_bot=deadline_bot, log=log, site_url=site_url,
                             notify_private=notify_private)
    if matrix_url is not None:
        _chat(config, matrix_url, matrix_user, mail, imap, maildir_in, smtp, starttls, user,
              outbox, once, poll)
        return
    out = _smtp(smtp, sender, starttls, user) if smtp else MaildirOutbox(outbox)  # type: ignore[arg-type]
    with store.exclusive(games_dir):
        judge = judgemod.Judge(config, out)
        try:
            if from_stdin:
                _stdin_mail(judge, log)
                return
            inbox = ImapInbox(imap, idle=idle) if imap else MaildirInbox(maildir_in)  # type: ignore[arg-type]
            try:
                loop.serve(judge, inbox, out, log,
                           None if poll is None and not idle else poll or 300.0)
            finally:
                inbox.close()
        finally:
            out.close()


def _check_mail(imap: str | None, maildir_in: Path | None, from_stdin: bool,
                smtp: str | None, outbox: Path | None, sender: str | None) -> None:
    if sum(x is not None and x is not False for x in (imap, maildir_in, from_stdin or None)) != 1:
        raise UsageError("give exactly one of --imap URL, --maildir IN, --stdin (or "
                         "--matrix URL alone)")
    if (smtp is None) == (outbox is None):
        raise UsageError("give exactly one of --smtp HOST:PORT, --outbox MAILDIR")
    if not sender:
        raise UsageError("the mail options need --from ADDRESS")


def _chat(config, url: str, account: str | None, mail: bool,  # type: ignore[no-untyped-def]
          imap: str | None, maildir_in: Path | None, smtp: str | None, starttls: bool,
          user: str | None, outbox: Path | None, once: bool, poll: float | None) -> None:
    """The judge in chat (``--matrix``), with the mail beside it when its options are
    given: one process, one state, one lock."""
    from referee import judge as judgemod
    from referee.judge import chatrun, store
    from referee.judge.chatfront import MatrixDoor
    from referee.judge.core import Judge as CoreJudge
    from referee.judge.door import Doors
    from referee.judge.mailrun import run_once as mail_once
    from referee.judge.transport import ImapInbox, MaildirInbox, MaildirOutbox
    from referee.matrix import events

    if not re.match(r"^https?://[\x21-\x7e]{1,300}$", url):
        raise UsageError("--matrix takes the homeserver's http:// or https:// URL")
    if account is None or not events.valid_user(account):
        raise UsageError("--matrix needs --matrix-user @USER:SERVER, the judge's account")
    password = os.environ.get("REFEREE_MATRIX_PASSWORD")
    token = os.environ.get("REFEREE_MATRIX_TOKEN")
    if (password is None) == (token is None):
        raise UsageError("--matrix needs the account's password in REFEREE_MATRIX_PASSWORD "
                         "or an access token in REFEREE_MATRIX_TOKEN (one of them)")
    try:
        from referee.matrix.link import Link
    except ImportError:
        raise UsageError("--matrix needs the matrix extra",
                         hints=["pip install 'referee[matrix]'"]) from None
    link = Link(url, account, password=password, token=token)
    out = None
    try:
        link.connect()
        door = MatrixDoor(config, link)
        with store.exclusive(config.games_dir):
            if mail:
                out = _smtp(smtp, config.sender, starttls, user) if smtp else \
                    MaildirOutbox(outbox)  # type: ignore[arg-type]
                judge: CoreJudge = judgemod.Judge(config, out, chat=door)
                inbox = ImapInbox(imap) if imap else MaildirInbox(maildir_in)  # type: ignore[arg-type]
                try:
                    chatrun.serve(judge, door, config.log, None if once or poll is None
                                  else poll, also=lambda: _mail_pass(judge, inbox, mail_once))
                finally:
                    inbox.close()
            else:
                judge = CoreJudge(config, Doors(None, door, config.log))
                wait = None if once else poll if poll is not None else 30.0
                chatrun.serve(judge, door, config.log, wait)
    finally:
        if out is not None:
            out.close()
        link.close()


def _mail_pass(judge, inbox, mail_once) -> None:  # type: ignore[no-untyped-def]
    stats = mail_once(judge, inbox)
    if stats.processed:
        judge.config.log(stats.summary())
