"""Delivery: an mbox stream, a Maildir, or an SMTP server.

One Maildir (:class:`Maildir`, the standard library's ``mailbox.Maildir`` with durable
writes) and one SMTP client (:class:`SmtpClient`) serve both ``referee mail`` and
``referee judge``.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import io
import mailbox
import os
import smtplib
import socket
import ssl
import stat
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from email.generator import Generator
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path
from typing import TextIO

from referee.errors import RefereeError, UsageError
from referee.ledger import fileio
from referee.mail.tokens import ENVELOPE_SENDER, MailError


class DeliveryError(MailError):
    """Delivery failed for now (server down or hung up, a temporary refusal, a full or
    read-only disk): the same mail may go through later."""


class Refused(MailError):
    """The server refused one mail (all its recipients, or its content). ``permanent``:
    a 5xx answer, sending it again would not help."""

    def __init__(self, message: str, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


# --------------------------------------------------------------------------- mbox


def _unixfrom_date(msg: Message) -> str:
    try:
        when = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError):
        when = datetime(1970, 1, 1, tzinfo=UTC)
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return f"{when:%a %b} {when.day:2d} {when:%H:%M:%S %Y}"


def write_stdout(messages: Iterable[Message], stream: TextIO) -> None:
    """Write ``messages`` to a text stream as mbox (see the package docstring)."""
    policy = email.policy.default.clone(linesep="\n")
    for msg in messages:
        stream.write(f"From {ENVELOPE_SENDER} {_unixfrom_date(msg)}\n")
        buf = io.StringIO()
        Generator(buf, mangle_from_=True, policy=policy).flatten(msg)  # type: ignore[arg-type]
        text = buf.getvalue()
        stream.write(text if text.endswith("\n") else text + "\n")
        stream.write("\n")


# --------------------------------------------------------------------------- Maildir


def _reason(exc: BaseException) -> str:
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return f"{exc.smtp_code} {text}".strip()
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({exc.strerror})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, RefereeError):
        return exc.message
    return str(exc) or type(exc).__name__


class Maildir(mailbox.Maildir):
    """The standard library's Maildir, with what a judge killed at any moment needs:
    every write is fsynced (file and folder), a mail can be added under a name of its
    own exactly once (:meth:`add_once`), and a message is marked seen (moved to
    ``cur/`` with the S flag) or moved to the quarantine folder in one rename.

    Keys are the file names up to the ``:2,`` info, as in ``mailbox.Maildir``.
    """

    QUARANTINE = "Quarantine"  # a Maildir++ subfolder: .Quarantine/

    def __init__(self, path: str | Path, *, create: bool = False) -> None:
        self.root = Path(path)
        try:
            if create:
                self.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # mails hold tokens
                for sub in ("new", "cur", "tmp"):
                    (self.root / sub).mkdir(mode=0o700, exist_ok=True)
            missing = [s for s in ("new", "cur", "tmp") if not (self.root / s).is_dir()]
        except OSError as exc:
            raise DeliveryError(f"cannot write to the maildir {path}: {_reason(exc)}") from exc
        if missing:
            raise UsageError(f"{path} is not a Maildir (no {missing[0]}/ directory)")
        super().__init__(str(path), factory=None, create=False)

    # ---- writing

    def add_durable(self, message: Message) -> str:
        """``add`` (a fresh unique name), then the file and ``new/`` fsynced."""
        key = self.add(message)
        _fsync_file(self.root / self._lookup(key))  # type: ignore[attr-defined]
        fileio.fsync_dir(self.root / "new")
        return key

    def add_once(self, name: str, raw: bytes) -> bool:
        """Put ``raw`` into ``new/NAME`` unless a message with key NAME is there (in
        ``new/`` or ``cur/``): delivering the same mail twice writes it once. The mail
        is written and fsynced in ``tmp/``, then linked into ``new/``. Raises
        DeliveryError (the maildir unchanged). Returns whether it was added."""
        if name in self:
            return False
        tmp = self.root / "tmp" / name
        try:
            fileio.write_atomic(tmp, raw, mode=0o600, what="mail")
            try:
                os.link(tmp, self.root / "new" / name)
            except FileExistsError:
                return False
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        except (OSError, RefereeError) as exc:
            raise DeliveryError(f"cannot write to the maildir {self.root}: "
                                f"{_reason(exc)}") from exc
        fileio.fsync_dir(self.root / "new")
        return True

    # ---- reading

    def pending(self) -> list[str]:
        """Keys of the messages not seen yet: ``new/`` first, then ``cur/`` without the
        S flag, each by name (a Maildir name starts with its delivery time)."""
        self._refresh()  # type: ignore[attr-defined]
        found: list[tuple[int, str]] = []
        for key in list(self._toc):  # type: ignore[attr-defined]
            try:
                sub, _, info = self._lookup(key).partition(os.sep)  # type: ignore[attr-defined]
            except KeyError:
                continue
            if sub == "new":
                found.append((0, key))
            elif "S" not in info.partition(self.colon + "2,")[2]:
                found.append((1, key))
        return [key for _, key in sorted(found)]

    def read(self, key: str, limit: int) -> bytes | None:
        """The bytes of message ``key``, or None if it is larger than ``limit`` (not
        read). Raises KeyError if it is gone; OSError for anything but a regular file
        (a symlink, a FIFO: never waited on)."""
        path = self.root / self._lookup(key)  # type: ignore[attr-defined]
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(f"{path.name} is not a regular file")
            if st.st_size > limit:
                return None
            data = b""
            while len(data) <= limit and (chunk := os.read(fd, limit + 1 - len(data))):
                data += chunk
        finally:
            os.close(fd)
        return None if len(data) > limit else data

    def size(self, key: str) -> int:
        return os.lstat(self.root / self._lookup(key)).st_size  # type: ignore[attr-defined]

    # ---- moving

    def mark_seen(self, key: str) -> None:
        """Move message ``key`` to ``cur/`` with the S flag added (one rename)."""
        old = self._lookup(key)  # type: ignore[attr-defined]
        info = os.path.basename(old).partition(self.colon + "2,")[2]
        flags = "".join(sorted(set(info + "S")))
        new = os.path.join("cur", f"{key}{self.colon}2,{flags}")
        self._move(old, self.root / new)
        self._toc[key] = new  # type: ignore[attr-defined]

    def quarantine(self, key: str) -> Path:
        """Move message ``key`` into the quarantine folder (``.Quarantine/``, same
        subfolder and flags), out of the way of :meth:`pending`. Returns its new path."""
        old = self._lookup(key)  # type: ignore[attr-defined]
        folder = self.root / f".{self.QUARANTINE}"
        if not (folder / "cur").is_dir():
            self.add_folder(self.QUARANTINE)
        target = folder / old
        self._move(old, target)
        self._toc.pop(key, None)  # type: ignore[attr-defined]
        return target

    def _move(self, old: str, target: Path) -> None:
        os.replace(self.root / old, target)
        fileio.fsync_dir(target.parent)
        fileio.fsync_dir((self.root / old).parent)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_maildir(messages: Iterable[Message], path: str | Path) -> list[str]:
    """Add ``messages`` to the Maildir at ``path`` (created if missing); return their keys."""
    try:
        box = Maildir(path, create=True)
        return [box.add_durable(msg) for msg in messages]
    except OSError as exc:
        raise DeliveryError(f"cannot write to the maildir {path}: {_reason(exc)}") from exc


# --------------------------------------------------------------------------- SMTP


def _crlf(raw: bytes) -> bytes:
    """Every line ending (``\n`` or ``\r\n``) as ``\r\n``: what ``re.sub(rb"\r?\n",
    b"\r\n", raw)`` gives, in two passes in C."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _refused(recipients: dict[str, tuple[int, bytes]]) -> str:
    return ", ".join(
        f"{addr} ({code} {text.decode('utf-8', 'replace')})"
        for addr, (code, text) in recipients.items()
    )


