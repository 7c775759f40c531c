"""Issue 30, items 4 and 8.

The view signature (referee/xeddsa.py) made and checked by libsodium: byte for byte the
signatures of the pure-Python code of 0.5 (tests/xeddsa_reference.py, and signatures that
code made, stored here), hostile signatures and keys refused. (The views themselves,
signed by the old code and read by `referee view`: tests/test_age_views.py.)

The ratings (referee/ratings.py) count games between people, once each: a cheater's
pull request of bot games and of copies of one game leaves their rating where it was.
"""

from __future__ import annotations

import base64
import hashlib
import sys

import pytest

from referee import viewsign, vouch, xeddsa
from referee.errors import UsageError
from tests import xeddsa_reference

# --- the signature ------------------------------------------------------------------------

VIEW_DOC = {"format": "referee-view/2", "game": "g1", "file": "games/g1.json",
            "player": "ann", "moves": 3, "head": "ab" * 32, "text": "ann: Königin, 3 Truhen",
            "status": {"to_move": ["ann"]}}
# Signed by referee 0.5 (commit d0cf34b, the pure-Python XEdDSA) over the view message of
# VIEW_DOC with the referee key of each seed: frozen-0's Edwards point has sign bit 1
# (the signer negates its scalar), frozen-1's sign bit 0.
SIGNED_BY_0_5 = {
    "frozen-0": "U+17JVfmo31+VdMa4ltRvvO5CY6BJNe5L2qabgWss8SPcXfeigXRCTz4QP8GKEfa6G+rS6YNPur7A+"
                "Ei8fiiCQ==",
    "frozen-1": "zcaopVbFuTuSHCOoFc1OCeyY1eG/bt2BJq1NDX4Av5VQTCzilARhU+ooJSg/hCUIbRpTBsT2Fa6pf3"
                "T1Jbg1AQ==",
}
L = 2**252 + 27742317777372353535851937790883648493


def key_of(seed: str) -> tuple[bytes, bytes]:
    """A game's referee key: the X25519 secret and the header recipient's u."""
    u = viewsign.recipient_u(vouch.recipient(seed))
    assert u is not None
    return vouch._derive(seed, b"age-identity"), u


def sign_bit(secret: bytes) -> int:
    point = xeddsa_reference._mul(xeddsa_reference._clamp(secret), xeddsa_reference.BASE)
    return xeddsa_reference.encode(point)[31] >> 7


@pytest.mark.parametrize("seed", sorted(SIGNED_BY_0_5))
def test_signatures_made_by_0_5_still_verify_and_are_made_again(seed: str) -> None:
    secret, u = key_of(seed)
    old = base64.b64decode(SIGNED_BY_0_5[seed])
    message = viewsign._message(VIEW_DOC)
    assert xeddsa.verify(u, message, old)
    assert xeddsa.sign(secret, message) == old  # the same nonce: the same bytes
    assert not xeddsa.verify(u, viewsign._message({**VIEW_DOC, "moves": 4}), old)
    assert sign_bit(secret) == (1 if seed == "frozen-0" else 0)  # both branches held


def test_the_same_signatures_as_the_pure_python_reference() -> None:
    """Keys of both sign bits, messages of many lengths: the libsodium signer makes the
    reference's bytes, and each side verifies the other's."""
    bits = set()
    for i in range(64):
        secret = hashlib.sha256(b"key %d" % i).digest()
        message = hashlib.sha512(b"message %d" % i).digest()[: i % 65] * (1 + i % 3)
        u = xeddsa_reference.montgomery_public(secret)
        new, old = xeddsa.sign(secret, message), xeddsa_reference.sign(secret, message)
        assert new == old
        assert xeddsa.verify(u, message, old) and xeddsa_reference.verify(u, message, new)
        assert not xeddsa.verify(u, message + b"\0", new)
        bits.add(sign_bit(secret))
    assert bits == {0, 1}


def test_hostile_signatures_and_keys_are_refused() -> None:
    """What a forger can hand `referee view`: a signature made malleable (s + L), an
    identity or small-order R, the signature of the key's other sign, truncated or
    padded bytes, and keys that are no key. The reference refuses the first too."""
    secret, u = key_of("frozen-0")
    message = viewsign._message(VIEW_DOC)
    sig = xeddsa.sign(secret, message)
    s = int.from_bytes(sig[32:], "little")
    malleable = sig[:32] + (s + L).to_bytes(32, "little")
    assert not xeddsa.verify(u, message, malleable)
    assert not xeddsa_reference.verify(u, message, malleable)
    identity = (1).to_bytes(32, "little")
    assert not xeddsa.verify(u, message, identity + sig[32:])
    assert not xeddsa.verify(u, message, identity + bytes(32))
    # an Ed25519 signature with the unnegated scalar: valid for the point of sign bit 1,
    # which is not the one the header's u names
    k = xeddsa_reference._clamp(secret) % L
    r = xeddsa_reference._h(b"some nonce", message)
    big_r = xeddsa_reference.encode(xeddsa_reference._mul(r, xeddsa_reference.BASE))
    public = xeddsa_reference.encode(xeddsa_reference._mul(k, xeddsa_reference.BASE))
    assert public[31] & 0x80
    unnegated = big_r + ((r + xeddsa_reference._h(big_r, public, message) * k) % L
                         ).to_bytes(32, "little")
    assert xeddsa.verify_ed25519(public, message, unnegated)
    assert not xeddsa.verify(u, message, unnegated)
    for bad in (sig[:63], sig + b"\0", b"", bytes(64)):
        assert not xeddsa.verify(u, message, bad)
    p = 2**255 - 19
    for key in (u[:31], u + b"\0", (p - 1).to_bytes(32, "little"), p.to_bytes(32, "little"),
                b"\xff" * 32):
        assert not xeddsa.verify(key, message, sig)
    other = viewsign.recipient_u(vouch.recipient("frozen-1"))
    assert other is not None and not xeddsa.verify(other, message, sig)


def test_without_pynacl_signing_and_checking_name_what_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    secret, u = key_of("frozen-1")
    sig = base64.b64decode(SIGNED_BY_0_5["frozen-1"])
    monkeypatch.setitem(sys.modules, "nacl", None)  # import nacl fails
    for name in ("nacl.bindings", "nacl.exceptions"):
        monkeypatch.setitem(sys.modules, name, None)
    for call in (lambda: xeddsa.sign(secret, b"m"),
                 lambda: xeddsa.verify(u, viewsign._message(VIEW_DOC), sig)):
        with pytest.raises(UsageError) as found:
            call()
        assert found.value.message == "signed views need the libsodium bindings PyNaCl"
        assert found.value.hints == ["pip install pynacl"]
