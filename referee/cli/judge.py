"""`referee judge`: the judge over its doors (thin: options to doors, then the library)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import click

from referee.cli.common import PATH, command
from referee.errors import UsageError

EX_TEMPFAIL = 75  # sysexits.h: an MTA keeps a piped mail and delivers it again later
_URL = re.compile(r"^https?://[\x21-\x7e]{1,300}$")


def _smtp(spec: str, sender: str, starttls: bool, user: str | None) -> Any:
    from email.utils import parseaddr

    from referee.doors.mail.transport import SmtpOutbox
    from referee.mail.delivery import SmtpClient

    host, _, port = spec.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--smtp takes HOST:PORT, got {spec!r}")
    password = os.environ.get("REFEREE_SMTP_PASSWORD") if user else None
    if user and password is None:
        raise UsageError("--user needs the password in REFEREE_SMTP_PASSWORD")
    client = SmtpClient(host, int(port), starttls=starttls, username=user, password=password)
    return SmtpOutbox(client, parseaddr(sender)[1] or sender)


def _stdin_mail(judge: Any, log: Any) -> None:
    """One mail on standard input (an MTA pipe): nowhere to keep a bad one, so it is
    logged and dropped; a failure of the disk or of the outgoing mail exits EX_TEMPFAIL
    (the MTA keeps the mail and pipes it again later: a mail already handled is then
    recognised)."""
    import sys

    from referee import judge as judgemod
    from referee.doors.mail import QUARANTINED, process
    from referee.doors.mail.transport import MAX_MAIL_BYTES, too_large

    raw = sys.stdin.buffer.read(MAX_MAIL_BYTES + 1)
    size = len(raw)
    while size > MAX_MAIL_BYTES and (rest := sys.stdin.buffer.read(1 << 16)):
        size += len(rest)  # read to the end: the MTA must not see a broken pipe
    try:
        judgemod.sweep(judge)
        if size > MAX_MAIL_BYTES:
            log(f"quarantined: mail on stdin: {too_large(size)} (dropped)")
        else:
            outcome = process(judge, raw)
            if outcome.action == QUARANTINED:
                log(f"quarantined: mail on stdin: {outcome.detail} (dropped)")
            judge.doors.named("mail").flush()
        judgemod.sweep(judge)
    except (judgemod.RetryLater, judgemod.DoorDown) as exc:
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
@click.option("--mail-links", type=click.Choice(("plus", "subject", "off")), default="plus",
              show_default=True,
              help="One-click moves by mail: the tag of a move's mailto: link in the judge's "
                   "address (plus: referee+TAG@host, the server delivers plus-addresses), in "
                   "the subject, or no links (docs/mail.md).")
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
@click.option("--once", is_flag=True,
              help="One pass, then stop: the default with the mail options alone.")
@click.option("--poll", type=click.FloatRange(0.01), metavar="SECONDS",
              help="Run until stopped, a pass at least every SECONDS (with --matrix alone "
                   "the judge runs until stopped anyway, waiting on the homeserver).")
@click.option("--idle", is_flag=True, help="With --imap: run until stopped, woken by IMAP IDLE.")
@click.option("--github-event", metavar="FILE", type=PATH,
              help="Play one GitHub issues or issue_comment event (the file GitHub names "
                   "in GITHUB_EVENT_PATH) through the GitHub door, alone "
                   "(docs/git-and-ci.md).")
@click.option("--answer-out", metavar="ANSWER", type=PATH,
              help="With --github-event: write the answer to post on the issue (Markdown) "
                   "here.")
@click.option("--quiet", "-q", is_flag=True, help="Do not log each message.")
def judge_command(games_dir: Path, imap: str | None, maildir_in: Path | None,
                  from_stdin: bool, smtp: str | None, starttls: bool, user: str | None,
                  outbox: Path | None, sender: str | None, matrix_url: str | None,
                  matrix_user: str | None, mail_links: str, gm: str | None,
                  deadline_hours: int | None, deadline_bot: str | None,
                  site_url: str | None, notify_private: bool, once: bool,
                  poll: float | None, idle: bool, github_event: Path | None,
                  answer_out: Path | None, quiet: bool) -> None:
    """Run the games in GAMES_DIR by itself, through its doors: mail (the mail options)
    and chat (--matrix), one or both. It reads the players' messages, plays them, and
    sends every answer and notification (docs/judge.md, docs/chat.md). Or, with
    --github-event, the one event of a GitHub workflow run through the GitHub door.

    With the mail options alone it does one pass and stops unless --poll or --idle;
    with --matrix alone it runs until stopped (--once: one pass); with both, one pass
    unless --poll."""
    from referee import judge as judgemod
    from referee.judge import serve, store

    mail = any((imap, maildir_in, from_stdin, smtp, outbox, sender))
    if github_event is not None or answer_out is not None:
        if mail or matrix_url is not None or once or poll is not None or idle:
            raise UsageError("--github-event runs the GitHub door alone, one pass: leave "
                             "out the mail options, --matrix, --once, --poll and --idle")
        _github(games_dir, github_event, answer_out, gm, quiet)
        return
    if matrix_url is None or mail:
        _check_mail(imap, maildir_in, from_stdin, smtp, outbox, sender)
    if sum((once, poll is not None, idle)) > 1:
        raise UsageError("give at most one of --once, --poll, --idle")
    if idle and imap is None:
        raise UsageError("--idle needs --imap")
    if matrix_url is not None and (idle or from_stdin):
        raise UsageError("--matrix goes with --once or --poll (or alone: a long-running "
                         "judge that waits on the homeserver), not with --idle or --stdin")
    if site_url is not None and not _URL.match(site_url):
        raise UsageError("--site-url takes an http:// or https:// URL without spaces")
    if matrix_url is not None and not games_dir.is_dir():
        raise UsageError(f"{games_dir} is not a directory")
    chat = _chat_login(matrix_url, matrix_user, games_dir) if matrix_url is not None \
        else None

    def log(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    config = judgemod.Config(games_dir, sender or "", gm=gm, deadline_hours=deadline_hours,
                             deadline_bot=deadline_bot, log=log, site_url=site_url,
                             notify_private=notify_private)
    doors: list[Any] = []
    try:
        if mail:
            doors.append(_mail_door(config, imap, maildir_in, from_stdin, smtp, starttls,
                                    user, idle, outbox, mail_links))
        if chat is not None:
            from referee.doors.chat.door import MatrixDoor

            doors.append(MatrixDoor(config, chat))
            chat = None  # (closed with its door)
        with store.exclusive(games_dir):
            judge = judgemod.Judge(config, doors)
            try:
                if from_stdin:
                    _stdin_mail(judge, log)
                    return
                wait = _wait(mail, matrix_url is not None, once, poll, idle)
                if wait is not None:
                    log(_started(judge, doors, wait))
                serve.serve(judge, log, wait)
            finally:
                judge.close()
    finally:
        for door in doors:
            door.close()
        if chat is not None:
            chat.close()


def _github(games_dir: Path, event_path: Path | None, answer_out: Path | None,
            gm: str | None, quiet: bool) -> None:
    """One GitHub event through the GitHub door (referee/doors/github/): its outcome on
    stdout (``played: GAME REF ...``; a workflow reads the first word), the answer in
    ANSWER; exit 1 when the referee failed on it."""
    import sys

    from referee.doors.github import event, run
    from referee.judge.basics import Config

    if event_path is None or answer_out is None:
        raise UsageError("--github-event FILE and --answer-out ANSWER go together")
    if not games_dir.is_dir():
        raise UsageError(f"{games_dir} is not a directory")
    run.check_answer_out(answer_out)
    found = event.read(event_path)  # (bad input: exit 2 before anything is opened)

    def log(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    result = run.play_event(Config(games_dir, "", gm=gm, log=log), found, answer_out)
    click.echo(result.line())
    if result.action == "none":
        log(f"github: {event_path}: not for the referee; no answer written")
    if result.action == "failed":
        sys.exit(1)


def _wait(mail: bool, chat: bool, once: bool, poll: float | None, idle: bool
          ) -> float | None:
    """The seconds between passes (None: one pass): --poll, --idle (300: IDLE wakes it
    first), a chat-only judge's 30 (its sync waits for events), else one pass."""
    if once:
        return None
    if poll is not None:
        return poll
    if idle:
        return 300.0
    return 30.0 if chat and not mail else None


