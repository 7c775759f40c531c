"""Games in a git repository: each player's private view, signed with the game's referee
key and encrypted to their SSH keys (:mod:`referee.trust.agebox`, :mod:`referee.trust.viewsign`),
written for `views`, and a view opened with `view` verified against the game file; and
where the game and the allowed-signers file are in the repository.

What `views` costs follows the games that changed. A game whose views this referee made
from these very bytes into this folder is recognised without parsing or replaying it, by
one of two memories:

* **the cache database** (referee/ledger/cachedb.py, as trusted as the user's own files):
  a row keyed by content (the game file's bytes, the code digest, the language, the
  secret used, the file's names, the folder and the players' keys) lists the SHA-256 of
  every file written; while each file there has those bytes (each read and hashed) and a
  player without a key has no view, nothing is done. Open and sealed games alike: this is
  a byte-for-byte comparison with what the referee wrote.
* **the index beside the views** (``STEM.views.json``, :func:`referee.trust.agebox.views_hold`),
  HMACs under a key derived from the game's seed, which survives a fresh CI runner: for
  sealed games only, whose seed is secret. An open game's seed is in its file, so anyone
  could write an index that passes: an open game without a row in the cache is always
  replayed, its public view compared byte for byte and its private views encrypted again.

Each folder of views is rid of stale temporary files once per run, not once per file
written (a folder of 40,000 views listed before each of them made the first run grow
with the square of the archive).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from referee import i18n
from referee.errors import RefereeError, UsageError
from referee.git import history
from referee.ledger import cachedb, fileio, gamefile, identity, replay, secret
from referee.ledger.codedigest import code_digest
from referee.play.statusview import status_json, status_text
from referee.trust import agebox, publicview, viewsign

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
    real = path.resolve() if path.is_symlink() else _resolved(path.parent) / path.name
    top = _work_tree(real.parent)
    if top is not None:
        try:
            return real.relative_to(_resolved(top)).as_posix()
        except ValueError:
            pass
    return path.name


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
    key = agebox.views_key(seed)
    source = agebox.source_mac(key, [raw, rel.encode(), name.encode(),
                                     i18n.current().encode(), code_digest().encode()])
    signed = _signed(gf)
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
                              secret_key=signed, tidy=False)


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


GAME_ROWS = "views-game"  # what a game file's bytes say: its id, identity, players
MADE_ROWS = "views-made"  # what views were made from them into a folder


class GameRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """What `views` needs of a game file's bytes before it knows whether to replay."""

    game_id: str
    keys: dict[str, str]  # identity.keys
    players: list[str]
    signed: bool  # sealed, its seed not in the file


class MadeRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """The views written: every file's name and the SHA-256 of its bytes."""

    files: list[tuple[str, str]]


_GAME = msgspec.msgpack.Decoder(GameRow)
_MADE = msgspec.msgpack.Decoder(MadeRow)
_ENCODE = msgspec.msgpack.Encoder().encode


@dataclass
class Read:
    """A game file as read for this run: its bytes' SHA-256, what they say, and (once
    parsed) the bytes and their parse."""

    sha: bytes
    row: GameRow
    read: tuple[bytes, gamefile.GameFile] | None = None


