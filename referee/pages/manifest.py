"""The site's manifest: what `referee site` wrote for each game, so that the next build
keeps an unchanged game's pages and renders only the games that changed.

The manifest of a site lives in the builder's cache folder (``REFEREE_CACHE_DIR``, else
``$XDG_CACHE_HOME/referee``), at ``site-1/SHA256-OF-OUT'S-REAL-PATH.json``, never in OUT:
OUT is published, and the manifest holds what the league counts (its players'
identities, which may be e-mail addresses) that the site never shows; and a manifest
that came with a repository or a copied site is never read. It holds, per game file, the
SHA-256 of its bytes and its name, whether they were sealed, the file's own device,
inode, size, modification and change times as those bytes were read (while they hold,
an open game's file is not read again: file_holds), whether its seed was at hand, what
the index, the copy check and the league need of it (its summary, kept as raw JSON and
decoded only when a build reports its games, its identity keys and rating result), and what
its folder held (a digest of the file names and their total size, and the folder's own
device, inode, modification and change times when the manifest was written). The whole is keyed by
a digest of the referee's own files (code, templates, data, catalogs), the versions of
the libraries that shape a page, the language and whether the league is written.

It is read defensively: at most 64 MiB, decoded into typed fields (anything else, or
another key: a full build), an entry used only for the same name and the same bytes
(SHA-256 of the file as read now) and a valid game id, and only while the game's folder
is as written: its own times unchanged since the manifest was written and older than it
by more than RACY_NS (a file added, removed, renamed or replaced by rename in it changes
them), or else, looked at file by file, regular files with exactly the recorded names
and total size, none newer than the manifest. Anything else rebuilds that game. A file
of a kept folder rewritten in place, the folder untouched, is not noticed: the folder's
times are what keeps the cost of a build with the change, not the archive (a stat of
every output file was the largest cost at 10,000 games); `referee site --full` draws
everything. Nothing in a manifest names a path the
builder writes or removes: a game's folder is OUT/GAME-ID of the game as read now, and
what is removed is what a full build would not hold.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from referee.errors import RefereeError
from referee.ledger import fileio
from referee.ledger.codedigest import code_digest
from referee.ledger.fileformat import GAME_ID
from referee.pages.summary import GameSummary
from referee.reports.ratings.results import Result

FORMAT = 3
MAX_BYTES = 64 * 1024 * 1024  # bigger than this is not read: built in full
MAX_GAMES = 100_000
# A folder changed this close to the manifest's writing may have changed again within one
# tick of the file system's clock, its times the same: it is looked at file by file.
RACY_NS = 2_000_000_000
_SLUG = re.compile(GAME_ID)


class Entry(msgspec.Struct, forbid_unknown_fields=True):
    """One game file as the last build saw it."""

    file: str
    sha256: str
    sealed: bool  # its bytes name a commitment (or hold a \u escape): always parsed
    seeded: bool  # its seed was at hand (always, for an open game)
    game_id: str
    keys: dict[str, str]  # identity.keys: what makes two files one game
    # What the index knows of it (a GameSummary, decoded only when a build reports its
    # games: `referee site --json`); JSON null (NOT_SERVED): not served (a copy).
    summary: msgspec.Raw
    needs_secret: bool  # sealed, its seed not at hand: its page shows its log only
    row: str  # its row of the index, as HTML
    result: Result | None  # the league's result, or
    skip: str | None  # why the league does not count it
    names: str  # the digest of the folder's file names
    size: int  # the folder's total bytes
    stamp: list[int] = []  # the folder's device, inode, mtime and ctime (ns); [] unknown
    # The game file's device, inode, size, mtime and ctime (ns) when its bytes were
    # hashed: while they hold, the file is not read again (file_holds).
    file_stamp: list[int] = []


class Manifest(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    key: str
    read_ns: int  # the clock when the build that wrote it began to look at the game files
    games: list[Entry]


_DECODER = msgspec.json.Decoder(Manifest)
NOT_SERVED = msgspec.Raw(b"null")
_SUMMARY = msgspec.json.Decoder(GameSummary, strict=True)


@dataclass
class Loaded:
    """A trusted manifest: its entries by (file, sha256) and by file, its time on disk,
    when its build began to read the game files, and (asked for) the decoded summaries."""

    entries: dict[tuple[str, str], Entry]
    mtime_ns: int
    read_ns: int = 0
    by_file: dict[str, Entry] = field(default_factory=dict)
    summaries: dict[tuple[str, str], GameSummary] = field(default_factory=dict)


def path_for(out: Path) -> Path | None:
    """Where OUT's manifest lives, or None when caching is off (every build is full)."""
    configured = os.environ.get("REFEREE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        base = Path(configured)
    else:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                ".cache")
        base = Path(home) / "referee"
    where = hashlib.sha256(os.path.realpath(out).encode()).hexdigest()
    return base / "site-1" / f"{where}.json"


