"""Play by e-mail: player tokens, outgoing mail, delivery, and parsing players' replies.

A library only (the CLI wires it in); standard library only.

Design of tokens and replies
----------------------------
* A *token* is ``player_token(key, game_id, player)``: an HMAC of the game and the player
  under the referee's secret key, 16 base32 characters shown as ``abcd-efgh-ijkl-mnop``.
  It is a bearer secret that proves the sender received the referee's mail for that
  player; the From line proves nothing (it is trivially forged).
* ``compose(..., key=KEY)`` puts the token into the **Subject** as a tag
  ``[#abcd-efgh-ijkl-mnop]``. Every mail program keeps the subject when replying
  ("Re: ..."), so a plain reply carries the token without the player doing anything.
* ``parse_reply`` takes the token from an unquoted line of the player's own text that
  starts with ``token:`` (for players whose mail program loses the subject), else from the
  Subject tag. A mail marked as a forward (Subject "Fwd:"/"Fw:"/"WG:"..., or a forwarded
  message block in the body) gets no token from its Subject: forwarding the referee's
  mail must not let the receiver of the forward move for the player.
* Quoted text (lines starting with ``>``, HTML ``<blockquote>``), attributions
  ("On ... wrote:"), signatures ("-- ", "--", "Sent from my ...") and everything below an
  "-----Original Message-----" / forwarded-message marker never give a token or a move.
  Quoted text is only used to *identify* game and player, which the token then confirms.
* Game and player come from, in order: the X-Referee-* headers of an attached original
  (message/rfc822), the Message-IDs in In-Reply-To/References that ``compose`` made,
  ``game:``/``player:`` lines anywhere in the text. ``is_authentic(reply, key)`` is the
  check a caller must make before acting on a reply.

Moves: every own line ``move: X`` is one move, in order (a bare ``move:`` line takes the
next non-empty line). Without any ``move:`` line the move is the first own line that is
not a greeting ("Hi Ann,"), a ``token:``/``game:``/``player:`` line, or an attribution.

Output formats
--------------
``write_stdout`` writes an mbox stream (mboxo): each message starts with a line
``From referee@referee.invalid <asctime of its Date>``, body lines beginning "From " are
written as ">From ", and a blank line ends each message. ``mailbox.mbox`` and mail
programs (``mutt -f``) read it. ``write_maildir`` adds the messages to a Maildir.
"""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import hmac
import io
import mailbox
import re
import smtplib
import socket
import ssl
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.errors import HeaderParseError
from email.generator import Generator
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import format_datetime, getaddresses, parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import TextIO

from referee.errors import RefereeError

__all__ = [
    "MailError",
    "Outgoing",
    "Reply",
    "check_token",
    "compose",
    "html_to_text",
    "is_authentic",
    "message_id",
    "normalize_token",
    "parse_reply",
    "player_token",
    "rejection",
    "send_smtp",
    "subject",
    "thread_id",
    "write_maildir",
    "write_stdout",
]

DOMAIN = "referee.invalid"
ENVELOPE_SENDER = "referee@referee.invalid"
_TOKEN_PREFIX = b"referee-token\0"
_B32 = "a-z2-7"
_TOKEN_RE = rf"[{_B32}]{{4}}(?:[-\s]?[{_B32}]{{4}}){{3}}"


class MailError(RefereeError):
    """A mail could not be built, written or delivered (bad address, SMTP failure...)."""


# --------------------------------------------------------------------------- tokens


def player_token(key: bytes, game_id: str, player: str) -> str:
    """The token of ``player`` in ``game_id``: ``abcd-efgh-ijkl-mnop`` (80 bits of HMAC)."""
    if not key:
        raise MailError("the token key is empty", ["generate a key of at least 16 random bytes"])
    if "\0" in game_id or "\0" in player:
        raise MailError("game id and player id must not contain NUL characters")
    msg = _TOKEN_PREFIX + game_id.encode("utf-8") + b"\0" + player.encode("utf-8")
    digest = hmac.new(key, msg, hashlib.sha256).digest()[:10]
    raw = base64.b32encode(digest).decode("ascii").lower()  # 10 bytes -> 16 chars, no '='
    return "-".join(raw[i : i + 4] for i in range(0, 16, 4))


