"""The judge against real servers: Dovecot (IMAP) and an SMTP server (aiosmtpd) that
delivers into Dovecot's mailboxes. Whole 3-player games of both real games are played
entirely by mail by scripted mail clients, while the judge runs as a separate process
that is killed twice.

Without Dovecot these tests skip with the reason, except with CI=true, where they fail.
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import pwd
import random
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from referee.ledger import gamefile, replay, secret
from tests.conftest import free_port, missing, run
from tests.judge.support import STYLES, Player, parse, summary

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
USERS = ("ann", "ben", "cat", "referee", "gm")
PASSWORD = "secret-pw"
SENDER = "Referee <referee@example.org>"
PROGRESS_TIMEOUT = 300  # seconds without a move or a delivered mail: the judge hangs


def need(what: str) -> None:
    missing(f"{what} (server tests must run under CI; see .ci/install-mail.sh)")


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    for _ in range(100):
        if proc.poll() is not None:
            break
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"dovecot did not start: {log.read_text() if log.exists() else '-'}")


class Dovecot:
    """A throwaway Dovecot: IMAP on a loopback port, users from a passwd-file, Maildirs
    in a temporary directory."""

    def __init__(self) -> None:
        binary = shutil.which("dovecot") or (
            "/usr/sbin/dovecot" if Path("/usr/sbin/dovecot").exists() else None)
        if binary is None:
            need("Dovecot is not installed (apt-get install dovecot-imapd)")
        # its own short directory, which the dovecot user can enter (pytest's tmp_path is
        # private to the test user, and unix socket paths must stay under 108 bytes)
        root = self.root = Path(tempfile.mkdtemp(prefix="dv"))
        root.chmod(0o755)
        self.port = free_port()
        self.mail = root / "mail"
        self.run_dir = root / "run"
        for sub in ("state", "mail", "run"):
            (root / sub).mkdir()
        (root / "users").write_text("".join(f"{u}:{{PLAIN}}{PASSWORD}\n" for u in USERS))
        if os.geteuid() == 0:
            owner = pwd.getpwnam("dovecot")
            uid, gid, extra = owner.pw_uid, owner.pw_gid, ""
        else:
            uid, gid = os.getuid(), os.getgid()
            me = pwd.getpwuid(uid).pw_name
            extra = f"default_internal_user = {me}\ndefault_login_user = {me}\n"
        self.uid, self.gid = uid, gid
        conf = root / "dovecot.conf"
        conf.write_text(f"""base_dir = {self.run_dir}
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
mail_location = maildir:{self.mail}/%u
{extra}passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={self.mail}/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
""")
        for user in USERS:
            for sub in ("new", "cur", "tmp"):
                (self.mail / user / sub).mkdir(parents=True)
        self._chown(self.mail)
        self.proc = subprocess.Popen([binary, "-F", "-c", str(conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, self.proc, root / "dovecot.log")

    def _chown(self, top: Path) -> None:
        if os.geteuid() != 0:
            return
        for path in [top, *top.rglob("*")]:
            os.chown(path, self.uid, self.gid)

    def deliver(self, user: str, raw: bytes) -> None:
        box = self.mail / user
        name = f"{time.time_ns()}.{hashlib.sha256(raw).hexdigest()[:16]}.smtp"
        tmp = box / "tmp" / name
        tmp.write_bytes(raw)
        if os.geteuid() == 0:
            os.chown(tmp, self.uid, self.gid)
        os.replace(tmp, box / "new" / name)

    def url(self, user: str) -> str:
        return f"imap://{user}:{PASSWORD}@127.0.0.1:{self.port}/INBOX"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)


class Delivering:
    """aiosmtpd handler: each recipient user@example.org goes into Dovecot's Maildir."""

    def __init__(self, dovecot: Dovecot) -> None:
        self.dovecot = dovecot
        self.count = 0

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        user, _, domain = address.lower().partition("@")
        if domain != "example.org" or user not in USERS:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        for rcpt in envelope.rcpt_tos:
            self.dovecot.deliver(rcpt.split("@")[0].lower(), envelope.original_content)
            self.count += 1
        return "250 Message accepted"


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[Dovecot, int, Delivering]]:
    try:
        controller_mod = __import__("aiosmtpd.controller", fromlist=["Controller"])
    except ImportError:
        need("aiosmtpd is not installed")
    try:
        __import__("imapclient")
    except ImportError:
        need("imapclient is not installed (pip install 'referee[mail]')")
    dovecot = Dovecot()
    handler = Delivering(dovecot)
    port = free_port()
    controller = controller_mod.Controller(handler, hostname="127.0.0.1", port=port,
                                           ready_timeout=5)
    controller.start()
    try:
        yield dovecot, port, handler
    finally:
        controller.stop()
        dovecot.stop()


