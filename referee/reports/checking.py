"""`referee check`'s library side: a game file checked as a legal game (its structure and
hash chain, the replay, the MACs, the bot seats' moves), many files on every core, and
a change since a git revision checked as a whole (history.py, commits.py). Each check
returns a result row (``ok``, ``verified``: full, structure or nothing, ``error`` and
``hints``); the command line prints the rows.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import engine
from referee.engine import Match
from referee.errors import RefereeError, ReplayError, SealedError, internal_error
from referee.git import commits, history
from referee.ledger import gamefile, replay, seats, secret


@dataclass
class Since:
    """A change being checked (``--since``): the repository and who may add entries."""

    repo: history.Repo
    label: str  # the revision as given
    by: str | None
    github: str | None
    copies: dict[str, str] = field(default_factory=dict)  # new file -> why it is a copy


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
            replay.check_structure(gf)
            out.update(ok=True, verified="structure", players=len(gf.players),
                       moves=len(gf.log), unverified=[
                           "sealed game without its secret: the legality of each move, the "
                           "state and the scores were not checked (give --secret, or "
                           "`referee reveal` after the game)"])
            return out
        match = replay.replay(gf, seed)
        clocks = check_clocks(gf, seed)
        if clocks is not None:
            out["clocks"] = clocks
        if bots:  # every bot-seat move of the game is its bot's (--since: the new ones)
            replayed = history.replay_bot_moves(gf, seed, 0, seats.RECORDED_MAX_ITERATIONS)
            out["bot_moves_verified"] = len(replayed.verified)
            out["bot_seconds"] = round(replayed.seconds, 2)
        unvouched = replay.unvouched(gf)
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


COPY_HINT = ("a new game is made with `referee new` (with an id of its own), never by "
             "copying a game file")


def refuse_copy(since: Since, path: Path) -> None:
    """A new game file that is the same game as another one (a copy) fails here, before
    anything is replayed. Raises ReplayError naming both files."""
    why = since.copies.get(history.rel_path(since.repo, path))
    if why is not None:
        raise ReplayError(why, hints=[COPY_HINT])


def check_clocks(gf: gamefile.GameFile, seed: str) -> dict[str, int] | None:
    """Every seat's bank recomputed from the log's vouched times (referee/clocks/clock.py), or
    None for a game without a clock. Raises ClockError for a timeout, vacation or clock
    record those times do not support."""
    from referee.clocks import clock

    if not replay.has_clock_records(gf.data):
        return None
    tl = clock.timeline(gf, seed)
    found = clock.verify(gf, tl)
    return {pid: max(seat.bank, 0) for pid, seat in found.seats.items()}


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
    broken = engine.invariants(game, match.state)
    if broken:
        return {"error": "invariant broken: " + "; ".join(broken), "hints": []}
    finished = game.finished(match.state)
    return {
        "ok": True, "verified": "full", "players": len(gf.players), "moves": len(gf.log),
        "finished": finished, "scores": game.scores(match.state),
        "to_move": gamefile.waiting(gf, match), "unvouched": len(replay.unvouched(gf)),
    }


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


def check_change(rev: str, paths: Sequence[Path], *, by: str | None = None,
                 github: str | None = None, signed: bool = False,
                 signers: str = history.SIGNERS, **options: Any) -> list[dict[str, Any]]:
    """The change since git revision ``rev`` checked as a whole: every game file at
    ``rev`` still there, no copied game, each changed or new file checked (``options``
    as for :func:`check_one`) with its new entries by ``by`` (or the player of GitHub
    login ``github``), the allowed-signers file changed only as its owners allow, and
    with ``signed`` every commit signed by a player and adding only its signer's
    entries. ``paths``: the files to check (default: every game file of the
    repository)."""
    repo = history.open_repo(rev, paths[0].resolve().parent if paths else Path.cwd())
    files = history.change_files(repo, paths)
    must_exist, rels = files.old, files.check
    results = change_failures(repo, rev, must_exist, files.now)
    copies = {rel: d.message for rel, d in history.new_game_clashes(repo, rev, files).items()}
    results += copy_failures(copies, rels)
    since = Since(repo, rev, by, github, copies)
    results += check_all([repo.root / rel for rel in rels
                          if (repo.root / rel).exists() or rel not in must_exist],
                         since=since, **options)
    results += [{"file": signers, "ok": False, "verified": "nothing", "error": problem,
                 "hints": []} for problem in commits.check_signers_file(
                     repo, signers, may_create=by is None and github is None)]
    if signed:
        results += [{"file": "(commits)", "ok": False, "verified": "nothing",
                     "error": problem, "hints": []}
                    for problem in commits.check_signed(repo, signers, rels)]
    return results
