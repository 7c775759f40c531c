"""The public view of a sealed game that a player without its secret can trust.

Without the seed nobody can rebuild a sealed game's state, so its board and whose turn it
is come from the referee, who holds the secret: ``referee views`` (and ``referee new`` of
a sealed game whose secret file the game master keeps) writes the public view, the text
of ``referee status FILE``, into ``STEM.public.txt`` and, signed, into
``STEM.public.signed`` (a name no folder of games reads as a game file: the judge, the
site and ``pending`` read only ``*.json``). The signed document
(``referee-public-view/1``) names the game id, the game file's path, the number of log
entries it shows and ``head`` (the hash the next entry's ``prev`` carries at that point:
it fixes the history seen), the text, who owes a decision and whether the game is over;
it carries an XEdDSA signature by the game's referee key, whose public half is the
header's ``rng.recipient``, as a player's view does (:mod:`referee.trust.viewsign`).

``referee status`` of a sealed game without its secret reads it (:func:`find`): a view
of another game, of another history, or not signed by the referee is never shown (the
reason is); a view of an earlier point of this file's history is shown as of that point,
with the entries appended since.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

from referee.errors import GameFileError
from referee.i18n import domain
from referee.ledger import fileio, gamefile, vouch

if TYPE_CHECKING:
    from referee.trust.viewsign import Signature

_, N_, ngettext = domain("referee")

FORMAT = "referee-public-view/1"
SUFFIX = ".public.signed"
FIELDS = {"game": str, "file": str, "moves": int, "head": str, "text": str, "to_move": list,
          "finished": bool}


class PublicView(TypedDict):
    """The signed public view (``referee-public-view/1``); ``signature`` is added last,
    over the rest."""

    format: str
    game: str  # the game id
    file: str  # the game file's path in the repository
    moves: int  # the log entries it shows
    head: str  # the ``prev`` the next entry carries at that point
    text: str
    to_move: list[str]
    finished: bool
    signature: NotRequired[Signature]


def _message(doc: Mapping[str, Any]) -> bytes:
    body = {k: v for k, v in doc.items() if k != "signature"}
    return FORMAT.encode() + b"\0" + gamefile.canonical(body)


def file_name(stem: str) -> str:
    """The name of the signed public view of the game file STEM.json."""
    return stem + SUFFIX


def encode(doc: Mapping[str, Any]) -> bytes:
    """The signed public view as its file holds it."""
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def document(gf: gamefile.GameFile, seed: str, rel: str, text: str, to_move: Sequence[str],
             finished: bool) -> PublicView:
    """The signed public view of ``gf`` now (deterministic): ``text`` is what `status`
    shows everyone, ``to_move`` who owes a decision."""
    from referee.trust import viewsign, xeddsa

    doc: PublicView = {"format": FORMAT, "game": gf.game_id, "file": rel,
                       "moves": len(gf.log), "head": gamefile.next_prev(gf.data),
                       "text": text, "to_move": list(to_move), "finished": finished}
    secret = vouch._derive(seed, b"age-identity")
    doc["signature"] = {"alg": viewsign.ALGORITHM, "key": vouch.recipient(seed),
                        "sig": base64.b64encode(xeddsa.sign(secret, _message(doc))).decode()}
    return doc


@dataclass
class Found:
    """What :func:`find` found: the newest trusted public view (None: none) and where,
    and why any other one found was not trusted."""

    doc: PublicView | None = None
    where: Path | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def moves(self) -> int:
        return self.doc["moves"] if self.doc is not None else 0


def places(path: Path, extra: Path | None = None) -> list[Path]:
    """Where the signed public view of the game file at ``path`` may be: in ``extra`` (a
    folder), beside the game (where `referee views` writes by default), and in
    ``views/`` beside the game's folder (a repository's publish job: ``--out views``)."""
    name = file_name(path.stem)
    found = [extra / name] if extra is not None else []
    return [*found, path.parent / name, path.parent.parent / "views" / name]


def find(gf: gamefile.GameFile, candidates: Sequence[Path]) -> Found:
    """The newest public view of ``gf`` among the files at ``places`` that its referee
    signed for this game and this file's history."""
    found = Found()
    for place in candidates:
        doc = _read(place)
        if doc is None:
            continue
        problem = refusal(doc, gf, place)
        if problem is not None:
            found.problems.append(problem)
        elif found.doc is None or int(doc["moves"]) > found.moves:
            found.doc, found.where = cast("PublicView", doc), place  # (its fields checked)
    return found


def _read(place: Path) -> dict[str, Any] | None:
    """The document in the file at ``place`` (None: no such file; {}: no document in
    it, which :func:`refusal` says)."""
    try:
        doc = json.loads(fileio.read_bytes(place, "public view"))
    except GameFileError:
        return None
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def refusal(doc: Mapping[str, Any], gf: gamefile.GameFile, where: Path) -> str | None:
    """Why the public view ``doc`` (from ``where``) is not to be shown for ``gf``, or
    None: the referee's signature, this game, this file's history up to its point."""
    if doc.get("format") != FORMAT or not all(
            isinstance(doc.get(k), kind) for k, kind in FIELDS.items()) or isinstance(
            doc["moves"], bool) or doc["moves"] < 0:
        return _("{where}: its public view is not one the referee writes").format(
            where=where)
    if not _signed(doc, gf):
        return _("{where}: its public view is not signed by the referee of this game: it "
                 "is forged or damaged, and not shown").format(where=where)
    if doc["game"] != gf.game_id:
        return _("{where}: its public view is of game {other}, not {game}").format(
            where=where, other=doc["game"], game=gf.game_id)
    moves = int(doc["moves"])
    if moves > len(gf.log):
        return ngettext("{where}: its public view is of move {moves}, but the game file "
                        "has only {n} entry: pull to see the moves since",
                        "{where}: its public view is of move {moves}, but the game file "
                        "has only {n} entries: pull to see the moves since",
                        len(gf.log)).format(where=where, moves=moves, n=len(gf.log))
    head = gamefile.entry_hash(gf.log[moves - 1]) if moves else gamefile.header_hash(gf.data)
    if doc["head"] == head:
        return None
    if not moves and "nonces" in gf.data["rng"]:
        return _("{where}: its public view is from before the players gave their nonces; "
                 "the referee writes it anew with `referee views`").format(where=where)
    return _("{where}: its public view shows another history than this game "
             "file").format(where=where)


def _signed(doc: Mapping[str, Any], gf: gamefile.GameFile) -> bool:
    from referee.trust import viewsign, xeddsa

    found = gf.data["rng"].get("recipient")
    u = viewsign.recipient_u(str(found)) if found else None
    sig = doc.get("signature")
    try:
        raw = base64.b64decode(str(sig.get("sig", "")), validate=True) \
            if isinstance(sig, dict) else b""
    except ValueError:
        raw = b""
    return u is not None and xeddsa.verify(u, _message(doc), raw)