def _started(judge: Any, doors: list[Any], wait: float) -> str:
    """The start-up line of a judge that runs until stopped."""
    games = len(judge.game_paths())
    names = " and ".join(d.name for d in doors)
    return (f"judge: serving {games} {'game' if games == 1 else 'games'} in "
            f"{judge.config.games_dir} by {names}, a pass at least every {wait:g} s; "
            f"state in {judge.store.path}")


def _mail_door(config: Any, imap: str | None, maildir_in: Path | None, from_stdin: bool,
               smtp: str | None, starttls: bool, user: str | None, idle: bool,
               outbox: Path | None, mail_links: str = "plus") -> Any:
    from referee.doors.mail.door import MailDoor
    from referee.doors.mail.transport import ImapInbox, MaildirInbox, MaildirOutbox

    out = _smtp(smtp, config.sender, starttls, user) if smtp else \
        MaildirOutbox(outbox)  # type: ignore[arg-type]
    try:
        inbox = None if from_stdin else ImapInbox(imap, idle=idle) if imap else \
            MaildirInbox(maildir_in)  # type: ignore[arg-type]
    except BaseException:
        out.close()
        raise
    return MailDoor(config, out, inbox, mail_links)


def _check_mail(imap: str | None, maildir_in: Path | None, from_stdin: bool,
                smtp: str | None, outbox: Path | None, sender: str | None) -> None:
    if sum(x is not None and x is not False for x in (imap, maildir_in, from_stdin or None)) != 1:
        raise UsageError("give exactly one of --imap URL, --maildir IN, --stdin (or "
                         "--matrix URL alone)")
    if (smtp is None) == (outbox is None):
        raise UsageError("give exactly one of --smtp HOST:PORT, --outbox MAILDIR")
    if not sender:
        raise UsageError("the mail options need --from ADDRESS")


