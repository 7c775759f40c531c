"""The judge's Message-IDs: each carries a MAC, so a reply proves which mail it answers.

``<rf.GAME.PLAYER.N.COUNTER.MAC@referee.invalid>``: GAME and PLAYER are quoted with
:func:`referee.mail.quote_id_part`, N is the log length the mail was written at, COUNTER
a number the judge never issues twice for a game, and MAC the first 64 bits (base32) of
an HMAC-SHA256 over all four under the game's mail key. Nobody without the key can make
an ID that passes :func:`check`, and every ID is unique (the counter).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

from referee.mail import DOMAIN, quote_id_part, unquote_id_part

_ID_RE = re.compile(
    rf"^<rf\.([A-Za-z0-9_=-]+)\.([A-Za-z0-9_=-]+)\.(\d{{1,9}})\.(\d{{1,12}})\.([a-z2-7]{{13}})@{DOMAIN}>$"
)


@dataclass(frozen=True)
class JudgeId:
    """A parsed judge Message-ID (its MAC not yet checked)."""

    game: str
    player: str
    n: int
    counter: int
    mac: str


def _mac(key: bytes, game: str, player: str, n: int, counter: int) -> str:
    msg = b"referee-judge-id\0" + f"{game}\0{player}\0{n}\0{counter}".encode()
    digest = hmac.new(key, msg, hashlib.sha256).digest()[:8]
    return base64.b32encode(digest).decode("ascii").lower().rstrip("=")


def make(key: bytes, game: str, player: str, n: int, counter: int) -> str:
    """The Message-ID of the judge's mail number ``counter`` to ``player`` at move ``n``."""
    mac = _mac(key, game, player, n, counter)
    return f"<rf.{quote_id_part(game)}.{quote_id_part(player)}.{n}.{counter}.{mac}@{DOMAIN}>"


def parse(msgid: str) -> JudgeId | None:
    """The parts of a judge Message-ID, or None for any other ID."""
    m = _ID_RE.match(msgid.strip())
    if not m:
        return None
    game, player = unquote_id_part(m.group(1)), unquote_id_part(m.group(2))
    if game is None or player is None:
        return None
    return JudgeId(game, player, int(m.group(3)), int(m.group(4)), m.group(5))


def check(key: bytes, jid: JudgeId) -> bool:
    """True when ``jid``'s MAC is right: the judge of this game issued it."""
    expected = _mac(key, jid.game, jid.player, jid.n, jid.counter)
    return hmac.compare_digest(expected.encode(), jid.mac.encode())


def find(msgids: list[str]) -> list[JudgeId]:
    """The judge IDs among ``msgids`` (In-Reply-To first, then References newest first)."""
    return [jid for jid in (parse(m) for m in msgids) if jid is not None]
