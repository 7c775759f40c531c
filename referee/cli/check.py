"""For CI and game masters: check and pending."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from referee import fileio, gamefile, history, identity, seats, secret
from referee.cli import cache, main
from referee.cli.common import (
    emit_json,
    handles_errors,
    internal_error,
    prompt_line,
    secret_option,
)
from referee.engine import Match
from referee.errors import RefereeError, ReplayError, SealedError, UsageError

# --- check ----------------------------------------------------------------------------


@dataclass
class Since:
    """A change being checked (``--since``): the repository and who may add entries."""

    repo: history.Repo
    label: str  # the revision as given
    by: str | None
    github: str | None
    copies: dict[str, str] = field(default_factory=dict)  # new file -> why it is a copy


def require_secret_env() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def check_one(path: Path, secret_path: Path | None, since: Since | None = None,
              strict: bool = False, need_secret: bool = False, vouched: bool = False,
              bots: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"file": str(path), "ok": False, "verified": "nothing"}
    try:
        gf = gamefile.read(path)
        if strict:
            gamefile.validate_strict(gf.data, str(path))
        out["game"] = gf.game.name
        if since is not None:
            refuse_copy(since, path)  # before the secret: a copy is never replayed
        seed = secret.find_seed(gf, secret_path, path)
        if since is not None:
            change = change_of(since, path, gf, seed)
            out["new_moves"] = change.new_entries
            if change.bot_moves:
                out["bot_moves_replayed"] = change.bot_moves
                out["bot_seconds"] = round(change.bot_seconds, 2)
                out["bot_cpu_seconds"] = round(change.bot_cpu_seconds, 2)
        if seed is None:
            if need_secret:
                raise SealedError(
                    "sealed game without its secret: in CI the secret is required, or "
                    "illegal moves would pass unseen",
                    hints=["set the repository secret REFEREE_SECRET for this workflow"])
            gamefile.check_structure(gf)
            out.update(ok=True, verified="structure", players=len(gf.players),
                       moves=len(gf.log), unverified=[
                           "sealed game without its secret: the legality of each move, the "
                           "state and the scores were not checked (give --secret, or "
                           "`referee reveal` after the game)"])
            return out
        match = gamefile.replay(gf, seed)
        clocks = check_clocks(gf, seed)
        if clocks is not None:
            out["clocks"] = clocks
        if bots:  # every bot-seat move of the game is its bot's (--since: the new ones)
            replayed = history.replay_bot_moves(gf, seed, 0, seats.RECORDED_MAX_ITERATIONS)
            out["bot_moves_verified"] = len(replayed.verified)
            out["bot_seconds"] = round(replayed.seconds, 2)
        unvouched = gamefile.unvouched(gf)
        if vouched and unvouched and "seed" not in gf.data["rng"]:
            raise ReplayError(
                f"entries {unvouched[0]}-{unvouched[-1]} carry no MAC of the referee: they "
                "were appended without the secret, or the MACs were stripped and the hash "
                "chain recomputed", hints=["every entry of a game refereed with its secret "
                                           "(by mail, by a game master) carries a MAC"])
    except RefereeError as exc:
        out.update(error=exc.message, hints=exc.hints)
        return out
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update(error=err.message, hints=err.hints)
        return out
    try:
        return out | full_result(gf, match)
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update(ok=False, error=err.message, hints=err.hints)
        return out


def check_clocks(gf: gamefile.GameFile, seed: str) -> dict[str, int] | None:
    """Every seat's bank recomputed from the log's vouched times (referee/clock.py), or
    None for a game without a clock. Raises ClockError for a timeout, vacation or clock
    record those times do not support."""
    from referee import clock

    if not check_clocks_needed(gf):
        return None
    tl = clock.timeline(gf, seed)
    found = clock.verify(gf, tl)
    return {pid: max(seat.bank, 0) for pid, seat in found.seats.items()}


def check_clocks_needed(gf: gamefile.GameFile) -> bool:
    """Whether the game has a clock, or a clock record (to be refused if it has none)."""
    kinds = ("clock", "stamp", "vacation", "timeout")  # referee.clock.CLOCK_KINDS
    return "clock" in gf.data or any(e.get("meta", {}).get("kind") in kinds for e in gf.log)


COPY_HINT = ("a new game is made with `referee new` (with an id of its own), never by "
             "copying a game file")


def refuse_copy(since: Since, path: Path) -> None:
    """A new game file that is the same game as another one (a copy) fails here, before
    anything is replayed. Raises ReplayError naming both files."""
    why = since.copies.get(history.rel_path(since.repo, path))
    if why is not None:
        raise ReplayError(why, hints=[COPY_HINT])


def change_of(since: Since, path: Path, gf: gamefile.GameFile, seed: str | None = None
              ) -> history.FileChange:
    """The change of ``path`` since the revision; ``seed`` (from --secret, the
    environment or the file) lets the new moves of bot seats be replayed."""
    repo = since.repo
    rel = history.rel_path(repo, path)
    old = repo.show(repo.rev, rel) if repo.rev is not None else None
    author = history.author_of(gf, since.by, since.github)
    return history.compare(rel, old, gf, since.label, author, seed=seed)


def full_result(gf: gamefile.GameFile, match: Match) -> dict[str, Any]:
    game = match.game
    broken = game.invariants(match.state)
    if broken:
        return {"error": "invariant broken: " + "; ".join(broken), "hints": []}
    finished = game.finished(match.state)
    return {
        "ok": True, "verified": "full", "players": len(gf.players), "moves": len(gf.log),
        "finished": finished, "scores": game.scores(match.state),
        "to_move": gamefile.waiting(gf, match), "unvouched": len(gamefile.unvouched(gf)),
    }


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


def change_failures(repo: history.Repo, label: str, must_exist: Sequence[str],
                    present: Sequence[str]) -> list[dict[str, Any]]:
    """Game files at the revision that are gone now (deleted or renamed)."""
    gone = [rel for rel in must_exist if rel not in present
            or not history.is_game_file(history.read_work_file(repo.root / rel))]
    return [{"file": rel, "ok": False, "verified": "nothing",
             "error": f"this game file existed at {label} and is gone or no longer a game "
                      "file: game files may not be deleted, renamed or emptied",
             "hints": ["restore it; a finished game stays in the repository"]}
            for rel in gone]


def copy_failures(copies: dict[str, str], checked: Sequence[str]) -> list[dict[str, Any]]:
    """New game files that copy another game and are not among the files checked (those
    fail in their own check)."""
    return [{"file": rel, "ok": False, "verified": "nothing", "error": why,
             "hints": [COPY_HINT]}
            for rel, why in sorted(copies.items()) if rel not in checked]


PARALLEL_MIN_FILES = 4


def check_all(paths: list[Path], **options: Any) -> list[dict[str, Any]]:
    """check_one for every file, in order; on several cores, in parallel worker processes
    (each file is checked on its own, so the results are the same)."""
    one: Callable[[Path], dict[str, Any]] = functools.partial(check_one, **options)
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
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
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
    need_secret = require_secret or require_secret_env()
    results: list[dict[str, Any]] = []
    if since is None:
        results = check_all(list(paths), secret_path=secret_path, since=None, strict=strict,
                            need_secret=need_secret, vouched=vouched, bots=bots)
    else:
        repo = history.open_repo(since, paths[0].resolve().parent if paths else Path.cwd())
        files = history.change_files(repo, paths)
        must_exist, rels = files.old, files.check
        results += change_failures(repo, since, must_exist, files.now)
        copies = {rel: d.message for rel, d in
                  history.new_game_clashes(repo, since, files).items()}
        results += copy_failures(copies, rels)
        ctx = Since(repo, since, by, github, copies)
        results += check_all([repo.root / rel for rel in rels
                              if (repo.root / rel).exists() or rel not in must_exist],
                             secret_path=secret_path, since=ctx, strict=strict,
                             need_secret=need_secret, vouched=vouched, bots=bots)
        results += [{"file": signers, "ok": False, "verified": "nothing", "error": problem,
                     "hints": []} for problem in history.check_signers_file(
                         repo, signers, may_create=by is None and github is None)]
        if signed:
            results += [{"file": "(commits)", "ok": False, "verified": "nothing",
                         "error": problem, "hints": []}
                        for problem in history.check_signed(repo, signers, rels)]
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
    match = gamefile.replay(gf, seed)
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


@main.command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE_OR_DIR...",
                type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
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