def normalize_token(token: str) -> str:
    """Lowercase, without dashes or white space: the form tokens are compared in."""
    return re.sub(r"[-\s]", "", token).lower()


def check_token(key: bytes, game_id: str, player: str, token: str | None) -> bool:
    """True when ``token`` (any case, with or without dashes) is ``player``'s token."""
    if not token:
        return False
    expected = normalize_token(player_token(key, game_id, player)).encode("ascii")
    given = normalize_token(token).encode("utf-8", "replace")
    return hmac.compare_digest(expected, given)


# --------------------------------------------------------------------------- outgoing


@dataclass(frozen=True)
class Outgoing:
    """One mail to one player: ``to`` is an address ("ann@example.org" or "Ann <ann@...>")."""

    player: str
    to: str
    subject: str
    body: str


def subject(game_title: str, game_id: str, waiting: Sequence[str]) -> str:
    """A subject like ``[referee] staufer game-42: ann and bob to move``."""
    names = list(waiting)
    if not names:
        state = "game over"
    elif len(names) == 1:
        state = f"{names[0]} to move"
    else:
        state = f"{', '.join(names[:-1])} and {names[-1]} to move"
    return f"[referee] {game_title} {game_id}: {state}"


def quote_id_part(text: str) -> str:
    """Reversible msg-id-safe form: bytes outside [A-Za-z0-9_-] become ``=XX``."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch.isascii() and (ch.isalnum() or ch in "_-"):
            out.append(ch)
        else:
            out.append(f"={byte:02X}")
    return "".join(out)


def unquote_id_part(text: str) -> str | None:
    try:
        return (
            re.sub(r"=([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
            .encode("latin-1")
            .decode("utf-8")
        )
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None


def thread_id(game_id: str) -> str:
    """The stable thread root of a game: ``<referee.GAME@referee.invalid>``."""
    return f"<referee.{quote_id_part(game_id)}@{DOMAIN}>"


def message_id(game_id: str, move_number: int, player: str) -> str:
    """The Message-ID of the mail to ``player`` after move ``move_number``."""
    return f"<referee.{quote_id_part(game_id)}.{move_number}.{quote_id_part(player)}@{DOMAIN}>"


_MOVE_ID_RE = re.compile(rf"^<referee\.([A-Za-z0-9_=-]+)\.(\d+)\.([A-Za-z0-9_=-]+)@{DOMAIN}>$")
_ROOT_ID_RE = re.compile(rf"^<referee\.([A-Za-z0-9_=-]+)@{DOMAIN}>$")


def _parse_our_id(msgid: str) -> tuple[str, int | None, str | None] | None:
    """(game, move, player) for a Message-ID made by compose, (game, None, None) for a root."""
    m = _MOVE_ID_RE.match(msgid)
    if m:
        game, player = unquote_id_part(m.group(1)), unquote_id_part(m.group(3))
        if game is not None and player is not None:
            return game, int(m.group(2)), player
    m = _ROOT_ID_RE.match(msgid)
    if m:
        game = unquote_id_part(m.group(1))
        if game is not None:
            return game, None, None
    return None


def set_text(msg: EmailMessage, body: str) -> None:
    if not body.endswith("\n"):
        body += "\n"
    if body.isascii():
        msg.set_content(body, charset="us-ascii", cte="7bit")
    else:  # quoted-printable: 7-bit clean on any SMTP path, still legible raw
        msg.set_content(body, charset="utf-8", cte="quoted-printable")


def _footer(game_id: str, player: str, token: str | None) -> str:
    lines = ["", "-- "]
    if token is not None:
        lines += [
            "Reply to this mail with your move on the first line",
            "(several moves: one line `move: ...` for each).",
            "Keep the subject as it is: its tag",
            f"[#{token}] is your token for this game",
            "and proves that the reply comes from you. Do not forward this mail.",
            "If your mail program loses the subject, add a line of its own:",
            f"    token: {token}",
        ]
    lines += [f"game: {game_id}", f"player: {player}"]
    return "\n".join(lines) + "\n"


def compose(
    outgoing: Sequence[Outgoing],
    *,
    sender: str,
    game_id: str,
    move_number: int,
    date: datetime | None = None,
    key: bytes | None = None,
) -> list[EmailMessage]:
    """One RFC 5322 message per ``Outgoing``, threaded per game and deterministic.

    With ``key`` each subject gets the player's token tag ``[#...]`` and the body a footer
    saying how to reply; without it the body gets only ``game:``/``player:`` lines.
    """
    when = date if date is not None else datetime.now(UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    root = thread_id(game_id)
    messages = []
    for out in outgoing:
        token = player_token(key, game_id, out.player) if key is not None else None
        msg = EmailMessage(policy=email.policy.default)
        try:
            msg["From"] = sender
            msg["To"] = out.to
            msg["Subject"] = f"{out.subject} [#{token}]" if token else out.subject
            msg["Date"] = format_datetime(when)
            msg["Message-ID"] = message_id(game_id, move_number, out.player)
            msg["In-Reply-To"] = root
            msg["References"] = root
            msg["Auto-Submitted"] = "auto-generated"
            msg["X-Referee-Game"] = game_id
            msg["X-Referee-Player"] = out.player
            msg["X-Referee-Move"] = str(move_number)
            _check_addresses(msg, ("From", "To"))
        except (ValueError, TypeError, IndexError) as exc:
            raise MailError(f"cannot build the mail to {out.player} ({out.to!r}): {exc}") from exc
        body = out.body.rstrip("\n") + "\n" + _footer(game_id, out.player, token)
        set_text(msg, body)
        messages.append(msg)
    return messages


def _check_addresses(msg: EmailMessage, names: Iterable[str]) -> None:
    for name in names:
        header = msg[name]
        addresses = getattr(header, "addresses", ())
        defects = getattr(header, "defects", ())
        if not addresses or defects or any(not a.username or not a.domain for a in addresses):
            raise ValueError(f"{name} is not a valid address: {str(header)!r}")


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


# --------------------------------------------------------------------------- incoming


@dataclass(frozen=True)
class Reply:
    """What a player's mail says. Nothing in it is trusted until ``is_authentic``."""

    sender: str  # addr-spec of From ("" if none); forgeable
    game_id: str | None
    player: str | None
    token: str | None  # as written, see normalize_token
    moves: tuple[str, ...]
    in_reply_to: str | None  # first Message-ID of In-Reply-To, with <>
    message_id: str | None = None
    references: tuple[str, ...] = ()
    subject: str = ""
    move_number: int | None = None  # the move after which the replied-to mail was sent
    forwarded: bool = False  # marked as a forward: the Subject's token tag was not used
    automatic: bool = False  # auto-reply (vacation, bounce): never act on it
    warnings: tuple[str, ...] = field(default=())

    @property
    def move_text(self) -> str | None:
        """The first move, or None."""
        return self.moves[0] if self.moves else None


