"""A small MIME writer for the fixed shapes of the judge's mails, byte for byte what the
standard library's ``email`` package writes for them (``EmailMessage`` with
``email.policy.default``, ``set_content``, ``add_alternative``, ``make_related``, the
generator with ``linesep="\\n"``), at a fraction of its cost: no header objects (the
standard library builds a new class and a parse tree for every header it is given), no
generator walking the message.

The shapes: a plain mail (one ``text/plain`` part); ``multipart/alternative`` of the text
and an HTML part; the HTML part as ``multipart/related`` with inline PNGs. A header
whose value is not plain short ASCII (a name with accents, a long References line) is
folded by the standard library itself, once per distinct value (From, To and Subject
repeat from mail to mail). Boundaries are the standard library's form, their digits
taken from the SHA-256 of the Message-ID instead of ``random`` (the same mail, the same
bytes), and changed like the standard library's when the text holds one.
tests/mail/test_mime.py holds the bytes equal to the standard library's composition and
``email.message_from_bytes`` reading every part back.
"""

from __future__ import annotations

import email.policy
import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from email import quoprimime

__all__ = ["Leaf", "Mail", "Multipart", "check", "fold", "html_qp", "image", "text"]

_POLICY = email.policy.default.clone(linesep="\n")
_MAX = 78  # the policy's max_line_length
_PLAIN = re.compile(r"[!-~]+(?: [!-~]+)*")  # printable ASCII words, single spaces
_ALWAYS = frozenset(("from", "to", "cc", "subject", "reply-to", "sender"))
_FOLDED: OrderedDict[tuple[str, str], str] = OrderedDict()
_FOLDED_KEPT = 512


def fold(name: str, value: str) -> str:
    """``name: value`` as the standard library writes the header (a line ending with
    ``\\n``, continuation lines folded, non-ASCII as encoded words). Raises ValueError
    for a value with a line break, as ``EmailMessage`` does."""
    if "\n" in value or "\r" in value:
        raise ValueError("Header values may not contain linefeed or carriage return "
                         "characters")
    if (name.lower() not in _ALWAYS and len(name) + 2 + len(value) <= _MAX
            and "=?" not in value and _PLAIN.fullmatch(value)):
        return f"{name}: {value}\n"
    key = (name, value)
    found = _FOLDED.get(key)
    if found is None:
        found = _POLICY.header_factory(name, value).fold(policy=_POLICY)
        _FOLDED[key] = found
        while len(_FOLDED) > _FOLDED_KEPT:
            _FOLDED.popitem(last=False)
    return found


@dataclass
class Leaf:
    """A part with a body: its headers (name, value) and its encoded body text, each
    line ending with ``\\n``."""

    headers: list[tuple[str, str]]
    body: str


@dataclass
class Multipart:
    """``multipart/SUBTYPE``: ``headers`` are written before its Content-Type."""

    subtype: str
    parts: list[Leaf | Multipart]
    headers: list[tuple[str, str]] = field(default_factory=list)


def text(body: str, subtype: str = "plain", *, mime_version: bool = False) -> Leaf:
    """A text part as ``set_content(body, subtype=...)`` makes it: 7bit US-ASCII when it
    is ASCII, else UTF-8 quoted-printable (lines ending with ``\\n`` as the standard
    library splits them). ``mime_version``: the part was made as a whole message (the
    standard library adds ``MIME-Version`` to every part ``add_alternative`` makes)."""
    lines = body.encode("utf-8").splitlines()
    raw = b"\n".join(lines) + b"\n"
    if body.isascii():
        headers = [("Content-Type", f'text/{subtype}; charset="us-ascii"'),
                   ("Content-Transfer-Encoding", "7bit")]
        encoded = raw.decode("ascii")
    else:
        headers = [("Content-Type", f'text/{subtype}; charset="utf-8"'),
                   ("Content-Transfer-Encoding", "quoted-printable")]
        encoded = quoprimime.body_encode(raw.decode("latin-1"), _MAX)
    if mime_version:
        headers.append(("MIME-Version", "1.0"))
    return Leaf(headers, encoded)


