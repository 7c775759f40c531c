"""What the referee vouches for in sealed games: entry MACs and sealed hidden choices.

* **Entry MACs.** Every entry the referee accepts while holding the secret carries
  ``mac`` = HMAC-SHA256 over the entry's canonical JSON (without ``mac``), keyed from the
  seed. The entry includes ``prev``, so a MAC vouches for the whole history before it: a
  player who recomputes the hash chain after an edit cannot recompute a MAC.
* **Sealed hidden choices.** A move's private fields (``Game.private_fields``: a kept card,
  a secretly chosen card) are stored encrypted with age to the game's *referee recipient*,
  an X25519 key derived from the seed. Its public half is in the header
  (``rng.recipient``), so a player appending a move without the secret can seal it too; only
  the referee can open it. The entry keeps the public fields and ``public``, the text
  other players see ("pass 2, kept a card").

pyrage (age) and bech32 are the ``sealed`` extra, imported only when a sealed move is
written or read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from referee.errors import GameFileError, UsageError


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _derive(seed: str, purpose: bytes) -> bytes:
    return hmac.new(seed.encode(), b"referee/" + purpose, hashlib.sha256).digest()


# --- entry MACs -------------------------------------------------------------------------


def entry_mac(seed: str, entry: Mapping[str, Any]) -> str:
    """The referee's MAC of a log entry (any ``mac`` field already in it is left out)."""
    body = {k: v for k, v in entry.items() if k != "mac"}
    return hmac.new(_derive(seed, b"entry-mac"), _canonical(body), hashlib.sha256).hexdigest()


def mac_ok(seed: str, entry: Mapping[str, Any]) -> bool:
    return hmac.compare_digest(entry_mac(seed, entry), str(entry.get("mac", "")))


# --- sealing hidden choices -------------------------------------------------------------


def _age() -> Any:
    try:
        import pyrage
    except ImportError:
        raise UsageError(
            "sealed hidden choices need the age library pyrage: pip install pyrage"
        ) from None
    return pyrage


def _identity(seed: str) -> Any:
    import bech32

    key = _derive(seed, b"age-identity")
    words = bech32.convertbits(key, 8, 5)
    assert words is not None  # (8-bit bytes always convert)
    text = bech32.bech32_encode("age-secret-key-", words).upper()
    return _age().x25519.Identity.from_str(text)


def recipient(seed: str) -> str:
    """The game's referee recipient (an age public key), written into sealed headers."""
    return str(_identity(seed).to_public())


def seal(recipient_text: str, fields: Mapping[str, Any]) -> str:
    """``fields`` encrypted to the referee recipient, as base64 text."""
    import base64  # only for a sealed move

    age = _age()
    try:
        to = age.x25519.Recipient.from_str(recipient_text)
    except Exception:
        raise GameFileError(f"$.rng.recipient: not an age recipient: {recipient_text[:20]}...")\
            from None
    return base64.b64encode(age.encrypt(_canonical(dict(fields)), [to])).decode()


def unseal(seed: str, text: str, where: str) -> dict[str, Any]:
    """The private fields sealed in ``text``. Raises GameFileError naming ``where``."""
    import base64  # only for a sealed move

    age = _age()
    try:
        plain = age.decrypt(base64.b64decode(text, validate=True), [_identity(seed)])
        fields = json.loads(plain)
    except Exception:
        raise GameFileError(
            f"{where}.sealed cannot be opened with this game's secret: edited or forged"
        ) from None
    if not isinstance(fields, dict):
        raise GameFileError(f"{where}.sealed does not hold move fields")
    return fields
