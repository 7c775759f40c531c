"""Reading a player's reply: own lines, quotes, signatures, forwards, token, moves."""

from __future__ import annotations

import email
import email.policy
import re
import signal
import threading
import time
from dataclasses import dataclass, field
from email.errors import MessageError
from email.message import EmailMessage, Message, MIMEPart
from html.parser import HTMLParser

from referee.mail import headers
from referee.mail.outgoing import _parse_our_id
from referee.mail.tokens import TOKEN_RE as _TOKEN_RE
from referee.mail.tokens import MailError, find_tags
from referee.play.reading import read_lines

# --------------------------------------------------------------------------- incoming


@dataclass(frozen=True)
class Reply:
    """What a player's mail says. Nothing in it is trusted until
    :mod:`referee.mail.intake` checks it."""

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
    own: tuple[str, ...] = ()  # the player's own lines (unquoted, above any signature)
    # without ``move:`` lines: every own line that may be the move, tidied (clean_line),
    # in order, at most MAX_LINES; ``moves`` holds the first of them
    lines: tuple[str, ...] = ()
    # where each of ``lines`` is in ``own`` (its index there)
    origins: tuple[int, ...] = ()
    replies_to: tuple[str, ...] = ()  # every Message-ID of In-Reply-To, in order
    # the link tags (referee.mail.tokens.LinkTag) in its recipients or subject: a mail
    # made from a one-click link (unchecked until the judge checks their MACs)
    tags: tuple[str, ...] = ()

    def line_number(self, k: int) -> int:
        """The number of ``lines[k]`` among the player's own non-empty lines (1: the
        first line they wrote): the line of their mail as they count it."""
        return sum(1 for line in self.own[:self.origins[k] + 1] if line)


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


# what the standard library's structured header parsers may raise on junk in a part's
# Content-Type or Content-Disposition (its charset, boundary or filename parameters)
_PARSER_ERRORS = (LookupError, ValueError, TypeError, AttributeError, AssertionError,
                  MessageError)


def _part_text(part: Message) -> str:
    """A text part's content: through the standard library (its charset, transfer
    encoding); when that fails, its decoded payload in the charset of its raw
    Content-Type (:func:`referee.mail.headers.param`), else UTF-8, with replacement."""
    try:
        content = part.get_content() if isinstance(part, MIMEPart) else None
        if isinstance(content, str):
            return content
    except _PARSER_ERRORS:
        pass
    try:
        payload = part.get_payload(decode=True)
    except _PARSER_ERRORS:
        payload = None
    if not isinstance(payload, bytes):
        text = part.get_payload() if not part.is_multipart() else ""
        payload = headers.raw_bytes(text) if isinstance(text, str) else b""
    charset = headers.param(part, "Content-Type", "charset") or "utf-8"
    try:
        return payload.decode(charset, "replace")
    except (LookupError, ValueError, TypeError):  # unknown, a NUL in the name, no text
        return payload.decode("utf-8", "replace")


def _body_text(msg: EmailMessage) -> str:
    """The text of the mail's body: its plain part, else its HTML part as text."""
    plain: Message | None
    rich: Message | None
    try:
        plain = msg.get_body(preferencelist=("plain",))
        rich = None if plain is not None else msg.get_body(preferencelist=("html",))
    except _PARSER_ERRORS:  # a header the parser chokes on: the parts found by hand
        plain, rich = _first_part(msg, "text/plain"), _first_part(msg, "text/html")
    if plain is not None:
        return _part_text(plain)
    if rich is not None:
        return html_to_text(_part_text(rich))
    return ""


def _first_part(msg: Message, media: str) -> Message | None:
    """The first part of ``media`` type that is no attachment, by the raw headers."""
    for part in msg.walk():
        if part.is_multipart() or headers.content_type(part) != media:
            continue
        disposition = headers.header_text(part, "Content-Disposition", 100).lower()
        if not disposition.startswith("attachment"):
            return part
    return None


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
_OWN_TOKEN_RE = re.compile(rf"^token\s*:\s*({_TOKEN_RE})\s*\.?$", re.I)
_SUBJECT_TOKEN_RE = re.compile(rf"\[#\s*({_TOKEN_RE})\s*\]", re.I)
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


