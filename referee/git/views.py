"""Games in a git repository: each player's private view, signed with the game's referee
key and encrypted to their SSH keys (:mod:`referee.trust.agebox`, :mod:`referee.trust.viewsign`),
written for `views`, and a view opened with `view` verified against the game file; and
where the game and the allowed-signers file are in the repository.

What `views` costs follows the games that changed. A game whose views this referee made
from these very bytes into this folder is recognised without parsing or replaying it, by
one of two memories:

* **the cache database** (referee/ledger/cachedb.py, as trusted as the user's own files):
  a row keyed by content (the game file's bytes, the code digest, the language, the
  secret used, the file's names, the folder and the players' keys) lists what every file
  written is (:func:`_check`) and its stat identity (:func:`_identity`: device, inode,
  size, mtime, ctime, as git's index tells a file); while each file there is that file
  (its stat, else its bytes looked at) and a player without a key has no view, nothing is
  done. The game file's bytes are hashed only when its stat identity is not the one kept
  (rows of ``views-stat``). Open and sealed games alike: this is a comparison with what
  the referee wrote, which any change through the file system shows.
* **the index beside the views** (``STEM.views.json``, :func:`referee.trust.agebox.views_hold`),
  HMACs under a key derived from the game's seed, which survives a fresh CI runner: for
  sealed games only, whose seed is secret. An open game's seed is in its file, so anyone
  could write an index that passes: an open game without a row in the cache is always
  replayed and its public view compared byte for byte; its private views are kept only
  on an index keyed from a secret of whoever runs `views` (the repository secret in CI:
  :func:`referee.trust.agebox.open_views_key`), else encrypted again.

Each folder of views is rid of stale temporary files once per run, not once per file
written (a folder of 40,000 views listed before each of them made the first run grow
with the square of the archive).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from referee import i18n
from referee.errors import GameFileError, RefereeError, UsageError
from referee.git import history
from referee.ledger import cachedb, fileio, gamefile, identity, replay, secret, secretplace
from referee.ledger.codedigest import code_digest
from referee.play.statusview import status_json, status_text
from referee.trust import agebox, publicview, viewsign

if TYPE_CHECKING:
    from referee.trust.viewsign import ViewDoc

SIGNERS_IN_REPO = Path(history.SIGNERS)  # the file `check --signed` verifies commits with


def repo_root(path: Path) -> Path | None:
    """The root of the git work tree holding ``path`` (None outside one, or no git)."""
    return _git_top(path.resolve().parent)


def _git_top(folder: Path) -> Path | None:
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                             cwd=folder, capture_output=True, check=False)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return Path(top.stdout.decode().strip()) if top.returncode == 0 else None


def default_signers(game_path: Path) -> Path:
    """``.referee/allowed_signers`` at the root of the git repository holding the game.
    Raises UsageError outside a repository."""
    top = repo_root(game_path)
    if top is None:
        raise UsageError(f"{game_path} is not in a git repository, so there is no default "
                         "allowed-signers file", hints=["give --signers PATH"])
    return top / SIGNERS_IN_REPO


def repo_name(path: Path) -> str:
    """The game file's path in its repository (its name outside one): what a view
    names it by."""
    if path.is_symlink():
        return _repo_name(path.resolve())
    folder, top = _folder(path.parent)
    return _inside(f"{folder}/{path.name}", top) or path.name


def _repo_name(real: Path) -> str:
    folder, top = _folder(real.parent)
    return _inside(f"{folder}/{real.name}", top) or real.name


def _inside(real: str, top: str | None) -> str | None:
    """``real`` relative to the work tree ``top`` (both resolved), or None."""
    if top is None:
        return None
    if top == "/":
        return real[1:]
    return real[len(top) + 1:] if real.startswith(top + "/") else None


@functools.lru_cache(maxsize=256)
def _folder(folder: Path) -> tuple[str, str | None]:
    """The folder resolved, and the resolved root of the work tree it is in (None
    outside one): asked once a folder a run."""
    real = folder.resolve()
    top = _work_tree(real)
    return str(real), (str(_resolved(top)) if top is not None else None)


# Within one run of `views`, each folder is resolved and git asked of it once (for 10,000
# games in one folder git ran 10,000 times); write_all_views forgets them first.
_work_tree = functools.lru_cache(maxsize=256)(_git_top)


@functools.lru_cache(maxsize=256)
def _resolved(folder: Path) -> Path:
    return folder.resolve()


def write_game_views(path: Path, out: Path, secret_path: Path | None,
                     signers: agebox.Signers,
                     read: tuple[bytes, gamefile.GameFile] | None = None,
                     tidied: bool = False) -> agebox.ViewsReport:
    """Replay the game at ``path`` with its secret and write its views into ``out``,
    each signed with the game's referee key; or, for a sealed game whose views in
    ``out`` were made by this referee from these very bytes
    (:func:`referee.trust.agebox.views_hold`), leave them without replaying it.
    ``read``: the file's bytes and their parse, if read already; ``tidied``: ``out``'s
    stale temporary files were removed by the caller. Raises RefereeError."""
    name, rel = path.name, repo_name(path)
    if read is None:  # (one read: the bytes checked are the bytes replayed)
        raw = fileio.read_bytes(path)
        read = raw, gamefile.parse(raw, str(path))
    raw, gf = read
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        gamefile.rng_key(gf)  # (raises the replay's SealedError: the secret is needed)
        raise viewsign.ViewError(f"{path}: the views of a game need its seed")
    signed = _signed(gf)
    operator = None if signed else _operator_secret(secret_path, path)
    key = (agebox.views_key(seed) if operator is None
           else agebox.open_views_key(operator, seed))
    source = agebox.source_mac(key, [raw, rel.encode(), name.encode(),
                                     i18n.current().encode(), code_digest().encode()])
    if signed:  # (an open game's key is public: anyone could write an index that holds)
        kept = agebox.views_hold(out, path.stem, key, source, gf.players, signers,
                                 signed=True)
        if kept is not None:
            return kept
    match = replay.replay(gf, seed)
    problem = viewsign.header_key_problem(gf, seed)
    if problem:
        raise viewsign.ViewError(problem)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {out}: {exc.strerror}") from None
    if not tidied:
        fileio.remove_stale_temps(out)
    plaintexts = {
        p: viewsign.document(gf, seed, rel, p, status_text(gf, match, p, name),
                             status_json(gf, match, p))
        for p in gf.players
    }
    public = status_text(gf, match, None, name)
    return agebox.write_views(out, path.stem, gf.game_id, key, plaintexts, public + "\n",
                              signers, source, public_document(gf, seed, rel, public, match),
                              secret_key=signed or operator is not None, tidy=False)


def _operator_secret(secret_path: Path | None, path: Path) -> bytes | None:
    """A secret of whoever runs `views`, for an open game's index: the repository secret
    (``REFEREE_SECRET``) or the bytes of the secret file the run names (``--secret``,
    ``REFEREE_SECRET_FILE``); None: there is none, and an open game's views are
    encrypted again on every run without the cache. Never FILE.secret beside the game:
    in a players' repository anyone could have put it there."""
    place = secretplace.secret_place(secret_path, path)
    if place is None or place[0] == "beside":
        return None
    if place[0] == "env":
        return str(place[1]).encode()
    try:
        return fileio.read_bytes(Path(place[1]), "secret file")
    except GameFileError:
        return None