def is_authentic(reply: Reply, key: bytes) -> bool:
    """True when the reply names a game and player and carries that player's token."""
    return (
        not reply.automatic
        and reply.game_id is not None
        and reply.player is not None
        and check_token(key, reply.game_id, reply.player, reply.token)
    )


class _HTMLText(HTMLParser):
    """HTML to plain text; text inside <blockquote> (and mailer quote divs) gets '> '."""

    _BLOCK = frozenset(
        [
            "address",
            "article",
            "aside",
            "blockquote",
            "br",
            "dd",
            "div",
            "dl",
            "dt",
            "footer",
            "form",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "header",
            "hr",
            "li",
            "ol",
            "p",
            "pre",
            "section",
            "table",
            "tr",
            "ul",
        ]
    )
    _SKIP = frozenset(("script", "style", "head", "title"))
    _QUOTE_MARKS = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
    # Outlook: the original follows these as a sibling, unquoted; all of it is foreign
    _REST_MARKS = ("divrplyfwdmsg", "appendonsend", "mail-editor-reference-message-container")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0
        self.skip = 0
        self.stack: list[tuple[str, bool]] = []
        self.rest_quoted = False

    def _flush(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self.current)).strip()
        self.current = []
        if text:
            self.lines.append("> " * (self.depth + self.rest_quoted) + text)
        elif self.lines and self.lines[-1] != "":
            self.lines.append("")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skip += 1
            return
        if tag in self._BLOCK:
            self._flush()
        if tag in ("br", "hr"):
            return
        marks = " ".join((v or "") for k, v in attrs if k in ("class", "id")).lower()
        if any(m in marks for m in self._REST_MARKS):
            self.rest_quoted = True
        quotes = tag == "blockquote" or any(m in marks for m in self._QUOTE_MARKS)
        if quotes:
            self.depth += 1
        self.stack.append((tag, quotes))

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag in self._BLOCK:
            self._flush()
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                for _, quotes in self.stack[i:]:
                    if quotes:
                        self.depth -= 1
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.current.append(data)

    def text(self) -> str:
        self._flush()
        return "\n".join(self.lines)


