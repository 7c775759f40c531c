"""Signatures anyone can check with a game's referee recipient: XEdDSA over Curve25519.

A sealed game's header carries ``rng.recipient``, the public half of an X25519 key
derived from the seed (referee/ledger/vouch.py). XEdDSA (Signal's specification, "The XEdDSA
and VXEdDSA Signature Schemes", 2016) signs with that same X25519 private key, and anyone
verifies with the X25519 public key alone: the Montgomery u-coordinate is mapped to the
Edwards point with sign bit 0, and the signer negates its scalar when its own point has
sign bit 1, so that the two agree; the signature is then an ordinary Ed25519 signature.
So every sealed game made since recipients exist can have its views verified, with no
new header field and nothing to trust but the header.

Every operation on the secret scalar is libsodium's, through PyNaCl's low-level
bindings (``crypto_scalarmult_ed25519_base_noclamp`` and the ``crypto_core_ed25519_scalar_*``
operations), and verification is libsodium's ``crypto_sign_open``. The one piece of
arithmetic left here is :func:`edwards_of`, the map from the X25519 public key (u) to the
Ed25519 public key, which libsodium does not offer (it converts only the other way); it
handles public data only. The signatures are byte for byte those of the pure-Python code
of 0.5 (the same nonce), so every view signed before still verifies.

PyNaCl is imported only when a view is signed or verified.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from referee.errors import UsageError

P = 2**255 - 19
# hash1 of XEdDSA: SHA-512 over 2**256 - 2 (32 bytes, little-endian) and then the input
HASH1_PREFIX = b"\xfe" + b"\xff" * 31
NONCE_LABEL = b"referee/xeddsa-nonce"


def _sodium() -> Any:
    """PyNaCl's bindings, with the Ed25519 scalar operations XEdDSA needs."""
    try:
        from nacl import bindings
    except ImportError:
        raise UsageError("signed views need the libsodium bindings PyNaCl",
                         hints=["pip install pynacl"]) from None
    if not (bindings.has_crypto_core_ed25519 and bindings.has_crypto_scalarmult_ed25519):
        raise UsageError("signed views need libsodium's Ed25519 scalar operations, which "
                         "this PyNaCl's libsodium (a minimal build) lacks",
                         hints=["pip install --force-reinstall pynacl (its wheel brings a "
                                "full libsodium)"])
    return bindings


def _reduce(sodium: Any, digest: bytes) -> bytes:
    """A 64-byte hash as a scalar mod the group order (32 bytes, little-endian)."""
    return bytes(sodium.crypto_core_ed25519_scalar_reduce(digest))


def _clamped(secret: bytes) -> bytes:
    """The X25519 private scalar of a 32-byte key (RFC 7748's clamping)."""
    k = bytearray(secret)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    return bytes(k)


def _select(bit: int, if_0: bytes, if_1: bytes) -> bytes:
    """``if_1`` when ``bit`` is 1, else ``if_0``, with no branch on the bit."""
    mask = -bit & 0xFF
    return bytes(x ^ ((x ^ y) & mask) for x, y in zip(if_0, if_1, strict=True))


def sign(secret: bytes, message: bytes) -> bytes:
    """XEdDSA: sign ``message`` with the X25519 private key ``secret`` (32 bytes).
    The nonce is derived from the key and the message (deterministic, secret)."""
    sodium = _sodium()
    if len(secret) != 32:
        raise ValueError("an X25519 private key is 32 bytes")
    k = _reduce(sodium, _clamped(secret) + bytes(32))  # k mod q: the same point kB
    public = bytes(sodium.crypto_scalarmult_ed25519_base_noclamp(k))
    # The verifier takes the Edwards point with sign bit 0 (edwards_of): when kB has sign
    # bit 1, sign with -k, whose point -kB is the same but for that bit.
    sign_bit = public[31] >> 7
    a = _select(sign_bit, k, bytes(sodium.crypto_core_ed25519_scalar_negate(k)))
    public = public[:31] + bytes([public[31] & 0x7F])
    nonce = hmac.new(secret, NONCE_LABEL, hashlib.sha512).digest()
    r = _reduce(sodium, hashlib.sha512(HASH1_PREFIX + a + message + nonce).digest())
    # r is 0 with probability 2**-252 (libsodium then refuses the identity point)
    big_r = bytes(sodium.crypto_scalarmult_ed25519_base_noclamp(r))
    h = _reduce(sodium, hashlib.sha512(big_r + public + message).digest())
    s = sodium.crypto_core_ed25519_scalar_add(r, sodium.crypto_core_ed25519_scalar_mul(h, a))
    return big_r + bytes(s)


def verify_ed25519(public: bytes, message: bytes, signature: bytes) -> bool:
    """An Ed25519 signature (RFC 8032), checked by libsodium (``crypto_sign_open``: the
    cofactorless check, a canonical s, no small-order R or public key)."""
    if len(public) != 32 or len(signature) != 64:
        return False
    sodium = _sodium()
    from nacl.exceptions import CryptoError

    try:
        sodium.crypto_sign_open(signature + message, public)
    except CryptoError:
        return False
    return True


def edwards_of(u_raw: bytes) -> bytes | None:
    """The Ed25519 public key XEdDSA verifies with for the X25519 public key ``u``:
    y = (u - 1) / (u + 1), sign bit 0. None for a u that is no key. (Public data only;
    libsodium converts Edwards to Montgomery, not back.)"""
    u = int.from_bytes(u_raw, "little")
    if len(u_raw) != 32 or u >= P or u == P - 1:
        return None
    return ((u - 1) * pow(u + 1, -1, P) % P).to_bytes(32, "little")


def verify(u_raw: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is an XEdDSA signature of ``message`` by the holder of the
    X25519 private key whose public key is ``u_raw``."""
    public = edwards_of(u_raw)
    return public is not None and verify_ed25519(public, message, signature)
