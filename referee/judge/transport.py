"""Where mail comes from and goes to: a Maildir or an IMAP mailbox in; a Maildir or an
SMTP server out. imapclient is imported only when IMAP is used (extra ``mail``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import smtplib
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from referee.errors import UsageError
from referee.mail import MailError


@dataclass(frozen=True)
class Incoming:
    """One message waiting to be processed: its key in the inbox and its bytes."""

    key: str
    raw: bytes


class Inbox(Protocol):
    def pending(self) -> Iterator[Incoming]: ...

    def done(self, item: Incoming) -> None: ...

    def wait(self, seconds: float) -> None: ...

    def close(self) -> None: ...


class Outbox(Protocol):
    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> None: ...

    def close(self) -> None: ...


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class MaildirInbox:
    """Messages in ``new/`` (and unseen ones in ``cur/``), oldest name first; done =
    moved to ``cur/`` with the S (seen) flag."""

    def __init__(self, path: Path) -> None:
        self.path = path
        for sub in ("new", "cur", "tmp"):
            if not (path / sub).is_dir():
                raise UsageError(f"{path} is not a Maildir (no {sub}/ directory)")

    def pending(self) -> Iterator[Incoming]:
        names = [f"new/{n}" for n in sorted(os.listdir(self.path / "new"))]
        names += [f"cur/{n}" for n in sorted(os.listdir(self.path / "cur"))
                  if "S" not in n.partition(":2,")[2]]
        for name in names:
            try:
                raw = (self.path / name).read_bytes()
            except FileNotFoundError:
                continue
            yield Incoming(name, raw)

    def done(self, item: Incoming) -> None:
        sub, _, name = item.key.partition("/")
        base, _, flags = name.partition(":2,")
        target = self.path / "cur" / f"{base}:2,{''.join(sorted(set(flags + 'S')))}"
        os.replace(self.path / item.key, target)
        _fsync_dir(self.path / "cur")
        if sub == "new":
            _fsync_dir(self.path / "new")

    def wait(self, seconds: float) -> None:
        import time

        time.sleep(seconds)

    def close(self) -> None:
        return None


class MaildirOutbox:
    """Writes each outgoing mail into a Maildir's ``new/``, named after its Message-ID,
    so that delivering the same mail twice (after a crash) writes it once."""

    idempotent = True

    def __init__(self, path: Path) -> None:
        self.path = path
        for sub in ("new", "cur", "tmp"):
            (path / sub).mkdir(parents=True, exist_ok=True)

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> None:
        name = hashlib.sha256(msgid.encode()).hexdigest()[:32] + ".referee"
        if (self.path / "new" / name).exists() or any(
                (self.path / "cur").glob(name + "*")):
            return
        tmp = self.path / "tmp" / name
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path / "new" / name)
        _fsync_dir(self.path / "new")

    def close(self) -> None:
        return None


class SmtpOutbox:
    """Sends through one SMTP session, opened on first use and kept while it works."""

    def __init__(self, host: str, port: int, *, envelope_from: str, starttls: bool = False,
                 user: str | None = None, password: str | None = None) -> None:
        self.host, self.port, self.envelope_from = host, port, envelope_from
        self.starttls, self.user, self.password = starttls, user, password
        self.client: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        where = f"{self.host}:{self.port}"
        try:
            client = smtplib.SMTP(self.host, self.port, timeout=30)
            client.ehlo()
            if self.starttls:
                client.starttls(context=ssl.create_default_context())
                client.ehlo()
            if self.user is not None:
                client.login(self.user, self.password or "")
        except (OSError, smtplib.SMTPException) as exc:
            raise MailError(f"cannot use the SMTP server {where}: {exc}") from exc
        return client

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> None:
        for attempt in (1, 2):
            if self.client is None:
                self.client = self._connect()
            try:
                crlf = re.sub(rb"\r?\n", b"\r\n", raw)
                self.client.sendmail(self.envelope_from, recipients, crlf)
                return
            except smtplib.SMTPServerDisconnected:
                self.client = None
                if attempt == 2:
                    raise MailError(f"the SMTP server {self.host}:{self.port} hung up") from None
            except (OSError, smtplib.SMTPException) as exc:
                self.close()
                raise MailError(f"sending {msgid} failed: {exc}") from exc

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self.client.quit()
            self.client = None


class ImapInbox:
    """An IMAP mailbox: unseen messages are pending (fetched with BODY.PEEK, so reading
    does not mark them); done = the \\Seen flag. ``imap://user:password@host:port/INBOX``
    or ``imaps://...``; the password may instead be in REFEREE_IMAP_PASSWORD."""

    def __init__(self, url: str, idle: bool = False) -> None:
        try:
            import imapclient
        except ImportError:
            raise UsageError("--imap needs imapclient: pip install 'referee[mail]'") from None
        parts = urlsplit(url)
        if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
            raise UsageError(f"--imap takes imap[s]://USER[:PASSWORD]@HOST[:PORT][/FOLDER], "
                             f"got {url!r}")
        password = unquote(parts.password) if parts.password else os.environ.get(
            "REFEREE_IMAP_PASSWORD")
        if password is None:
            raise UsageError("the IMAP password: put it in the URL or REFEREE_IMAP_PASSWORD")
        self.folder = unquote(parts.path.lstrip("/")) or "INBOX"
        self.use_idle = idle
        secure = parts.scheme == "imaps"
        try:
            self.client: Any = imapclient.IMAPClient(
                parts.hostname, port=parts.port or (993 if secure else 143), ssl=secure,
                timeout=60)
            self.client.login(unquote(parts.username), password)
            self.client.select_folder(self.folder)
        except (OSError, imapclient.exceptions.IMAPClientError) as exc:
            raise MailError(f"cannot use the IMAP mailbox {parts.hostname}: {exc}") from exc

    def pending(self) -> Iterator[Incoming]:
        uids = sorted(self.client.search(["NOT", "SEEN"]))
        for start in range(0, len(uids), 100):
            chunk = uids[start:start + 100]
            fetched = self.client.fetch(chunk, ["BODY.PEEK[]"])
            for uid in chunk:
                raw = fetched.get(uid, {}).get(b"BODY[]")
                if raw is not None:
                    yield Incoming(str(uid), bytes(raw))

    def done(self, item: Incoming) -> None:
        self.client.add_flags([int(item.key)], [b"\\Seen"])

    def wait(self, seconds: float) -> None:
        if not self.use_idle:
            import time

            time.sleep(seconds)
            return
        if self.client.search(["NOT", "SEEN"]):
            return  # arrived since the last look: no need to wait
        self.client.idle()
        try:
            self.client.idle_check(timeout=seconds)
        finally:
            self.client.idle_done()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.logout()
