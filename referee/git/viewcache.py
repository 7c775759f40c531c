"""What `views` remembers in the cache database (referee/ledger/cachedb.py, as trusted as
the user's own files), so that a game whose views this referee made from these very
bytes into this folder is recognised without parsing or replaying it.

Per folder of views (OUT, known by a digest of its real path, the referee's code digest,
the language and the players' keys) a row ``views_games`` per game file (its absolute
path), in two parts:

* what tells an unchanged game (:class:`Hot`, a checksum before it): the game file's
  stat identity, the inodes and names of its files of views, its players, its name in
  its repository and which secret was used (a digest of it);
* the rest (:class:`Entry`, sealed): the SHA-256 of its bytes, what they say (its id and
  identity keys: the copy check) and every file of its views as written (:func:`_check`
  and its stat identity), read only for a game that is not told unchanged by the first.

A run reads OUT's rows in one query and lists OUT once. A game is unchanged while its
file's stat identity is the one kept and each of its files of views is in the listing
under the inode it was written with; a player without a key has no view there. Else
its file's bytes are hashed (the same bytes: kept, not parsed), and a file of views
recorded within the racy window, or listed under another inode, is opened and looked at.
A row ``views_runs`` per OUT names the last run's games (a digest) and the files among
them that were the same game as another: while a run has the same games, and the games
it reads again keep their keys, only those can be copies or twins.

OUT is the referee's own, as the site's OUT is: a file rewritten in place, or replaced by
one that took the same inode number, is not looked at by such a run; ``views --full``
looks at the bytes of every game file and every file of views (and repairs what is not
the referee's), as every run without the cache does (the GitHub Action's). A player is
never shown such a file: ``referee view`` refuses any file that is not their current
view. (The other memory, the index beside the views, which survives a fresh CI runner:
:mod:`referee.git.views`.)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import struct
import time
import zlib
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from referee.errors import RefereeError
from referee.git.places import _folder, _inside, _resolved, repo_name
from referee.ledger import cachedb, fileio, gamefile, identity
from referee.trust import agebox, publicview

KIND = "views"  # the rows' key prefix: the referee's code digest and the language
AGE_HEAD = 4096  # an age file's header is read this far (then the whole file)
# A file whose mtime or ctime is this close to the moment its identity is recorded may
# still change within the same tick of the file system's clock without either time
# moving (git's "racily clean" entries): its identity is not kept, and the next run
# looks at its bytes (and keeps the identity then).
RACY_NS = 1_000_000_000

View = tuple[str, str, bytes]  # a file of views: its name, _check, _identity


class Entry(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A game file as `views` read it: its stat identity when its bytes hashed to
    ``sha`` (:func:`_identity`; empty: looked at again), which secret was used (a
    digest: never the secret), its name in its repository, what its bytes say (its id,
    identity keys and players: the copy check and the report) and the views made from
    them into OUT: every file's name, :func:`_check` as written and its stat identity
    (none yet: ``files`` empty)."""

    game: bytes
    sha: bytes
    source: bytes
    name: str
    game_id: str
    keys: dict[str, str]  # identity.keys
    players: list[str]
    signed: bool  # sealed, its seed not in the file
    files: list[View] = []


