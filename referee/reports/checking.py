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
from typing import Any, TypedDict

from referee import engine
from referee.engine import Match
from referee.errors import (
    RefereeError,
    ReplayError,
    SealedError,
    UsageError,
    internal_error,
)
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


class CheckResult(TypedDict, total=False):
    """What `check --json` says of one game file (docs/git-and-ci.md)."""

    file: str  # (every result has file, ok and verified)
    ok: bool
    verified: str  # nothing, structure or full
    error: str
    hints: list[str]
    game: str
    players: int
    moves: int
    unverified: list[str]  # a sealed game checked without its secret: what was not
    new_moves: int  # --since: the entries the change added
    bot_moves_replayed: int
    bot_moves_verified: int
    bot_seconds: float
    bot_cpu_seconds: float
    clocks: dict[str, int]  # each seat's bank, recomputed
    finished: bool
    scores: dict[str, int]
    to_move: list[str]
    unvouched: int


def check_one(path: Path, secret_path: Path | None, since: Since | None = None,
              strict: bool = False, need_secret: bool = False, vouched: bool = False,
              bots: bool = False) -> CheckResult:
    out: CheckResult = {"file": str(path), "ok": False, "verified": "nothing"}
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
                    hints=["give this job the secret REFEREE_SECRET (an environment "
                           "secret that only main's jobs get: docs/git-and-ci.md), or "
                           "--no-require-secret in a pull request's job, which must not "
                           "hold it"])
            replay.check_structure(gf)
            out.update({"ok": True, "verified": "structure", "players": len(gf.players),
                        "moves": len(gf.log), "unverified": unverified_without_secret(gf)})
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
        out.update({"error": exc.message, "hints": exc.hints})
        return out
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update({"error": err.message, "hints": err.hints})
        return out
    try:
        return out | full_result(gf, match)
    except Exception as exc:  # a bug: report it for this file and carry on
        err = internal_error(exc, str(path))
        out.update({"ok": False, "error": err.message, "hints": err.hints})
        return out


def unverified_without_secret(gf: gamefile.GameFile) -> list[str]:
    """What a check of sealed game ``gf`` without its secret leaves unchecked, each said
    (a pull request's check runs without the secret: docs/git-and-ci.md). What it does
    check: the structure, the hash chain, each entry's seat and shape, the public part
    of each move and, with --since, the history and who added each entry."""
    left = ["sealed game without its secret: the legality of each move, the state and "
            "the scores were not checked (give --secret, or `referee reveal` after the "
            "game)",
            "the referee's MAC on each entry and the hidden part of each sealed choice"]
    if replay.has_clock_records(gf.data):
        left.append("the clock: the referee's stamps, the banks and any timeout")
    if any(isinstance(e.get("meta"), dict) and e["meta"].get("kind") == "bot"
           for e in gf.log) or seats.seats_at(gf.data, 0).bots:
        left.append("the bot seats' moves (not replayed: with --since each counts as its "
                    "author's)")
    return left


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


def full_result(gf: gamefile.GameFile, match: Match) -> CheckResult:
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
                    present: Sequence[str]) -> list[CheckResult]:
    """Game files at the revision that are gone now (deleted or renamed)."""
    gone = [rel for rel in must_exist if rel not in present
            or not history.is_game_file(history.read_work_file(repo.root / rel))]
    return [{"file": rel, "ok": False, "verified": "nothing",
             "error": f"this game file existed at {label} and is gone or no longer a game "
                      "file: game files may not be deleted, renamed or emptied",
             "hints": ["restore it; a finished game stays in the repository"]}
            for rel in gone]


def copy_failures(copies: dict[str, str], checked: Sequence[str]) -> list[CheckResult]:
    """New game files that copy another game and are not among the files checked (those
    fail in their own check)."""
    return [{"file": rel, "ok": False, "verified": "nothing", "error": why,
             "hints": [COPY_HINT]}
            for rel, why in sorted(copies.items()) if rel not in checked]


PARALLEL_MIN_FILES = 4


def check_all(paths: list[Path], **options: Any) -> list[CheckResult]:
    """check_one for every file, in order; on several cores, in parallel worker processes
    (each file is checked on its own, so the results are the same)."""
    one: Callable[[Path], CheckResult] = functools.partial(check_one, **options)
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


