"""Games in a git repository: each player's private view, signed with the game's referee
key and encrypted to their SSH keys (:mod:`referee.trust.agebox`, :mod:`referee.trust.viewsign`),
written for `views`, and a new sealed game's public view. Where the game and the
allowed-signers file are in the repository: :mod:`referee.git.places`; a view opened
with `view` verified against the game file: :mod:`referee.git.viewcheck`.

What `views` costs follows the games that changed. A game whose views this referee made
from these very bytes into this folder is recognised without parsing or replaying it, by
one of two memories:

* **the cache database** (:mod:`referee.git.viewcache`): per folder of views, a row per
  game file lists what every file written is and its stat identity; while the game file
  and each file there are those files (by their stat, or while the folder is as the last
  run left it), nothing is done. Open and sealed games alike.
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

import gc
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee import i18n
from referee.errors import GameFileError, RefereeError, UsageError
from referee.git.places import _folder, _resolved, _work_tree, repo_name, view_targets
from referee.git.viewcache import Memory, Read
from referee.ledger import cachedb, fileio, gamefile, identity, replay, secret, secretplace
from referee.ledger.codedigest import code_digest
from referee.play.statusview import status_json, status_text
from referee.trust import agebox, publicview, viewsign


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
    signed = gf.seed_hidden  # (an open game's public view is unsigned: anyone replays it)
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


def public_document(gf: gamefile.GameFile, seed: str, rel: str, text: str, match: Any
                    ) -> bytes | None:
    """The signed public view (:mod:`referee.trust.publicview`) of a sealed game, for
    its players without the secret, as its file holds it; None for an open game."""
    if not gf.seed_hidden:
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
    """What `views` did for one game file: its report, or the error that stopped it."""

    file: str  # as named (10,000 Path objects were a tenth of a run after one move)
    out: Path
    report: agebox.ViewsReport | None = None
    error: RefereeError | None = None
    copy: identity.Copy | None = None  # a copy of another game file: no views of its own


def write_all_views(paths: Sequence[str], signers_path: Path, out_dir: Path | None,
                    secret_path: Path | None, full: bool = False
                    ) -> tuple[agebox.Signers, list[GameViews]]:
    """Write the views of every game file in ``paths`` (:func:`write_game_views`); a
    game that fails (unreadable, no secret, the same game as another file) is reported
    and the others' views are still written. A game whose views the cache says were
    made from its very bytes, every file still as written, is neither parsed nor
    replayed (``full``: every file's bytes looked at, none told by its stat or by
    OUT's). Raises UsageError for unusable arguments."""
    _work_tree.cache_clear()
    _resolved.cache_clear()
    _folder.cache_clear()
    targets = view_targets(paths, out_dir)
    signers = agebox.read_signers(signers_path)
    collecting = gc.isenabled()
    gc.disable()  # (a run's rows and reports hold no cycles: passes over 10,000 of them)
    try:
        with cachedb.session() as cache:
            memory = Memory(cache, secret_path, signers, full)
            try:
                return signers, _write_all(targets, memory, secret_path, signers)
            finally:
                memory.close()
    finally:
        if collecting:
            gc.enable()


def _write_all(targets: list[tuple[str, Path]], memory: Memory, secret_path: Path | None,
               signers: agebox.Signers) -> list[GameViews]:
    told = memory.unchanged(targets)  # (by their stat: most of them, after one move)
    rest = [t for i, t in enumerate(targets) if i not in told]
    found = memory.games(rest)  # (a file that cannot be read: its views say why)
    copies, twins = duplicate_keys(memory.everyone(targets, told, found))
    memory.ran(targets, [*copies, *twins])
    tidied: set[Path] = set()
    done: list[GameViews] = []
    for i, (file, out) in enumerate(targets):
        if file in copies:  # the game's views are its copy's
            done.append(GameViews(file, out, copy=copies[file]))
        elif i in told and file not in twins:  # (a twin of a game read again: refused)
            done.append(GameViews(file, out, told[i]))
        else:
            done.append(_one(file, out, found.get(file), memory, tidied, twins,
                             secret_path, signers))
    return done


def _one(file: str, out: Path, game: Read | None, memory: Memory, tidied: set[Path],
         twins: dict[str, str], secret_path: Path | None,
         signers: agebox.Signers) -> GameViews:
    """The views of one game file read (``game``: None if it could not be)."""
    try:
        if file in twins:
            raise viewsign.ViewError(twins[file], hints=[
                "one game, one file: remove the copy (`check --since` tells which is new)"])
        kept = memory.kept(file, game) if game is not None else None
        if kept is not None:
            return GameViews(file, out, kept)
        if out not in tidied:  # (once a folder: not once a file)
            if not memory.trusted(out):  # (as the last run left it: no temporary file)
                fileio.remove_stale_temps(out)
            tidied.add(out)
        read = game.read if game is not None else None
        report = write_game_views(Path(file), out, secret_path, signers, read, tidied=True)
        memory.made(out)
        if game is not None:
            memory.remember(file, game, out, report)
        return GameViews(file, out, report)
    except RefereeError as exc:
        return GameViews(file, out, error=exc)


def duplicate_keys(found: dict[str, Read]
                   ) -> tuple[dict[str, identity.Copy], dict[str, str]]:
    """(the copies among the games ``found``, whose game's views stand for them; the
    other files that are the same game as another one (the same header, rng commitment
    or game id: :mod:`referee.ledger.identity`, as `pending` and `site` find them), each
    with the message saying so: a copy of a game with a forged header must not be served
    beside the real one). From what each file's bytes say (kept in the cache); the files
    of a game found twice are parsed to sort the copy from the game."""
    keyed = [(file, read.entry.keys, read.entry.game_id) for file, read in found.items()]

    def held(file: str) -> identity.Held | None:
        try:
            gf = gamefile.read(Path(file))
        except RefereeError:
            return None
        return identity.held_of(file, gf, (_mtime(file),))

    copies, twins = identity.sort_copies(identity.duplicates_of_keys(keyed), held,
                                         served=True)
    return copies, {f: f"{d.message}: no views are written for either"
                    for f, d in twins.items()}


def _mtime(file: str) -> int:
    try:
        return os.stat(file).st_mtime_ns
    except OSError:
        return 0
