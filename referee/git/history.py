"""A change to a players' repository, checked as a whole (`referee check --since REV`).

For a pull request or a push: every game file that exists at REV must still exist at the
same path with its header unchanged and its old log a prefix of the new one (no deletes,
renames, truncations or rewritten history); a new game file must be a valid new game; and
the new entries must be by the player who may add them. Who that is comes from something
a player cannot fake (README and docs/security.md, "Who vouches for what"):

* ``--by P``: the caller says so (e.g. a workflow that knows the pull request's author);
* ``--by-github LOGIN``: the pull request author's login, mapped to a player by the
  ``github`` field of each game's players;
* ``--signed``: every commit in REV..HEAD is signed with an SSH key listed for a player in
  the repository's allowed-signers file *as it is at REV* (a change cannot add its own
  key), verified by git, and the entries each commit adds are all its signer's.

The legality of the new moves is checked by the ordinary full replay (cli/check.py);
signed commits and changes to the allowed-signers file by referee/git/commits.py.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.engine import Match
from referee.engine.rng import commitment
from referee.errors import GameFileError, ReplayError, UsageError
from referee.git import delta
from referee.ledger import gamefile, identity, replay, seats, secret
from referee.ledger.fileformat import GAME_MASTER, claims_game_file

if TYPE_CHECKING:
    from referee.ledger.records import Entry

SIGNERS = ".referee/allowed_signers"


@dataclass
class Repo:
    """A git work tree and the revision a change is checked against."""

    root: Path
    rev: str | None  # None: nothing before (a new branch); every game file is new

    def git(self, *args: str, check: bool = True) -> bytes:
        done = _git(list(args), self.root)
        if check and done.returncode != 0:
            raise UsageError(f"git {' '.join(args[:2])} failed: "
                             f"{done.stderr.decode(errors='replace').strip()[:200]}")
        return done.stdout

    def show(self, rev: str, rel: str) -> bytes | None:
        done = _git(["show", f"{rev}:{rel}"], self.root)
        return done.stdout if done.returncode == 0 else None


@dataclass
class FileChange:
    """What a change did to one game file; the bot-seat moves it replayed and what they
    cost (wall and CPU seconds)."""

    rel: str
    new_entries: int = 0
    created: bool = False
    problems: list[str] = field(default_factory=list)
    bot_moves: int = 0
    bot_seconds: float = 0.0
    bot_cpu_seconds: float = 0.0


@dataclass
class BotReplay:
    """The bot-seat moves :func:`check_bot_moves` replayed, and how long that took."""

    verified: set[int] = field(default_factory=set)
    seconds: float = 0.0
    cpu_seconds: float = 0.0


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("--since needs git, and git is not installed") from None


def open_repo(rev: str, where: Path) -> Repo:
    """The repository around ``where``. Raises UsageError when there is none, when
    ``rev`` is unknown, or when ``rev`` is not an ancestor of HEAD (a force push)."""
    top = _git(["rev-parse", "--show-toplevel"], where)
    if top.returncode != 0:
        raise UsageError(f"--since needs a git repository, and {where} is not in one")
    root = Path(top.stdout.decode().strip())
    # (zeros, GitHub's `before` of a new branch, are no revision: checking.resolve_base
    # reads them as HEAD's first parent before it comes here)
    if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root).returncode != 0:
        raise UsageError(f"unknown git revision {rev!r}",
                         hints=["fetch it first (actions/checkout with fetch-depth: 0)"])
    full = _git(["rev-parse", f"{rev}^{{commit}}"], root).stdout.decode().strip()
    if _git(["merge-base", "--is-ancestor", full, "HEAD"], root).returncode != 0:
        raise ReplayError(
            f"{rev} is not an ancestor of HEAD: history was rewritten (a force push?) or "
            "this branch lacks it",
            hints=["game history is append-only: merge or rebase onto it, never rewrite it"],
        )
    return Repo(root, full)


def is_game_file(raw: bytes | None) -> bool:
    """Whether ``raw`` claims to be a referee game file (it may still be invalid):
    :func:`referee.ledger.fileformat.claims_game_file`."""
    return claims_game_file(raw)


def old_game_files(repo: Repo) -> list[str]:
    """Repository paths of the game files at the revision."""
    if repo.rev is None:
        return []
    names = repo.git("ls-tree", "-r", "-z", "--name-only", repo.rev).split(b"\0")
    paths = [n.decode() for n in names if n.endswith(b".json")]
    return [p for p in paths if is_game_file(repo.show(repo.rev, p))]


def current_game_files(repo: Repo) -> list[str]:
    """Repository paths of the game files in the work tree (tracked or not, unless
    ignored)."""
    names = repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard",
                     "--", "*.json").split(b"\0")
    paths = sorted({n.decode() for n in names if n})
    return [p for p in paths if is_game_file(read_work_file(repo.root / p))]


def read_work_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def rel_path(repo: Repo, path: Path) -> str:
    try:
        return path.resolve().relative_to(repo.root.resolve()).as_posix()
    except ValueError:
        raise UsageError(f"{path} is not inside the repository {repo.root}") from None


@dataclass
class ChangeFiles:
    """The game files of a change: at the revision, in the work tree, and to check.
    With ``delta`` (the fast path, referee/git/delta.py) ``old`` and ``now`` hold only
    the paths git reports changed or in doubt: every other game file is byte for byte
    what it was at the revision. Without it they hold every game file."""

    old: list[str]
    now: list[str]
    check: list[str]
    delta: delta.Delta | None = None
    base: dict[str, bytes | None] = field(default_factory=dict)  # old bytes of changed paths
    given: bool = False  # FILEs named: only those are checked


def change_files(repo: Repo, given: Sequence[Path]) -> ChangeFiles:
    """The game files of the change; the ones to replay are the changed ones, or only
    ``given`` ones. Deletions, renames and copies are judged over all of them either way
    (``check FILE --since REV`` cannot hide a deleted game). A file git reports
    unchanged since the revision (the same blob, written as it is) need not be read:
    its bytes were checked when they came in."""
    given_rels = sorted({rel_path(repo, p) for p in given})
    if repo.rev is None:
        return all_change_files(repo, given_rels)
    found = delta.working_changes(repo.root, repo.rev)
    base = delta.blobs(repo.root, repo.rev, sorted(found.changed))
    old = sorted(p for p, raw in base.items() if is_game_file(raw))
    now = sorted(p for p in found.changed if is_game_file(read_work_file(repo.root / p)))
    return ChangeFiles(old, now, given_rels or sorted(set(now) | set(old)), found, base,
                       bool(given_rels))


def all_change_files(repo: Repo, given_rels: Sequence[str]) -> ChangeFiles:
    """:func:`change_files` reading every game file (no fast path)."""
    old = old_game_files(repo)
    now = current_game_files(repo)
    return ChangeFiles(old, now, list(given_rels) or sorted(set(now) | set(old)),
                       given=bool(given_rels))


def parse_header(raw: bytes | None) -> dict[str, Any] | None:
    """A game file's JSON object, read leniently (None if it is not one)."""
    try:
        data = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def new_game_clashes(repo: Repo, label: str, files: ChangeFiles
                     ) -> dict[str, identity.Duplicate]:
    """Every new game file (not at the revision) that is the same game as another game
    file at the revision or in the work tree (the same header, commitment or id): a
    copy, which would deal a running game's cards under other seats. On the fast path
    the other files are the changed ones and those ``git grep`` names
    (:func:`delta.candidates`); when it cannot vouch for its answer, every file."""
    now = [(p, h) for p in files.now if (h := parse_header(read_work_file(repo.root / p)))]
    new = [(p, h) for p, h in now if p not in files.old]
    if not new or files.delta is None or repo.rev is None:
        return _clashes(repo, label, files, now) if new else {}
    found = delta.candidates(repo.root, [h for _, h in new])
    if found is None:  # nothing the search can vouch for: read them all
        return _clashes(repo, label, all_change_files(repo, []), None)
    base = dict(files.base)
    for p in found - files.delta.changed:  # unchanged: its bytes are those at the revision
        base[p] = read_work_file(repo.root / p)
    at_rev = sorted(p for p in base if (p in found or p in files.old) and is_game_file(base[p]))
    others = [(f"{p} at {label}", h) for p in at_rev if (h := parse_header(base[p]))]
    return _first_clashes(new, others + now)