def html_to_text(markup: str) -> str:
    """Plain text of an HTML mail body, quoted parts prefixed with '> '."""
    parser = _HTMLText()
    parser.feed(markup)
    parser.close()
    return parser.text()


def _part_text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
        if isinstance(content, str):
            return content
    except (LookupError, KeyError, ValueError, AssertionError):
        pass
    payload = part.get_payload(decode=True)
    return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""


def _body_text(msg: EmailMessage) -> str:
    plain = msg.get_body(preferencelist=("plain",))
    if plain is not None:
        return _part_text(plain)
    rich = msg.get_body(preferencelist=("html",))
    if rich is not None:
        return html_to_text(_part_text(rich))
    return ""


_SIGNATURE_RE = re.compile(r"^(--\s?|__+|sent from my\b.*|get outlook for\b.*)$", re.I)
_STOP_RE = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|weitergeleitete nachricht|"
    r"message d'origine|ursprüngliche nachricht)\s*-{2,}.*"
    r"|begin forwarded message:?"
    r"|-{5,}\s*forwarded.*)$",
    re.I,
)
_FORWARD_MARK_RE = re.compile(r"forward|weitergeleitet", re.I)
_HEADER_BLOCK_RE = re.compile(r"^\*?(from|von|de)\s*:\*?\s+\S", re.I)
_HEADER_NEXT_RE = re.compile(r"^\*?(sent|date|gesendet|datum|envoyé|to|an|à|subject)\s*:", re.I)
_ATTRIBUTION_END_RE = re.compile(
    r"(wrote|schrieb|a écrit|escribió|ha scritto|schreef|skrev)\s*:\s*$", re.I
)
_ATTRIBUTION_START_RE = re.compile(r"^(on|am|le|el|il|op|den|em)\s", re.I)
_GREETING_RE = re.compile(
    r"^(hi|hello|hey|dear|hallo|hallöchen|moin|servus|salut|bonjour|hola|ciao|greetings|"
    r"good (morning|afternoon|evening))\b[\w\s.'-]{0,30}[,!]?$",
    re.I,
)
_OWN_TOKEN_RE = re.compile(rf"^token\s*:\s*({_TOKEN_RE})\s*\.?$", re.I)
_SUBJECT_TOKEN_RE = re.compile(rf"\[#\s*({_TOKEN_RE})\s*\]", re.I)
_KEYED_RE = re.compile(r"^(token|game|player)\s*:", re.I)
_MOVE_RE = re.compile(r"^moves?\s*:\s*(.*)$", re.I)
_GAME_LINE_RE = re.compile(r"^game\s*:\s*(\S+)\s*$", re.I)
_PLAYER_LINE_RE = re.compile(r"^player\s*:\s*(\S+)\s*$", re.I)
_FWD_SUBJECT_RE = re.compile(
    r"^\s*(?:(?:re|aw|sv|antw|fwd?|wg|tr|rv|enc|vs)\s*(?:\[\d+\])?\s*:\s*)*", re.I
)