class Client:
    """A player's mail program: reads their IMAP mailbox, sends by SMTP."""

    def __init__(self, dovecot: Dovecot, user: str, smtp_port: int) -> None:
        import imapclient

        self.imap = imapclient.IMAPClient("127.0.0.1", port=dovecot.port, ssl=False)
        self.imap.login(user, PASSWORD)
        self.imap.select_folder("INBOX")
        self.smtp_port = smtp_port
        self.messages: dict[int, EmailMessage] = {}

    def read(self) -> list[EmailMessage]:
        self.imap.noop()
        uids = [u for u in self.imap.search(["ALL"]) if u not in self.messages]
        if uids:
            for uid, data in self.imap.fetch(uids, ["BODY.PEEK[]"]).items():
                self.messages[uid] = parse(data[b"BODY[]"])
        return [self.messages[u] for u in sorted(self.messages)]

    def send(self, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=30) as smtp:
            smtp.sendmail(email.utils.parseaddr(str(parse(raw)["From"]))[1],
                          ["referee@example.org"], re.sub(rb"\r?\n", b"\r\n", raw))

    def close(self) -> None:
        self.imap.logout()


def start_judge(dovecot: Dovecot, games: Path, smtp_port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "judge", str(games), "--imap",
         dovecot.url("referee"), "--smtp", f"127.0.0.1:{smtp_port}", "--from", SENDER,
         "--idle", "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)


def test_imap_inbox_marks_done_and_idle_wakes(servers: tuple[Dovecot, int, Delivering]
                                              ) -> None:
    from referee.doors.mail.transport import ImapInbox

    dovecot, _, _ = servers
    inbox = ImapInbox(dovecot.url("referee"), idle=True)
    try:
        assert list(inbox.pending()) == []
        later = threading.Timer(0.5, dovecot.deliver, ("referee", b"From: a@example.org\r\n"
                                                       b"Subject: x\r\n\r\nhello\r\n"))
        later.start()
        started = time.monotonic()
        inbox.wait(8)  # IDLE returns when the message arrives, not after 8 s
        later.join()
        assert time.monotonic() - started < 6
        items = list(inbox.pending())
        assert [i.raw.split(b"\r\n")[1] for i in items] == [b"Subject: x"]
        inbox.done(items[0])
        assert list(inbox.pending()) == []
    finally:
        inbox.close()


def test_whole_games_by_mail_through_imap_and_smtp_with_the_judge_killed_twice(
        servers: tuple[Dovecot, int, Delivering], tmp_path: Path) -> None:
    dovecot, smtp_port, handler = servers
    games = tmp_path / "games"
    games.mkdir()
    spec = ",".join(f"{p}={p.title()} <{p}@example.org>" for p in ("ann", "ben", "cat"))
    paths = {}
    for game in ("staufer", "dynasties"):
        paths[game] = games / f"{game}-1.json"
        result = subprocess.run([sys.executable, "-m", "referee", "new", game,
                                 str(paths[game]), "--sealed", "--id", f"{game}-1",
                                 "--players", spec], cwd=ROOT, capture_output=True)
        assert result.returncode == 0, result.stderr
    rng = random.Random(11)
    clients = {p: Client(dovecot, p, smtp_port) for p in ("ann", "ben", "cat")}
    players = [Player(p, f"{p}@example.org", STYLES[(i + j) % len(STYLES)], rng,
                      game=f"{game}-1")
               for j, game in enumerate(paths) for i, p in enumerate(clients)]
    judge = start_judge(dovecot, games, smtp_port)
    kills, replies = 0, 0
    progress, last_change = (-1, -1), time.monotonic()
    try:
        # progress = moves played or mails delivered by the judge; only a hang goes 300 s
        # without either, a slow machine (load 10) does not
        while time.monotonic() - last_change < PROGRESS_TIMEOUT:
            moved = sum(len(gamefile.read(p).log) for p in paths.values())
            if (moved, handler.count) != progress:
                progress, last_change = (moved, handler.count), time.monotonic()
            if (kills == 0 and moved >= 25) or (kills == 1 and moved >= 70):
                judge.send_signal(signal.SIGKILL)
                judge.wait()
                kills += 1
                judge = start_judge(dovecot, games, smtp_port)
            inboxes = {p: c.read() for p, c in clients.items()}
            over = {(summary(m)[4], summary(m)[0]) for msgs in inboxes.values()
                    for m in msgs if summary(m)[3].startswith("Game over")}
            if len(over) == 6:
                break
            for player in players:
                raw = player.act(inboxes[player.pid], paths[player.game.split("-")[0]])
                if raw is not None:
                    clients[player.pid].send(raw)
                    replies += 1
            time.sleep(0.05)
    finally:
        judge.send_signal(signal.SIGTERM)
        judge.wait(10)
        for client in clients.values():
            client.close()
    errors = judge.stderr.read().decode() if judge.stderr else ""
    assert kills == 2, f"no progress for {PROGRESS_TIMEOUT} s at {progress}: {errors}"
    for game, path in paths.items():
        gf = gamefile.read(path)
        state = replay.replay(gf, secret.find_seed(gf, None, path))
        assert state.game.finished(state.state), f"{game} stuck at entry {len(gf.log)} {errors}"
        mails = [e["mail"] for e in gf.log if "move" in e]
        assert len(mails) == len(set(mails))
    assert replies == sum(1 for p in paths.values() for e in gamefile.read(p).log
                          if "move" in e)
    assert handler.count > 0


def test_hostile_mails_over_imap_are_flagged_and_the_next_one_is_played(
        servers: tuple[Dovecot, int, Delivering], tmp_path: Path) -> None:
    import imapclient

    from tests.judge.support import reply
    from tests.judge.test_hostile_mail import huge, nested
    from tests.judge.test_maildir_loop import Setup

    dovecot, smtp_port, _ = servers
    setup = Setup(tmp_path)
    args = ["judge", str(setup.games), "--imap", dovecot.url("referee"), "--smtp",
            f"127.0.0.1:{smtp_port}", "--from", SENDER, "--once"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    ann = Client(dovecot, "ann", smtp_port)
    first = ann.read()[-1]
    ann.close()
    box = imapclient.IMAPClient("127.0.0.1", port=dovecot.port, ssl=False)
    box.login("referee", PASSWORD)
    box.select_folder("INBOX")
    hostile = [nested(reply(first, "take 1", msgid="<deep@player.example>"), 1000),
               huge(reply(first, "take 1", msgid="<huge@player.example>"))]
    for raw in [*hostile, reply(first, "take 2")]:
        dovecot.deliver("referee", raw)
        box.noop()  # Dovecot numbers it now: the mails keep this order
    try:
        result = run(*args)
        assert result.exit_code == 0, result.output
        assert "quarantined: mail 1: cannot read this mail: its MIME parts nest more than 10" \
            in result.output
        assert "quarantined: mail 2: larger than 1 MiB" in result.output
        flags = box.get_flags(box.search(["ALL"]))
    finally:
        box.logout()
    assert [sorted(set(flags[uid]) - {b"\\Recent"}) for uid in sorted(flags)] == [
        [b"$RefereeQuarantine", b"\\Flagged", b"\\Seen"]] * 2 + [[b"\\Seen"]]
    log = gamefile.read(setup.path).log
    assert [e["move"]["n"] for e in log if "move" in e] == [2]