def _clashes(repo: Repo, label: str, files: ChangeFiles,
             now: list[tuple[str, dict[str, Any]]] | None) -> dict[str, identity.Duplicate]:
    """The clashes of the new files of ``files``, every game file read."""
    others: list[tuple[str, dict[str, Any]]] = []
    if repo.rev is not None:
        others += [(f"{p} at {label}", h) for p in files.old
                   if (h := parse_header(repo.show(repo.rev, p))) is not None]
    if now is None:
        now = [(p, h) for p in files.now if (h := parse_header(read_work_file(repo.root / p)))]
    return _first_clashes([(p, h) for p, h in now if p not in files.old], others + now)


def _first_clashes(new: list[tuple[str, dict[str, Any]]],
                   among: list[tuple[str, dict[str, Any]]]) -> dict[str, identity.Duplicate]:
    found: dict[str, identity.Duplicate] = {}
    for rel, header in new:
        clash = identity.clashes(rel, header, among)
        if clash:
            found[rel] = clash[0]
    return found


def signed_paths(repo: Repo, files: ChangeFiles) -> list[str]:
    """The game files ``--signed`` checks commit by commit: the ones to check, and on
    the fast path also every game file a commit since the revision touched (a change
    undone by a later commit leaves the file unchanged, not its commits)."""
    if files.delta is None or repo.rev is None or files.given:
        return files.check
    out = repo.git("log", "-m", "--no-renames", "--name-only", "--format=", "-z",
                   f"{repo.rev}..HEAD", "--")
    touched = {n.decode(errors="surrogateescape") for n in out.split(b"\0")
               if n.endswith(b".json")} - set(files.check)
    base = delta.blobs(repo.root, repo.rev, sorted(touched))
    games = {p for p in touched if is_game_file(base[p])
             or is_game_file(read_work_file(repo.root / p))}
    return sorted(games | set(files.check))


