"""Scale bench: does a command's cost follow the change or the archive? Figures go in
docs/speed.md ("Cost follows the change").

    .venv/bin/python -m scripts.bench_scale [--sizes 50,500,2000,10000] [--rounds 3]
        [--only check]

For each size it builds, in a temporary directory, a repository of that many games
(copies of the example files under fresh ids, every other one cut short so that it is
still running; the JSON written directly with the library's gamefile helpers, the hash
chain recomputed, no game played), commits them, then lets one running game gain its
next move in a second commit, and times each command with an empty HOME and XDG cache
directory (a fresh CI runner; `pending` and `ratings` also warm: with the cache that one
untimed run filled): the best of ROUNDS wall times, the peak memory of the process
(wait4's ru_maxrss), the exponent of time against size fitted on a log-log scale
and the ratio to the smallest size. The build is timed too: 10,000 games take about 7 s
on 2 cores, so they are in the default sizes.

One function per command (``bench_<name>``, listed in COMMANDS), chosen with ``--only``;
another command's section is one more function over the same repositories.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ledger import gamefile

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
REFEREE = str(Path(sys.executable).with_name("referee"))


@dataclass
class Archive:
    """A built repository: its root, the game that gained a move, how long it took."""

    root: Path
    games: int
    changed: Path
    build_seconds: float


@dataclass
class Timing:
    seconds: float
    maxrss_kib: int


# --- building -------------------------------------------------------------------------


def chained(data: dict[str, Any], log: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``data`` with ``log`` as its log, each entry's ``prev`` recomputed."""
    out = {**data, "log": []}
    for entry in log:
        out["log"].append({**entry, "prev": gamefile.next_prev(out)})
    return out


def game_copy(template: dict[str, Any], i: int) -> tuple[dict[str, Any], list[Any]]:
    """Game ``i``: ``template`` under a fresh id; odd ones cut short (still running).
    Returns the data and the entries it has not played yet."""
    log = template["log"]
    cut = len(log) if i % 2 == 0 else max(1, (len(log) * (i % 7 + 1)) // 9)
    data = chained({**template, "id": f"g{i:05d}-{template['id']}"[:64]}, log[:cut])
    return data, log[cut:]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_DATE": "2026-12-01T00:00:00Z",
                        "GIT_COMMITTER_DATE": "2026-12-01T00:00:00Z"})


def build(where: Path, games: int) -> Archive:
    """A repository of ``games`` games in one commit, then one move in a second."""
    started = time.perf_counter()
    templates = [json.loads(p.read_bytes()) for p in EXAMPLES]
    root = where / f"repo-{games}"
    (root / "games").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.org")
    git(root, "config", "user.name", "bench")
    pending: tuple[Path, dict[str, Any], dict[str, Any]] | None = None
    for i in range(games):
        data, rest = game_copy(templates[i % len(templates)], i)
        path = root / "games" / f"{data['id']}.json"
        path.write_text(gamefile.dumps(data))
        if rest and pending is None and i >= games // 2:
            pending = (path, data, rest[0])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{games} games")
    assert pending is not None
    path, data, entry = pending
    path.write_text(gamefile.dumps(chained(data, [*data["log"], entry])))
    git(root, "commit", "-q", "-am", "one move")
    return Archive(root, games, path, time.perf_counter() - started)


# --- timing ---------------------------------------------------------------------------


def run_in(args: Sequence[str], cwd: Path, home: Path) -> Timing:
    """One run of ``args`` with HOME (and the XDG cache, config and state folders under
    it) at ``home``: wall time and peak memory."""
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    for var in ("CI", "REFEREE_CACHE_DIR"):
        env.pop(var, None)
    started = time.perf_counter()
    proc = subprocess.Popen(list(args), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd}: {err.decode()[-400:]}")
    return Timing(seconds, int(usage.ru_maxrss))


def run_fresh(args: Sequence[str], cwd: Path) -> Timing:
    """One run of ``args`` with an empty HOME and cache: wall time and peak memory."""
    with tempfile.TemporaryDirectory(prefix="bench-home-") as home:
        return run_in(args, cwd, Path(home))


def best(args: Sequence[str], cwd: Path, rounds: int) -> Timing:
    runs = [run_fresh(args, cwd) for _ in range(rounds)]
    return Timing(min(r.seconds for r in runs), max(r.maxrss_kib for r in runs))