def html_qp(page: str) -> Leaf:
    """An HTML part as ``add_alternative(page, subtype="html", charset="utf-8",
    cte="quoted-printable")`` makes it."""
    lines = page.encode("utf-8").splitlines()
    encoded = quoprimime.body_encode((b"\n".join(lines) + b"\n").decode("latin-1"), _MAX)
    return Leaf([("Content-Type", 'text/html; charset="utf-8"'),
                 ("Content-Transfer-Encoding", "quoted-printable"),
                 ("MIME-Version", "1.0")], encoded)


def image(base64_lines: str, cid: str, filename: str) -> Leaf:
    """An inline PNG part (its base64 already in lines of 76)."""
    return Leaf([("Content-Type", "image/png"), ("Content-Transfer-Encoding", "base64"),
                 ("Content-Disposition", f'inline; filename="{filename}"'),
                 ("Content-ID", f"<{cid}>")], base64_lines)


def check(headers: list[tuple[str, str]]) -> None:
    """Raise ValueError for a header value the standard library would refuse."""
    for name, value in headers:
        fold(name, value)


class Mail:
    """A whole mail: its own headers (From, To, ..., in order), then its body."""

    def __init__(self, headers: list[tuple[str, str]], body: Leaf | Multipart) -> None:
        self.headers = headers
        self.body = body
        check(headers)  # a bad value fails here, as when it is set on a message

    def __getitem__(self, name: str) -> str | None:
        return next((v for n, v in self.headers if n.lower() == name.lower()), None)

    def get_all(self, name: str, default: list[str] | None = None) -> list[str] | None:
        found = [v for n, v in self.headers if n.lower() == name.lower()]
        return found or default

    def as_bytes(self) -> bytes:
        """The mail as the standard library's generator writes it (``linesep="\\n"``)."""
        seed = hashlib.sha256(str(self["Message-ID"] or "").encode()).digest()
        counter = [0]
        body = self.body
        if isinstance(body, Leaf):  # (made with mime_version: as set_content adds it)
            out = "".join(fold(n, v) for n, v in [*self.headers, *body.headers]) + "\n" \
                + body.body
        else:
            out = _write(Multipart(body.subtype, body.parts,
                                   [*self.headers, ("MIME-Version", "1.0"), *body.headers]),
                         seed, counter)
        return out.encode("utf-8", "surrogateescape")


def _write(node: Leaf | Multipart, seed: bytes, counter: list[int]) -> str:
    """One part as the generator flattens it: headers, a blank line, the body; a
    multipart's parts between its boundary lines."""
    if isinstance(node, Leaf):
        return "".join(fold(n, v) for n, v in node.headers) + "\n" + node.body
    texts = [_write(part, seed, counter) for part in node.parts]
    counter[0] += 1
    boundary = _boundary(seed, counter[0], "\n".join(texts))
    out = ["".join(fold(n, v) for n, v in node.headers),
           f'Content-Type: multipart/{node.subtype};\n boundary="{boundary}"\n', "\n",
           f"--{boundary}\n"]
    for i, part in enumerate(texts):
        if i:
            out.append(f"\n--{boundary}\n")
        out.append(part)
    out.append(f"\n--{boundary}--\n")
    return "".join(out)


def _boundary(seed: bytes, n: int, text: str) -> str:
    """The generator's boundary form (``=`` * 15, 19 digits, ``==``), its digits from
    ``seed``; with ``.0``, ``.1``... added while a line of ``text`` is that boundary."""
    digits = int.from_bytes(hashlib.sha256(seed + n.to_bytes(4, "big")).digest()[:8],
                            "big") % 10**19
    base = f"{'=' * 15}{digits:019d}=="
    found, tried = base, 0
    while f"--{found}" in text and re.search(
            "^--" + re.escape(found) + "(--)?$", text, re.MULTILINE):
        found = f"{base}.{tried}"
        tried += 1
    return found
