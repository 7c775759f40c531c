"""Where a game and its repository are: the root of the git work tree holding a file,
the allowed-signers file there (what `check --signed` and `views` read by default), a
game file's path in its repository (what a view names it by) and the folder each game's
views are written into. Each folder is resolved and git asked of it once a run of
`views` (:func:`referee.git.views.write_all_views` forgets them first).
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from referee.errors import UsageError
from referee.git import history

SIGNERS_IN_REPO = Path(history.SIGNERS)  # the file `check --signed` verifies commits with


def repo_root(path: Path) -> Path | None:
    """The root of the git work tree holding ``path`` (None outside one, or no git)."""
    return _git_top(path.resolve().parent)


def _git_top(folder: Path) -> Path | None:
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                             cwd=folder, capture_output=True, check=False)
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
    return _repo_name(path.resolve() if path.is_symlink() else path)


def _repo_name(real: Path) -> str:
    folder, top = _folder(real.parent)
    return _inside(f"{folder}/{real.name}", top) or real.name


def _inside(real: str, top: str | None) -> str | None:
    """``real`` relative to the work tree ``top`` (both resolved), or None."""
    if top is None:
        return None
    if top == "/":
        return real[1:]
    return real[len(top) + 1:] if real.startswith(top + "/") else None


@functools.lru_cache(maxsize=256)
def _folder(folder: Path) -> tuple[str, str | None]:
    """The folder resolved, and the resolved root of the work tree it is in (None
    outside one): asked once a folder a run."""
    real = folder.resolve()
    top = _work_tree(real)
    return str(real), (str(_resolved(top)) if top is not None else None)


# Within one run of `views`, each folder is resolved and git asked of it once (for 10,000
# games in one folder git ran 10,000 times); write_all_views forgets them first.
_work_tree = functools.lru_cache(maxsize=256)(_git_top)


@functools.lru_cache(maxsize=256)
def _resolved(folder: Path) -> Path:
    return folder.resolve()


def stem(file: str) -> str:
    """The name of ``file`` without its last suffix, as ``Path(file).stem`` says it (the
    views of FILE are FILE-stem.*), without making a Path (10,000 of them a run)."""
    name = file.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def view_targets(paths: Sequence[str], out_dir: Path | None) -> list[tuple[str, Path]]:
    """(game file, folder of its views) per game. Raises UsageError when two games' views
    would have the same names."""
    parents: dict[str, Path] = {}

    def parent(file: str) -> Path:
        folder = os.path.dirname(file)
        found = parents.get(folder)
        if found is None:
            found = parents[folder] = Path(folder or ".")
        return found

    targets = [(p, out_dir or parent(p)) for p in paths]
    seen: dict[tuple[Path, str], str] = {}
    for file, out in targets:
        other = seen.setdefault((_resolved(out), stem(file)), file)
        if other != file and Path(other).resolve() != Path(file).resolve():
            raise UsageError(f"{other} and {file} would write the same view files in "
                             f"{out}", hints=["give them different names or run views "
                                              "once per game with its own --out"])
    return targets