def _is_automatic(msg: EmailMessage) -> bool:
    auto = headers.header_text(msg, "Auto-Submitted") if headers.raw(
        msg, "Auto-Submitted") is not None else "no"
    precedence = headers.header_text(msg, "Precedence").lower()
    return (
        auto.lower() not in ("", "no")
        or precedence in ("bulk", "junk", "list", "auto_reply")
        or headers.raw(msg, "X-Autoreply") is not None
        or headers.raw(msg, "X-Autorespond") is not None
        or headers.content_type(msg) == "multipart/report"
    )


# where a one-click link's tag is read: the addresses it was sent to (a server keeps the
# detail of a plus-address in the envelope's headers), and the subject
LINK_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To")
MAX_MIME_DEPTH = 10  # multipart levels and attached messages, counted together
MAX_MIME_PARTS = 200  # parts in all (the standard library's parser is slow on many)
PARSE_SECONDS = 5.0  # what one mail may take to read, whatever the bounds above missed
MAX_IDS = 100  # Message-IDs read of In-Reply-To (the first) and of References (the last)
HINT_CHARS = 200  # of a game or player named by an attached original or a line: hints

_BOUNDARY_RE = re.compile(
    rb'boundary(?:\*0?)?\*?\s*=\s*(?:"([^"\r\n]{1,200})"|([^\s;"]{1,200}))', re.I)
_MESSAGE_PART_RE = re.compile(rb"^content-type\s*:\s*message/", re.I | re.M)


def mime_shape(raw: bytes) -> tuple[int, int]:
    """(an upper bound of how deep the MIME parts of ``raw`` nest, how many parts it
    has), found without parsing. Depth: the most multipart boundaries open at once (a
    boundary is open from its first delimiter line to its closing one, or to the end if
    never closed) plus the number of attached messages (message/...). Stops counting
    once past the bounds."""
    boundaries = {m.group(1) or m.group(2) for m in _BOUNDARY_RE.finditer(raw)}
    messages = len(_MESSAGE_PART_RE.findall(raw))
    if not boundaries:
        return messages, messages
    opened: list[bytes] = []
    deepest = parts = 0
    for line in raw.splitlines():
        if not line.startswith(b"--"):
            continue
        name = line[2:].rstrip()
        closing = name.endswith(b"--") and name[:-2] in boundaries
        if closing:
            name = name[:-2]
        if name not in boundaries:
            continue
        if closing:
            if name in opened:
                del opened[opened.index(name):]  # closes the parts inside it too
            continue
        parts += 1
        if name not in opened:
            opened.append(name)
            deepest = max(deepest, len(opened))
        if deepest + messages > MAX_MIME_DEPTH or parts > MAX_MIME_PARTS:
            break
    return deepest + messages, parts + messages


def _depth(msg: Message) -> int:
    """How deep the parts of a parsed message nest (no recursion)."""
    deepest = 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack:
        part, level = stack.pop()
        deepest = max(deepest, level)
        if not part.is_multipart():  # (a leaf's payload would be decoded in its charset)
            continue
        payload = part.get_payload()
        if isinstance(payload, list) and level <= MAX_MIME_DEPTH:
            stack.extend((p, level + 1) for p in payload if isinstance(p, Message))
    return deepest


class _TooSlow(BaseException):  # not an Exception: no except clause of a parser eats it
    pass