# --- the base of a change (--since REV) ------------------------------------------------
# GitHub passes `before` = 000...0 when a push creates a branch (or recreates a deleted
# one). Read as "nothing before", every game would be new and a rewritten or deleted game
# would pass; so a base that names no revision (zeros, or none at all) is read as HEAD's
# first parent: every game file there must survive. Only a root commit, which has no
# parent, checks every game as new. A base that is named but unknown here, or is not an
# ancestor of HEAD (a force push), fails (history.open_repo): never a fallback.


@dataclass
class Base:
    """The revision a change is checked against, as :func:`resolve_base` found it."""

    repo: history.Repo  # repo.rev None: a root commit, every game file is new
    label: str  # how the messages name it
    note: str | None = None  # why it is not the revision given


def names_no_revision(rev: str) -> bool:
    """Whether ``rev`` is no base at all: empty, or all zeros (GitHub's ``before`` when a
    push creates a branch; SHA-1 or SHA-256 length, or abbreviated)."""
    text = rev.strip()
    return text == "" or (len(text) >= 7 and text.strip("0") == "")


def resolve_base(rev: str, where: Path) -> Base:
    """The base of ``check --since REV`` in the repository around ``where``. Raises
    UsageError outside a repository or for a revision this clone does not have,
    ReplayError for a revision that is not an ancestor of HEAD (history.open_repo)."""
    if rev.startswith("-"):
        raise UsageError(f"--since {rev!r} is not a git revision")
    head = history.open_repo("HEAD", where)
    if not names_no_revision(rev):
        if not _commit_of(head, rev):
            raise UsageError(f"unknown git revision {rev!r}: this clone does not have it",
                             hints=["fetch the whole history (actions/checkout with "
                                    "fetch-depth: 0)",
                                    "a base that is gone (a force push or a deleted branch "
                                    "left it behind) is never replaced by another: the "
                                    "history of a game only grows"])
        return Base(history.open_repo(rev, where), rev)
    given = (f"{rev.strip()} (GitHub's `before` when a push creates a branch)"
             if rev.strip() else "'' (no base given)")
    parent = _commit_of(head, "HEAD^1")
    if not parent:
        return Base(history.Repo(head.root, None), "the root commit",
                    f"--since {given} names no revision, and HEAD is a root commit: every "
                    "game file is new")
    return Base(history.open_repo(parent, where), f"HEAD^ ({parent[:12]})",
                f"--since {given} names no revision: the change is HEAD's commit, checked "
                f"against its first parent {parent[:12]}, where every game file must "
                "survive")


def _commit_of(repo: history.Repo, rev: str) -> str:
    """The commit ``rev`` names in ``repo``, or '' if it names none there."""
    return repo.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
                    check=False).decode().strip()


def change_root(paths: Sequence[Path]) -> Path:
    """Where the repository of a change is looked for: beside the first FILE, else here."""
    return paths[0].resolve().parent if paths else Path.cwd()


def check_change(base: Base | str, paths: Sequence[Path], *, by: str | None = None,
                 github: str | None = None, signed: bool = False,
                 signers: str = history.SIGNERS, **options: Any) -> list[CheckResult]:
    """The change since ``base`` (a :class:`Base`, or a git revision resolved by
    :func:`resolve_base`) checked as a whole: every game file at the base still there,
    no copied game, each changed or new file checked (``options`` as for
    :func:`check_one`) with its new entries by ``by`` (or the player of GitHub login
    ``github``), the allowed-signers file changed only as its owners allow, and with
    ``signed`` every commit signed by a player and adding only its signer's entries.
    ``paths``: the files to check (default: every game file of the repository)."""
    if isinstance(base, str):
        base = resolve_base(base, change_root(paths))
    repo, rev = base.repo, base.label
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
                    for problem in commits.check_signed(repo, signers,
                                                        history.signed_paths(repo, files))]
    return [r | {"file": shown_path(repo.root, r["file"])} for r in results]


def shown_path(root: Path, name: str) -> str:
    """A file of the repository at ``root`` (a path in it, or an absolute one) as the
    person who ran the command names it: from the current folder when the file is below
    it, else from the repository's root. A row that names no file, "(commits)", is kept."""
    if name.startswith("("):
        return name
    path = Path(name) if Path(name).is_absolute() else root / name
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        pass
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return name