def build_key(lang: str, league: bool, repo: str | None = None) -> str:
    """The key of a build: the referee's code, the language, the league, and the
    repository the issue links open (``--github-repo``)."""
    return hashlib.sha256(f"{FORMAT}\n{code_digest()}\n{lang}\n{league}\n{repo or ''}"
                          .encode()).hexdigest()


def dump(key: str, read_ns: int, entries: list[Entry]) -> bytes:
    """The manifest's bytes: the same entries give the same bytes (sorted by file)."""
    # (dicts keep their order: a summary's scores are shown in the order the game gives)
    return msgspec.json.encode(Manifest(FORMAT, key, read_ns,
                                        sorted(entries, key=lambda e: e.file)))


def encode_summary(summary: GameSummary) -> msgspec.Raw:
    return msgspec.Raw(msgspec.json.encode(summary))


def save(out: Path, key: str, read_ns: int, entries: list[Entry]) -> None:
    """Write OUT's manifest (after every file of the site: none is newer); a cache that
    cannot be written only costs the next build its shortcut."""
    path = path_for(out)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fileio.write_atomic(path, dump(key, read_ns, entries), mode=0o600, durable=False,
                            what="site manifest")
    except (OSError, RefereeError):
        forget(out)


def forget(out: Path) -> None:
    """Drop OUT's manifest (before OUT changes: a build cut short is then built in full)."""
    path = path_for(out)
    try:
        if path is not None:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def load(out: Path, key: str, summaries: bool = False) -> Loaded | None:
    """The entries of OUT's manifest, or None (missing, too big, damaged, from another
    version or language, for another key; given ``summaries``, one of them damaged)."""
    path = path_for(out)
    if path is None:
        return None
    try:
        st = path.lstat()
        if path.is_symlink() or not path.is_file() or st.st_size > MAX_BYTES:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        manifest = _DECODER.decode(raw)
    except msgspec.DecodeError:
        return None
    if manifest.format != FORMAT or manifest.key != key or len(manifest.games) > MAX_GAMES:
        return None
    found = {(e.file, e.sha256): e for e in manifest.games if _valid(e)}
    loaded = Loaded(found, st.st_mtime_ns, manifest.read_ns,
                    {e.file: e for e in found.values()})
    if summaries:  # (a summary that does not decode: a damaged manifest, all distrusted)
        for where, entry in list(found.items()):
            if served(entry):
                try:
                    decoded = _SUMMARY.decode(entry.summary)
                except msgspec.DecodeError:
                    return None
                if decoded.slug != entry.game_id or decoded.log:
                    del found[where], loaded.by_file[entry.file]  # (another game's)
                else:
                    loaded.summaries[where] = decoded
    return loaded


def _valid(entry: Entry) -> bool:
    """An entry whose names could not be a game's own is dropped (that game rebuilt)."""
    if not _SLUG.match(entry.game_id) or "/" in entry.file:
        return False
    if served(entry) and not entry.row:
        return False
    return len(entry.sha256) == 64 and entry.size >= 0


def served(entry: Entry) -> bool:
    """The entry's game was on the index (not a copy)."""
    return entry.summary != NOT_SERVED


def folder_stamp(folder: str | Path) -> list[int] | None:
    """The folder's device, inode, modification and change times (ns), or None when it
    is not a real folder."""
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    return [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def file_stamp(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def file_holds(entry: Entry, path: str | Path, read_ns: int) -> bool:
    """The game file is the one whose bytes the entry hashed, untouched since: a regular
    file (a link followed, as it is read) with the same device, inode, size, mtime and
    ctime, changed well before that build began to read. A write to a file changes its
    ctime, which no user can set back; one within the clock's tick of the hashing could
    keep it, so a file changed within RACY_NS of the build that hashed it is read again."""
    if len(entry.file_stamp) != 5 or entry.sealed:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (stat.S_ISREG(st.st_mode) and file_stamp(st) == entry.file_stamp
            and st.st_ctime_ns < read_ns - RACY_NS)


def stamp_holds(entry: Entry, folder: str | Path, manifest_ns: int) -> bool:
    """The folder is the one the manifest saw, untouched since (no file added, removed or
    renamed in it), and was last changed well before the manifest was written."""
    if len(entry.stamp) != 4:
        return False
    found = folder_stamp(folder)
    return found == entry.stamp and found[3] < manifest_ns - RACY_NS


def folder_state(folder: str | Path, newest_ns: int | None = None) -> tuple[str, int] | None:
    """The digest of the names in ``folder`` and their total size; None when it is not
    a real folder of regular files (or, given ``newest_ns``, one is newer than that)."""
    names: list[str] = []
    size = 0
    try:
        if folder_stamp(folder) is None:
            return None
        with os.scandir(folder) as found:
            for item in found:
                if not item.is_file(follow_symlinks=False):
                    return None
                st = item.stat(follow_symlinks=False)
                if newest_ns is not None and st.st_mtime_ns > newest_ns:
                    return None
                names.append(item.name)
                size += st.st_size
    except OSError:
        return None
    return names_digest(names), size


def names_digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


def file_sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
