"""What `referee tick` checks before the referee vouches for a game (docs/clocks.md,
"What tick vouches for").

Every MAC the referee writes says "the referee accepted this entry and everything before
it". `tick` runs on whatever the branch holds, whether or not `check` passed on it (an
admin's merge, a branch without protection, a check that timed out), so before it writes
anything it checks, for each game with a clock:

* **one game, one file**: a game whose identity another file of the folder shares (a
  copy: referee/ledger/identity.py) is refused, both files;
* **the vouched history** (in git): every entry that carried the referee's MAC in any
  version of a game file in the history of the commit checked out (every ancestor, not
  only the first parents: a merge cannot hide a branch of it) is still in the log, at
  its place, unchanged. The log that tick (or the judge, or a game master with the
  secret) vouched for last is a prefix of the log it is asked to vouch for now: a
  truncated, rewound or rewritten history is refused, naming the commit that held the
  lost entry. A game that has no MAC yet (none covers its header) has the header of
  its oldest version on the first-parent history (the one the game was created with);
* **the pending entries** (those after the last MAC) pass what `check` refuses with the
  secret: the replay (legal moves, the hash chain, the MACs, the game master's entries
  MAC'd), the clocks (referee/clocks/clock.py: records the vouched times do not
  support, a move the log proves late) and every bot seat's move being its bot's.

What only a pull request's check knows is not checked here: who wrote a pending entry
(the pull request's author). Branch protection with `check` required holds that.

The history is read once for the whole folder (``git log -p``: each entry is one line of
its file, so the entries a commit added are the lines it added), with every file read
as text and without the repository's diff drivers or replaced objects. A shallow clone
lacks that history and is refused. A game is found in it by its id and by its rng
commitment (bound to its seed: a renamed file with another id is still the game).
"""

from __future__ import annotations

import codecs
import json
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.clocks import clock
from referee.errors import GameFileError, ReplayError, UsageError
from referee.git import history
from referee.ledger import gamefile, identity, vouch

SHALLOW_HINT = "check the repository out whole: actions/checkout with fetch-depth: 0"
_ENTRY = re.compile(r"^\+(?:    |  , )(\{.*\})$")
_ID = re.compile(r'^\+  "id": (".*"),$')
_RNG = re.compile(r'^\+  "rng": (\{.*\}),$')


@dataclass
class Seen:
    """An entry line with a ``mac`` that a commit added to a game file."""

    commit: str
    path: str
    line: str


@dataclass
class History:
    """A games folder's history: per game (keyed by its id, case-folded, and by its rng
    commitment: :func:`keys`), every entry line with a ``mac`` that a commit added to a
    file that held that game, and every (commit, path) that changed such a file; and the
    first-parent commits, newest first."""

    root: Path
    macs: dict[str, list[Seen]] = field(default_factory=dict)
    versions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    first_parents: list[str] = field(default_factory=list)


