"""What `views` remembers in the cache database (referee/ledger/cachedb.py, as trusted as
the user's own files), so that a game whose views this referee made from these very
bytes into this folder is recognised without parsing or replaying it.

A row keyed by content (the game file's bytes, the code digest, the language, the secret
used, the file's names, the folder and the players' keys) lists what every file written
is (:func:`_check`) and its stat identity (:func:`_identity`: device, inode, size, mtime,
ctime, as git's index tells a file); while each file there is that file (its stat, else
its bytes looked at) and a player without a key has no view, nothing is done. The game
file's bytes are hashed only when its stat identity is not the one kept (rows of
``views-stat``). Open and sealed games alike: this is a comparison with what the referee
wrote, which any change through the file system shows. (The other memory, the index
beside the views, which survives a fresh CI runner: :mod:`referee.git.views`.) A row
keeps whether the game's public view is signed (``GameFile.seed_hidden``: an open
game is replayed by anyone).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.errors import RefereeError
from referee.git.places import _folder, _inside, _resolved, repo_name
from referee.ledger import cachedb, fileio, gamefile, identity
from referee.trust import agebox, publicview

ROWS = "views"  # what views were made from a game file's bytes into a folder
STATS = "views-stat"  # a game file's stat identity -> the SHA-256 of its bytes
AGE_HEAD = 4096  # an age file's header is read this far (then the whole file)
# A file whose mtime or ctime is this close to the moment its identity is recorded may
# still change within the same tick of the file system's clock without either time
# moving (git's "racily clean" entries): its identity is not kept, and the next run
# looks at its bytes (and keeps the identity then).
RACY_NS = 1_000_000_000


class Row(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """What `views` knows of a game file's bytes (its id, identity and players: the copy
    check and the report) and the views made from them into a folder (every file's name,
    :func:`_check` as written and its stat identity, :func:`_identity`; none yet:
    ``files`` empty)."""

    game_id: str
    keys: dict[str, str]  # identity.keys
    players: list[str]
    signed: bool  # sealed, its seed not in the file
    files: list[tuple[str, str, list[int]]] = []


class Stat(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A game file's stat identity (:func:`_identity`) when its bytes hashed to ``sha``."""

    identity: list[int]
    sha: bytes


_ROW = msgspec.msgpack.Decoder(Row)
_STAT = msgspec.msgpack.Decoder(Stat)
_ENCODE = msgspec.msgpack.Encoder().encode


