"""Views a player can trust: signed by the game's referee key, bound to one game, one
player and one point of its history, padded so that their size tells nothing.

Anyone can encrypt a file to a player's public SSH key, so a view that merely decrypts
proves nothing. The document inside a view (``referee-view/2``) names the game id, the
game file's path in the repository, the player, the number of log entries it shows and
``head`` (the hash the next entry's ``prev`` would carry: it fixes the whole history
seen), and carries an XEdDSA signature (referee/trust/xeddsa.py) by the game's referee key,
the X25519 key derived from the seed whose public half is the header's
``rng.recipient``. ``referee view`` checks it with the header of the game file at hand
(which ``check --since`` keeps fixed) and refuses a view that is not the referee's, is
another player's, another game's, or older than the game file. In an open game (the seed
is in the file, so anyone could sign) the view is instead replayed and compared.

The plaintext is padded with spaces to a power of two of at least 4 KiB, so that the
length of the encrypted file does not tell how many cards a hand holds.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

from referee.errors import RefereeError
from referee.ledger import gamefile, vouch
from referee.trust import xeddsa

VIEW_FORMAT = "referee-view/2"
OLD_FORMATS = ("referee-view/1",)
ALGORITHM = "xeddsa-25519"
MIN_PADDED = 4096
FIELDS = {"game": str, "file": str, "player": str, "moves": int, "head": str, "text": str,
          "status": dict}


class Signature(TypedDict):
    """The referee's XEdDSA signature of a document (its other fields)."""

    alg: str
    key: str  # the header's rng.recipient
    sig: str  # base64


class ViewDoc(TypedDict):
    """A player's view (``referee-view/2``): of which game, file, player and point of the
    history (``moves``, ``head``), its text and its status JSON; ``signature`` last."""

    format: str
    game: str
    file: str
    player: str
    moves: int
    head: str
    text: str
    status: dict[str, Any]  # `status --json` as the player's view (play/statusview.py)
    signature: NotRequired[Signature]


class ViewError(RefereeError):
    """An encrypted view cannot be read or is not to be trusted."""


def _message(doc: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in doc.items() if k != "signature"}
    return VIEW_FORMAT.encode() + b"\0" + gamefile.canonical(body)


def recipient_u(recipient: str) -> bytes | None:
    """The X25519 public key (32 bytes) of an age recipient ``age1...``."""
    import bech32

    hrp, data = bech32.bech32_decode(recipient)
    if hrp != "age" or data is None:
        return None
    raw = bech32.convertbits(data, 5, 8, False)
    return bytes(raw) if raw is not None and len(raw) == 32 else None


def padded_size(length: int) -> int:
    """The smallest power of two of at least MIN_PADDED that holds ``length`` bytes."""
    size = MIN_PADDED
    while size < length:
        size *= 2
    return size