# git, whatever the repository configures: no replaced objects, literal paths
_GIT = ("git", "--no-replace-objects", "--literal-pathspecs", "-c", "core.quotepath=off")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run([*_GIT, *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("tick needs git to read the games' history, and git is not "
                         "installed") from None


def _git(root: Path, *args: str) -> bytes:
    done = _run(root, *args)
    if done.returncode != 0:
        raise UsageError(f"git {args[0]} failed: "
                         f"{done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


def read_history(games_dir: Path) -> History | None:
    """The history of ``games_dir`` as of the commit checked out; None when it is in no
    git work tree. Raises UsageError for a shallow clone (its history is cut off) and
    when git fails otherwise (a repository it will not read is not one without
    history)."""
    top = _run(games_dir, "rev-parse", "--show-toplevel", "--is-shallow-repository")
    if top.returncode != 0:
        if b"not a git repository" in top.stderr:
            return None
        raise UsageError("git cannot read the repository of the games: "
                         f"{top.stderr.decode(errors='replace').strip()[:200]}")
    root_text, shallow = top.stdout.decode().split("\n")[:2]
    if shallow.strip() == "true":
        raise UsageError("the repository is a shallow clone: tick cannot see what the "
                         "referee vouched for in the history it lacks",
                         hints=[SHALLOW_HINT])
    root = Path(root_text)
    if _run(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").returncode != 0:
        return History(root)  # (no commit yet)
    rel = games_dir.resolve().relative_to(root.resolve()).as_posix() or "."
    found = _parse(root, _lines(root, "log", "--full-history", "--diff-merges=off", "-p",
                                "-U0", "--text", "--no-color", "--no-ext-diff",
                                "--no-textconv", "--no-renames", "--format=%x00%H",
                                "--", rel))
    found.first_parents = _git(root, "rev-list", "--first-parent", "HEAD").decode().split()
    return found


def _lines(root: Path, *args: str) -> Iterator[str]:
    """The lines git prints, read as they come (a long history is not held whole).
    Raises UsageError when git fails."""
    import tempfile

    with tempfile.TemporaryFile() as err, subprocess.Popen(
            [*_GIT, *args], cwd=root, stdout=subprocess.PIPE, stderr=err) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            yield raw.decode("utf-8", errors="replace").rstrip("\n")
        proc.wait()
        err.seek(0)
        problem = err.read()
    if proc.returncode != 0:
        raise UsageError(f"git {args[0]} failed: "
                         f"{problem.decode(errors='replace').strip()[:200]}")


def keys(game_id: str, commitment: str | None) -> list[str]:
    """The keys a game's history is found by: its id (a file's name for it) and its rng
    commitment (bound to its seed: a sealed game keeps it whatever is done to the id)."""
    return [f"id:{game_id.casefold()}", *([f"commitment:{commitment}"] if commitment
                                          else [])]


def _parse(root: Path, lines: Iterable[str]) -> History:
    """``git log -p`` (newest commit first) as a :class:`History`."""
    held: dict[str, set[str]] = {}  # path -> keys of the games it held
    macs: dict[str, list[Seen]] = {}
    touched: dict[str, list[tuple[str, str]]] = {}  # path -> (commit, path) changing it
    found = History(root)
    commit, path, in_header = "", "", False
    for line in lines:
        if line.startswith("\0"):
            commit = line[1:].strip()
        elif line.startswith("diff --git "):
            in_header = True
        elif in_header:
            if line.startswith("+++ "):
                path = _path(line[4:])
                touched.setdefault(path, []).append((commit, path))
            elif line.startswith("@@"):
                in_header = False
        elif '"mac": ' in line and (m := _ENTRY.match(line)) is not None:
            macs.setdefault(path, []).append(Seen(commit, path, m.group(1)))
        elif (key := _key(line)) is not None:
            held.setdefault(path, set()).add(key)
    for where, kept in held.items():
        for key in kept:
            found.macs.setdefault(key, []).extend(macs.get(where, []))
            found.versions.setdefault(key, []).extend(touched.get(where, []))
    return found


def _key(line: str) -> str | None:
    """The key an added header line names: the game id or the rng commitment."""
    if (m := _ID.match(line)) is not None:
        return keys(_text(m.group(1)), None)[0]
    if (m := _RNG.match(line)) is not None:
        rng = _json(m.group(1))
        if isinstance(rng, dict) and isinstance(rng.get("commitment"), str):
            return f"commitment:{rng['commitment']}"
    return None


def _path(text: str) -> str:
    """A path of a ``+++`` line (``b/games/g.json``, C-quoted if git had to)."""
    if text.startswith('"') and text.endswith('"'):
        text = codecs.escape_decode(text[1:-1].encode())[0].decode(errors="replace")
    return text[2:] if text.startswith("b/") else text


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _text(quoted: str) -> str:
    value = _json(quoted)
    return value if isinstance(value, str) else quoted


# --- one game --------------------------------------------------------------------------


def check(path: Path, gf: gamefile.GameFile, seed: str, found: History | None,
          copies: Mapping[str, identity.Duplicate]) -> None:
    """Everything tick needs to hold before it vouches for the game ``gf`` at ``path``
    (see the module's docstring); ``found``: the folder's history (None: not in git),
    ``copies``: the folder's duplicated files. Raises ReplayError (the clocks'
    ClockError among them) or GameFileError naming the reason."""
    copy = copies.get(str(path))
    if copy is not None:
        raise ReplayError(f"{copy.message}: tick vouches for neither file",
                          hints=["remove the copy; a new game is made with `referee new`"])
    if found is not None:
        check_history(path, gf, seed, found)
    tl = clock.timeline(gf, seed)
    clock.verify(gf, tl)
    pending = 1 + max((i for i, e in enumerate(gf.log) if "mac" in e), default=-1)
    history.check_bot_moves(gf, seed, pending)


def check_history(path: Path, gf: gamefile.GameFile, seed: str, found: History) -> None:
    """Every entry the referee vouched for in the history is in the log unchanged; a
    game without a MAC keeps the header it was created with. Raises ReplayError."""
    log = gf.log
    rel = _rel(found.root, path)
    mine = keys(gf.game_id, gf.data["rng"].get("commitment"))
    seen_lines = {(s.commit, s.line): s for key in mine for s in found.macs.get(key, [])}
    for seen in seen_lines.values():
        entry = _entry(seen.line)
        n = entry.get("n") if entry is not None else None
        if entry is None or not isinstance(n, int):
            continue
        here = log[n - 1] if 0 < n <= len(log) else None
        if here is not None and here.get("mac") == entry.get("mac"):
            continue
        if not vouch.mac_ok(seed, entry):
            continue  # never the referee's: nothing was vouched for
        raise ReplayError(
            f"entry {n}, which the referee vouched for in commit {seen.commit[:12]} "
            f"({seen.path}), is {'gone from' if here is None else 'changed in'} {rel}: "
            "the history was rewritten after the referee vouched for it, and tick stamps "
            "only a log that extends what it vouched for",
            hints=[f"restore the game to a version that holds it (git show "
                   f"{seen.commit[:12]}:{seen.path}) and add the later moves again "
                   "through checked pull requests"])
    if not any("mac" in e for e in log):
        _check_headers(gf, found, rel)


def _check_headers(gf: gamefile.GameFile, found: History, rel: str) -> None:
    """A game the referee has not vouched for yet (no MAC covers its header) has the
    header it was created with: that of its oldest version on the first-parent history
    (up to what `check --since` allows: nonces added before the first move, the
    revealed seed). Raises ReplayError."""
    mine = keys(gf.game_id, gf.data["rng"].get("commitment"))
    rank = {c: i for i, c in enumerate(found.first_parents)}
    versions = sorted({v for key in mine for v in found.versions.get(key, [])
                       if v[0] in rank}, key=lambda v: rank[v[0]], reverse=True)
    for commit, where in versions:  # oldest first: the first that holds this game
        old = _version(found.root, commit, where)
        if old is None or not (old.game_id.casefold() == gf.game_id.casefold() or
                               old.data["rng"].get("commitment")
                               == gf.data["rng"].get("commitment")):
            continue  # deleted there, not a game file, or another game the path held
        changed = history.header_changes(old.data, gf.data)
        if changed:
            raise ReplayError(f"the header of {rel} changed since the game was created "
                              f"({where} in commit {commit[:12]}): {', '.join(changed)}",
                              hints=["a game's header is fixed once it is created"])
        return


def _version(root: Path, commit: str, where: str) -> gamefile.GameFile | None:
    done = _run(root, "show", f"{commit}:{where}")
    if done.returncode != 0:
        return None
    try:
        return gamefile.parse(done.stdout, f"{where} at {commit[:12]}")
    except GameFileError:
        return None


def _entry(line: str) -> dict[str, Any] | None:
    value = _json(line)
    return value if isinstance(value, dict) and "mac" in value else None


def _rel(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)

