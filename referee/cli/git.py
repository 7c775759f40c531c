"""Games in a git repository: encrypted private views, and git's diff and merge drivers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee import agebox, gamefile, gitdrivers, history, identity, replay, secret, viewsign
from referee.cli.common import command, emit_json, read_bytes, secret_option
from referee.errors import RefereeError, UsageError
from referee.statusview import load, status_json, status_text

SIGNERS_IN_REPO = Path(history.SIGNERS)  # the file `check --signed` verifies commits with

# --- views ------------------------------------------------------------------------------


def repo_root(path: Path) -> Path | None:
    """The root of the git work tree holding ``path`` (None outside one, or no git)."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                             cwd=path.resolve().parent, capture_output=True, check=False)
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
    top = repo_root(path)
    if top is not None:
        try:
            return path.resolve().relative_to(top.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def _views_lines(path: Path, report: agebox.ViewsReport, out: Path) -> list[str]:
    lines = []
    for player in report.written:
        mark = " (the file there was not the referee's)" if player in report.replaced else ""
        lines.append(f"  {player}: {report.files[player]} written{mark}")
    for player in report.unchanged:
        lines.append(f"  {player}: {report.files[player]} unchanged")
    state = "written" if report.public_written else "unchanged"
    lines.append(f"  public: {report.files['public']} {state}")
    lines.append(f"views of {path.name} are in {out}")
    return lines


def _warnings(path: Path, report: agebox.ViewsReport, signers: agebox.Signers,
              signers_path: Path) -> list[str]:
    lines = []
    for player in report.no_key:
        lines.append(f"warning: {player} has no ssh-ed25519 or ssh-rsa key in "
                     f"{signers_path}: {player}'s view of {path.name} was not written")
        if player in signers.unusable:
            lines.append("  (the key there is of a type age cannot encrypt to)")
        if player in report.removed:
            lines.append(f"  (the old {path.stem}.{player}.age was removed)")
    return lines


def write_game_views(path: Path, out: Path, secret_path: Path | None,
                     signers: agebox.Signers) -> agebox.ViewsReport:
    """Replay the game at ``path`` with its secret and write its views into ``out``,
    each signed with the game's referee key. Raises RefereeError."""
    gf, match = load(path, secret_path)
    seed = secret.find_seed(gf, secret_path, path)
    assert seed is not None  # load() replayed, so the seed is known
    problem = viewsign.header_key_problem(gf, seed)
    if problem:
        raise viewsign.ViewError(problem)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {out}: {exc.strerror}") from None
    name, rel = path.name, repo_name(path)
    plaintexts = {
        p: viewsign.document(gf, seed, rel, p, status_text(gf, match, p, name),
                             status_json(gf, match, p))
        for p in gf.players
    }
    public = status_text(gf, match, None, name) + "\n"
    return agebox.write_views(out, path.stem, gf.game_id, agebox.views_key(seed),
                              plaintexts, public, signers)


def duplicate_ids(paths: Sequence[Path]) -> dict[Path, str]:
    """The files among ``paths`` that are the same game as another one (the same header,
    rng commitment or game id: :mod:`referee.identity`, as `pending` and `site` find
    them), each with the message saying so (a copy of a game with a forged header must
    not be served beside the real one). Unreadable files are left to the caller."""
    games = []
    for path in paths:
        try:
            games.append((path, gamefile.read(path)))
        except RefereeError:
            continue
    copies = identity.duplicated_files(identity.duplicates(games))
    return {Path(f): f"{d.message}: no views are written for either"
            for f, d in copies.items()}


def _targets(paths: Sequence[Path], out_dir: Path | None) -> list[tuple[Path, Path]]:
    """(game, folder of its views) per game. Raises UsageError when two games' views
    would have the same names."""
    targets = [(p, out_dir or p.parent) for p in paths]
    seen: dict[tuple[Path, str], Path] = {}
    for path, out in targets:
        key = (out.resolve(), path.stem)
        if key in seen and seen[key].resolve() != path.resolve():
            raise UsageError(f"{seen[key]} and {path} would write the same view files in "
                             f"{out}", hints=["give them different names or run views "
                                              "once per game with its own --out"])
        seen[key] = path
    return targets


@command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(path_type=Path))
@click.option("--signers", "signers_path", type=click.Path(path_type=Path), metavar="PATH",
              help="The allowed-signers file with the players' SSH keys (default: "
                   ".referee/allowed_signers at the repository root).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), metavar="DIR",
              help="Where to write the views (default: beside each FILE).")
@secret_option
@click.option("--require-all", is_flag=True,
              help="Exit 1 when a player has no key (the others' views are still written).")