class SmtpClient:
    """One SMTP session, opened on first use and kept while it works; a server that
    hung up is dialled again once.

    ``starttls``: upgrade with STARTTLS (verified with ``ssl_context`` or the system's
    trust store); a server that does not offer it is an error, never a silent fallback
    to plain text. ``username``: log in (needs ``password``).
    """

    def __init__(self, host: str, port: int, *, starttls: bool = False,
                 username: str | None = None, password: str | None = None,
                 timeout: float = 30, ssl_context: ssl.SSLContext | None = None) -> None:
        if username is not None and password is None:
            raise MailError(f"an SMTP user name ({username}) was given without a password")
        self.host, self.port, self.timeout = host, port, timeout
        self.starttls, self.username, self.password = starttls, username, password
        self.ssl_context = ssl_context
        self.client: smtplib.SMTP | None = None

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def connect(self) -> None:
        """Open the session now (``send`` does it when needed). Raises DeliveryError."""
        if self.client is None:
            self.client = self._connect()

    def _connect(self) -> smtplib.SMTP:
        try:
            client = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        except (OSError, smtplib.SMTPException) as exc:
            raise DeliveryError(
                f"cannot connect to the SMTP server {self.where}: {_reason(exc)}",
                ["check the host and port, and that the server is running"],
            ) from exc
        try:
            self._greet(client)
        except BaseException:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                client.close()
            raise
        return client

    def _greet(self, client: smtplib.SMTP) -> None:
        where = self.where
        try:
            client.ehlo()
            if self.starttls:
                if not client.has_extn("starttls"):
                    raise DeliveryError(
                        f"the SMTP server {where} does not offer STARTTLS",
                        ["use a server that does, or turn STARTTLS off if you trust the path"],
                    )
                client.starttls(context=self.ssl_context or ssl.create_default_context())
                client.ehlo()
            if self.username is not None:
                client.login(self.username, self.password or "")
        except smtplib.SMTPAuthenticationError as exc:
            raise DeliveryError(
                f"the SMTP server {where} refused the login of {self.username}: "
                f"{_reason(exc)}", ["check the user name and password"]) from exc
        except smtplib.SMTPNotSupportedError as exc:
            raise DeliveryError(
                f"the SMTP server {where} does not support this: {_reason(exc)}",
                ["the server may offer no AUTH on this port"]) from exc
        except ssl.SSLError as exc:
            raise DeliveryError(f"TLS with the SMTP server {where} failed: "
                                f"{_reason(exc)}") from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise DeliveryError(f"the SMTP server {where} failed: {_reason(exc)}") from exc

    def send(self, mail: Message | bytes, envelope_from: str, recipients: Sequence[str],
             label: str) -> dict[str, tuple[int, bytes]]:
        """Send one mail (a message, or its bytes as they are). Returns the recipients
        the server refused while it took the mail for the others. Raises Refused (the
        server refused it for every recipient, or its content) or DeliveryError."""
        for attempt in (1, 2):
            self.connect()
            assert self.client is not None
            try:
                if isinstance(mail, bytes):
                    return self.client.sendmail(envelope_from, list(recipients), _crlf(mail))
                return self.client.send_message(mail, from_addr=envelope_from,
                                                to_addrs=list(recipients))
            except smtplib.SMTPServerDisconnected:
                self.client = None
                if attempt == 2:
                    raise DeliveryError(f"the SMTP server {self.where} hung up") from None
            except smtplib.SMTPRecipientsRefused as exc:
                permanent = all(code >= 500 for code, _ in exc.recipients.values())
                raise Refused(f"{label}: recipient refused: {_refused(exc.recipients)}",
                              permanent) from exc
            except smtplib.SMTPSenderRefused as exc:
                self.close()
                raise DeliveryError(f"the SMTP server {self.where} refused the sender "
                                    f"{exc.sender!r}: {_reason(exc)}") from exc
            except smtplib.SMTPDataError as exc:
                raise Refused(f"{label}: message refused: {_reason(exc)}",
                              exc.smtp_code >= 500) from exc
            except (OSError, smtplib.SMTPException) as exc:
                self.close()
                raise DeliveryError(f"the SMTP server {self.where} failed while sending to "
                                    f"{label}: {_reason(exc)}") from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.quit()
            except (OSError, smtplib.SMTPException):
                with contextlib.suppress(OSError):
                    self.client.close()
            self.client = None


