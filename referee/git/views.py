"""Games in a git repository: each player's private view, signed with the game's referee
key and encrypted to their SSH keys (:mod:`referee.trust.agebox`, :mod:`referee.trust.viewsign`),
written for `views`, and a view opened with `view` verified against the game file; and
where the game and the allowed-signers file are in the repository."""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.errors import RefereeError, UsageError
from referee.git import history
from referee.ledger import fileio, gamefile, identity, replay, secret
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
                     read: tuple[bytes, gamefile.GameFile] | None = None
                     ) -> agebox.ViewsReport:
    """Replay the game at ``path`` with its secret and write its views into ``out``,
    each signed with the game's referee key; or, when the views in ``out`` were made by
    this referee from these very bytes (:func:`referee.trust.agebox.views_hold`), leave
    them without replaying it. ``read``: the file's bytes and their parse, if read
    already. Raises RefereeError."""
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
    kept = agebox.views_hold(out, path.stem, key, source, gf.players, signers,
                             signed=_signed(gf))
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
    plaintexts = {
        p: viewsign.document(gf, seed, rel, p, status_text(gf, match, p, name),
                             status_json(gf, match, p))
        for p in gf.players
    }
    public = status_text(gf, match, None, name)
    return agebox.write_views(out, path.stem, gf.game_id, key, plaintexts, public + "\n",
                              signers, source, public_document(gf, seed, rel, public, match))


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


def write_all_views(paths: Sequence[Path], signers_path: Path, out_dir: Path | None,
                    secret_path: Path | None) -> tuple[agebox.Signers, list[GameViews]]:
    """Write the views of every game in ``paths`` (:func:`write_game_views`); a game that
    fails (unreadable, no secret, the same game as another file) is reported and the
    others' views are still written. Raises UsageError for unusable arguments."""
    _work_tree.cache_clear()
    _resolved.cache_clear()
    targets = view_targets(paths, out_dir)
    signers = agebox.read_signers(signers_path)
    read = read_games(paths)
    copies, twins = duplicate_ids([(path, gf) for path, (_, gf) in read.items()])
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
            done.append(GameViews(path, out, write_game_views(path, out, secret_path,
                                                              signers, read.get(path))))
        except RefereeError as exc:
            done.append(GameViews(path, out, error=exc))
    return signers, done


def read_games(paths: Sequence[Path]) -> dict[Path, tuple[bytes, gamefile.GameFile]]:
    """Each readable game file's bytes and their parse, read once for the copy check
    and the views (an unreadable one is left out: its views say why)."""
    found = {}
    for path in paths:
        try:
            raw = fileio.read_bytes(path)
            found[path] = raw, gamefile.parse(raw, str(path))
        except RefereeError:
            continue
    return found


def duplicate_ids(games: Sequence[tuple[Path, gamefile.GameFile]]
                  ) -> tuple[dict[Path, identity.Copy], dict[Path, str]]:
    """(the copies among ``games``, whose game's views stand for them; the other files
    that are the same game as another one (the same header, rng commitment or game id:
    :mod:`referee.ledger.identity`, as `pending` and `site` find them), each with the
    message saying so: a copy of a game with a forged header must not be served beside
    the real one)."""
    by_name = {str(path): (path, gf) for path, gf in games}

    def held(file: str) -> identity.Held:
        path, gf = by_name[file]
        return identity.held_of(file, gf, (_mtime(path),))

    copies, twins = identity.sort_copies(identity.duplicates(list(games)), held,
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