def _split_own(text: str) -> tuple[list[str], list[str], bool]:
    """(own lines, other lines with '>' stripped, whether a forward marker was seen).

    Own lines are the player's unquoted text above any signature or stop marker, with
    attribution lines removed.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    own: list[str] = []
    other: list[str] = []
    forwarded = False
    stopped = False
    skip_until = -1
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line.startswith(">"):
            other.append(re.sub(r"^(\s*>)+\s?", "", raw).strip())
            continue
        if stopped:
            other.append(line)
            continue
        if i <= skip_until:
            continue
        if _SIGNATURE_RE.match(line) or _STOP_RE.match(line):
            if _STOP_RE.match(line) and _FORWARD_MARK_RE.search(line):
                forwarded = True
            stopped = True
            continue
        if _HEADER_BLOCK_RE.match(line) and any(
            _HEADER_NEXT_RE.match(nxt.strip()) for nxt in lines[i + 1 : i + 3]
        ):
            stopped = True
            other.append(line)
            continue
        if _ATTRIBUTION_END_RE.search(line):
            continue
        if _ATTRIBUTION_START_RE.match(line):
            # "On Mon, 6 Jan 2025 at 10:00, Referee <\nref@x> wrote:" wrapped over lines
            for j in range(i + 1, min(i + 3, len(lines))):
                nxt = lines[j].strip()
                if not nxt or nxt.startswith(">"):
                    break
                if _ATTRIBUTION_END_RE.search(nxt):
                    skip_until = j
                    break
            if skip_until >= i:
                continue
        own.append(line)
    return own, other, forwarded


def _moves(own: Sequence[str]) -> tuple[str, ...]:
    keyed: list[str] = []
    pending = False
    for line in own:
        if pending:
            if line:
                keyed.append(line)
                pending = False
            continue
        m = _MOVE_RE.match(line)
        if m:
            if m.group(1).strip():
                keyed.append(m.group(1).strip())
            else:
                pending = True
    if keyed or pending:
        return tuple(keyed)
    for line in own:
        if not line or _KEYED_RE.match(line) or _GREETING_RE.match(line):
            continue
        return (line,)
    return ()


def _msgids(value: object) -> list[str]:
    return re.findall(r"<[^<>\s]+>", str(value)) if value is not None else []


def _raw_header(msg: Message, name: str) -> str | None:
    """A header's unparsed value (the structured parsers of ``email`` crash on some junk)."""
    for key, value in msg.raw_items():
        if key.lower() == name.lower():
            return str(value)
    return None


def _decoded_header(msg: Message, name: str) -> str:
    value = _raw_header(msg, name)
    if value is None:
        return ""
    try:
        return str(make_header(decode_header(value))).replace("\r", "").replace("\n", "")
    except (ValueError, LookupError, HeaderParseError, UnicodeError):
        return re.sub(r"\s*\n\s*", " ", value).strip()


def _is_automatic(msg: EmailMessage) -> bool:
    auto = (_raw_header(msg, "Auto-Submitted") or "no").strip().lower()
    precedence = (_raw_header(msg, "Precedence") or "").strip().lower()
    return (
        auto not in ("", "no")
        or precedence in ("bulk", "junk", "list", "auto_reply")
        or _raw_header(msg, "X-Autoreply") is not None
        or _raw_header(msg, "X-Autorespond") is not None
        or str(msg.get_content_type()) == "multipart/report"
    )


def parse_reply(raw: bytes) -> Reply:
    """Read a player's mail: who it claims to be from, game, player, token and moves.

    Never trusts anything (see ``is_authentic``). Raises MailError only for a mail the
    standard library cannot take apart at all.
    """
    try:
        return _parse_reply(raw)
    except (ValueError, IndexError, TypeError, LookupError, AttributeError) as exc:
        raise MailError(f"cannot read this mail: {type(exc).__name__}: {exc}") from exc


