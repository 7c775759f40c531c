"""What `referee site` remembers of what it wrote into OUT, so that the next build keeps an
unchanged game's pages and draws only the games that changed: rows in the cache database
(referee/ledger/cachedb.py), never a file in OUT (OUT is published, and the rows hold
what the league counts, its players' identities, which the site never shows).

OUT is known by the SHA-256 of its real path. Its record is a row ``sites`` (OUT, the
build's key: a digest of the referee's code digest, the language and whether the league
is written) and, per game file, a row ``site_games`` (OUT, the file's name): the SHA-256
of its bytes, whether they were sealed, whether its seed was at hand, its game id and
identity keys (the copy check), its summary (the JSON the build wrote, decoded only when
a build reports its games), its row of the index and its league result (an open game's:
it depends on the bytes alone). The record is dropped before OUT changes and written
after it, so a build cut short is followed by a full one.

The cache folder is as trusted as the user's own files (docs/security.md): a row is used
as it is. Still, nothing in a row names a path the builder writes or removes (a game's
folder is OUT/GAME-ID of the game as read now, and an id that is not a game id drops its
row), and a row that does not decode into its typed fields gives a full build.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from referee.ledger import cachedb
from referee.ledger.codedigest import code_digest
from referee.ledger.fileformat import GAME_ID
from referee.pages.summary import GameSummary
from referee.reports.ratings.results import Result

FORMAT = 5
MAX_GAMES = 100_000
_SLUG = re.compile(GAME_ID)


class Entry(msgspec.Struct, forbid_unknown_fields=True):
    """One game file as the last build saw it."""

    file: str
    sha256: str
    sealed: bool  # its bytes name a commitment (or hold a \u escape): always parsed
    seeded: bool  # its seed was at hand (always, for an open game)
    game_id: str
    keys: dict[str, str]  # identity.keys: what makes two files one game
    # What the index knows of it: a GameSummary as JSON, decoded only when a build
    # reports its games (`referee site --json`); None: not served (a copy).
    summary: bytes | None
    needs_secret: bool  # sealed, its seed not at hand: its page shows its log only
    row: str  # its row of the index, as HTML
    result: Result | None  # the league's result, or
    skip: str | None  # why the league does not count it


_DECODER = msgspec.msgpack.Decoder(Entry)
_ENCODER = msgspec.msgpack.Encoder()
_SUMMARY = msgspec.json.Decoder(GameSummary, strict=True)


@dataclass
class Loaded:
    """OUT's record: its entries by file name, the real folders in OUT, and (asked for)
    the decoded summaries."""

    by_file: dict[str, Entry]
    folders: set[str] = field(default_factory=set)
    summaries: dict[str, GameSummary] = field(default_factory=dict)


def out_key(out: Path) -> bytes:
    return hashlib.sha256(os.path.realpath(out).encode()).digest()


def build_key(lang: str, league: bool, repo: str | None = None) -> str:
    """The key of a build: the referee's code, the language, the league, and the
    repository the issue links open (``--github-repo``)."""
    return hashlib.sha256(f"{FORMAT}\n{code_digest()}\n{lang}\n{league}\n{repo or ''}"
                          .encode()).hexdigest()


def encode_summary(summary: GameSummary) -> bytes:
    return msgspec.json.encode(summary)


def load(cache: cachedb.Cache, out: Path, key: str, summaries: bool = False
         ) -> Loaded | None:
    """OUT's record, or None (none, for another key, a row that does not decode; given
    ``summaries``, one of them damaged): a full build."""
    where = out_key(out)
    found = cache.query("SELECT build FROM sites WHERE out = ?", (where,))
    if not found or found[0][0] != key:
        return None
    rows = cache.query("SELECT file, value FROM site_games WHERE out = ?", (where,))
    if len(rows) > MAX_GAMES:
        return None
    by_file: dict[str, Entry] = {}
    try:
        for name, stored in rows:
            value = cachedb.unsealed(where + str(name).encode(), stored)  # type: ignore[arg-type]
            if value is None:
                return None  # (damaged on disk)
            entry = _DECODER.decode(value)
            if entry.file == name and _valid(entry):
                by_file[entry.file] = entry
    except msgspec.DecodeError:
        return None
    loaded = Loaded(by_file, real_folders(out))
    if summaries:  # (a summary that does not decode: a damaged record, all distrusted)
        for name, entry in list(by_file.items()):
            if entry.summary is not None:
                try:
                    decoded = _SUMMARY.decode(entry.summary)
                except msgspec.DecodeError:
                    return None
                if decoded.slug != entry.game_id or decoded.log:
                    del by_file[name]  # (another game's)
                else:
                    loaded.summaries[name] = decoded
    return loaded


def _valid(entry: Entry) -> bool:
    """An entry whose names could not be a game's own is dropped (that game drawn)."""
    if not _SLUG.match(entry.game_id) or "/" in entry.file:
        return False
    if entry.summary is not None and not entry.row:
        return False
    return len(entry.sha256) == 64


def forget(cache: cachedb.Cache | None, out: Path) -> bool:
    """Drop OUT's record (before OUT changes: a build cut short is then built in full).
    False when it could not be dropped (OUT must then not be changed on its word)."""
    if cache is None:
        return True
    return cache.write_now([("DELETE FROM sites WHERE out = ?", (out_key(out),))])


def save(cache: cachedb.Cache | None, out: Path, key: str, entries: list[Entry],
         kept: Loaded | None) -> None:
    """Write OUT's record after every file of the site: the entries that changed, the
    files gone dropped (all of them after a full build), then the build's key. A cache
    that cannot be written only costs the next build its shortcut."""
    if cache is None:
        return
    where = out_key(out)
    old = kept.by_file if kept is not None else {}
    statements: list[tuple[str, tuple[object, ...]]] = []
    if kept is None:
        statements.append(("DELETE FROM site_games WHERE out = ?", (where,)))
    names = {e.file for e in entries}
    statements += [("DELETE FROM site_games WHERE out = ? AND file = ?", (where, name))
                   for name in sorted(set(old) - names)]
    statements += [("INSERT OR REPLACE INTO site_games (out, file, value) VALUES (?, ?, ?)",
                    (where, e.file, cachedb.sealed(where + e.file.encode(),
                                                   _ENCODER.encode(e))))
                   for e in entries if old.get(e.file) != e]
    statements.append(("INSERT OR REPLACE INTO sites (out, build) VALUES (?, ?)",
                       (where, key)))
    cache.write_now(statements)


def real_folders(out: Path) -> set[str]:
    """The names in OUT that are real folders (no link): one listing of OUT."""
    try:
        with os.scandir(out) as found:
            return {e.name for e in found if e.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def file_sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