# --- one file -------------------------------------------------------------------------


def header_changes(old: dict[str, Any], new: dict[str, Any], author: str | None = None
                   ) -> list[str]:
    """Header differences that are not allowed between two versions of a game.

    Allowed: the seed written in by `reveal` (when it matches the commitment); while the
    log is still empty, nonce commitments and nonces added (with an author: only theirs).
    """
    old_h = {k: v for k, v in old.items() if k != "log"}
    new_h = {k: v for k, v in new.items() if k != "log"}
    problems = [k for k in sorted(old_h.keys() | new_h.keys())
                if k != "rng" and old_h.get(k) != new_h.get(k)]
    old_rng, new_rng = dict(old_h["rng"]), dict(new_h["rng"])
    if "commitment" in old_rng and "seed" in new_rng and "seed" not in old_rng:
        if commitment(new_rng["seed"]) != old_rng["commitment"]:
            problems.append("rng.seed (does not match the commitment)")
        new_rng.pop("seed")
    if not old["log"]:
        for key in ("nonce_commitments", "nonces"):
            if key in old_rng and isinstance(new_rng.get(key), dict):
                problems += _added_nonces(key, old_rng[key], new_rng[key], author)
                new_rng[key] = old_rng[key]
    if old_rng != new_rng:
        problems.append("rng")
    return problems