def check_homeserver(url: str) -> None:
    """``url`` as --matrix takes it: http(s)://HOST[:PORT] and nothing else (no user,
    password, path, query or fragment: the account's secret goes in the environment,
    never in a URL that logs and process lists show). Raises UsageError."""
    from urllib.parse import urlsplit

    if not _URL.match(url):
        raise UsageError("--matrix takes the homeserver's http:// or https:// URL")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"--matrix: not a homeserver URL: {exc}") from None
    if parts.username is not None or parts.password is not None:
        raise UsageError("--matrix takes http(s)://HOST[:PORT] without a user or password",
                         hints=["give the judge's account with --matrix-user and its "
                                "password in REFEREE_MATRIX_PASSWORD"])
    if parts.path not in ("", "/") or parts.query or parts.fragment or not parts.hostname:
        raise UsageError("--matrix takes http(s)://HOST[:PORT] only: no path, query or "
                         "fragment")
    del port


def _chat_login(url: str, account: str | None, games_dir: Path) -> Any:
    """The judge's account on its homeserver (the chat door's link, which logs in when
    the door is attached to the judge), its options checked."""
    import importlib.util

    from referee.doors.chat import events

    check_homeserver(url)
    if account is None or not events.valid_user(account):
        raise UsageError("--matrix needs --matrix-user @USER:SERVER, the judge's account")
    password = os.environ.get("REFEREE_MATRIX_PASSWORD")
    token = os.environ.get("REFEREE_MATRIX_TOKEN")
    if (password is None) == (token is None):
        raise UsageError("--matrix needs the account's password in REFEREE_MATRIX_PASSWORD "
                         "or an access token in REFEREE_MATRIX_TOKEN (one of them)")
    if importlib.util.find_spec("nio") is None:
        raise UsageError("--matrix needs the matrix extra (matrix-nio)",
                         hints=["pip install 'referee[matrix]'"])
    from referee.doors.chat.door import login_kept
    from referee.doors.chat.link import Link
    from referee.judge.store import peek_part

    link = Link(url.rstrip("/"), account, password=password, token=token)
    if token is None:  # the token of the last login with this password, if one is kept
        link.token = login_kept(peek_part(games_dir, "chat.login") or {}, link.url, account)
    try:
        link.connect()  # (before the judge's state is opened: a homeserver down changes
    except BaseException:  # nothing on disk)
        link.close()
        raise
    return link
