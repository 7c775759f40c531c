"""For CI: `check` (referee/reports/checking.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee.cli.common import PATH, command, count, emit_json, secret_option
from referee.errors import UsageError
from referee.git import history
from referee.reports.checking import (
    CheckResult,
    change_root,
    check_all,
    check_change,
    resolve_base,
)
from referee.reports.folders import game_files

# --- check ----------------------------------------------------------------------------


def require_secret_env() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def check_line(r: CheckResult) -> list[str]:
    if not r["ok"]:
        return [f"FAIL {r['file']}: {r['error']}"] + [f"       {h}" for h in r["hints"]]
    extra = f" ({count(r['new_moves'], 'new move', 'new moves')})" if "new_moves" in r else ""
    size = f"{count(r['players'], 'player', 'players')}, {count(r['moves'], 'move', 'moves')}"
    if r["verified"] == "structure":
        return [f"ok?  {r['file']}: {r['game']}, {size}{extra}; structure and hash chain only",
                *(f"       not verified: {u}" for u in r["unverified"])]
    state = "finished" if r["finished"] else f"waiting for {', '.join(r['to_move'])}"
    scores = ", ".join(f"{p} {s}" for p, s in r["scores"].items())
    lines = [f"ok   {r['file']}: {r['game']}, {size}{extra}, {state}; scores {scores}"]
    if "bot_moves_verified" in r:
        moves = count(r["bot_moves_verified"], "bot-seat move", "bot-seat moves")
        lines.append(f"       {moves} replayed: each is its bot's move "
                     f"({r['bot_seconds']:.1f} s)")
    if "bot_moves_replayed" in r:
        moves = count(r["bot_moves_replayed"], "bot move", "bot moves")
        lines.append(f"       replayed {moves} in "
                     f"{r['bot_seconds']:.1f} s ({r['bot_cpu_seconds']:.1f} s of CPU): each is "
                     "its bot's move")
    if r.get("unvouched"):
        lines.append(f"       {count(r['unvouched'], 'entry', 'entries')} at the end "
                     + ("was" if r["unvouched"] == 1 else "were") + " appended without the "
                     "referee (unchecked); checked now, not yet vouched for by its MAC")
    return lines


@command()
@click.argument("paths", nargs=-1, metavar="[FILE_OR_DIR]...", type=PATH)
@secret_option
@click.option("--since", metavar="REV",
              help="Check the change since git revision REV as a whole: every game file at "
                   "REV still exists with its header unchanged and its old log a prefix of "
                   "the new one; new files are valid new games; every new move is legal. "
                   "Without FILEs: every game file changed since REV (as git reports it; "
                   "one git cannot vouch for counts as changed). REV must be an "
                   "ancestor of HEAD; an empty or all-zero REV (GitHub's `before` when a "
                   "push creates a branch) means HEAD's first parent.")
@click.option("--by", metavar="PLAYER", help="With --since: every new entry is PLAYER's.")
@click.option("--by-github", "github", metavar="LOGIN",
              help="With --since: every new entry is by the player whose `github` login is "
                   "LOGIN (the pull request's author).")
@click.option("--signed", is_flag=True,
              help="With --since: every commit since REV that changes a game is signed by a "
                   "player's SSH key listed in the allowed-signers file at REV, and adds "
                   "only its signer's entries.")
@click.option("--signers", default=history.SIGNERS, show_default=True, metavar="PATH",
              help="The allowed-signers file, a path in the repository: --since checks every "
                   "change to it, --signed verifies commits with it as it is at REV.")
@click.option("--require-secret/--no-require-secret", default=None,
              help="Fail on a sealed game whose secret is missing (the default when "
                   "CI=true), or check without it what can be checked and list what was "
                   "not (a pull request's job, which must not hold the secret).")
@click.option("--vouched", is_flag=True,
              help="Sealed games: fail unless every entry carries the referee's MAC (for "
                   "games refereed with the secret, by mail or by a game master).")
@click.option("--strict", is_flag=True,
              help="Also validate against the published JSON Schema with jsonschema.")
@click.option("--bots", is_flag=True,
              help="Replay every move of a bot seat in the whole game and require it to be "
                   "exactly its bot's move (--since does this for the new moves).")
def check(paths: Sequence[Path], secret_path: Path | None, since: str | None, by: str | None,
          github: str | None, signed: bool, signers: str, require_secret: bool | None,
          vouched: bool, strict: bool, bots: bool, as_json: bool) -> None:
    """Validate and replay game files; exit 0 only if every one is a legal game.

    A folder stands for every game file in it and its subfolders (names that start with
    a dot left out, and any .json file that is no game file passed over)."""
    if (by or github or signed) and since is None:
        raise UsageError("--by, --by-github and --signed need --since")
    if by and github:
        raise UsageError("give --by or --by-github, not both")
    if not paths and since is None:
        raise UsageError("check needs FILEs, or --since REV to check a whole change")
    options: dict[str, Any] = {
        "secret_path": secret_path, "strict": strict, "vouched": vouched, "bots": bots,
        "need_secret": require_secret_env() if require_secret is None else require_secret}
    if since is None:
        results = check_all(game_files(paths), since=None, **options)
    else:
        base = resolve_base(since, change_root(paths))
        if base.note:
            click.echo(f"note: {base.note}", err=True)
        results = check_change(base, paths, by=by, github=github, signed=signed,
                               signers=signers, **options)
    if as_json:
        emit_json(results)
    else:
        for r in results:
            for line in check_line(r):
                click.echo(line)
        if not results:
            click.echo("no game files to check" if since is None else
                       f"no game file changed since {since}: nothing to check")
    if not all(r["ok"] for r in results):
        sys.exit(1)
