"""Player tokens: an HMAC of game and player under the referee's key (see the package
docstring)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

from referee.errors import RefereeError

DOMAIN = "referee.invalid"
ENVELOPE_SENDER = "referee@referee.invalid"
_TOKEN_PREFIX = b"referee-token\0"
_B32 = "a-z2-7"
TOKEN_RE = rf"[{_B32}]{{4}}(?:[-\s]?[{_B32}]{{4}}){{3}}"


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


