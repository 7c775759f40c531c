"""Player tokens and the referee's MAC'd Message-IDs, both HMACs under the game's mail key
(see the package docstring).

A referee Message-ID is ``<rf.GAME.PLAYER.N.COUNTER.MAC@referee.invalid>``: GAME and
PLAYER quoted with :func:`quote_id_part`, N the play number the mail was written at (log
entries that are not ``meta``), COUNTER a number never issued twice for a game (the
judge counts from 1; `referee mail` uses 0, one mail per player and play number), and MAC
the first 64 bits (base32) of an HMAC-SHA256 over all four. Nobody without the key can
make an ID that passes :func:`check_id`, so a reply proves which referee mail it answers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass

from referee.errors import RefereeError

DOMAIN = "referee.invalid"
ENVELOPE_SENDER = "referee@referee.invalid"
_TOKEN_PREFIX = b"referee-token\0"
_B32 = "a-z2-7"
TOKEN_RE = rf"[{_B32}]{{4}}(?:[-\s]?[{_B32}]{{4}}){{3}}"

#: what the game master's token is computed over (no player id has '#')
GM_TOKEN = "#gm"


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




# --------------------------------------------------------------------------- link tags

# A one-click move (docs/mail.md, "Moves with one click"): a mailto: link to the judge's
# address with a tag, ``referee+TAG@host``, whose body is the move. The tag names the
# game (a short hash of its id), the seat (its place in the header's players) and the
# play number the link was made at, under a MAC with the game's key: with the
# registered From address it authenticates the mail without In-Reply-To or a token.
# Lowercase letters, digits and hyphens only, 26 characters: it survives a mail server
# that lowercases addresses and fits any local part.
LINK_TAG = re.compile(r"(?<![a-z0-9])([a-z2-7]{6})-(\d{1,2})-(\d{1,9})-([a-z2-7]{10})(?![a-z0-9])")


@dataclass(frozen=True)
class LinkTag:
    """A link tag as read (its MAC not yet checked: :func:`check_tag`)."""

    game_hash: str
    seat: int
    n: int
    mac: str

    @property
    def text(self) -> str:
        return f"{self.game_hash}-{self.seat}-{self.n}-{self.mac}"


def game_hash(game_id: str) -> str:
    """The six letters that stand for ``game_id`` in a link tag."""
    digest = hashlib.sha256(b"referee-game\0" + game_id.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:6]


def _tag_mac(key: bytes, game_id: str, seat: int, n: int) -> str:
    msg = b"referee-link\0" + f"{game_id}\0{seat}\0{n}".encode()
    return base64.b32encode(hmac.new(key, msg, hashlib.sha256).digest()).decode(
        "ascii").lower()[:10]


def link_tag(key: bytes, game_id: str, seat: int, n: int) -> str:
    """The tag of a one-click link of seat number ``seat`` (its place in the header's
    players) in ``game_id`` at play number ``n``."""
    if not key:
        raise MailError("the mail key is empty")
    return LinkTag(game_hash(game_id), seat, n, _tag_mac(key, game_id, seat, n)).text


def find_tags(texts: Iterable[str]) -> list[LinkTag]:
    """Every link tag written in ``texts`` (recipient addresses, a subject), in order,
    each once; at most 20."""
    found: dict[str, LinkTag] = {}
    for text in texts:
        for m in LINK_TAG.finditer(text.lower()[:4000]):
            tag = LinkTag(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))
            found.setdefault(tag.text, tag)
            if len(found) >= 20:
                return list(found.values())
    return list(found.values())


def check_tag(key: bytes, game_id: str, tag: LinkTag) -> bool:
    """True when ``tag`` is this game's (this key's)."""
    expected = _tag_mac(key, game_id, tag.seat, tag.n)
    return tag.game_hash == game_hash(game_id) and \
        hmac.compare_digest(expected.encode(), tag.mac.encode())


def plus_address(address: str, tag: str) -> str:
    """``address`` with ``tag`` as its detail: ``referee@host`` -> ``referee+TAG@host``
    (a detail already there is replaced)."""
    local, _, domain = address.rpartition("@")
    return f"{local.split('+', 1)[0]}+{tag}@{domain}"


# --------------------------------------------------------------------------- Message-IDs


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


_ID_RE = re.compile(
    rf"^<rf\.([A-Za-z0-9_=-]{{1,200}})\.([A-Za-z0-9_=-]{{1,100}})\.(\d{{1,9}})\.(\d{{1,12}})"
    rf"\.([a-z2-7]{{13}})@{re.escape(DOMAIN)}>$"
)


@dataclass(frozen=True)
class MailId:
    """A parsed referee Message-ID (its MAC not yet checked: see :func:`check_id`)."""

    game: str
    player: str
    n: int
    counter: int
    mac: str


def _id_mac(key: bytes, game: str, player: str, n: int, counter: int) -> str:
    msg = b"referee-judge-id\0" + f"{game}\0{player}\0{n}\0{counter}".encode()
    digest = hmac.new(key, msg, hashlib.sha256).digest()[:8]
    return base64.b32encode(digest).decode("ascii").lower().rstrip("=")


def make_id(key: bytes, game: str, player: str, n: int, counter: int) -> str:
    """The Message-ID of the referee's mail number ``counter`` to ``player`` at play ``n``."""
    if not key:
        raise MailError("the mail key is empty")
    mac = _id_mac(key, game, player, n, counter)
    return f"<rf.{quote_id_part(game)}.{quote_id_part(player)}.{n}.{counter}.{mac}@{DOMAIN}>"


def parse_id(msgid: str) -> MailId | None:
    """The parts of a referee Message-ID, or None for any other ID."""
    m = _ID_RE.match(msgid.strip())
    if not m:
        return None
    game, player = unquote_id_part(m.group(1)), unquote_id_part(m.group(2))
    if game is None or player is None:
        return None
    return MailId(game, player, int(m.group(3)), int(m.group(4)), m.group(5))


def check_id(key: bytes, mid: MailId) -> bool:
    """True when ``mid``'s MAC is right: the referee of this game (this key) wrote it."""
    expected = _id_mac(key, mid.game, mid.player, mid.n, mid.counter)
    return hmac.compare_digest(expected.encode(), mid.mac.encode())


def find_ids(msgids: list[str]) -> list[MailId]:
    """The referee IDs among ``msgids``, in their order (MACs not checked)."""
    return [mid for mid in (parse_id(m) for m in msgids) if mid is not None]
