"""Reading an incoming mail's headers: the one way every header the referee reads is
decoded (From, To, Subject, Message-ID, In-Reply-To, References, Content-Type, the
X-Referee-* headers of an attached original), whatever bytes the sender put there.

The policy, chosen deliberately: a mail is parsed once with :data:`POLICY`,
``email.policy.default`` with its headers cut to a length its parsers read in time (the
bodies need ``EmailMessage.get_body``), but no header the referee reads goes through
that policy's header objects, which raise on some junk, nor through ``compat32``'s, which
hand back ``Header`` objects holding the raw bytes. Every reader here takes the raw
value as parsed (``Message.raw_items``: the header's bytes, 8-bit ones as surrogate
escapes), turns it back into those bytes, and decodes it itself:

* encoded words (RFC 2047) with their charset, adjacent words of one charset joined
  before decoding (a character split over two words), the white space between them
  dropped; bad base64 is decoded as far as it goes, bad quoted-printable as written;
* an unknown, misspelled or non-text charset (``x-unknown``, ``rot13``, a name with a
  NUL), and raw 8-bit text in or out of encoded words, as UTF-8;
* always with replacement: what does not decode becomes U+FFFD, never a surrogate;
* then cleaned (:func:`clean`): no control character (NUL, CR, LF, ESC...), no line or
  paragraph separator, no lone surrogate, runs of white space one space, at most
  :data:`MAX_HEADER_CHARS` characters.

So the text a reader gets can be printed, logged, compared and written into a new
header by the standard library without an error. Addresses and Message-IDs are taken
from the raw value, not from decoded text: an encoded display name ``=?utf-8?q?a=2C_b?=``
holds a comma, not a second address, and an encoded ``<...>`` is no Message-ID.
"""

from __future__ import annotations

import binascii
import quopri
import re
import unicodedata
from email import errors
from email.message import Message
from email.policy import EmailPolicy
from email.utils import getaddresses
from typing import Any

__all__ = ["MAX_HEADER_CHARS", "POLICY", "address", "clean", "content_type", "decode",
           "header_text", "msgids", "param", "raw", "raw_bytes"]

MAX_HEADER_CHARS = 16384  # of a header's raw value that is decoded (a 10,000-char line)
MAX_PARSED_CHARS = 2048  # of a header that the standard library's parsers read
MAX_ADDRESS = 254  # RFC 5321's path limit, less the brackets
MAX_MSGID = 998  # one line; the intake keeps only short ASCII IDs of its own
_EW = re.compile(rb"=\?([^?\s]{1,64})\?([bBqQ])\?([^?\s]*)\?=")
_NOT_B64 = re.compile(rb"[^A-Za-z0-9+/]")
_FOLD = re.compile(rb"\r?\n[ \t]")
_MSGID = re.compile(rf"<[\x21-\x3b\x3d\x3f-\x7e]{{1,{MAX_MSGID - 2}}}>")
_SPACE = re.compile(r"\s+")
# an addr-spec the referee answers: no space, control, bracket, quote or list separator
_ADDRESS = re.compile(r"[^\s@<>()\[\],;:\"\\]{1,64}@[^\s@<>()\[\],;:\"\\]{1,189}")
_ANGLE = re.compile(r"<([^<>\s]+@[^<>\s]+)>")
_MEDIA = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}")


class _ReadPolicy(EmailPolicy):
    """``email.policy.default`` for reading a mail, but a header that the standard
    library itself parses (Content-Type and Content-Disposition, for ``get_body`` and
    ``get_content``) is cut to :data:`MAX_PARSED_CHARS` first: its parsers take a
    third of a second on 16 KiB of parameters, each time a part's type is asked."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        if isinstance(value, str) and len(value) > MAX_PARSED_CHARS:
            value = value[:MAX_PARSED_CHARS]
        return super().header_fetch_parse(name, value)  # type: ignore[no-any-return]


POLICY = _ReadPolicy()


def raw(msg: Message, name: str) -> str | None:
    """The first ``name`` header's value as parsed (8-bit bytes as surrogate escapes),
    or None."""
    lowered = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == lowered:
            return str(value)
    return None


def raw_bytes(value: str) -> bytes:
    """A raw header value's bytes again (the parser read them as ASCII with surrogate
    escapes); a character that is no escape is written as UTF-8."""
    try:
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escape (not from bytes)
        return value.encode("utf-8", "replace")


def _unfold(data: bytes) -> bytes:
    return _FOLD.sub(b" ", data).replace(b"\r", b"").replace(b"\n", b"")


def _charset(name: bytes) -> str:
    """The codec of an encoded word's charset name (its RFC 2231 language cut off)."""
    return name.split(b"*", 1)[0].decode("ascii", "replace").strip().lower()