def best_warm(args: Sequence[str], cwd: Path, rounds: int) -> Timing:
    """The best of ``rounds`` runs in one HOME whose cache one untimed run filled first."""
    with tempfile.TemporaryDirectory(prefix="bench-home-") as home:
        run_in(args, cwd, Path(home))
        runs = [run_in(args, cwd, Path(home)) for _ in range(rounds)]
    return Timing(min(r.seconds for r in runs), max(r.maxrss_kib for r in runs))


def exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """The slope of log(time) against log(size), least squares."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


# --- the commands ---------------------------------------------------------------------


def bench_check(archives: Sequence[Archive], rounds: int) -> list[str]:
    """`referee check --since HEAD^`, and with the changed file named."""
    lines = []
    for label, named in (("check --since HEAD^", False), ("check --since HEAD^ FILE", True)):
        rows = []
        for a in archives:
            args = [REFEREE, "check", "--since", "HEAD^"]
            if named:
                args.append(str(a.changed.relative_to(a.root)))
            rows.append((a.games, best(args, a.root, rounds)))
        lines += report(label, rows)
    return lines


READ_ALL = [sys.executable, "-c", "import pathlib\n"
            "for p in sorted(pathlib.Path('games').glob('*.json')): p.read_bytes()"]


def bench_folder(label: str, command: Sequence[str], archives: Sequence[Archive],
                 rounds: int) -> list[str]:
    """``command`` over the whole folder of games with an empty cache (cold) and with
    the cache one untimed run filled (warm), beside reading the folder's bytes in one
    Python process (the anchor: the least a command over every game must do)."""
    args = [*command, "games"]
    cold = [(a.games, best(args, a.root, rounds)) for a in archives]
    warm = [(a.games, best_warm(args, a.root, rounds)) for a in archives]
    anchors = [(a.games, best(READ_ALL, a.root, rounds)) for a in archives]
    lines = report(f"{label} (cache empty)", cold) + report(f"{label} (cache filled)", warm)
    lines += report("anchor: reading every game file's bytes", anchors)
    lines += [f"  {n:>6} games  cold {c.seconds / r.seconds:5.1f}x the anchor, warm "
              f"{w.seconds / r.seconds:5.1f}x"
              for (n, c), (_, w), (_, r) in zip(cold, warm, anchors, strict=True)]
    return lines


def bench_pending(archives: Sequence[Archive], rounds: int) -> list[str]:
    """`referee pending games`: every file read and replayed once (cold), or read,
    hashed and found in the cache (warm)."""
    return bench_folder("pending games", [REFEREE, "pending"], archives, rounds)


def bench_ratings(archives: Sequence[Archive], rounds: int) -> list[str]:
    """`referee ratings games`: every finished game replayed (cold), or each file's
    result found in the cache (warm), then rated."""
    return bench_folder("ratings games", [REFEREE, "ratings"], archives, rounds)


COMMANDS: dict[str, Callable[[Sequence[Archive], int], list[str]]] = {
    "check": bench_check,
    "pending": bench_pending,
    "ratings": bench_ratings,
}


def report(label: str, rows: Sequence[tuple[int, Timing]]) -> list[str]:
    first = rows[0][1].seconds
    fit = exponent([n for n, _ in rows], [t.seconds for _, t in rows])
    out = [f"{label}: exponent {fit:.2f}"]
    out += [f"  {n:>6} games  {t.seconds * 1000:7.0f} ms  {t.seconds / first:5.2f}x  "
            f"peak {t.maxrss_kib / 1024:6.1f} MiB" for n, t in rows]
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,500,2000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(COMMANDS),
                        help=f"comma-separated, of: {', '.join(COMMANDS)}")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    chosen = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in COMMANDS]
    if unknown:
        parser.error(f"unknown command(s) {', '.join(unknown)}: choose from "
                     f"{', '.join(COMMANDS)}")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        archives = []
        for n in sizes:
            archives.append(build(Path(tmp), n))
            print(f"built {n} games in {archives[-1].build_seconds:.1f} s", flush=True)
        print(f"# {time.strftime('%Y-%m-%d')}, commit {commit}, load "
              f"{os.getloadavg()[0]:.2f}, {len(os.sched_getaffinity(0))} cores, best of "
              f"{args.rounds}, empty HOME and cache each run (warm: filled by one untimed run)")
        for name in chosen:
            for line in COMMANDS[name](archives, args.rounds):
                print(line, flush=True)


if __name__ == "__main__":
    main()