def _added_nonces(key: str, old: dict[str, str], new: dict[str, str], author: str | None
                  ) -> list[str]:
    if any(new.get(p) != v for p, v in old.items()):
        return [f"rng.{key} (changed)"]
    added = sorted(set(new) - set(old))
    if author is not None and any(p != author for p in added):
        return [f"rng.{key} (added for {', '.join(p for p in added if p != author)}, "
                f"not by {author})"]
    return []


def compare(rel: str, old_raw: bytes | None, new_gf: gamefile.GameFile, rev: str,
            author: str | None, seed: str | None = None) -> FileChange:
    """Check one game file against its version at the revision (None: a new file).

    New moves of bot seats are replayed: each must be exactly the move the seat's bot
    chooses (:func:`check_bot_moves`); such a move may then be added by anybody. The
    seed of a sealed game is ``seed`` or found as `check` finds it (the environment, or
    the secret beside the file seen from the current directory)."""
    change = FileChange(rel, created=old_raw is None)
    old_log: list[Entry] = []
    if old_raw is not None:
        try:
            old = gamefile.parse(old_raw, f"{rel} at {rev}")
        except GameFileError as exc:
            raise GameFileError(f"the version at {rev} is not valid: {exc.message}") from None
        changed = header_changes(old.data, new_gf.data, author)
        if changed:
            raise ReplayError(f"the header changed since {rev}: {', '.join(changed)}",
                              hints=["a game's header is fixed once it is created"])
        old_log = old.entries
        _check_prefix(old_log, new_gf.entries, rev)
    new = new_gf.entries[len(old_log):]
    change.new_entries = len(new)
    if seed is None:
        seed = secret.find_seed(new_gf, None, Path(rel))
    replayed = replay_bot_moves(new_gf, seed, len(old_log))
    change.bot_moves = len(replayed.verified)
    change.bot_seconds, change.bot_cpu_seconds = replayed.seconds, replayed.cpu_seconds
    if author is not None:
        # a planned move is its plan's (referee/ledger/plans.py), whoever's change played it:
        # the replay proves it is exactly what that plan gives (it needs the state)
        planned = seed is not None or not new_gf.sealed
        _check_authors([e for e in new if e["n"] not in replayed.verified
                        and not (planned and "plan" in e)], author)
    return change


def replay_bot_moves(gf: gamefile.GameFile, seed: str | None, first: int,
                     limit: int | None = None) -> BotReplay:
    """:func:`check_bot_moves`, timed."""
    wall, cpu = time.perf_counter(), time.process_time()
    verified = check_bot_moves(gf, seed, first, limit)
    return BotReplay(verified, time.perf_counter() - wall, time.process_time() - cpu)


def check_bot_moves(gf: gamefile.GameFile, seed: str | None, first: int,
                    limit: int | None = None) -> set[int]:
    """The numbers of the entries from index ``first`` on that are moves of bot seats,
    each checked to be exactly the move the seat's bot chooses there (the bots are
    reproducible: referee/ledger/seats.py). Empty when the state cannot be rebuilt (a sealed
    game without its secret): then those moves are nobody's but their author's.
    A seat recorded with more iterations than ``limit`` (default: the cap,
    seats.MAX_ITERATIONS) is not replayed: its move is
    refused (what one check may cost is bounded; `check --bots` replays a whole game at
    the levels recorded by earlier releases). Raises ReplayError for a bot seat's move
    the bot would not make, or would take too long to make."""
    targets: dict[int, seats.SeatBot] = {}
    now = seats.seats_at(gf.data, first)
    for i in range(first, len(gf.log)):
        entry = gf.log[i]
        meta = entry.get("meta")
        if isinstance(meta, dict) and meta.get("kind") == "bot":
            now = seats.seats_at(gf.data, i + 1)
        elif "move" in entry and entry["by"] in now.bots:
            targets[i] = now.bots[entry["by"]]
    if not targets or (seed is None and gf.sealed):
        return set()
    for i, seat in targets.items():
        _check_cost(gf.entries[i], seat, seats.MAX_ITERATIONS if limit is None else limit)
    key = gamefile.rng_key(gf, seed)

    def look(i: int, match: Match) -> None:  # the state after entry i: before entry i + 1
        if i + 1 in targets:
            _check_bot_move(gf, i + 1, targets[i + 1], match, key, seed)

    if 0 in targets:
        _check_bot_move(gf, 0, targets[0], replay.start_state(gf, seed), key, seed)
    replay.replay(gf, seed, on_entry=look)
    return {gf.log[i]["n"] for i in targets}