def document(gf: gamefile.GameFile, seed: str, rel: str, player: str, text: str,
             status: Mapping[str, Any]) -> bytes:
    """The padded plaintext of ``player``'s view of ``gf`` (deterministic), signed with
    the referee key of ``seed``."""
    doc: ViewDoc = {"format": VIEW_FORMAT, "game": gf.game_id, "file": rel,
                    "player": player, "moves": len(gf.log),
                    "head": gamefile.next_prev(gf.data), "text": text, "status": dict(status)}
    secret = vouch._derive(seed, b"age-identity")
    doc["signature"] = {"alg": ALGORITHM, "key": vouch.recipient(seed),
                        "sig": base64.b64encode(xeddsa.sign(secret, _message(doc))).decode()}
    raw = (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    return raw + b" " * (padded_size(len(raw)) - len(raw))


def header_key_problem(gf: gamefile.GameFile, seed: str) -> str | None:
    """Why views of ``gf`` could not be verified by its players (None: they can)."""
    if not gf.seed_hidden:
        return None  # open: `view` replays it
    found = gf.data["rng"].get("recipient")
    if not found:
        return ("this sealed game's header has no referee key ($.rng.recipient), so its "
                "players could not verify a view: it was made by a referee before 0.2")
    if found != vouch.recipient(seed):
        return ("the header's referee key ($.rng.recipient) is not the one this game's "
                "secret gives: the header was forged")
    return None


def parse(plaintext: bytes, where: str) -> ViewDoc:
    """The view document in a decrypted file. Raises ViewError."""
    try:
        doc = json.loads(plaintext)
    except (ValueError, UnicodeDecodeError, RecursionError):
        doc = None
    if isinstance(doc, dict) and doc.get("format") in OLD_FORMATS:
        raise ViewError(f"{where} was written by an older referee and carries no "
                        "signature, so it cannot be trusted",
                        hints=["`referee views` (the publish job) rewrites it"])
    if not isinstance(doc, dict) or doc.get("format") != VIEW_FORMAT or not all(
            isinstance(doc.get(k), kind) for k, kind in FIELDS.items()) or isinstance(
            doc["moves"], bool) or doc["moves"] < 0:
        raise ViewError(f"{where} decrypts, but is not a referee view")
    return cast("ViewDoc", doc)  # (its fields checked just above)


def check_signature(doc: Mapping[str, Any], gf: gamefile.GameFile, where: str,
                    game_where: str) -> None:
    """The view is signed by the referee key in ``gf``'s header. Raises ViewError."""
    found = gf.data["rng"].get("recipient")
    if not found:
        raise ViewError(f"{game_where} has no referee key in its header ($.rng.recipient),"
                        f" so {where} cannot be verified",
                        hints=["a game made by a referee before 0.2: read it with "
                               "`age -d`, at your own risk"])
    u = recipient_u(str(found))
    sig = doc.get("signature")
    try:
        raw = base64.b64decode(str(sig.get("sig", "")), validate=True) \
            if isinstance(sig, dict) else b""
    except ValueError:
        raw = b""
    if u is None or not xeddsa.verify(u, _message(doc), raw):
        raise ViewError(f"{where} is not signed by the referee of {game_where}: it is forged "
                        "or damaged, do not trust what it shows",
                        hints=["the next run of `referee views` (the publish job) rewrites "
                               "it; tell the game master"])


def check_binding(doc: Mapping[str, Any], gf: gamefile.GameFile, where: str,
                  game_where: str, player: str, stem: str | None) -> str | None:
    """The view is ``player``'s, of this game and file, and not older than the game
    file. Returns a note for a view newer than the game file. Raises ViewError."""
    if doc["game"] != gf.game_id:
        raise ViewError(f"{where} is a view of game {doc['game']}, but {game_where} is game "
                        f"{gf.game_id}: it was swapped for another game's view")
    if doc["player"] != player:
        raise ViewError(f"{where} is {doc['player']}'s view, not {player}'s: it was swapped "
                        "for another player's view")
    file_stem = str(doc["file"]).rsplit("/", 1)[-1].removesuffix(".json")
    if stem is not None and file_stem != stem:
        raise ViewError(f"{where} is a view of {doc['file']}, not of {stem}: it was swapped "
                        "for another game's view")
    moves, now = int(doc["moves"]), len(gf.log)
    if moves < now:
        raise ViewError(f"{where} is an old view: it shows move {moves}, but {game_where} "
                        f"has {now} entr{'y' if now == 1 else 'ies'} (an old view put back, "
                        "or the publish job has "
                        "not written the new one yet)",
                        hints=["pull again after the publish job has run"])
    if moves == now and doc["head"] != gamefile.next_prev(gf.data):
        raise ViewError(f"{where} shows another history of {game_where} than the file at "
                        "hand: it is not this game's view")
    if moves > now:
        return (f"note: this view is of move {moves}, but {game_where} has only {now} "
                "entries: pull to see the moves since")
    return None
