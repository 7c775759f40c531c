"""Append-only checks against an earlier version in git (`referee check --since REV`).

For a pull request in a players' repository: the header is unchanged since REV, the old
log is a prefix of the new one, and (optionally) every new entry is by one player. The
legality of the new moves is checked by the ordinary full replay.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from referee import gamefile
from referee.errors import GameFileError, ReplayError, UsageError
from referee.rng import commitment


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("--since needs git, and git is not installed") from None


def old_version(path: Path, rev: str) -> bytes | None:
    """The file's bytes at git revision ``rev``; None if it did not exist there.
    Raises UsageError when not in a git repository or ``rev`` is unknown."""
    folder = path.resolve().parent
    top = _git(["rev-parse", "--show-toplevel"], folder)
    if top.returncode != 0:
        raise UsageError(f"--since needs a git repository, and {path} is not in one")
    root = Path(top.stdout.decode().strip())
    if _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root).returncode != 0:
        raise UsageError(f"unknown git revision {rev!r}")
    rel = path.resolve().relative_to(root).as_posix()
    shown = _git(["show", f"{rev}:{rel}"], root)
    return shown.stdout if shown.returncode == 0 else None


def _header(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "log"}


def header_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Header differences that are not allowed between two versions of a game.

    Allowed: the seed written in by `reveal` (when it matches the commitment), and
    nonces added while the log is still empty.
    """
    old_h, new_h = _header(old), _header(new)
    problems = [k for k in sorted(old_h.keys() | new_h.keys())
                if k != "rng" and old_h.get(k) != new_h.get(k)]
    old_rng, new_rng = dict(old_h["rng"]), dict(new_h["rng"])
    if "commitment" in old_rng and "seed" in new_rng and "seed" not in old_rng:
        if commitment(new_rng["seed"]) != old_rng["commitment"]:
            problems.append("rng.seed (does not match the commitment)")
        new_rng.pop("seed")
    if not old["log"] and "nonces" in old_rng:
        added = {k: v for k, v in new_rng.get("nonces", {}).items()}
        kept = all(added.get(p) == v for p, v in old_rng["nonces"].items())
        if kept:
            new_rng["nonces"] = old_rng["nonces"]
    if old_rng != new_rng:
        problems.append("rng")
    return problems


def check_since(path: Path, gf: gamefile.GameFile, rev: str, by: str | None) -> int:
    """Check ``gf`` (the file at ``path`` now) against its version at ``rev``; return
    how many entries are new. Raises ReplayError, GameFileError or UsageError."""
    raw = old_version(path, rev)
    if by is not None:
        gf.player(by)
    old_log: list[dict[str, Any]] = []
    if raw is not None:
        try:
            old = gamefile.parse(raw, f"{path} at {rev}")
        except GameFileError as exc:
            raise GameFileError(f"the version at {rev} is not valid: {exc.message}") from None
        changed = header_changes(old.data, gf.data)
        if changed:
            raise ReplayError(
                f"the header changed since {rev}: {', '.join(changed)}",
                hints=["a game's header is fixed once it is created"],
            )
        old_log = old.log
        if len(gf.log) < len(old_log):
            raise ReplayError(
                f"the log lost entries since {rev} ({len(old_log)} before, {len(gf.log)} now)",
                hints=["the log is append-only; use `referee undo` instead of deleting"],
            )
        for i, entry in enumerate(old_log):
            if gf.log[i] != entry:
                raise ReplayError(
                    f"$.log[{i}] (move {i + 1}) changed since {rev}: history was rewritten",
                    hints=["the log is append-only"],
                )
    new_entries = gf.log[len(old_log):]
    if by is not None:
        for entry in new_entries:
            if entry["by"] != by:
                raise ReplayError(
                    f"move {entry['n']} is by {entry['by']}, but only moves by {by} may be "
                    f"added here"
                )
    return len(new_entries)