def _check_bot_move(gf: gamefile.GameFile, i: int, seat: seats.SeatBot, match: Match,
                    key: bytes, seed: str | None) -> None:
    from referee.bots.players import seat_move  # the bots only when a bot seat moved

    entry = gf.log[i]
    by, game = entry["by"], match.game
    if game.finished(match.state) or by not in gamefile.waiting(gf, match):
        return  # not this seat's decision: the replay refuses the entry
    if gf.sealed and (i + 1) in replay.voided(gf):
        return
    chosen = seat_move(game, match.state, by, seat.level, seat.iterations,
                       seats.seat_rng_key(key, entry["n"]), limit=seats.RECORDED_MAX_ITERATIONS)
    if chosen == replay.entry_move(gf, i, seed):
        return
    # In a sealed game the bot's intended move comes from hidden state (its hand, the
    # deck): name the entry only. An open game hides nothing.
    told = "" if gf.sealed else f": the bot plays {game.format_move(chosen)!r} there"
    raise ReplayError(f"entry {entry['n']} is not the move of {by}'s bot "
                      f"({seat.describe()}){told}",
                      hints=["a bot seat's moves are its bot's, reproducibly: `referee bot "
                             "FILE` plays them"])


def _check_cost(entry: Entry, seat: seats.SeatBot, limit: int) -> None:
    if seat.iterations is not None and seat.iterations > limit:
        raise ReplayError(
            f"entry {entry['n']} is a move of {entry['by']}'s bot ({seat.describe()}), above "
            f"this referee's cap of {limit} iterations a decision: it is not replayed",
            hints=[f"hand the seat to a level within the cap first: `referee seat FILE "
                   f"{entry['by']} --bot mcts:{limit} --as gm`"])


def _check_prefix(old_log: list[Entry], new_log: list[Entry],
                  rev: str) -> None:
    if len(new_log) < len(old_log):
        raise ReplayError(
            f"the log lost entries since {rev} ({len(old_log)} before, {len(new_log)} now)",
            hints=["the log is append-only; use `referee undo` instead of deleting"],
        )
    for i, entry in enumerate(old_log):
        if new_log[i] != entry:
            raise ReplayError(f"$.log[{i}] (entry {i + 1}) changed since {rev}: history was "
                              "rewritten", hints=["the log is append-only"])


def _check_authors(entries: Iterable[Entry], author: str) -> None:
    for entry in entries:
        if entry["by"] != author:
            who = "the game master" if entry["by"] == GAME_MASTER else entry["by"]
            raise ReplayError(f"entry {entry['n']} is by {who}, but only entries by "
                              f"{author} may be added in this change")


def author_of(gf: gamefile.GameFile, by: str | None, github: str | None) -> str | None:
    """The player whose entries this change may add to ``gf``: ``by``, or the player
    whose ``github`` login is ``github``. Raises ReplayError for a login not in the game
    (such a change may add nothing to it) — checked by the caller only if it adds any."""
    if github is None:
        if by is not None and by != GAME_MASTER:
            gf.player(by)
        return by
    for p in gf.data["players"]:
        if str(p.get("github", "")).lower() == github.lower():
            return str(p["id"])
    return f"@{github}"  # matches no entry's `by`, so any new entry is refused