class _TimeLimit:
    """Raise _TooSlow in the main thread after ``seconds`` (SIGALRM), and again every
    TICK_SECONDS until ``done`` is set: a handler's exception that lands in a garbage
    collector callback or a ``__del__`` is swallowed by Python, so one alarm is not enough.
    Outside the main thread (or without setitimer) there is no limit. A timer set before
    is put back with the time it had left."""

    TICK_SECONDS = 0.05

    def __init__(self, seconds: float) -> None:
        self.done = False
        self.armed = (threading.current_thread() is threading.main_thread()
                      and hasattr(signal, "setitimer"))
        if not self.armed:
            return
        self.started = time.monotonic()
        self.old_handler = signal.signal(signal.SIGALRM, self._expired)
        self.old_timer = signal.setitimer(signal.ITIMER_REAL, seconds, self.TICK_SECONDS)

    def _expired(self, signum: int, frame: object) -> None:
        if not self.done:  # after ``done`` (one attribute store, no call) a tick does nothing
            raise _TooSlow

    def stop(self) -> None:
        self.done = True
        if not self.armed:
            return
        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old_handler)
        if self.old_timer[0] > 0:
            left = max(self.old_timer[0] - (time.monotonic() - self.started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, self.old_timer[1])


def parse_reply(raw: bytes) -> Reply:
    """Read a player's mail: who it claims to be from, game, player, token and moves.

    Never trusts anything (:mod:`referee.mail.intake` does). Raises MailError for a mail the
    standard library cannot take apart, for one whose MIME parts nest more than
    MAX_MIME_DEPTH levels or number more than MAX_MIME_PARTS (checked before parsing),
    and for one that takes more than PARSE_SECONDS to read (in the main thread).
    """
    depth, parts = mime_shape(raw)
    if depth > MAX_MIME_DEPTH:
        raise MailError(f"cannot read this mail: its MIME parts nest more than "
                        f"{MAX_MIME_DEPTH} levels deep")
    if parts > MAX_MIME_PARTS:
        raise MailError(f"cannot read this mail: it has more than {MAX_MIME_PARTS} MIME parts")
    limit = _TimeLimit(PARSE_SECONDS)
    try:
        try:
            return _parse_reply(raw)
        finally:
            limit.done = True  # first, before anything that could let a tick in
    except _TooSlow:
        raise MailError(f"cannot read this mail: it takes more than {PARSE_SECONDS:g} s to "
                        "take apart") from None
    except RecursionError:
        raise MailError("cannot read this mail: its MIME parts nest too deeply") from None
    except (*_PARSER_ERRORS, IndexError) as exc:
        raise MailError(f"cannot read this mail: {type(exc).__name__}: {exc}") from exc
    finally:
        limit.stop()


def _parse_reply(raw: bytes) -> Reply:
    msg = email.message_from_bytes(raw, policy=headers.POLICY)
    assert isinstance(msg, EmailMessage)
    if _depth(msg) > MAX_MIME_DEPTH:
        raise MailError(f"cannot read this mail: its MIME parts nest more than "
                        f"{MAX_MIME_DEPTH} levels deep")
    warnings: list[str] = []

    # every header through referee/mail/headers.py: decoded with replacement, never raising
    sender = headers.address(msg, "From")
    if not sender:
        warnings.append("the From line names no address")
    subj = headers.header_text(msg, "Subject")
    in_reply_to_ids = headers.msgids(msg, "In-Reply-To")[:MAX_IDS]
    references = tuple(headers.msgids(msg, "References")[-MAX_IDS:])
    own_id = headers.msgids(msg, "Message-ID")

    own, other, forwarded = _split_own(_body_text(msg))
    prefix = _FWD_SUBJECT_RE.match(subj)
    if prefix and re.search(r"\b(fwd?|wg|tr|rv|enc|vs)\b", prefix.group(0), re.I):
        forwarded = True

    # game and player: attached original, then our Message-IDs, then game:/player: lines
    game: str | None = None
    player: str | None = None
    move_number: int | None = None
    for part in msg.walk():
        if headers.content_type(part) == "message/rfc822":
            inner = part.get_payload(0) if part.is_multipart() else None
            if isinstance(inner, Message) and headers.header_text(inner, "X-Referee-Game"):
                game = headers.header_text(inner, "X-Referee-Game", HINT_CHARS)
                player = headers.header_text(inner, "X-Referee-Player", HINT_CHARS) or None
                number = headers.header_text(inner, "X-Referee-Move")
                move_number = int(number) if re.fullmatch(r"[0-9]{1,9}", number) else None
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
                game = headers.clean(m.group(1), HINT_CHARS)
            if player is None and (m := _PLAYER_LINE_RE.match(line)):
                player = headers.clean(m.group(1), HINT_CHARS)

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

    moves, lines, origins = read_lines(own)
    tags = tuple(t.text for t in find_tags([*headers.raw_texts(msg, LINK_HEADERS), subj]))
    return Reply(
        sender=sender,
        game_id=game,
        player=player,
        token=token,
        moves=moves,
        lines=lines,
        origins=origins,
        in_reply_to=in_reply_to_ids[0] if in_reply_to_ids else None,
        replies_to=tuple(in_reply_to_ids),
        message_id=own_id[0] if own_id else None,
        references=references,
        subject=subj,
        move_number=move_number,
        forwarded=forwarded,
        automatic=_is_automatic(msg),
        warnings=tuple(warnings),
        own=tuple(own),
        tags=tags,
    )