class Hot(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """What tells an unchanged game from its :class:`Entry`, read for every game of a
    run (ten thousand entries decoded cost more than the rest of such a run): the game
    file's identity, its files of views and their inodes (none: one of them is looked
    at), the report's files (player or "public" -> name), the views that must not be
    there, its players with a key and those without, its name and secret."""

    game: bytes
    names: list[str]
    inodes: list[int]
    files: dict[str, str]
    absent: list[str]
    keyed: list[str]
    keyless: list[str]
    name: str
    source: bytes


_ENTRY = msgspec.msgpack.Decoder(Entry)
_HOT = msgspec.msgpack.Decoder(Hot)
_ENCODE = msgspec.msgpack.Encoder().encode
_PACK = struct.Struct("<5Q").pack


def _identity(st: os.stat_result, now_ns: int) -> bytes:
    """What tells a file from itself after any change that goes through the file system:
    its device and inode (another file put in its place), size, mtime and ctime (the
    ctime cannot be set back: writing, or setting the mtime back, moves it), packed.
    Empty when it changed too recently to tell (:data:`RACY_NS`) or is no regular file:
    then its bytes are looked at."""
    if not stat.S_ISREG(st.st_mode) or max(st.st_mtime_ns, st.st_ctime_ns) > now_ns - RACY_NS:
        return b""
    return _PACK(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _same(st: os.stat_result | None, identity: bytes) -> bool:
    """Whether ``st`` is the file whose identity was recorded (never for an empty one)."""
    return bool(identity) and st is not None and stat.S_ISREG(st.st_mode) and identity == _PACK(
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _inodes(files: Sequence[View]) -> list[int]:
    """The inodes of the files of views (from each identity: device, inode, ...); none
    when one of them is not known (looked at again)."""
    if not files or not all(known for _, _, known in files):
        return []
    return [_INODE(known, 8)[0] for _, _, known in files]


def _hot(entry: Entry, report: agebox.ViewsReport | None, stem: str) -> bytes:
    """The row's first part for ``entry`` and the ``report`` of its views (none: the
    game is not told unchanged by it), kept beside its CRC-32 (a row damaged on disk is
    a miss, never a wrong report)."""
    if report is None:
        return _ENCODE(Hot(entry.game, [], [], {}, [], [], [], entry.name, entry.source))
    return _ENCODE(Hot(entry.game, [name for name, _, _ in entry.files], _inodes(entry.files),
                       report.files, [f"{stem}.{p}.age" for p in report.no_key],
                       [p for p in entry.players if p in report.files], report.no_key,
                       entry.name, entry.source))


@dataclass
class Out:
    """A folder of views in this run: its rows' key, its rows (the first part; the
    sealed rest of those it reads), the last run over it (the digest of its games'
    files, those that were the same game as another, OUT's own identity at its end),
    the folder open (None: not there yet), whether its listing tells its files (None:
    not asked yet) and its one listing (name -> inode; None: not listed yet)."""

    key: bytes
    rows: dict[str, tuple[bytes, int, int]]  # file -> Hot, its CRC-32, when last used
    values: dict[str, bytes] = field(default_factory=dict)  # (read for the games read)
    run: bytes = b""
    twice: frozenset[str] = frozenset()
    folder: bytes = b""  # OUT's own identity at the end of the last run over it
    fd: int | None = None
    trusted: bool | None = None
    listing: dict[str, int] | None = None


@dataclass
class Read:
    """A game file as read for this run: its row's name (its absolute path), its folder
    of views, its entry as it is now (what its bytes say), its entry before (None: no
    row), and (once parsed) the bytes and their parse."""

    file: str
    out: Out
    entry: Entry
    before: Entry | None = None
    read: tuple[bytes, gamefile.GameFile] | None = None


@dataclass
class Memory:
    """`views`' record of each OUT in the cache (``cache`` None: none, every game as
    without it); ``full``: every file's bytes looked at, nothing told by its stat or the
    listing alone."""

    cache: cachedb.Cache | None
    secret_path: Path | None
    signers: agebox.Signers
    full: bool = False
    outs: dict[Path, Out] = field(default_factory=dict)
    changed: dict[tuple[bytes, str], tuple[Entry, agebox.ViewsReport | None]] = field(
        default_factory=dict)
    dropped: set[tuple[bytes, str]] = field(default_factory=set)
    runs: dict[bytes, tuple[bytes, list[str]]] = field(default_factory=dict)
    twice: dict[bytes, frozenset[str]] = field(default_factory=dict)
    folders: dict[str, tuple[str | None, frozenset[str]]] = field(default_factory=dict)
    digests: dict[bytes, bytes] = field(default_factory=dict)  # secret source -> digest

    def __post_init__(self) -> None:
        self.targets: Sequence[tuple[str, Path]] = ()  # (the run's games, once asked)
        self.sources = cachedb.Sources(self.secret_path)
        # (the players' keys are in OUT's key: a key added, other rows)
        keys = "\n".join(f"{p} {' '.join(k)}" for p, k in sorted(self.signers.keys.items()))
        self.prefix = cachedb.digest(cachedb.key_prefix(KIND), keys.encode())
        self.now = int(time.time())
        self.cwd = os.getcwd().rstrip("/") + "/"
        self.fixed: bytes | None = None  # the digest of every game's secret, if one is

    def where(self, file: str) -> str:
        """The absolute path of ``file``: its row's name."""
        return file if file.startswith("/") else self.cwd + file

    # --- the folders of views -----------------------------------------------------------

    def _out(self, out: Path) -> Out:
        """OUT's rows (read once a run) and the folder open (None: not there yet)."""
        found = self.outs.get(out)
        if found is None:
            key = cachedb.digest(self.prefix, os.fsencode(_resolved(out)))
            found = self.outs[out] = Out(key, {})
            if self.cache is not None:
                self._load(found)
        if found.fd is None:
            with contextlib.suppress(OSError):
                found.fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return found

    def _load(self, out: Out) -> None:
        assert self.cache is not None
        rows = self.cache.query(
            "SELECT file, hot, crc, used FROM views_games WHERE out = ?", (out.key,))
        out.rows = {file: (hot, crc, used) for file, hot, crc, used in rows}  # type: ignore[misc]
        for run, twice, folder in self.cache.query(
                "SELECT run, twice, folder FROM views_runs WHERE out = ?", (out.key,)):
            assert isinstance(run, bytes) and isinstance(twice, str)
            assert isinstance(folder, bytes)
            out.run, out.twice, out.folder = run, frozenset(twice.split("\0")) - {""}, folder

    def listing(self, out: Path) -> list[str] | None:
        """The names in OUT by its one listing of this run, if it was listed."""
        found = self.outs.get(out)
        return None if found is None or found.listing is None else list(found.listing)

    def _listed(self, found: Out) -> dict[str, int]:
        """OUT's names and their inodes: one listing a run (a folder of 40,000 views)."""
        if found.listing is None:
            found.listing = {}
            if found.fd is not None:
                with contextlib.suppress(OSError), os.scandir(found.fd) as listing:
                    found.listing = {e.name: e.inode() for e in listing}
        return found.listing

    def _trust(self, out: Out) -> bool:
        """Whether OUT's listing tells its files: the last run over it had this run's
        games and left OUT as it is now (its device, inode, mtime and ctime: a file
        made, removed or moved in or out of it, as git does when it writes a file,
        moves them). Else each file is told by its own stat identity."""
        if out.trusted is None:
            now = _folder_identity(out.fd)
            out.trusted = (bool(now) and now == out.folder and not self.full
                           and out.run == self._runs(self.targets)[out.key][0])
        return out.trusted

    def made(self, out: Path) -> None:
        """OUT was made or written into: open it again if it was not there."""
        found = self.outs.get(out)
        if found is not None and found.fd is None:
            self._out(out)

    # --- unchanged games ----------------------------------------------------------------

    def unchanged(self, targets: Sequence[tuple[str, Path]]) -> dict[int, agebox.ViewsReport]:
        """The games of ``targets`` (by their place) told unchanged by their row's first
        part (:class:`Hot`): the game file's stat identity, each file of views in OUT's
        listing under its inode, the same secret and name, no view of a player without a
        key; each with the report of a run that changes nothing. None with ``full``, nor
        one that was the same game as another in the last run. (Its files of views are
        those of the players with a key: the players' keys are in OUT's key.) The loop
        of a run after one move: ten thousand games go through it."""
        told: dict[int, agebox.ViewsReport] = {}
        self.targets = targets
        if self.cache is None or self.full:
            return told
        last: Path | None = None
        for i, (file, out_path) in enumerate(targets):
            if out_path is not last:
                last, out = out_path, self._out(out_path)
                rows, twice = out.rows, out.twice
                if not rows or not self._trust(out):
                    rows = {}
                listing = self._listed(out) if rows else {}
            where = file if file.startswith("/") else self.cwd + file
            row = rows.get(where)
            if row is None or where in twice or zlib.crc32(row[0]) != row[1]:
                continue
            try:
                hot = _HOT.decode(row[0])
                st = os.stat(file)
            except (msgspec.DecodeError, OSError):
                continue
            if (hot.game != _PACK(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                                  st.st_ctime_ns)
                    or not hot.inodes or list(map(listing.get, hot.names)) != hot.inodes
                    or hot.source != self._source(file) or hot.name != self._name(file)
                    or (hot.absent and any(n in listing for n in hot.absent))):
                continue
            told[i] = agebox.ViewsReport(written=[], unchanged=hot.keyed, no_key=hot.keyless,
                                         removed=[], replaced=[], files=hot.files)
        return told

    # --- the game files -----------------------------------------------------------------

    def games(self, targets: Sequence[tuple[str, Path]]) -> dict[str, Read]:
        """Every game file of ``targets`` with its entry (:meth:`game`); a file that
        cannot be read is left out (its views say why)."""
        found: dict[str, Read] = {}
        self._read_rests(targets)
        for file, out_path in targets:
            out = self._out(out_path)
            try:
                found[file] = self.game(file, out)
            except RefereeError:  # (its row goes: the next run's copy check reads it)
                self.dropped.add((out.key, self.where(file)))
        return found

    def game(self, file: str, out: Out) -> Read:
        """The game file ``file`` with its entry: OUT's row, while the file is, by its stat
        identity or its bytes, the one the row was made from, with the same secret and
        names; else the file parsed. Raises RefereeError."""
        where = self.where(file)
        before = self._entry(out, where)
        raw: bytes | None = None
        if before is not None and not self.full and _same(_stat(file), before.game):
            sha, game = before.sha, before.game
        else:
            raw, sha, game = _hashed(file)
        source, name = self._source(file), self._name(file)
        if (before is not None and before.sha == sha and before.source == source
                and before.name == name):
            entry = before
            if game != before.game:  # (the same bytes, looked at again: kept for next run)
                entry = msgspec.structs.replace(before, game=game)
                self.changed[(out.key, where)] = (entry, None)
            return Read(where, out, entry, before)
        if raw is None:
            raw, sha, game = _hashed(file)
        gf = gamefile.parse(raw, file)
        entry = Entry(game, sha, source, name, identity.game_id(gf), identity.keys(gf),
                      list(gf.players), gf.seed_hidden)
        if self.cache is not None:  # (what its bytes say, whether or not views follow)
            self.changed[(out.key, where)] = (entry, None)
        return Read(where, out, entry, before, (raw, gf))

    def _read_rests(self, targets: Sequence[tuple[str, Path]]) -> None:
        """Read the sealed rest of the rows of ``targets``, per OUT in bulk."""
        wanted: dict[Path, list[str]] = {}
        for file, out_path in targets:
            wanted.setdefault(out_path, []).append(self.where(file))
        for out_path, wheres in wanted.items():
            self._values(self._out(out_path), wheres)

    def _values(self, out: Out, wheres: Sequence[str]) -> None:
        """Read the sealed rest of these games' rows, a few statements for them all."""
        todo = [w for w in wheres if w in out.rows and w not in out.values]
        if self.cache is None or not todo:
            return
        for start in range(0, len(todo), cachedb.PREFETCH_CHUNK):
            chunk = todo[start:start + cachedb.PREFETCH_CHUNK]
            out.values.update(self.cache.query(  # type: ignore[arg-type]
                "SELECT file, value FROM views_games WHERE out = ? AND file IN "
                f"({', '.join('?' * len(chunk))})", (out.key, *chunk)))

    def _entry(self, out: Out, where: str) -> Entry | None:
        """The game's row's sealed rest, if it holds."""
        if where not in out.values:
            self._values(out, [where])
        stored = out.values.get(where)
        if stored is None:
            return None
        value = cachedb.unsealed(out.key + where.encode(), stored)
        if value is None:
            return None
        try:
            return _ENTRY.decode(value)
        except msgspec.DecodeError:
            return None

    def _source(self, file: str) -> bytes:
        """A digest of the secret the game is read with (:func:`cachedb.secret_source`)."""
        if self.fixed is not None:
            return self.fixed
        source = self.sources.of(file)
        found = self.digests.get(source)
        if found is None:
            found = self.digests[source] = hashlib.sha256(source).digest()
        if self.sources.fixed is not None:  # (a secret named or in the environment)
            self.fixed = found
        return found

    def _name(self, file: str) -> str:
        """:func:`repo_name`: the file's folder resolved, git asked and the folder listed
        (its links) once a run, each name then the folder's place in its work tree and
        the file's name."""
        head, _, name = file.rpartition("/")
        folder = head or ("/" if file.startswith("/") else "")
        found = self.folders.get(folder)
        if found is None:
            real, top = _folder(Path(folder or "."))
            try:
                with os.scandir(folder or ".") as listing:
                    links = frozenset(e.name for e in listing if e.is_symlink())
            except OSError:
                links = frozenset()
            found = self.folders[folder] = (_inside(f"{real}/", top), links)  # (its place)
        inside, links = found
        if name in links:
            return repo_name(Path(file))
        return name if inside is None else inside + name

    def everyone(self, targets: Sequence[tuple[str, Path]], told: Container[int],
                 found: dict[str, Read]) -> dict[str, Read]:
        """The games among which copies and twins must be looked for: only those read
        (``found``) when the last run over each OUT had these very games, none read is
        new or has other keys now, and the games told unchanged were no copy or twin then
        (so none of them can be the same game as another now); else every game, those
        told unchanged by their row's rest."""
        runs = self._runs(targets)
        if all(out.run == runs[out.key][0] for out in self.outs.values()) and all(
                read.before is not None and read.before.keys == read.entry.keys
                and read.before.game_id == read.entry.game_id for read in found.values()):
            return found
        every = dict(found)
        others = [(file, out_path) for i, (file, out_path) in enumerate(targets)
                  if i in told and file not in every]
        self._read_rests(others)
        for file, out_path in others:
            out, where = self._out(out_path), self.where(file)
            entry = self._entry(out, where)
            if entry is not None:
                every[file] = Read(where, out, entry, entry)
        return every

    def _runs(self, targets: Sequence[tuple[str, Path]]) -> dict[bytes, tuple[bytes, list[str]]]:
        """Per OUT, the digest of this run's games whose views go there, and their
        absolute paths (worked out once a run)."""
        if not self.runs:
            per: dict[bytes, list[str]] = {}
            for file, out_path in targets:
                per.setdefault(self._out(out_path).key, []).append(self.where(file))
            self.runs = {key: (hashlib.sha256("\0".join(sorted(names)).encode()).digest(),
                               names) for key, names in per.items()}
        return self.runs

    def ran(self, targets: Sequence[tuple[str, Path]], twice: Sequence[str]) -> None:
        """Remember, per OUT, this run's games and the files among them that were the
        same game as another (copies and twins)."""
        doubled = {self.where(f) for f in twice}
        self.twice = {key: frozenset(w for w in names if w in doubled)
                      for key, (_, names) in self._runs(targets).items()}

    # --- the views ----------------------------------------------------------------------

    def kept(self, file: str, found: Read) -> agebox.ViewsReport | None:
        """The report of a run that changes nothing, when the row says these views were
        made from these bytes into OUT and every file there is the one written (by OUT's
        listing while it tells them, else by its stat identity; failing that, or with
        ``full``, :func:`_check`); a player without a key has no view; else None."""
        entry, out = found.entry, found.out
        if not entry.files or out.fd is None:
            return None
        listing = self._listed(out) if self._trust(out) else None
        stem = _stem(file)
        report = agebox.ViewsReport()
        for player in entry.players:
            name = f"{stem}.{player}.age"
            if self.signers.keys.get(player):
                report.unchanged.append(player)
                report.files[player] = name
            elif _there(name, out.fd, listing):
                return None  # (a view of a player without a key: not the referee's)
            else:
                report.no_key.append(player)
        report.files["public"] = f"{stem}.public.txt"
        if not set(report.files.values()) <= {name for name, _, _ in entry.files}:
            return None
        files = entry.files
        for i, (name, check, known) in enumerate(entry.files):
            if known and not self.full and (
                    listing.get(name) == _INODE(known, 8)[0] if listing is not None
                    else _same(_lstat(name, out.fd), known)):
                continue
            looked = _check(name, out.fd)  # (too fresh when recorded, or another inode)
            if looked is None or looked[0] != check:
                return None
            fresh = (name, check, _identity(looked[1], time.time_ns()))
            if fresh != files[i]:
                files = files if files is not entry.files else list(files)
                files[i] = fresh
        self._keep(found, files, report)  # (identities, and the report, for the next run)
        return report

    def remember(self, file: str, found: Read, out_path: Path,
                 report: agebox.ViewsReport) -> None:
        """Keep what every file the views of ``file`` are now in OUT is."""
        if self.cache is None:
            return
        stem = _stem(file)
        names = [*report.files.values(), f"{stem}.views.json"]
        if found.entry.signed:
            names.append(publicview.file_name(stem))
        files = []
        now = time.time_ns()
        for name in names:
            looked = _check(os.path.join(out_path, name))
            if looked is None:
                return
            files.append((name, looked[0], _identity(looked[1], now)))
        self._keep(found, files, report)

    def _keep(self, found: Read, files: list[View], report: agebox.ViewsReport) -> None:
        if self.cache is not None:
            self.changed[(found.out.key, found.file)] = (
                msgspec.structs.replace(found.entry, files=files), report)

    # --- the end of a run ---------------------------------------------------------------

    def close(self) -> None:
        """Write what this run learnt (best effort) and close the folders."""
        try:
            self._save()
        finally:
            for found in self.outs.values():
                if found.fd is not None:
                    os.close(found.fd)
                    found.fd = None

    def _save(self) -> None:
        if self.cache is None:
            return
        sql: list[tuple[str, tuple[object, ...]]] = [
            ("INSERT OR REPLACE INTO views_games (out, file, hot, crc, value, used) "
             "VALUES (?, ?, ?, ?, ?, ?)",
             (key, file, hot, zlib.crc32(hot),
              cachedb.sealed(key + file.encode(), _ENCODE(entry)), self.now))
            for (key, file), (entry, report) in self.changed.items()
            for hot in [_hot(entry, report, _stem(file))]]
        sql += [("DELETE FROM views_games WHERE out = ? AND file = ?", row)
                for row in sorted(self.dropped - set(self.changed))]
        stale = self.now - cachedb.REFRESH_AFTER_S  # (a used row's time: once a day)
        for out in self.outs.values():
            sql += [("UPDATE views_games SET used = ? WHERE out = ? AND file = ?",
                     (self.now, out.key, file))
                    for file, (_, _, used) in out.rows.items()
                    if used < stale and (out.key, file) not in self.changed]
            if min((used for _, _, used in out.rows.values()), default=self.now) < stale:
                sql.append(("DELETE FROM views_games WHERE out = ? AND used < ?",
                            (out.key, self.now - cachedb.FORGET_AFTER_S)))
            run, twice = self.runs.get(out.key, (b"", [])), self.twice.get(out.key)
            folder = _folder_identity(out.fd)  # (after this run's own writes)
            if twice is not None and (run[0], twice, folder) != (out.run, out.twice,
                                                                 out.folder):
                sql.append(("INSERT OR REPLACE INTO views_runs (out, run, twice, folder) "
                            "VALUES (?, ?, ?, ?)",
                            (out.key, run[0], "\0".join(sorted(twice)), folder)))
        if sql:
            self.cache.write_now(sql)


def _there(name: str, folder: int, listing: dict[str, int] | None) -> bool:
    """Whether a file ``name`` is in the folder (by its listing, if given)."""
    if listing is not None:
        return name in listing
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    return True


SMALL = 1 << 16  # a file of views but a view is read in one call this long


_INODE = struct.Struct("<Q").unpack_from


def _stem(file: str) -> str:
    """The name of ``file`` without its last suffix, as ``Path(file).stem`` says it."""
    name = file.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def _lstat(name: str, folder: int | None) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return None


def _folder_identity(fd: int | None) -> bytes:
    """OUT's own device, inode, mtime and ctime (empty: it is not there)."""
    if fd is None:
        return b""
    try:
        st = os.fstat(fd)
    except OSError:
        return b""
    return _PACK(st.st_dev, st.st_ino, 0, st.st_mtime_ns, st.st_ctime_ns)


def _stat(file: str) -> os.stat_result | None:
    try:
        return os.stat(file)
    except OSError:
        return None


def _hashed(file: str) -> tuple[bytes, bytes, bytes]:
    """The game file's bytes, their SHA-256 and its stat identity before the read.
    Raises GameFileError."""
    raw, st = _bytes_of(file)
    return raw, hashlib.sha256(raw).digest(), _identity(st, time.time_ns())


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
    index's HMACs cover every byte). Any other file: the SHA-256 of its bytes."""
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
