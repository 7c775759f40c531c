"""What `views` remembers in the cache database (referee/ledger/cachedb.py, as trusted as
the user's own files), so that a game whose views this referee made from these very
bytes into this folder is recognised without parsing or replaying it.

Per folder of views (OUT, known by a digest of its real path, the referee's code digest,
the language and the players' keys) a row per game file (its absolute path), in two
tables:

* ``views_games``, what tells an unchanged game (:class:`Hot`, beside its CRC-32): the
  game file's stat identity, the names and inodes of its files of views, the report of
  a run that changes nothing, its name in its repository and which secret was used (a
  digest of it);
* ``views_rests``, the rest (:class:`Entry`, sealed): the SHA-256 of the file's bytes,
  what they say (its id and identity keys: the copy check) and every file of its views
  as written (:func:`viewfiles.check` and its stat identity), read only for a game not told
  unchanged by the first.

And a row ``views_runs`` per OUT: the last run over it (a digest of its games' files),
the files among them that were the same game as another, and OUT's own identity at its
end (device, inode, mtime, ctime).

A run reads OUT's rows in one query and does not list OUT. While OUT is as the last run
over the same games left it (a file made, removed or moved in or out of a folder, as git
does when it writes one, moves its ctime), a file of views whose identity was recorded
outside the racy window is the one written: a game is unchanged while its file's stat
identity is the one kept and every file of its views was so recorded. Else each file of
views is told by its own stat identity, as git tells a file in its index, and no view of
a player without a key may be there. What is not told so is looked at: the game file's
bytes hashed (the same bytes: kept, not parsed), a file of views by
:func:`viewfiles.check`. While the games and their keys are the last run's, copies and
twins are looked for only among the games read again and those that were copies or
twins then.

The limit, as the site's OUT is the builder's own: a file of views rewritten in place
(its inode kept, the folder untouched), or changed while `views` runs, is not looked at
by a run that trusts OUT; ``views --full`` looks at the bytes of every game file and
every file of views and repairs what is not the referee's, as every run without the
cache does (the GitHub Action's). A player is never shown such a file: ``referee view``
refuses any file that is not their current view. (The other memory, the index beside the
views, which survives a fresh CI runner: :mod:`referee.git.views`.)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import zlib
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from referee.errors import RefereeError
from referee.git import places, viewfiles
from referee.git.places import _folder, _inside, _resolved, repo_name
from referee.ledger import cachedb, gamefile, identity
from referee.trust import agebox, publicview

KIND = "views"  # the rows' key prefix: the referee's code digest and the language


View = tuple[str, str, bytes]  # a file of views: its name, viewfiles.check, viewfiles.identity


class Entry(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A game file as `views` read it: its stat identity when its bytes hashed to
    ``sha`` (:func:`viewfiles.identity`; empty: looked at again), which secret was used (a
    digest: never the secret), its name in its repository, what its bytes say (its id,
    identity keys and players: the copy check and the report) and the views made from
    them into OUT: every file's name, :func:`viewfiles.check` as written and its stat identity
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
    """What tells an unchanged game without its :class:`Entry`, read for every game of a
    run (ten thousand entries decoded cost more than the rest of such a run): the game
    file's identity, whether every file of its views has its identity recorded (none
    within the racy window: else it is looked at), the report's files (player or
    "public" -> name), its players with a key and those without, its name and secret."""

    game: bytes
    settled: bool
    files: dict[str, str]
    keyed: list[str]
    keyless: list[str]
    name: str
    source: bytes


_ENTRY = msgspec.msgpack.Decoder(Entry)
_HOT = msgspec.msgpack.Decoder(Hot)
_ENCODE = msgspec.msgpack.Encoder().encode


def _hot(entry: Entry, report: agebox.ViewsReport | None) -> bytes:
    """The row's first part for ``entry`` and the ``report`` of its views (none: the
    game is not told unchanged by it), kept beside its CRC-32 (a row damaged on disk is
    a miss, never a wrong report)."""
    if report is None:
        return _ENCODE(Hot(entry.game, False, {}, [], [], entry.name, entry.source))
    return _ENCODE(Hot(entry.game, bool(entry.files) and all(k for _, _, k in entry.files),
                       report.files, [p for p in entry.players if p in report.files],
                       report.no_key, entry.name, entry.source))


@dataclass
class Out:
    """A folder of views in this run: its rows' key, its rows (the first part; the
    sealed rest of those it reads), the last run over it (the digest of its games'
    files, those that were the same game as another, OUT's own identity at its end),
    the folder open (None: not there yet) and whether it is as the last run left it
    (None: not asked yet)."""

    key: bytes
    rows: dict[str, tuple[bytes, int, int]]  # file -> Hot, its CRC-32, when last used
    values: dict[str, bytes] = field(default_factory=dict)  # (read for the games read)
    run: bytes = b""
    twice: frozenset[str] = frozenset()
    folder: bytes = b""  # OUT's own identity at the end of the last run over it
    fd: int | None = None
    trusted: bool | None = None


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
    without it); ``full``: every file's bytes looked at, nothing told by its stat or by
    OUT's alone."""

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

    def trusted(self, out: Path) -> bool:
        """Whether OUT is as the last run over this run's games left it."""
        found = self.outs.get(out)
        return found is not None and self._trust(found)

    def _trust(self, out: Out) -> bool:
        """Whether OUT is as the last run over it left it, and that run had this run's
        games: OUT's device, inode, mtime and ctime are those recorded at its end (a
        file made, removed or moved in or out of OUT, as git does whenever it writes a
        file, moves them). Then each file of views recorded outside the racy window is
        the one written, but for one rewritten in place or changed while that run ran;
        else each file is told by its own stat identity."""
        if out.trusted is None:
            now = viewfiles.folder_identity(out.fd)
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
        part (:class:`Hot`) while OUT is as the last run over these games left it
        (:meth:`_trust`): the game file's stat identity, every file of its views
        recorded outside the racy window, the same secret and name; each with the
        report of a run that changes nothing. None with ``full``, nor one that was the
        same game as another in the last run. The loop of a run after one move: ten
        thousand games go through it, a stat each."""
        told: dict[int, agebox.ViewsReport] = {}
        self.targets = targets
        if self.cache is None or self.full:
            return told
        last: Path | None = None
        for i, (file, out_path) in enumerate(targets):
            if out_path is not last:
                last, out = out_path, self._out(out_path)
                rows, twice = (out.rows, out.twice) if self._trust(out) else ({}, frozenset())
            where = file if file.startswith("/") else self.cwd + file
            row = rows.get(where)
            if row is None or where in twice or zlib.crc32(row[0]) != row[1]:
                continue
            try:
                hot = _HOT.decode(row[0])
                st = os.stat(file)
            except (msgspec.DecodeError, OSError):
                continue
            if (not hot.settled or hot.game != viewfiles.PACK(
                    st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                    or hot.source != self._source(file) or hot.name != self._name(file)):
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
        if (before is not None and not self.full
                and viewfiles.same(viewfiles.stat_of(file), before.game)):
            sha, game = before.sha, before.game
        else:
            raw, sha, game = viewfiles.hashed(file)
        source, name = self._source(file), self._name(file)
        if (before is not None and before.sha == sha and before.source == source
                and before.name == name):
            entry = before
            if game != before.game:  # (the same bytes, looked at again: kept for next run)
                entry = msgspec.structs.replace(before, game=game)
                self.changed[(out.key, where)] = (entry, None)
            return Read(where, out, entry, before)
        if raw is None:
            raw, sha, game = viewfiles.hashed(file)
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
                "SELECT file, value FROM views_rests WHERE out = ? AND file IN "
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
        made from these bytes into OUT and every file there is the one written (while OUT
        is as the last run left it, every file recorded outside the racy window; else by
        its stat identity; failing that, or with ``full``, by :func:`viewfiles.check`);
        a player without a key has no view; else None."""
        entry, out = found.entry, found.out
        if not entry.files or out.fd is None:
            return None
        trusted = self._trust(out)
        stem = places.stem(file)
        report = agebox.ViewsReport()
        for player in entry.players:
            name = f"{stem}.{player}.age"
            if self.signers.keys.get(player):
                report.unchanged.append(player)
                report.files[player] = name
            elif not trusted and viewfiles.lstat(name, out.fd) is not None:
                return None  # (a view of a player without a key: not the referee's)
            else:
                report.no_key.append(player)
        report.files["public"] = f"{stem}.public.txt"
        if not set(report.files.values()) <= {name for name, _, _ in entry.files}:
            return None
        files = entry.files
        for i, (name, check, known) in enumerate(entry.files):
            if known and not self.full and (
                    trusted or viewfiles.same(viewfiles.lstat(name, out.fd), known)):
                continue
            looked = viewfiles.check(name, out.fd)  # (too fresh when recorded, or another inode)
            if looked is None or looked[0] != check:
                return None
            fresh = (name, check, viewfiles.identity(looked[1], time.time_ns()))
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
        stem = places.stem(file)
        names = [*report.files.values(), f"{stem}.views.json"]
        if found.entry.signed:
            names.append(publicview.file_name(stem))
        files = []
        now = time.time_ns()
        for name in names:
            looked = viewfiles.check(os.path.join(out_path, name))
            if looked is None:
                return
            files.append((name, looked[0], viewfiles.identity(looked[1], now)))
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
        sql: list[tuple[str, tuple[object, ...]]] = []
        for (key, file), (entry, report) in self.changed.items():
            hot = _hot(entry, report)
            sql += [("INSERT OR REPLACE INTO views_games (out, file, hot, crc, used) "
                     "VALUES (?, ?, ?, ?, ?)", (key, file, hot, zlib.crc32(hot), self.now)),
                    ("INSERT OR REPLACE INTO views_rests (out, file, value) VALUES (?, ?, ?)",
                     (key, file, cachedb.sealed(key + file.encode(), _ENCODE(entry))))]
        for row in sorted(self.dropped - set(self.changed)):
            sql += [(f"DELETE FROM {table} WHERE out = ? AND file = ?", row)
                    for table in ("views_games", "views_rests")]
        stale = self.now - cachedb.REFRESH_AFTER_S  # (a used row's time: once a day)
        for out in self.outs.values():
            sql += [("UPDATE views_games SET used = ? WHERE out = ? AND file = ?",
                     (self.now, out.key, file))
                    for file, (_, _, used) in out.rows.items()
                    if used < stale and (out.key, file) not in self.changed]
            if min((used for _, _, used in out.rows.values()), default=self.now) < stale:
                gone = (out.key, self.now - cachedb.FORGET_AFTER_S)
                sql += [("DELETE FROM views_rests WHERE out = ? AND file IN (SELECT file FROM "
                         "views_games WHERE out = ? AND used < ?)", (out.key, *gone)),
                        ("DELETE FROM views_games WHERE out = ? AND used < ?", gone)]
            run, twice = self.runs.get(out.key, (b"", [])), self.twice.get(out.key)
            folder = viewfiles.folder_identity(out.fd)  # (after this run's own writes)
            if twice is not None and (run[0], twice, folder) != (out.run, out.twice,
                                                                 out.folder):
                sql.append(("INSERT OR REPLACE INTO views_runs (out, run, twice, folder) "
                            "VALUES (?, ?, ?, ?)",
                            (out.key, run[0], "\0".join(sorted(twice)), folder)))
        if sql:
            self.cache.write_now(sql)