def _text(data: bytes | bytearray, charset: str) -> str:
    """``data`` decoded in ``charset`` with replacement; as UTF-8 when the charset is
    unknown or no text encoding (``bytes.decode`` refuses those with LookupError)."""
    if charset and charset not in ("unknown-8bit", "x-unknown"):
        try:
            return data.decode(charset, "replace")
        except (LookupError, ValueError, TypeError):  # unknown, NUL in the name, idna
            pass
    return data.decode("utf-8", "replace")


def _payload(kind: bytes, text: bytes) -> bytes | None:
    """An encoded word's bytes, or None when they do not decode at all."""
    if kind in b"qQ":
        return quopri.decodestring(text, header=True)
    letters = _NOT_B64.sub(b"", text)  # what lies outside the alphabet is skipped
    if len(letters) % 4 == 1:  # a last group of one letter holds no whole byte
        letters = letters[:-1]
    try:  # a last group cut short is padded: decoded as far as it goes
        return binascii.a2b_base64(letters + b"=" * (-len(letters) % 4))
    except binascii.Error:
        return None


def decode(value: str | bytes, limit: int = MAX_HEADER_CHARS) -> str:
    """A raw header value as text: its encoded words decoded, everything with
    replacement, then :func:`clean`. Only the first :data:`MAX_HEADER_CHARS` of the
    value are read."""
    data = _unfold(raw_bytes(value) if isinstance(value, str) else value)
    data = data[:MAX_HEADER_CHARS]
    out: list[str] = []
    pending: tuple[str, bytearray] | None = None  # adjacent words of one charset
    pos = 0
    for m in _EW.finditer(data):
        between = data[pos:m.start()]
        decoded = _payload(m.group(2), m.group(3))
        if decoded is None:  # not an encoded word after all: its text as written
            continue
        if pending is not None and between.strip(b" \t"):
            out.append(_text(pending[1], pending[0]))
            pending = None
        if pending is None:
            out.append(between.decode("utf-8", "replace"))
        charset = _charset(m.group(1))
        if pending is not None and pending[0] == charset:
            pending[1].extend(decoded)
        else:
            if pending is not None:
                out.append(_text(pending[1], pending[0]))
            pending = (charset, bytearray(decoded))
        pos = m.end()
    if pending is not None:
        out.append(_text(pending[1], pending[0]))
    out.append(data[pos:].decode("utf-8", "replace"))
    return clean("".join(out), limit)


def clean(text: str, limit: int = MAX_HEADER_CHARS) -> str:
    """``text`` safe to print and to put into a header: a lone surrogate becomes U+FFFD;
    a control character (C0, C1, DEL) or a line or paragraph separator becomes a space;
    runs of white space become one; at most ``limit`` characters."""
    chars = []
    for ch in text[:limit * 2]:
        if "\ud800" <= ch <= "\udfff":
            chars.append("\ufffd")
        elif unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            chars.append(" ")
        else:
            chars.append(ch)
    return _SPACE.sub(" ", "".join(chars)).strip()[:limit]


def header_text(msg: Message, name: str, limit: int = MAX_HEADER_CHARS) -> str:
    """The first ``name`` header of ``msg`` decoded (:func:`decode`); "" if none."""
    value = raw(msg, name)
    return "" if value is None else decode(value, limit)


def address(msg: Message, name: str = "From") -> str:
    """The first addr-spec of an address header, parsed from the raw value (its encoded
    words taken for comments: an encoded name cannot add an address; where a broken
    name hides it from the parser, the first ``<addr-spec>`` written); "" when there is
    none or it is no plain address the referee could answer (a space, a control character, a
    bracket, a quote, a byte that is no UTF-8, longer than 254 characters, one that the
    standard library would not write as a To)."""
    value = raw(msg, name)
    if value is None:
        return ""
    # an encoded word is a piece of a name, never of an address (RFC 2047): replaced by
    # a comment, so that the specials in it (":", "@", ",") are no address syntax, and
    # an address written with one (``=?..?=@example.org``) has no local part: none
    data = _EW.sub(b"(w)", _unfold(raw_bytes(value)))
    text = data.decode("utf-8", "replace")
    try:  # (the parser reads the first 16 KiB; the fallback below looks at all of it)
        pairs = getaddresses([text[:MAX_HEADER_CHARS]])
    except (ValueError, IndexError, TypeError):  # (the parser on some junk)
        pairs = []
    parsed = next((addr.strip() for _, addr in pairs if "@" in addr), "")
    # a name that breaks the syntax (an unclosed "(" or quote) hides the address from the
    # parser, or makes it take the name in (or a name longer than the parser reads):
    # then the first <addr-spec> written
    angle = _ANGLE.search(text)
    for found in (parsed, angle.group(1) if angle else ""):
        if len(found) <= MAX_ADDRESS and _ADDRESS.fullmatch(found) and \
                found.isprintable() and "\ufffd" not in found and _writable(found):
            return found
    return ""