def views(paths: Sequence[Path], signers_path: Path | None, out_dir: Path | None,
          secret_path: Path | None, require_all: bool, as_json: bool) -> None:
    """For CI with the secret: write each player's private view, signed with the game's
    referee key and encrypted to their SSH keys (FILE-stem.PLAYER.age), and the public
    view in clear (FILE-stem.public.txt).

    A file is rewritten only when its content changed or it is not the file this
    command wrote (FILE-stem.views.json keeps keyed hashes of each view and file).
    Players read and verify theirs with `referee view`. A game that fails (two files
    with one game id included) is reported and the others' views are still written.
    """
    targets = _targets(paths, out_dir)
    signers_path = signers_path or default_signers(paths[0])
    signers = agebox.read_signers(signers_path)
    results: list[dict[str, Any]] = []
    code, missing = 0, False
    twins = duplicate_ids(paths)
    for path, out in targets:
        try:
            if path in twins:
                raise viewsign.ViewError(twins[path], hints=[
                    "one game, one file: remove the copy (`check --since` tells which is "
                    "new)"])
            report = write_game_views(path, out, secret_path, signers)
        except RefereeError as exc:
            code = max(code, exc.exit_code)
            results.append({"file": str(path), "error": exc.message, "hints": exc.hints})
            if not as_json:
                click.echo(f"error: {path}: {exc.message}", err=True)
                for hint in exc.hints:
                    click.echo(f"  {hint}", err=True)
            continue
        missing = missing or bool(report.no_key)
        results.append({"file": str(path), "out": str(out), "signers": str(signers_path),
                        **report.__dict__})
        if not as_json:
            for line in _views_lines(path, report, out):
                click.echo(line)
        for line in _warnings(path, report, signers, signers_path):
            click.echo(line, err=True)
    if as_json:
        emit_json(results)
    if missing and require_all:
        code = max(code, 1)
    if code:
        sys.exit(code)


@command(json_help="Output the view as `referee status --as YOU --json` would.")
@click.argument("path", metavar="FILE.age", type=click.Path(path_type=Path))
@click.option("--identity", "-i", type=click.Path(path_type=Path), metavar="KEY",
              help="Your SSH private key (default: ~/.ssh/id_ed25519, then ~/.ssh/id_rsa).")
@click.option("--game", "game_path", type=click.Path(path_type=Path), metavar="FILE",
              help="The game file the view is of: its header holds the referee key the view "
                   "is verified with (default: the file the view names, beside the view or "
                   "in the repository).")
@click.option("--as", "player", metavar="PLAYER",
              help="Whose view it must be (default: PLAYER in the name STEM.PLAYER.age).")
def view(path: Path, identity: Path | None, game_path: Path | None, player: str | None,
         as_json: bool) -> None:
    """Decrypt, verify and show your private view written by `referee views`.

    The view must be signed by the referee key in the game file's header, be yours, be
    of that game and not be older than the game file; otherwise it is refused."""
    expected, stem = expected_of(path, player)
    doc = agebox.open_view(path, agebox.find_identity(identity))
    note = verify_view(doc, path, game_path, expected, stem)
    if as_json:
        emit_json(doc["status"])
    else:
        click.echo(doc["text"])
    if note:
        click.echo(note, err=True)


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
        raise viewsign.ViewError(f"{path} is of move {doc['moves']}, but {game} has only "
                                 f"{len(gf.log)} entries: pull, then view it again")
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


# --- git drivers ------------------------------------------------------------------------


@command("git-textconv", json_help=None)
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
def git_textconv(path: Path) -> None:
    """Git's diff driver: FILE as text, one line per move in notation.

    Set up with `git config diff.referee.textconv "referee git-textconv"` and the line
    `*.json diff=referee` in .gitattributes. Needs no secret and replays nothing.
    """
    click.echo(gitdrivers.textconv(read_bytes(path), str(path)), nl=False)


@command("git-merge", json_help=None)
@click.argument("base", metavar="BASE", type=click.Path(path_type=Path))
@click.argument("ours", metavar="OURS", type=click.Path(path_type=Path))
@click.argument("theirs", metavar="THEIRS", type=click.Path(path_type=Path))
@click.argument("name", metavar="NAME", required=False)
@click.option("--accept-drop", is_flag=True,
              help="Exit 0 even when the other side's moves were dropped (unattended "
                   "merges); by default git then stops so that somebody looks.")
def git_merge(base: Path, ours: Path, theirs: Path, name: str | None,
              accept_drop: bool) -> None:
    """Git's merge driver for game files (%O %A %B %P).

    When both sides appended moves, the target branch's are kept (ours, or theirs when
    the target branch is merged into a player's branch), the other side's are dropped
    and their authors told to move again. Exit 0: merged, nothing
    dropped; exit 1: moves were dropped (the file holds the merged game: `git add` it)
    or the versions differ otherwise (the file keeps our version; resolve by hand).
    """
    name = name or str(ours)
    raws = [read_bytes(p) for p in (base, ours, theirs)]
    try:
        mine = gitdrivers.parse_version(raws[1], f"{name} (ours)")
        other = gitdrivers.parse_version(raws[2], f"{name} (theirs)")
        common = gitdrivers.parse_base(raws[0], f"{name} (common ancestor)")
        result = gitdrivers.merge(common, mine, other, gitdrivers.target_side())
    except gitdrivers.MergeConflict as exc:
        click.echo(f"referee git-merge: {name}: not merged: {exc.message}", err=True)
        click.echo(f"  the file keeps this branch's version; the other side's is "
                   f"`git show MERGE_HEAD:{name}` (or `git checkout --theirs {name}`)",
                   err=True)
        sys.exit(1)
    # A result equal to one side keeps that side's bytes, so that the merge commit
    # writes the file exactly as one of its parents does.
    if result.data == other.data and result.data != mine.data:
        agebox.write_atomic(ours, raws[2])
    elif result.data != mine.data:
        agebox.write_atomic(ours, gamefile.dumps(result.data).encode())
    if not result.dropped:
        return
    for line in gitdrivers.dropped_report(result, name):
        click.echo(line, err=True)
    if not accept_drop:
        click.echo(f"The file holds the merged game: check it, `git add {name}` and go on "
                   "with the merge or rebase.", err=True)
        sys.exit(1)
