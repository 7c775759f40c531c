"""For CI and game masters: check and pending."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee import fileio, gamefile, history, secret
from referee.cli import cache, main
from referee.cli.common import (
    emit_json,
    handles_errors,
    internal_error,
    prompt_line,
    secret_option,
)
from referee.engine import Match
from referee.errors import RefereeError, UsageError

# --- check ----------------------------------------------------------------------------


def check_one(path: Path, secret_path: Path | None, since: str | None,
              by: str | None, strict: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"file": str(path), "ok": False, "verified": "nothing"}
    try:
        gf = gamefile.read(path)
        if strict:
            gamefile.validate_strict(gf.data, str(path))
        out["game"] = gf.game.name
        if since is not None:
            out["new_moves"] = history.check_since(path, gf, since, by)
        seed = secret.find_seed(gf, secret_path, path)
        if seed is None:
            gamefile.check_structure(gf)
            out.update(ok=True, verified="structure", players=len(gf.players),
                       moves=len(gf.log), unverified=[
                           "sealed game without its secret: the legality of each move, the "
                           "state and the scores were not checked (give --secret, or "
                           "`referee reveal` after the game)"])
            return out
        match = gamefile.replay(gf, seed)
    except RefereeError as exc:
        out.update(error=exc.message, hints=exc.hints)
        return out
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update(error=err.message, hints=err.hints)
        return out
    try:
        return _summary(out, gf, match)
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update(ok=False, error=err.message, hints=err.hints)
        return out


def _summary(out: dict[str, Any], gf: gamefile.GameFile, match: Match) -> dict[str, Any]:
    game = match.game
    broken = game.invariants(match.state)
    if broken:
        out.update(error="invariant broken: " + "; ".join(broken), hints=[])
        return out
    finished = game.finished(match.state)
    out.update(
        ok=True, verified="full", players=len(gf.players), moves=len(gf.log),
        finished=finished, scores=game.scores(match.state),
        to_move=gamefile.waiting(gf, match),
    )
    return out


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
    return [f"ok   {r['file']}: {r['game']}, {r['players']} players, {r['moves']} moves"
            f"{extra}, {state}; scores {scores}"]


PARALLEL_MIN_FILES = 4


def check_all(paths: Sequence[Path], secret_path: Path | None, since: str | None,
              by: str | None, strict: bool) -> list[dict[str, Any]]:
    """check_one for every file, in order; on several cores, in parallel worker processes
    (each file is checked on its own, so the results are the same)."""
    one = functools.partial(check_one, secret_path=secret_path, since=since, by=by,
                            strict=strict)
    workers = min(len(os.sched_getaffinity(0)), len(paths))
    if workers < 2 or len(paths) < PARALLEL_MIN_FILES:
        return [one(p) for p in paths]
    import multiprocessing  # (imported here: most commands never need them)
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            return list(pool.map(one, paths, chunksize=max(1, len(paths) // (workers * 4))))
    except (OSError, BrokenProcessPool):  # no processes to be had: check them here
        return [one(p) for p in paths]


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(path_type=Path))
@secret_option
@click.option("--since", metavar="REV",
              help="For pull requests: the header is unchanged since git revision REV, the "
                   "old log is a prefix of the new one, and every new move is legal.")
@click.option("--by", metavar="PLAYER", help="With --since: every new move is PLAYER's.")
@click.option("--strict", is_flag=True,
              help="Also validate against the published JSON Schema with jsonschema.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def check(paths: Sequence[Path], secret_path: Path | None, since: str | None, by: str | None,
          strict: bool, as_json: bool) -> None:
    """Validate and replay game files; exit 0 only if every one is a legal game."""
    if by is not None and since is None:
        raise UsageError("--by needs --since")
    results = check_all(paths, secret_path, since, by, strict)
    if as_json:
        emit_json(results)
    else:
        for r in results:
            for line in check_line(r):
                click.echo(line)
    if not all(r["ok"] for r in results):
        sys.exit(1)



# --- pending --------------------------------------------------------------------------


def game_files(targets: Sequence[Path]) -> list[Path]:
    """The files named, and every ``*.json`` under the folders named (sorted; symlinked
    folders and ``.git`` are not entered)."""
    files: list[Path] = []
    for target in targets:
        if not target.is_dir():
            files.append(target)
            continue
        for folder, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if d != ".git")
            files += [Path(folder, n) for n in sorted(names) if n.endswith(".json")]
    return files


def pending_row(path: Path) -> dict[str, Any]:
    """What ``pending`` says of one file: whose turn since when, or why it cannot say.
    Rows of files already seen byte for byte come from the cache (referee.cli.cache)."""
    try:
        raw = fileio.read_bytes(path)
        row = cache.lookup(raw)
        if row is None:
            row = _pending_state(raw, path)
            cache.store(raw, row)
    except RefereeError as exc:
        return {"file": str(path), "error": exc.message}
    except Exception as exc:  # a bug: report it for this file and carry on
        return {"file": str(path), "error": internal_error(exc, str(path)).message}
    return {"file": str(path), **row}


def _pending_state(raw: bytes, path: Path) -> dict[str, Any]:
    gf = gamefile.parse(raw, str(path))
    match = gamefile.replay(gf, secret.find_seed(gf, None, path))
    game = match.game
    return {"game": game.name, "id": gf.game_id, "finished": game.finished(match.state),
            "since": gf.log[-1].get("at") if gf.log else gf.data.get("created"),
            "waiting": gamefile.waiting(gf, match), "prompt": prompt_line(gf, match)}


@main.command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE_OR_DIR...",
                type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def pending(targets: Sequence[Path], as_json: bool) -> None:
    """For a game master: which games wait on whom, and since when.

    Sealed games are read with FILE.secret beside them (or REFEREE_SECRET_FILE).
    """
    rows = [pending_row(path) for path in game_files(targets)]
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        if "error" in row:
            click.echo(f"{row['file']}: cannot read: {row['error']}")
        elif row["finished"]:
            click.echo(f"{row['file']}: finished")
        else:
            click.echo(f"{row['file']}: waiting for {', '.join(row['waiting'])} "
                       f"since {row['since']}: {row['prompt']}")
    if any("error" in row for row in rows):
        sys.exit(1)


