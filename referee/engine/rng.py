"""The specified deterministic random generator (see docs/rng.md).

Every random draw of a game comes from here, so that the same seed always gives the
same game on any machine and any Python version. Python's ``random`` module is never
used: its algorithms are not promised to stay the same across versions.

A draw is a SHA-256 block::

    block(stream, counter) = SHA-256( key || 0x00 || utf8(stream) || 0x00 || u64be(counter) )

where ``key`` is the UTF-8 bytes of the seed (and, in sealed games, the combination of
the secret seed with the players' nonces, see :func:`combine_key`). Each named stream
has its own counter starting at 0; a block is read as an unsigned 256-bit big-endian
integer ``x``. ``below(n)`` rejects ``x >= floor(2**256 / n) * n`` and takes the next
counter, then returns ``x % n``. ``shuffle`` is Fisher-Yates from the last position down:
for ``i = len-1 .. 1``, ``j = below(i + 1)``, swap ``i`` and ``j``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

__all__ = ["MIN_SEED_BITS", "Rng", "combine_key", "commitment", "new_seed", "seed_bits"]

_T = TypeVar("_T")

_SPACE = 1 << 256


def new_seed() -> str:
    """Return a fresh strong seed (128 bits from the OS, as 32 hex digits)."""
    import secrets  # only when a seed is made

    return secrets.token_hex(16)


MIN_SEED_BITS = 128


def seed_bits(seed: str) -> float:
    """A cautious estimate of the entropy of a seed someone typed: bits per character by
    its look (hex digits 4, decimal digits 3.3, a random-looking mix of upper and lower case
    letters and digits 5.9, anything else, such as words, 2), times its length, where a
    character repeated more than 4 times per distinct character does not count. A seed
    made by ``new_seed`` (32 hex digits) carries 128."""
    if not seed:
        return 0.0
    if all(c in "0123456789abcdef" for c in seed.lower()):
        per_char = 4.0 if not seed.isdigit() else math.log2(10)
    elif seed.isalnum() and seed.isascii() and not seed.islower() and not seed.isupper():
        per_char = math.log2(62)
    else:
        per_char = 2.0
    return min(len(seed), 4 * len(set(seed))) * per_char


def combine_key(seed: str, nonces: Sequence[str] = ()) -> bytes:
    """The generator key for ``seed`` and the players' ``nonces`` (in header order).

    Without nonces the key is the seed's UTF-8 bytes. With nonces it is
    SHA-256(utf8(seed) || 0x00 || utf8(nonce1) || 0x00 || ... ), so nobody who knows only
    some of the inputs can choose the outcome.
    """
    if not nonces:
        return seed.encode()
    h = hashlib.sha256(seed.encode())
    for nonce in nonces:
        h.update(b"\x00" + nonce.encode())
    return h.digest()


def commitment(seed: str) -> str:
    """The public commitment to a secret seed: ``sha256:`` + hex digest of its UTF-8."""
    return "sha256:" + hashlib.sha256(seed.encode()).hexdigest()


class Rng:
    """Named streams of SHA-256 blocks; the counters are the generator's whole state."""

    __slots__ = ("_key", "counters")

    def __init__(self, key: bytes | str, counters: dict[str, int] | None = None) -> None:
        self._key = key.encode() if isinstance(key, str) else key
        self.counters: dict[str, int] = dict(counters or {})

    def copy(self) -> Rng:
        return Rng(self._key, self.counters)

    def block(self, stream: str) -> int:
        """The next 256-bit block of ``stream`` as an integer."""
        counter = self.counters.get(stream, 0)
        self.counters[stream] = counter + 1
        digest = hashlib.sha256(
            self._key + b"\x00" + stream.encode() + b"\x00" + counter.to_bytes(8, "big")
        ).digest()
        return int.from_bytes(digest, "big")

    def below(self, n: int, stream: str) -> int:
        """A uniform integer in ``range(n)``. Raises ValueError if ``n < 1``."""
        if n < 1:
            raise ValueError(f"below() needs n >= 1, got {n}")
        limit = _SPACE - _SPACE % n
        while True:
            x = self.block(stream)
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[_T], stream: str) -> None:
        """Shuffle ``items`` in place (Fisher-Yates, last position first)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1, stream)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[_T], stream: str) -> _T:
        """One element of a non-empty sequence."""
        return items[self.below(len(items), stream)]