def _signed(gf: gamefile.GameFile) -> bool:
    """Whether the game's public view is signed: a sealed game whose seed is not in the
    file (an open game is replayed by anyone)."""
    return gf.sealed and "seed" not in gf.data["rng"]


def public_document(gf: gamefile.GameFile, seed: str, rel: str, text: str, match: Any
                    ) -> bytes | None:
    """The signed public view (:mod:`referee.trust.publicview`) of a sealed game, for
    its players without the secret, as its file holds it; None for an open game."""
    if not _signed(gf):
        return None
    finished = match.game.finished(match.state)
    return publicview.encode(publicview.document(gf, seed, rel, text,
                                                 gamefile.waiting(gf, match), finished))


def write_public_view(path: Path, seed: str) -> Path:
    """The public view of the new sealed game at ``path`` beside it, as `referee views`
    writes it (STEM.public.txt, STEM.public.signed; no index and no player's view:
    `views` writes those): what its players without the secret see with `referee status
    FILE` until the views are written. Returns the public view's path. Raises
    RefereeError."""
    gf = gamefile.read(path)
    match = replay.replay(gf, seed)
    public = status_text(gf, match, None, path.name)
    signed = public_document(gf, seed, repo_name(path), public, match)
    text_path = path.parent / f"{path.stem}.public.txt"
    agebox.write_atomic(text_path, (public + "\n").encode())
    if signed is not None:
        agebox.write_atomic(path.parent / publicview.file_name(path.stem), signed)
    return text_path


