"""Delivery: an mbox stream, a Maildir, or an SMTP server."""

from __future__ import annotations

import email
import email.policy
import io
import mailbox
import smtplib
import socket
import ssl
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from email.generator import Generator
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path
from typing import TextIO

from referee.mail.tokens import ENVELOPE_SENDER, MailError

# --------------------------------------------------------------------------- delivery


def _unixfrom_date(msg: Message) -> str:
    try:
        when = parsedate_to_datetime(str(msg["Date"]))
    except (TypeError, ValueError):
        when = datetime(1970, 1, 1, tzinfo=UTC)
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return f"{when:%a %b} {when.day:2d} {when:%H:%M:%S %Y}"


def write_stdout(messages: Iterable[Message], stream: TextIO) -> None:
    """Write ``messages`` to a text stream as mbox (see the module docstring)."""
    policy = email.policy.default.clone(linesep="\n")
    for msg in messages:
        stream.write(f"From {ENVELOPE_SENDER} {_unixfrom_date(msg)}\n")
        buf = io.StringIO()
        Generator(buf, mangle_from_=True, policy=policy).flatten(msg)
        text = buf.getvalue()
        stream.write(text if text.endswith("\n") else text + "\n")
        stream.write("\n")


def write_maildir(messages: Iterable[Message], path: str | Path) -> list[str]:
    """Add ``messages`` to the Maildir at ``path`` (created if missing); return their keys."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        box = mailbox.Maildir(str(path), create=True)
        return [box.add(msg) for msg in messages]
    except OSError as exc:
        raise MailError(f"cannot write to the maildir {path}: {exc.strerror or exc}") from exc


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
    """Deliver ``messages`` through one SMTP session; return the Message-IDs delivered.

    ``starttls``: upgrade with STARTTLS (verified with ``ssl_context`` or the system's
    trust store); a server that does not offer it is an error, never a silent fallback
    to plain text. ``username``: log in (needs ``password``). Each message goes to its
    To/Cc/Bcc addresses. A refused recipient does not stop the others: all are tried and
    one MailError lists what failed. Connection, TLS and login failures raise MailError.
    """
    if username is not None and password is None:
        raise MailError(f"an SMTP user name ({username}) was given without a password")
    where = f"{host}:{port}"
    try:
        client = smtplib.SMTP(host, port, timeout=timeout)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(
            f"cannot connect to the SMTP server {where}: {_reason(exc)}",
            ["check the host and port, and that the server is running"],
        ) from exc
    delivered: list[str] = []
    failed: list[str] = []
    try:
        try:
            client.ehlo()
            if starttls:
                if not client.has_extn("starttls"):
                    raise MailError(
                        f"the SMTP server {where} does not offer STARTTLS",
                        ["use a server that does, or turn STARTTLS off if you trust the path"],
                    )
                client.starttls(context=ssl_context or ssl.create_default_context())
                client.ehlo()
            if username is not None:
                assert password is not None
                client.login(username, password)
        except smtplib.SMTPAuthenticationError as exc:
            raise MailError(
                f"the SMTP server {where} refused the login of {username}: {_reason(exc)}",
                ["check the user name and password"],
            ) from exc
        except smtplib.SMTPNotSupportedError as exc:
            raise MailError(
                f"the SMTP server {where} does not support this: {_reason(exc)}",
                ["the server may offer no AUTH on this port"],
            ) from exc
        except ssl.SSLError as exc:
            raise MailError(f"TLS with the SMTP server {where} failed: {_reason(exc)}") from exc
        except (OSError, smtplib.SMTPException) as exc:
            raise MailError(f"the SMTP server {where} failed: {_reason(exc)}") from exc

        for msg in messages:
            to = _recipients(msg)
            label = f"{', '.join(to) or '(no recipient)'} ({msg['Message-ID']})"
            if not to:
                failed.append(f"{label}: no recipient address")
                continue
            try:
                refused = client.send_message(msg, from_addr=_envelope_from(msg), to_addrs=to)
            except smtplib.SMTPRecipientsRefused as exc:
                failed.append(f"{label}: recipient refused: {_refused(exc.recipients)}")
                continue
            except smtplib.SMTPSenderRefused as exc:
                raise MailError(
                    f"the SMTP server {where} refused the sender {exc.sender!r}: {_reason(exc)}",
                    _partial(delivered, messages),
                ) from exc
            except smtplib.SMTPDataError as exc:
                failed.append(f"{label}: message refused: {_reason(exc)}")
                continue
            except (OSError, smtplib.SMTPException) as exc:
                raise MailError(
                    f"the SMTP server {where} failed while sending to {label}: {_reason(exc)}",
                    _partial(delivered, messages),
                ) from exc
            if refused:
                failed.append(f"{label}: recipient refused: {_refused(refused)}")
            delivered.append(str(msg["Message-ID"]))
    finally:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
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


def _refused(recipients: dict[str, tuple[int, bytes]]) -> str:
    return ", ".join(
        f"{addr} ({code} {text.decode('utf-8', 'replace')})"
        for addr, (code, text) in recipients.items()
    )


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
    return str(exc) or type(exc).__name__