def _identity(st: os.stat_result, now_ns: int) -> list[int]:
    """What tells a file from itself after any change that goes through the file system:
    its device and inode (another file put in its place), size, mtime and ctime (the
    ctime cannot be set back: writing, or setting the mtime back, moves it). [] when it
    changed too recently to tell (:data:`RACY_NS`) or is no regular file: then its bytes
    are looked at."""
    if not stat.S_ISREG(st.st_mode) or max(st.st_mtime_ns, st.st_ctime_ns) > now_ns - RACY_NS:
        return []
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _same(st: os.stat_result | None, identity: list[int]) -> bool:
    """Whether ``st`` is the file whose identity was recorded (never for [])."""
    return bool(identity) and st is not None and stat.S_ISREG(st.st_mode) and identity == [
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


@dataclass
class Read:
    """A game file as read for this run: its row's key, what its bytes say, and (once
    parsed) the bytes and their parse."""

    key: bytes
    row: Row
    read: tuple[bytes, gamefile.GameFile] | None = None


class Memory:
    """`views`' rows in the cache (``cache`` None: none, every game as without it)."""

    def __init__(self, cache: cachedb.Cache | None, secret_path: Path | None,
                 signers: agebox.Signers) -> None:
        self.cache = cache
        self.sources = cachedb.Sources(secret_path)
        self.signers = signers
        # (the players' keys are in the key of every row: a key added, other rows)
        keys = "\n".join(f"{p} {' '.join(k)}" for p, k in sorted(signers.keys.items()))
        self.prefix = cachedb.digest(cachedb.key_prefix(ROWS), keys.encode())
        self.folders: dict[str, tuple[str, str | None, frozenset[str]]] = {}
        self.outs: dict[Path, tuple[bytes, int | None]] = {}

    def close(self) -> None:
        for out in list(self.outs):
            self.forget(out)

    def forget(self, out: Path) -> None:
        """Close the folder ``out`` (opened again when next asked for)."""
        _, fd = self.outs.pop(out, (b"", None))
        if fd is not None:
            os.close(fd)

    def _name(self, path: Path, file: str) -> str:
        """:func:`repo_name`, each folder resolved and listed once (its links)."""
        folder, name = os.path.split(file)
        found = self.folders.get(folder)
        if found is None:
            real, top = _folder(path.parent)
            try:
                with os.scandir(folder or ".") as listing:
                    links = frozenset(e.name for e in listing if e.is_symlink())
            except OSError:
                links = frozenset()
            found = self.folders[folder] = (real, top, links)
        real, top, links = found
        if name in links:
            return repo_name(path)
        return _inside(f"{real}/{name}", top) or name

    def _out(self, out: Path) -> tuple[bytes, int | None]:
        """The views' folder resolved, and open (None: it is not there yet)."""
        found = self.outs.get(out)
        if found is None:
            try:
                fd: int | None = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError:
                fd = None
            found = self.outs[out] = (os.fsencode(_resolved(out)), fd)
        return found

    def games(self, targets: Sequence[tuple[Path, Path]]) -> dict[Path, Read]:
        """Every game file of the run with its row (:meth:`game`); a file that cannot
        be read is left out (its views say why). The cache's rows are read in bulk:
        first each file's stat identity, then the rows of the bytes they name."""
        cwd = os.getcwd()
        stat_keys = {p: cachedb.digest(STATS.encode(), os.fsencode(os.path.join(cwd, p)))
                     for p, _ in targets}
        if self.cache is not None:
            self.cache.prefetch(STATS, list(stat_keys.values()))
        hashed: dict[Path, tuple[bytes, bytes | None]] = {}
        for path, _ in targets:
            with contextlib.suppress(RefereeError):
                hashed[path] = self._hash(path, stat_keys[path])
        keys = {p: self._key(p, o, hashed[p][0]) if self.cache is not None else b""
                for p, o in targets if p in hashed}
        if self.cache is not None:
            self.cache.prefetch(ROWS, list(keys.values()))
        found: dict[Path, Read] = {}
        for path, _ in targets:
            if path in hashed:
                with contextlib.suppress(RefereeError):
                    found[path] = self.game(path, keys[path], *hashed[path])
        return found

    def _hash(self, path: Path, stat_key: bytes) -> tuple[bytes, bytes | None]:
        """The SHA-256 of the game file's bytes, and the bytes if they were read: not
        while the file is, by its stat identity, the one whose hash the cache keeps
        (under ``stat_key``). Raises RefereeError."""
        file = str(path)
        if self.cache is not None:
            kept = self.cache.get(STATS, stat_key)
            if kept is not None:
                with contextlib.suppress(msgspec.DecodeError, OSError):
                    known = _STAT.decode(kept)
                    if _same(os.stat(file), known.identity):
                        return known.sha, None
        raw, st = _bytes_of(file)
        sha = hashlib.sha256(raw).digest()
        if self.cache is not None:
            identity = _identity(st, time.time_ns())
            if identity:
                self.cache.put(STATS, stat_key, _ENCODE(Stat(identity, sha)))
        return sha, raw

    def _key(self, path: Path, out: Path, sha: bytes) -> bytes:
        """The row's key: the bytes' SHA-256, the code digest, the language, which
        secret, the file's names, the folder of its views and the players' keys."""
        file = str(path)
        return cachedb.digest(self.prefix, sha, os.fsencode(file), self.sources.of(file),
                              self._name(path, file).encode(), self._out(out)[0])

    def game(self, path: Path, key: bytes, sha: bytes, raw: bytes | None) -> Read:
        """The row under ``key`` (:meth:`_key` of the file whose bytes hash to ``sha``:
        what its bytes say, the views made from them) from the cache, else the file
        parsed (read now if ``raw`` is None). Raises RefereeError."""
        if self.cache is not None:
            found = self.cache.get(ROWS, key)
            if found is not None:
                with contextlib.suppress(msgspec.DecodeError):
                    return Read(key, _ROW.decode(found))
        if raw is None or self.cache is None:
            raw = fileio.read_bytes(path) if raw is None else raw
            if self.cache is not None and hashlib.sha256(raw).digest() != sha:
                key = b""  # (changed since it was hashed: nothing remembered of it)
        file = str(path)
        gf = gamefile.parse(raw, file)
        row = Row(identity.game_id(gf), identity.keys(gf), list(gf.players),
                  gf.seed_hidden)
        return Read(key, row, (raw, gf))

    def kept(self, path: Path, out: Path, found: Read) -> agebox.ViewsReport | None:
        """The report of a run that changes nothing, when the row says these views were
        made from these bytes into ``out`` and every file there is the one written
        (:func:`_check`; a player without a key: no view); else None."""
        if not found.row.files:
            return None
        folder = self._out(out)[1]
        if folder is None:
            return None
        stem = path.stem
        report = agebox.ViewsReport()
        for player in found.row.players:
            name = f"{stem}.{player}.age"
            if self.signers.keys.get(player):
                report.unchanged.append(player)
                report.files[player] = name
                continue
            try:
                os.stat(name, dir_fd=folder, follow_symlinks=False)
                return None  # (a view of a player without a key: not the referee's)
            except OSError:
                report.no_key.append(player)
        report.files["public"] = f"{stem}.public.txt"
        written = {name for name, _, _ in found.row.files}
        if not all(name in written for name in report.files.values()):
            return None
        now = time.time_ns()
        files, seen = [], False
        for name, check, known in found.row.files:
            try:
                st: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                st = None
            if not _same(st, known):  # (changed, or too fresh when recorded: its bytes)
                looked = _check(name, folder)
                if looked is None or looked[0] != check:
                    return None
                known, seen = _identity(looked[1], now), True
            files.append((name, check, known))
        if seen and self.cache is not None and found.key:  # (identities kept for next run)
            self.cache.put(ROWS, found.key, _ENCODE(msgspec.structs.replace(found.row,
                                                                            files=files)))
        return report

    def remember(self, path: Path, out: Path, found: Read,
                 report: agebox.ViewsReport) -> None:
        """Keep what every file the views of ``path`` are now in ``out`` is."""
        if self.cache is None or not found.key:
            return
        stem = path.stem
        names = [*report.files.values(), f"{stem}.views.json"]
        if found.row.signed:
            names.append(publicview.file_name(stem))
        files = []
        now = time.time_ns()
        for name in names:
            looked = _check(os.path.join(out, name))
            if looked is None:
                return
            files.append((name, looked[0], _identity(looked[1], now)))
        row = msgspec.structs.replace(found.row, files=files)
        self.cache.put(ROWS, found.key, _ENCODE(row))


SMALL = 1 << 16  # a file of views but a view is read in one call this long


def _bytes_of(file: str) -> tuple[bytes, os.stat_result]:
    """The bytes of the game file at ``file`` in one read and its stat before the read.
    Raises GameFileError (not a regular file, too big, unreadable: saying why)."""
    fd, st = fileio.open_regular(file)
    try:
        return fileio.read_fd(fd, file, st.st_size), st
    finally:
        os.close(fd)


def _check(name: str, folder: int | None = None) -> tuple[str, os.stat_result] | None:
    """What a file of views is, to tell it from any other, and its stat before it was
    read (None: not a regular file of at most the read cap, or not there); ``folder``:
    the open folder ``name`` is in. A view (``.age``): its size and the SHA-256 of its
    header and payload nonce, which no two encryptions share (fresh randomness each
    time), so another view, an old one put back or one made by anyone else differs. The
    limit: a payload changed under the genuine header (copied from the file) is not seen
    here; it fails age's authentication for the player, who is told the view is damaged,
    and is repaired when the game moves or by a run without the cache (a CI job's: the
    index's HMACs cover every byte). Any other file: the SHA-256 of its bytes. (Looked at
    only when its stat identity is not the one recorded: :meth:`Memory.kept`.)"""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > fileio.MAX_GAME_FILE_BYTES:
            return None  # (a FIFO or a folder put there, or a huge file)
        if name.endswith(".age"):
            head = os.read(fd, AGE_HEAD)
            mark = head.find(b"\n--- ")
            end = head.find(b"\n", mark + 1) if mark > 0 else -1
            if head.startswith(b"age-encryption.org/v1\n") and 0 < end <= len(head) - 17:
                digest = hashlib.sha256(head[:end + 17]).hexdigest()
                return f"age {st.st_size} {digest}", st
            os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, SMALL)
        if len(data) == SMALL:
            data += fileio.read_fd(fd, name, st.st_size)
        return hashlib.sha256(data).hexdigest(), st
    except (OSError, RefereeError):
        return None
    finally:
        os.close(fd)
