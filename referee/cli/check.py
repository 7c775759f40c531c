"""For CI and game masters: check (referee/checking.py) and pending."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee import fileio, gamefile, history, identity, replay, seats, secret
from referee.checking import check_all, check_change, check_clocks_needed
from referee.cli import cache
from referee.cli.common import (
    command,
    emit_json,
    internal_error,
    prompt_line,
    secret_option,
)
from referee.errors import RefereeError, UsageError

# --- check ----------------------------------------------------------------------------


def require_secret_env() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def check_line(r: dict[str, Any]) -> list[str]:
    if not r["ok"]:
        return [f"FAIL {r['file']}: {r['error']}"] + [f"       {h}" for h in r["hints"]]
    extra = f" ({r['new_moves']} new moves)" if "new_moves" in r else ""
    if r["verified"] == "structure":
        return [f"ok?  {r['file']}: {r['game']}, {r['players']} players, {r['moves']} moves"
                f"{extra}; structure and hash chain only", *(f"       not verified: {u}"
                                                              for u in r["unverified"])]
    state = "finished" if r["finished"] else f"waiting for {', '.join(r['to_move'])}"
    scores = ", ".join(f"{p} {s}" for p, s in r["scores"].items())
    lines = [f"ok   {r['file']}: {r['game']}, {r['players']} players, {r['moves']} moves"
             f"{extra}, {state}; scores {scores}"]
    if "bot_moves_verified" in r:
        lines.append(f"       {r['bot_moves_verified']} bot-seat moves replayed: each is its "
                     f"bot's move ({r['bot_seconds']:.1f} s)")
    if "bot_moves_replayed" in r:
        lines.append(f"       replayed {r['bot_moves_replayed']} bot moves in "
                     f"{r['bot_seconds']:.1f} s ({r['bot_cpu_seconds']:.1f} s of CPU): each is "
                     "its bot's move")
    if r.get("unvouched"):
        lines.append(f"       {r['unvouched']} entries at the end were appended without the "
                     "referee (unchecked); checked now, not yet vouched for by its MAC")
    return lines


@command()
@click.argument("paths", nargs=-1, metavar="[FILE]...", type=click.Path(path_type=Path))
@secret_option
@click.option("--since", metavar="REV",
              help="Check the change since git revision REV as a whole: every game file at "
                   "REV still exists with its header unchanged and its old log a prefix of "
                   "the new one; new files are valid new games; every new move is legal. "
                   "Without FILEs: every game file in the repository.")
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
@click.option("--require-secret", is_flag=True,
              help="Fail on a sealed game whose secret is missing (the default when "
                   "CI=true).")
@click.option("--vouched", is_flag=True,
              help="Sealed games: fail unless every entry carries the referee's MAC (for "
                   "games refereed with the secret, by mail or by a game master).")
@click.option("--strict", is_flag=True,
              help="Also validate against the published JSON Schema with jsonschema.")
@click.option("--bots", is_flag=True,
              help="Replay every move of a bot seat in the whole game and require it to be "
                   "exactly its bot's move (--since does this for the new moves).")
def check(paths: Sequence[Path], secret_path: Path | None, since: str | None, by: str | None,
          github: str | None, signed: bool, signers: str, require_secret: bool,
          vouched: bool, strict: bool, bots: bool, as_json: bool) -> None:
    """Validate and replay game files; exit 0 only if every one is a legal game."""
    if (by or github or signed) and since is None:
        raise UsageError("--by, --by-github and --signed need --since")
    if by and github:
        raise UsageError("give --by or --by-github, not both")
    if not paths and since is None:
        raise UsageError("check needs FILEs, or --since REV to check a whole change")
    options: dict[str, Any] = {
        "secret_path": secret_path, "strict": strict, "vouched": vouched, "bots": bots,
        "need_secret": require_secret or require_secret_env()}
    if since is None:
        results = check_all(list(paths), since=None, **options)
    else:
        results = check_change(since, paths, by=by, github=github, signed=signed,
                               signers=signers, **options)
    if as_json:
        emit_json(results)
    else:
        for r in results:
            for line in check_line(r):
                click.echo(line)
        if not results:
            click.echo("no game files to check")
    if not all(r["ok"] for r in results):
        sys.exit(1)


# --- pending --------------------------------------------------------------------------


def game_files(targets: Sequence[Path]) -> list[Path]:
    """The files named, and every ``*.json`` under the folders named (sorted; symlinked
    folders are not entered). Under a folder, names that start with ``.`` are no game
    files: the judge's own state, caches and quarantine, ``.git`` (as the judge serves
    only ``[!.]*.json``; ``check --since`` still looks at every file git tracks)."""
    files: list[Path] = []
    for target in targets:
        if not target.is_dir():
            files.append(target)
            continue
        for folder, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            files += [Path(folder, n) for n in sorted(names)
                      if n.endswith(".json") and not n.startswith(".")]
    return files


def pending_row(path: Path) -> dict[str, Any]:
    """What ``pending`` says of one file: whose turn since when, or why it cannot say.
    Rows of files already seen byte for byte come from the cache (referee.cli.cache)."""
    raw: bytes | None = None
    try:
        raw = fileio.read_bytes(path)
        row = cache.lookup(raw)
        if row is None:
            row = _pending_state(raw, path)
            cache.store(raw, row)
    except RefereeError as exc:
        return {"file": str(path), "error": exc.message, **_identity_of(raw)}
    except Exception as exc:  # a bug: report it for this file and carry on
        return {"file": str(path), "error": internal_error(exc, str(path)).message}
    return {"file": str(path), **row}


def _identity_of(raw: bytes | None) -> dict[str, Any]:
    """The identity of a file that could not be replayed (it may still copy a game)."""
    header = history.parse_header(raw)
    return {} if header is None else {"id": identity.game_id(header),
                                      "identity": identity.keys(header)}


def _pending_state(raw: bytes, path: Path) -> dict[str, Any]:
    gf = gamefile.parse(raw, str(path))
    seed = secret.find_seed(gf, None, path)
    match = replay.replay(gf, seed)
    game = match.game
    waiting = gamefile.waiting(gf, match)
    bots = seats.seats_at(gf.data).bots
    row = {"game": game.name, "id": gf.game_id, "identity": identity.keys(gf),
           "finished": game.finished(match.state),
           "since": gf.log[-1].get("at") if gf.log else gf.data.get("created"),
           "waiting": waiting, "prompt": prompt_line(gf, match),
           "bots": [p for p in waiting if p in bots]}
    times = times_out(gf, seed)
    if times:
        row["times_out"] = times
    return row


def times_out(gf: gamefile.GameFile, seed: str | None) -> dict[str, str]:
    """When each awaited seat of a game with a clock times out, as the referee last saw
    the game (it depends only on the file, so `pending`'s cache may keep it)."""
    if seed is None or not check_clocks_needed(gf):
        return {}
    from referee import clock, clockview

    try:
        tl = clock.timeline(gf, seed)
        rep = clockview.report(tl, clock.verify(gf, tl).at)
    except RefereeError:
        return {}
    return {p: row["times_out"] for p, row in rep["seats"].items() if "times_out" in row}


def mark_copies(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of files that are the same game as another file (a copy: the same header,
    commitment or id) become errors naming both files: neither is served."""
    keyed = [(row["file"], row["identity"], str(row.get("id", "?")))
             for row in rows if "identity" in row]
    copies = identity.duplicated_files(identity.duplicates_of_keys(keyed))
    out = []
    for row in rows:
        row = {k: v for k, v in row.items() if k != "identity" and ("error" not in row
                                                                   or k != "id")}
        if row["file"] in copies:
            row = {"file": row["file"], "error": copies[row["file"]].message}
        out.append(row)
    return out


@command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE_OR_DIR...",
                type=click.Path(path_type=Path))
def pending(targets: Sequence[Path], as_json: bool) -> None:
    """For a game master: which games wait on whom, and since when.

    Sealed games are read with FILE.secret beside them (or REFEREE_SECRET_FILE, or
    the repository secret in REFEREE_SECRET). Two files of one game (a copy: the same
    header, rng commitment or game id) are both reported, not shown.
    """
    with cache.session():  # the cache's index: read once, written once
        rows = mark_copies([pending_row(path) for path in game_files(targets)])
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        if "error" in row:
            click.echo(f"{row['file']}: cannot read: {row['error']}")
        elif row["finished"]:
            click.echo(f"{row['file']}: finished")
        else:
            bots = row.get("bots", [])
            who = ", ".join(f"{p} (bot)" if p in bots else p for p in row["waiting"])
            click.echo(f"{row['file']}: waiting for {who} since {row['since']}: "
                       f"{row['prompt']}")
            for pid, when in row.get("times_out", {}).items():
                click.echo(f"       clock: {pid} times out {when}")
            if bots:
                click.echo(f"       a bot seat owes a decision: `referee bot {row['file']}` "
                           "(with the game's secret) plays it")
    if any("error" in row for row in rows):
        sys.exit(1)


