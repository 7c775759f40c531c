"""Where mail comes from and goes to: a Maildir or an IMAP mailbox in; a Maildir or an
SMTP server out. The Maildir and the SMTP client are the ones ``referee mail`` uses
(:mod:`referee.mail.delivery`). imapclient is imported only when IMAP is used (extra
``mail``).

An inbox reads at most MAX_MAIL_BYTES of a mail: a bigger one is handed on unread (its
``unread`` says why) and quarantined by the judge.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from referee.errors import UsageError
from referee.mail import MailError
from referee.mail.delivery import DeliveryError, Maildir, Refused, SmtpClient

MAX_MAIL_BYTES = 1024 * 1024
QUARANTINE_KEYWORD = "$RefereeQuarantine"
#: a Maildir's wait looks into ``new/`` after FIRST_STEP seconds, then after twice as
#: long each time up to LONGEST_STEP (and never past the poll): prompt after activity,
#: a few cheap looks a second when nothing comes
FIRST_STEP, LONGEST_STEP = 0.005, 0.25


@dataclass(frozen=True)
class Incoming:
    """One message waiting to be processed: its key in the inbox and its bytes.
    ``unread``: why the bytes were not read (too large, not a file); ``raw`` is then
    empty and the judge quarantines the message."""

    key: str
    raw: bytes
    unread: str = ""


def too_large(size: int) -> str:
    return f"larger than {MAX_MAIL_BYTES // 1024 // 1024} MiB ({size} bytes), not read"


class Inbox(Protocol):
    def pending(self) -> Iterator[Incoming]: ...

    def done(self, item: Incoming) -> None: ...

    def quarantine(self, item: Incoming) -> str: ...

    def wait(self, seconds: float) -> None: ...

    def close(self) -> None: ...


class Outbox(Protocol):
    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]: ...

    def close(self) -> None: ...


class MaildirInbox:
    """Messages in ``new/`` (and unseen ones in ``cur/``), oldest name first; done =
    moved to ``cur/`` with the S (seen) flag; quarantined = moved to ``.Quarantine/``.

    ``wait`` returns as soon as a name appears in ``new/`` that the last look did not
    see (a listing of ``new/`` every few ms after activity, every LONGEST_STEP when
    idle), and at the latest after the poll's seconds (a mail put into ``cur/`` unseen,
    or one left for a retry, is looked at again then)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.box = Maildir(path)
        self.known: frozenset[str] = frozenset()
        self.step = FIRST_STEP

    def _arrived(self) -> frozenset[str]:
        try:
            return frozenset(os.listdir(self.path / "new"))
        except OSError:  # gone: the next look reports it
            return frozenset()

    def pending(self) -> Iterator[Incoming]:
        self.known = self._arrived()  # before the look: what comes during it wakes the wait
        for key in self.box.pending():
            self.step = FIRST_STEP
            try:
                raw = self.box.read(key, MAX_MAIL_BYTES)
            except (KeyError, FileNotFoundError):
                continue  # taken away meanwhile
            except OSError as exc:
                yield Incoming(key, b"", f"cannot be read: {exc.strerror or exc}")
                continue
            if raw is None:
                yield Incoming(key, b"", too_large(self.box.size(key)))
            else:
                yield Incoming(key, raw)

    def done(self, item: Incoming) -> None:
        self.box.mark_seen(item.key)

    def quarantine(self, item: Incoming) -> str:
        return f"moved to {self.box.quarantine(item.key)}"

    def wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(self.step, left))
            self.step = min(self.step * 2, LONGEST_STEP)
            if not self.known.issuperset(self._arrived()):
                self.step = FIRST_STEP
                return

    def close(self) -> None:
        return None