@dataclass
class GameViews:
    """What `views` did for one game: its report, or the error that stopped it."""

    path: Path
    out: Path
    report: agebox.ViewsReport | None = None
    error: RefereeError | None = None
    copy: identity.Copy | None = None  # a copy of another game file: no views of its own


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
        self.prefix = cachedb.digest(ROWS.encode(), code_digest().encode(),
                                     i18n.current().encode(), keys.encode())
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
        found = _bytes_of(file)
        if found is None:
            return b"", fileio.read_bytes(path)  # (raises, saying why)
        raw, st = found
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
        row = Row(identity.game_id(gf), identity.keys(gf), list(gf.players), _signed(gf))
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


def _bytes_of(file: str) -> tuple[bytes, os.stat_result] | None:
    """The bytes of the game file at ``file`` in one read and its stat before the read,
    or None (not a regular file, too big, or unreadable: fileio.read_bytes then says
    why)."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > fileio.MAX_GAME_FILE_BYTES:
            return None
        return fileio.read_fd(fd, file, st.st_size), st
    except (OSError, RefereeError):
        return None
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


def write_all_views(paths: Sequence[Path], signers_path: Path, out_dir: Path | None,
                    secret_path: Path | None) -> tuple[agebox.Signers, list[GameViews]]:
    """Write the views of every game in ``paths`` (:func:`write_game_views`); a game that
    fails (unreadable, no secret, the same game as another file) is reported and the
    others' views are still written. A game whose views the cache says were made from
    its very bytes, every file still as written, is neither parsed nor replayed.
    Raises UsageError for unusable arguments."""
    _work_tree.cache_clear()
    _resolved.cache_clear()
    _folder.cache_clear()
    targets = view_targets(paths, out_dir)
    signers = agebox.read_signers(signers_path)
    with cachedb.session() as cache:
        memory = Memory(cache, secret_path, signers)
        try:
            return signers, _write_all(targets, memory, secret_path, signers)
        finally:
            memory.close()


def _write_all(targets: list[tuple[Path, Path]], memory: Memory, secret_path: Path | None,
               signers: agebox.Signers) -> list[GameViews]:
    found = memory.games(targets)  # (a file that cannot be read: its views say why)
    copies, twins = duplicate_keys(found)
    tidied: set[Path] = set()
    done: list[GameViews] = []
    for path, out in targets:
        if path in copies:  # the game's views are its copy's
            done.append(GameViews(path, out, copy=copies[path]))
            continue
        try:
            if path in twins:
                raise viewsign.ViewError(twins[path], hints=[
                    "one game, one file: remove the copy (`check --since` tells which is "
                    "new)"])
            game = found.get(path)
            kept = memory.kept(path, out, game) if game is not None else None
            if kept is not None:
                done.append(GameViews(path, out, kept))
                continue
            if out not in tidied:  # (once a folder: not once a file written)
                fileio.remove_stale_temps(out)  # (a folder not made yet has none)
                tidied.add(out)
                memory.forget(out)  # (opened again once it is made)
            read = game.read if game is not None else None
            report = write_game_views(path, out, secret_path, signers, read, tidied=True)
            if game is not None:
                memory.remember(path, out, game, report)
            done.append(GameViews(path, out, report))
        except RefereeError as exc:
            done.append(GameViews(path, out, error=exc))
    return done


def duplicate_keys(found: dict[Path, Read]
                   ) -> tuple[dict[Path, identity.Copy], dict[Path, str]]:
    """(the copies among the games ``found``, whose game's views stand for them; the
    other files that are the same game as another one (the same header, rng commitment
    or game id: :mod:`referee.ledger.identity`, as `pending` and `site` find them), each
    with the message saying so: a copy of a game with a forged header must not be served
    beside the real one). From what each file's bytes say (kept in the cache); the files
    of a game found twice are parsed to sort the copy from the game."""
    keyed = [(str(path), read.row.keys, read.row.game_id) for path, read in found.items()]
    by_name = {str(path): path for path in found}

    def held(file: str) -> identity.Held | None:
        path = by_name[file]
        try:
            gf = gamefile.read(path)
        except RefereeError:
            return None
        return identity.held_of(file, gf, (_mtime(path),))

    copies, twins = identity.sort_copies(identity.duplicates_of_keys(keyed), held,
                                         served=True)
    return ({Path(f): c for f, c in copies.items()},
            {Path(f): f"{d.message}: no views are written for either"
             for f, d in twins.items()})


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def view_targets(paths: Sequence[Path], out_dir: Path | None) -> list[tuple[Path, Path]]:
    """(game, folder of its views) per game. Raises UsageError when two games' views
    would have the same names."""
    targets = [(p, out_dir or p.parent) for p in paths]
    seen: dict[tuple[Path, str], Path] = {}
    for path, out in targets:
        key = (_resolved(out), path.stem)
        if key in seen and seen[key].resolve() != path.resolve():
            raise UsageError(f"{seen[key]} and {path} would write the same view files in "
                             f"{out}", hints=["give them different names or run views "
                                              "once per game with its own --out"])
        seen[key] = path
    return targets


def expected_of(path: Path, player: str | None) -> tuple[str, str | None]:
    """(whose view ``path`` must be, the game file stem its name says or None)."""
    parts = path.name[:-4].rsplit(".", 1) if path.name.endswith(".age") else []
    if player is not None:
        return player, parts[0] if len(parts) == 2 and parts[1] == player else None
    if len(parts) != 2 or not parts[0]:
        raise UsageError(f"cannot tell whose view {path} is meant to be: its name is not "
                         "STEM.PLAYER.age", hints=["give --as YOUR_PLAYER_ID"])
    return parts[1], parts[0]


def locate_game(doc: ViewDoc, view_path: Path, game_path: Path | None) -> Path:
    """The game file to verify the view with: ``game_path``, else the file the view
    names at its path in the repository (signed, in a sealed game's view), else the file
    of that name beside the view. Raises ViewError."""
    if game_path is not None:
        return game_path
    named = Path(str(doc["file"]))
    candidates = []
    top = repo_root(view_path)
    if top is not None and not named.is_absolute() and ".." not in named.parts:
        candidates.append(top / named)  # first: a copy beside the view may be an old one
    candidates.append(view_path.parent / named.name)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise viewsign.ViewError(f"cannot verify {view_path}: the game file it is of "
                             f"({doc['file']}) is not at hand",
                             hints=["give --game FILE (the game file from the repository)"])


def verify_view(doc: ViewDoc, path: Path, game_path: Path | None, player: str,
                stem: str | None) -> str | None:
    """Refuse a view that is not the referee's, not ``player``'s, not of this game or
    older than the game file (viewsign). Returns a note for a view newer than the game
    file at hand. Raises RefereeError."""
    game = locate_game(doc, path, game_path)
    gf = gamefile.read(game)
    if game_path is not None and Path(str(doc["file"])).name != game.name \
            and doc["game"] == gf.game_id:
        stem = Path(str(doc["file"])).stem  # a copy under another name: the id decides
    if gf.sealed and "seed" not in gf.data["rng"]:
        viewsign.check_signature(doc, gf, str(path), str(game))
        return viewsign.check_binding(doc, gf, str(path), str(game), player, stem)
    if game_path is None:  # anybody may commit an open game for a forged view to match
        raise viewsign.ViewError(
            f"{game} is an open game (its seed is public, so anyone could write a view "
            f"that matches it): {path} is checked only against a game file you name",
            hints=[f"give --game FILE, or simply `referee status FILE --as {player}`"])
    note = viewsign.check_binding(doc, gf, str(path), str(game), player, stem)
    if note is not None:
        entries = f"{len(gf.log)} entr{'y' if len(gf.log) == 1 else 'ies'}"
        raise viewsign.ViewError(f"{path} is of move {doc['moves']}, but {game} has only "
                                 f"{entries}: pull, then view it again")
    check_replayed(doc, gf, path, game, player)
    return None


def check_replayed(doc: ViewDoc, gf: gamefile.GameFile, path: Path, game: Path,
                   player: str) -> None:
    """An open game's view (anyone could sign it: the seed is public) is the game
    replayed to the view's move. Raises ViewError."""
    part = gamefile.GameFile({**gf.data, "log": gf.log[:int(doc["moves"])]}, gf.game)
    match = replay.replay(part, secret.find_seed(part, None, game))
    name = Path(str(doc["file"])).name
    status = json.loads(json.dumps(status_json(part, match, player)))
    if doc["text"] != status_text(part, match, player, name) or doc["status"] != status:
        raise viewsign.ViewError(f"{path} does not show what {game} shows {player} at move "
                                 f"{doc['moves']}: it is forged, do not trust it",
                                 hints=["`referee status --as YOU` shows the real view of "
                                        "an open game"])