class Memory:
    """`views`' rows in the cache (``cache`` None: none, every game as without it)."""

    def __init__(self, cache: cachedb.Cache | None, secret_path: Path | None,
                 signers: agebox.Signers) -> None:
        self.cache = cache
        self.sources = cachedb.Sources(secret_path)
        self.signers = signers

    def game(self, path: Path) -> Read:
        """The file read and hashed; what its bytes say from the cache, else parsed.
        Raises RefereeError."""
        raw = fileio.read_bytes(path)
        sha = hashlib.sha256(raw).digest()
        key = cachedb.file_key(GAME_ROWS, sha, "", b"")
        found = self.cache.get(GAME_ROWS, key) if self.cache is not None else None
        if found is not None:
            try:
                return Read(sha, _GAME.decode(found))
            except msgspec.DecodeError:
                pass
        gf = gamefile.parse(raw, str(path))
        row = GameRow(identity.game_id(gf), identity.keys(gf), list(gf.players),
                      _signed(gf))
        if self.cache is not None:
            self.cache.put(GAME_ROWS, key, _ENCODE(row))
        return Read(sha, row, (raw, gf))

    def made_key(self, path: Path, out: Path, found: Read) -> bytes:
        keys = "\n".join(f"{p} {' '.join(self.signers.keys.get(p, []))}"
                         for p in found.row.players)
        return cachedb.digest(
            cachedb.file_key(MADE_ROWS, found.sha, path, self.sources.of(path)),
            repo_name(path).encode(), os.fsencode(_resolved(out)), path.stem.encode(),
            keys.encode())

    def kept(self, path: Path, out: Path, found: Read) -> agebox.ViewsReport | None:
        """The report of a run that changes nothing, when the cache says these views
        were made from these bytes into ``out`` and every file there is byte for byte
        the one written (a player without a key: no view); else None."""
        if self.cache is None:
            return None
        stored = self.cache.get(MADE_ROWS, self.made_key(path, out, found))
        if stored is None:
            return None
        try:
            made = _MADE.decode(stored)
        except msgspec.DecodeError:
            return None
        stem, folder = path.stem, str(out)
        report = agebox.ViewsReport()
        for player in found.row.players:
            name = f"{stem}.{player}.age"
            if self.signers.keys.get(player):
                report.unchanged.append(player)
                report.files[player] = name
            elif os.path.lexists(os.path.join(folder, name)):
                return None
            else:
                report.no_key.append(player)
        report.files["public"] = f"{stem}.public.txt"
        written = dict(made.files)
        if not set(report.files.values()) <= set(written):
            return None
        for name, sha in made.files:
            if _sha_of(os.path.join(folder, name)) != sha:
                return None
        return report

    def remember(self, path: Path, out: Path, found: Read,
                 report: agebox.ViewsReport) -> None:
        """Keep the SHA-256 of every file the views of ``path`` are now in ``out``."""
        if self.cache is None:
            return
        stem = path.stem
        names = [*report.files.values(), f"{stem}.views.json"]
        if found.row.signed:
            names.append(publicview.file_name(stem))
        files = []
        for name in names:
            sha = _sha_of(os.path.join(out, name))
            if sha is None:
                return
            files.append((name, sha))
        self.cache.put(MADE_ROWS, self.made_key(path, out, found), _ENCODE(MadeRow(files)))


def _sha_of(path: str) -> str | None:
    """The SHA-256 of the regular file at ``path`` (at most 16 MiB), or None."""
    try:
        return hashlib.sha256(fileio.read_bytes(Path(path), "view file")).hexdigest()
    except RefereeError:
        return None


def write_all_views(paths: Sequence[Path], signers_path: Path, out_dir: Path | None,
                    secret_path: Path | None) -> tuple[agebox.Signers, list[GameViews]]:
    """Write the views of every game in ``paths`` (:func:`write_game_views`); a game that
    fails (unreadable, no secret, the same game as another file) is reported and the
    others' views are still written. A game whose views the cache says were made from
    its very bytes, every file still as written, is neither parsed nor replayed.
    Raises UsageError for unusable arguments."""
    _work_tree.cache_clear()
    _resolved.cache_clear()
    targets = view_targets(paths, out_dir)
    signers = agebox.read_signers(signers_path)
    with cachedb.session() as cache:
        memory = Memory(cache, secret_path, signers)
        return signers, _write_all(targets, memory, secret_path, signers)


def _write_all(targets: list[tuple[Path, Path]], memory: Memory, secret_path: Path | None,
               signers: agebox.Signers) -> list[GameViews]:
    found: dict[Path, Read] = {}
    for path, _ in targets:
        try:
            found[path] = memory.game(path)
        except RefereeError:
            continue  # (its views say why)
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


def locate_game(doc: dict[str, Any], view_path: Path, game_path: Path | None) -> Path:
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


def verify_view(doc: dict[str, Any], path: Path, game_path: Path | None, player: str,
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


def check_replayed(doc: dict[str, Any], gf: gamefile.GameFile, path: Path, game: Path,
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