def _recipients(msg: Message) -> list[str]:
    fields = [str(v) for name in ("To", "Cc", "Bcc") for v in msg.get_all(name, [])]
    return [addr for _, addr in getaddresses(fields) if addr]


def send_smtp(
    messages: Sequence[Message],
    host: str,
    port: int,
    *,
    starttls: bool,
    username: str | None = None,
    password: str | None = None,
    timeout: float = 30,
    ssl_context: ssl.SSLContext | None = None,
) -> list[str]:
    """Deliver ``messages`` through one SMTP session (:class:`SmtpClient`); return the
    Message-IDs delivered.

    Each message goes to its To/Cc/Bcc addresses. A refused recipient does not stop the
    others: all are tried and one MailError lists what failed. Connection, TLS and login
    failures raise MailError.
    """
    client = SmtpClient(host, port, starttls=starttls, username=username, password=password,
                        timeout=timeout, ssl_context=ssl_context)
    delivered: list[str] = []
    failed: list[str] = []
    try:
        client.connect()
        for msg in messages:
            to = _recipients(msg)
            label = f"{', '.join(to) or '(no recipient)'} ({msg['Message-ID']})"
            if not to:
                failed.append(f"{label}: no recipient address")
                continue
            try:
                refused = client.send(msg, _envelope_from(msg), to, label)
            except Refused as exc:
                failed.append(exc.message)
                continue
            except DeliveryError as exc:
                raise DeliveryError(exc.message, exc.hints or _partial(delivered, messages)
                                    ) from exc
            if refused:
                failed.append(f"{label}: recipient refused: {_refused(refused)}")
            delivered.append(str(msg["Message-ID"]))
    finally:
        client.close()
    if failed:
        raise MailError(
            f"{len(failed)} of {len(messages)} mails were not delivered: " + "; ".join(failed),
            _partial(delivered, messages),
        )
    return delivered


def _envelope_from(msg: Message) -> str:
    for name in ("Sender", "From"):
        found = getaddresses([str(v) for v in msg.get_all(name, [])])
        if found and found[0][1]:
            return found[0][1]
    return ENVELOPE_SENDER


def _partial(delivered: Sequence[str], messages: Sequence[Message]) -> list[str]:
    if not delivered:
        return []
    return [f"{len(delivered)} of {len(messages)} mails were delivered: {', '.join(delivered)}"]