def _parse_reply(raw: bytes) -> Reply:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    warnings: list[str] = []

    senders = getaddresses([_decoded_header(msg, "From")])
    sender = senders[0][1] if senders and "@" in senders[0][1] else ""
    if not sender:
        warnings.append("the From line names no address")
    subj = _decoded_header(msg, "Subject")
    in_reply_to_ids = _msgids(_raw_header(msg, "In-Reply-To"))
    references = tuple(_msgids(_raw_header(msg, "References")))
    own_id = _msgids(_raw_header(msg, "Message-ID"))

    own, other, forwarded = _split_own(_body_text(msg))
    prefix = _FWD_SUBJECT_RE.match(subj)
    if prefix and re.search(r"\b(fwd?|wg|tr|rv|enc|vs)\b", prefix.group(0), re.I):
        forwarded = True

    # game and player: attached original, then our Message-IDs, then game:/player: lines
    game: str | None = None
    player: str | None = None
    move_number: int | None = None
    for part in msg.walk():
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload(0) if part.is_multipart() else None
            if isinstance(inner, Message) and _decoded_header(inner, "X-Referee-Game"):
                game = _decoded_header(inner, "X-Referee-Game").strip()
                player = _decoded_header(inner, "X-Referee-Player").strip() or None
                number = _decoded_header(inner, "X-Referee-Move").strip()
                move_number = int(number) if number.isdigit() else None
                forwarded = True
                break
    if game is None:
        root_game = None
        for msgid in [*in_reply_to_ids, *reversed(references)]:
            ours = _parse_our_id(msgid)
            if ours is None:
                continue
            if ours[2] is not None:
                game, move_number, player = ours
                break
            root_game = root_game or ours[0]
        if game is None:
            game = root_game
    if game is None or player is None:
        for line in [*own, *other]:
            if game is None and (m := _GAME_LINE_RE.match(line)):
                game = m.group(1)
            if player is None and (m := _PLAYER_LINE_RE.match(line)):
                player = m.group(1)

    # token: own "token:" line, else the Subject tag unless this is a forward
    token: str | None = None
    for line in own:
        if m := _OWN_TOKEN_RE.match(line):
            token = m.group(1)
            break
    if token is None and (m := _SUBJECT_TOKEN_RE.search(subj)):
        if forwarded:
            warnings.append("the mail is a forward: the token in its subject does not count")
        else:
            token = m.group(1)

    return Reply(
        sender=sender,
        game_id=game,
        player=player,
        token=token,
        moves=_moves(own),
        in_reply_to=in_reply_to_ids[0] if in_reply_to_ids else None,
        message_id=own_id[0] if own_id else None,
        references=references,
        subject=subj,
        move_number=move_number,
        forwarded=forwarded,
        automatic=_is_automatic(msg),
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------- rejections


def rejection(
    reply: Reply,
    reason: str,
    legal: Sequence[str],
    *,
    sender: str,
    to: str | None = None,
    date: datetime | None = None,
) -> EmailMessage:
    """The answer to a rejected reply, threaded to it (In-Reply-To its Message-ID).

    It goes to ``to`` or else ``reply.sender``. Pass ``legal`` moves only for a reply
    that ``is_authentic``; otherwise anyone could learn a player's options by naming them.
    """
    recipient = to or reply.sender
    if not recipient:
        raise MailError("the rejected mail has no sender address to answer")
    msg = EmailMessage(policy=email.policy.default)
    subj = reply.subject or f"[referee] {reply.game_id or 'game'}: move not accepted"
    if not re.match(r"^\s*re\s*:", subj, re.I):
        subj = f"Re: {subj}"
    when = date if date is not None else datetime.now(UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seed = reply.message_id or f"{reply.sender}\0{reply.subject}\0{reply.moves}"
    digest = hashlib.sha256(seed.encode("utf-8", "replace")).hexdigest()[:20]
    try:
        msg["From"] = sender
        msg["To"] = recipient
        msg["Subject"] = subj
        msg["Date"] = format_datetime(when)
        msg["Message-ID"] = f"<referee-reject.{digest}@{DOMAIN}>"
        refs = list(reply.references)
        if reply.message_id:
            msg["In-Reply-To"] = reply.message_id
            refs.append(reply.message_id)
        if refs:
            msg["References"] = " ".join(dict.fromkeys(refs))
        msg["Auto-Submitted"] = "auto-replied"
        if reply.game_id is not None:
            msg["X-Referee-Game"] = reply.game_id
        if reply.player is not None:
            msg["X-Referee-Player"] = reply.player
        _check_addresses(msg, ("From", "To"))
    except (ValueError, TypeError, IndexError) as exc:
        raise MailError(f"cannot build the rejection to {recipient!r}: {exc}") from exc

    what = " / ".join(reply.moves) if reply.moves else "(no move found)"
    lines = [f"Your move was not accepted: {what}", "", reason.rstrip(), ""]
    if legal:
        lines += ["Legal moves now:", *(f"    {move}" for move in legal), ""]
    lines += [
        "Reply to this mail with your move on the first line, and keep the subject as it",
        "is (it carries your token).",
    ]
    set_text(msg, "\n".join(lines))
    return msg
