"""The pure-Python XEdDSA of referee 0.5 (referee/trust/xeddsa.py at commit d0cf34b), kept
unchanged as the tests' reference: the views it signed must still verify with the
libsodium code of referee/trust/xeddsa.py, and that code must sign the same bytes.

Original description: XEdDSA over Curve25519, RFC 8032's arithmetic in extended
coordinates over the standard library; not constant-time.
"""

from __future__ import annotations

import hashlib
import hmac

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z
IDENTITY: Point = (0, 1, 1, 0)


def _inv(x: int) -> int:
    return pow(x, P - 2, P)


def _add(p: Point, q: Point) -> Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s: int, p: Point) -> Point:
    q = IDENTITY
    while s > 0:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _recover_x(y: int, sign: int) -> int | None:
    if y >= P:
        return None
    x2 = (y * y - 1) * _inv(D * y * y + 1) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P:
        return None
    return P - x if (x & 1) != sign else x


def _point(x: int, y: int) -> Point:
    return (x, y, 1, x * y % P)


_GY = 4 * _inv(5) % P
BASE: Point = _point(_recover_x(_GY, 0) or 0, _GY)


def encode(p: Point) -> bytes:
    z = _inv(p[2])
    x, y = p[0] * z % P, p[1] * z % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def decode(raw: bytes) -> Point | None:
    """The point encoded in 32 bytes, or None if they encode none."""
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else _point(x, y)


def _equal(p: Point, q: Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def _h(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(b"".join(parts)).digest(), "little") % L


def verify_ed25519(public: bytes, message: bytes, signature: bytes) -> bool:
    """An Ed25519 signature (RFC 8032, cofactorless check [s]B = R + [h]A)."""
    if len(signature) != 64:
        return False
    a, r = decode(public), decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    h = _h(signature[:32], public, message)
    return _equal(_mul(s, BASE), _add(r, _mul(h, a)))


def sign_ed25519(secret: bytes, message: bytes) -> bytes:
    """RFC 8032 Ed25519 (for the test vectors that check the arithmetic above)."""
    digest = hashlib.sha512(secret).digest()
    a = _clamp(digest[:32])
    public = encode(_mul(a, BASE))
    r = _h(digest[32:], message)
    big_r = encode(_mul(r, BASE))
    s = (r + _h(big_r, public, message) * a) % L
    return big_r + s.to_bytes(32, "little")


def _clamp(raw: bytes) -> int:
    k = bytearray(raw)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    return int.from_bytes(k, "little")


def montgomery_public(secret: bytes) -> bytes:
    """The X25519 public key (u) of a 32-byte X25519 private key, through Edwards."""
    p = _mul(_clamp(secret), BASE)
    y = p[1] * _inv(p[2]) % P
    return ((1 + y) * _inv(1 - y) % P).to_bytes(32, "little")


def edwards_of(u_raw: bytes) -> bytes | None:
    """The Ed25519 public key XEdDSA verifies with for the X25519 public key ``u``:
    y = (u - 1) / (u + 1), sign bit 0. None for a u that is no key."""
    u = int.from_bytes(u_raw, "little")
    if len(u_raw) != 32 or u >= P or u == P - 1:
        return None
    return ((u - 1) * _inv(u + 1) % P).to_bytes(32, "little")


def sign(secret: bytes, message: bytes) -> bytes:
    """XEdDSA: sign ``message`` with the X25519 private key ``secret`` (32 bytes).
    The nonce is derived from the key and the message (deterministic, secret)."""
    k = _clamp(secret)
    point = _mul(k, BASE)
    public = encode(point)
    a = k % L
    if public[31] & 0x80:  # make the sign bit 0, as the verifier assumes
        a = (L - a) % L
        public = bytes(public[:31]) + bytes([public[31] & 0x7F])
    nonce = hmac.new(secret, b"referee/xeddsa-nonce", hashlib.sha512).digest()
    r = _h(b"\xfe" + b"\xff" * 31, a.to_bytes(32, "little"), message, nonce)
    big_r = encode(_mul(r, BASE))
    s = (r + _h(big_r, public, message) * a) % L
    return big_r + s.to_bytes(32, "little")


def verify(u_raw: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is an XEdDSA signature of ``message`` by the holder of the
    X25519 private key whose public key is ``u_raw``."""
    public = edwards_of(u_raw)
    return public is not None and verify_ed25519(public, message, signature)