class MaildirOutbox:
    """Writes each outgoing mail into a Maildir's ``new/``, named after its Message-ID,
    so that delivering the same mail twice (after a crash) writes it once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.box = Maildir(path, create=True)

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        name = hashlib.sha256(msgid.encode()).hexdigest()[:32] + ".referee"
        self.box.add_once(name, raw)
        return []

    def close(self) -> None:
        return None


class SmtpOutbox:
    """Sends through one SMTP session (:class:`SmtpClient`). A mail the server refuses
    for good (5xx) raises Refused; a temporary failure raises DeliveryError."""

    def __init__(self, client: SmtpClient, envelope_from: str) -> None:
        self.client, self.envelope_from = client, envelope_from

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        label = f"{', '.join(recipients) or '(no recipient)'} ({msgid})"
        if not recipients:
            raise Refused(f"{label}: no recipient address", permanent=True)
        try:
            refused = self.client.send(raw, self.envelope_from, recipients, label)
        except Refused as exc:
            if exc.permanent:
                raise
            raise DeliveryError(exc.message) from exc
        return [f"{addr} refused {msgid}: {code} {text.decode('utf-8', 'replace')}"
                for addr, (code, text) in refused.items()]

    def close(self) -> None:
        self.client.close()


class ImapInbox:
    """An IMAP mailbox: unseen messages are pending (fetched with BODY.PEEK, so reading
    does not mark them; one larger than MAX_MAIL_BYTES is not fetched); done = the
    \\Seen flag; quarantined = \\Seen, \\Flagged and the keyword $RefereeQuarantine.
    ``imap://user:password@host:port/INBOX`` or ``imaps://...``; the password may
    instead be in REFEREE_IMAP_PASSWORD.

    ``wait`` uses IDLE wherever the server offers it (``idle``: required), so that a
    mail wakes the judge as soon as the server announces it; the wait's seconds stay
    the bound (a server that announces late is looked at again then)."""

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
        secure = parts.scheme == "imaps"
        try:
            self.client: Any = imapclient.IMAPClient(
                parts.hostname, port=parts.port or (993 if secure else 143), ssl=secure,
                timeout=60)
            self.client.login(unquote(parts.username), password)
            self.client.select_folder(self.folder)
            self.use_idle = idle or bool(self.client.has_capability("IDLE"))
        except (OSError, imapclient.exceptions.IMAPClientError) as exc:
            raise MailError(f"cannot use the IMAP mailbox {parts.hostname}: {exc}") from exc

    def pending(self) -> Iterator[Incoming]:
        uids = sorted(self.client.search(["NOT", "SEEN"]))
        for start in range(0, len(uids), 100):
            chunk = uids[start:start + 100]
            sizes = {uid: int(data.get(b"RFC822.SIZE", 0))
                     for uid, data in self.client.fetch(chunk, ["RFC822.SIZE"]).items()}
            small = [uid for uid in chunk if sizes.get(uid, 0) <= MAX_MAIL_BYTES]
            fetched = self.client.fetch(small, ["BODY.PEEK[]"]) if small else {}
            for uid in chunk:
                if uid not in small:
                    yield Incoming(str(uid), b"", too_large(sizes.get(uid, 0)))
                    continue
                raw = fetched.get(uid, {}).get(b"BODY[]")
                if raw is None:
                    continue
                if len(raw) > MAX_MAIL_BYTES:
                    yield Incoming(str(uid), b"", too_large(len(raw)))
                else:
                    yield Incoming(str(uid), bytes(raw))

    def done(self, item: Incoming) -> None:
        self.client.add_flags([int(item.key)], [b"\\Seen"])

    def quarantine(self, item: Incoming) -> str:
        import imapclient

        try:
            self.client.add_flags([int(item.key)], [b"\\Seen", b"\\Flagged",
                                                    QUARANTINE_KEYWORD.encode()])
        except imapclient.exceptions.IMAPClientError:  # a server without keywords
            self.client.add_flags([int(item.key)], [b"\\Seen", b"\\Flagged"])
            return "flagged \\Seen \\Flagged"
        return f"flagged \\Seen \\Flagged {QUARANTINE_KEYWORD}"

    def wait(self, seconds: float) -> None:
        if not self.use_idle:
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