def _writable(addr: str) -> bool:
    """Whether the standard library reads ``addr`` back as one address with a user and
    a domain and no defect but a non-ASCII local part (RFC 6532), as an answer's To."""
    try:
        header = POLICY.header_factory("To", addr)
    except (ValueError, IndexError, TypeError, LookupError):
        return False
    found: tuple[Any, ...] = tuple(getattr(header, "addresses", ()))
    defects = [d for d in getattr(header, "defects", ())
               if not isinstance(d, errors.NonASCIILocalPartDefect)]
    return len(found) == 1 and not defects and bool(found[0].username) and \
        bool(found[0].domain) and found[0].addr_spec == addr


def msgids(msg: Message, name: str) -> list[str]:
    """The Message-IDs (``<...>``, printable ASCII, at most 998 characters) of every
    ``name`` header of ``msg``, in order. One that holds ``=?`` is left out: the
    standard library would read it as an encoded word when it is written again (the
    referee's own IDs never hold one)."""
    return [m for text in raw_texts(msg, (name,), limit=None)
            for m in _MSGID.findall(text) if "=?" not in m]


def raw_texts(msg: Message, names: tuple[str, ...], limit: int | None = MAX_HEADER_CHARS
              ) -> list[str]:
    """The raw values of every header of ``names`` (any case), unfolded, as ASCII with
    replacement, each at most ``limit`` characters (None: whole): for patterns that only
    ASCII can match (a link tag in an address, a Message-ID)."""
    lowered = {n.lower() for n in names}
    return [_unfold(raw_bytes(str(value))).decode("ascii", "replace")[:limit]
            for key, value in msg.raw_items() if key.lower() in lowered]


def content_type(msg: Message) -> str:
    """The part's media type, lowercase (``text/plain``), from its raw Content-Type;
    ``text/plain`` when it is not one (RFC 2045's default); without one, the default of
    where the part is (``message/rfc822`` in a digest)."""
    value = raw(msg, "Content-Type")
    if value is None:
        parent_default = msg.get_default_type()
        return parent_default if _MEDIA.fullmatch(parent_default) else "text/plain"
    media = decode(value, 300).split(";", 1)[0].strip().lower()
    return media if _MEDIA.fullmatch(media) else "text/plain"


_PARAM = re.compile(r";\s*([A-Za-z0-9!#$%&'*+.^_`|~-]{1,64})\s*=\s*(\"[^\"]*\"|[^;\s]*)")


def param(msg: Message, header: str, name: str) -> str | None:
    """A parameter of a structured header (``charset`` of Content-Type, ``filename`` of
    Content-Disposition), from its raw value, decoded and cleaned (RFC 2231's
    ``name*=charset''text`` and continuations ``name*0=`` are read as UTF-8); None when
    it is not there."""
    value = raw(msg, header)
    if value is None:
        return None
    text = _unfold(raw_bytes(value))[:MAX_HEADER_CHARS].decode("utf-8", "replace")
    parts: dict[int, str] = {}
    lowered = name.lower()
    for m in _PARAM.finditer(text):
        key, given = m.group(1).lower(), m.group(2)
        given = given[1:-1] if given.startswith('"') else given
        base, _, rest = key.partition("*")
        if base != lowered:
            continue
        number = int(rest.rstrip("*")) if rest.rstrip("*").isdigit() else 0
        if key.endswith("*"):  # percent-encoded, ``charset'lang'`` before the first part
            given = given.split("'", 2)[-1] if number == 0 and given.count("'") >= 2 \
                else given
            given = re.sub(r"%([0-9A-Fa-f]{2})", lambda h: chr(int(h.group(1), 16)), given)
            given = given.encode("latin-1", "replace").decode("utf-8", "replace")
        parts.setdefault(number, given)
    if not parts:
        return None
    return decode("".join(parts[k] for k in sorted(parts)), 300)
