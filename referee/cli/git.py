"""Games in a git repository: encrypted private views (the library's
:mod:`referee.git.views`, a view opened verified by :mod:`referee.git.viewcheck`), and
git's diff and merge drivers."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee.cli.common import PATH, command, emit_json, read_bytes, secret_option
from referee.git import drivers as gitdrivers
from referee.git.places import default_signers, stem
from referee.git.viewcheck import expected_of, verify_view
from referee.git.views import write_all_views
from referee.trust import agebox

# --- views ------------------------------------------------------------------------------


def _views_lines(name: str, report: agebox.ViewsReport, out: Path) -> list[str]:
    lines = []
    for player in report.written:
        mark = " (the file there was not the referee's)" if player in report.replaced else ""
        lines.append(f"  {player}: {report.files[player]} written{mark}")
    for player in report.unchanged:
        lines.append(f"  {player}: {report.files[player]} unchanged")
    state = "written" if report.public_written else "unchanged"
    lines.append(f"  public: {report.files['public']} {state}")
    lines.append(f"views of {name} are in {out}")
    return lines


def _warnings(name: str, report: agebox.ViewsReport, signers: agebox.Signers,
              signers_path: Path) -> list[str]:
    lines = []
    for player in report.no_key:
        lines.append(f"warning: {player} has no ssh-ed25519 or ssh-rsa key in "
                     f"{signers_path}: {player}'s view of {name} was not written")
        if player in signers.unusable:
            lines.append("  (the key there is of a type age cannot encrypt to)")
        if player in report.removed:
            lines.append(f"  (the old {stem(name)}.{player}.age was removed)")
    return lines


def _as_path(file: str) -> str:
    """``file`` as a Path would name it ("./g.json" is "g.json"), without making one
    unless it must (10,000 Path objects were a tenth of a run after one move)."""
    if file in (".", "") or file.startswith("./") or file.endswith("/") or "//" in file \
            or "/./" in file or file.endswith("/."):
        return str(Path(file))
    return file


@command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...")  # (str: 10,000 of them)
@click.option("--signers", "signers_path", type=PATH, metavar="PATH",
              help="The allowed-signers file with the players' SSH keys (default: "
                   ".referee/allowed_signers at the repository root).")
@click.option("--out", "out_dir", type=PATH, metavar="DIR",
              help="Where to write the views (default: beside each FILE).")
@secret_option
@click.option("--require-all", is_flag=True,
              help="Exit 1 when a player has no key (the others' views are still written).")
@click.option("--full", is_flag=True,
              help="Look at the bytes of every game file and every file of views (as a run "
                   "without the cache does), not only at their stats: a file changed in "
                   "place is then seen and written again.")
def views(paths: Sequence[str], signers_path: Path | None, out_dir: Path | None,
          secret_path: Path | None, require_all: bool, full: bool, as_json: bool) -> None:
    """For CI with the secret: write each player's private view, signed with the game's
    referee key and encrypted to their SSH keys (FILE-stem.PLAYER.age), and the public
    view in clear (FILE-stem.public.txt).

    A file is rewritten only when its content changed or it is not the file this
    command wrote (FILE-stem.views.json keeps keyed hashes of each view and file).
    Players read and verify theirs with `referee view`. A game that fails (two files
    with one game id included) is reported and the others' views are still written.
    """
    paths = [_as_path(p) for p in paths]
    signers_path = signers_path or default_signers(Path(paths[0]))
    signers, done = write_all_views(paths, signers_path, out_dir, secret_path, full)
    results: list[dict[str, Any]] = []
    code, missing = 0, False
    # (stdout's lines, then stderr's, each written at once: 10,000 games print 50,000
    # lines, and a flush a line was a tenth of a run after one move)
    shown: list[str] = []
    warned: list[str] = []
    for game in done:
        file, report, exc = game.file, game.report, game.error
        if game.copy is not None:
            results.append({"file": file, **game.copy.to_json()})
            shown.append(f"{game.copy.message}: its views are those of {game.copy.of}")
        elif exc is not None or report is None:
            assert exc is not None
            code = max(code, exc.exit_code)
            results.append({"file": file, "error": exc.message, "hints": exc.hints})
            if not as_json:
                warned += [f"error: {file}: {exc.message}", *(f"  {h}" for h in exc.hints)]
        else:
            name = file.rpartition("/")[2]
            if as_json:
                results.append({"file": file, "out": str(game.out),
                                "signers": str(signers_path), **report.__dict__})
            else:
                shown += _views_lines(name, report, game.out)
            if report.no_key:
                missing = True
                warned += _warnings(name, report, signers, signers_path)
    if as_json:
        emit_json(results)
    elif shown:
        click.echo("\n".join(shown))
    if warned:
        click.echo("\n".join(warned), err=True)
    if missing and require_all:
        code = max(code, 1)
    if code:
        sys.exit(code)


@command(json_help="Output the view as `referee status --as YOU --json` would.")
@click.argument("path", metavar="FILE.age", type=PATH)
@click.option("--identity", "-i", type=PATH, metavar="KEY",
              help="Your SSH private key (default: ~/.ssh/id_ed25519, then ~/.ssh/id_rsa).")
@click.option("--game", "game_path", type=PATH, metavar="FILE",
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


# --- git drivers ------------------------------------------------------------------------


@command("git-textconv", json_help=None)
@click.argument("path", metavar="FILE", type=PATH)
def git_textconv(path: Path) -> None:
    """Git's diff driver: FILE as text, one line per move in notation.

    Set up with `git config diff.referee.textconv "referee git-textconv"` and the line
    `*.json diff=referee` in .gitattributes. Needs no secret and replays nothing.
    """
    click.echo(gitdrivers.textconv(read_bytes(path), str(path)), nl=False)


@command("git-merge", json_help=None)
@click.argument("base", metavar="BASE", type=PATH)
@click.argument("ours", metavar="OURS", type=PATH)
@click.argument("theirs", metavar="THEIRS", type=PATH)
@click.argument("name", metavar="NAME", required=False)
@click.option("--accept-drop", is_flag=True,
              help="Exit 0 even when the other side's moves were dropped (unattended "
                   "merges); by default git then stops so that somebody looks.")
def git_merge(base: Path, ours: Path, theirs: Path, name: str | None,
              accept_drop: bool) -> None:
    """Git's merge driver for game files (%O %A %B %P).

    When both sides appended moves, the target branch's are kept (ours, or theirs when
    the target branch is merged into a player's branch), the other side's are dropped
    and their authors told what stands and whether it is their turn. Exit 0: merged,
    nothing dropped; exit 1: moves were dropped (the file holds the merged game: `git
    add` it) or the versions differ otherwise (the file keeps our version; resolve by
    hand).
    """
    name = name or str(ours)
    raws = [read_bytes(p) for p in (base, ours, theirs)]
    try:
        result, merged = gitdrivers.merge_files(raws[0], raws[1], raws[2], name)
    except gitdrivers.MergeConflict as exc:
        click.echo(f"referee git-merge: {name}: not merged: {exc.message}", err=True)
        click.echo(f"  the file keeps this branch's version; the other side's is "
                   f"`git show MERGE_HEAD:{name}` (or `git checkout --theirs {name}`)",
                   err=True)
        sys.exit(1)
    if merged is not None:
        agebox.write_atomic(ours, merged)
    if not result.dropped:
        return
    for line in gitdrivers.dropped_report(result, name):
        click.echo(line, err=True)
    if not accept_drop:
        click.echo(f"The file holds the merged game: check it, `git add {name}` and go on "
                   "with the merge or rebase.", err=True)
        sys.exit(1)
