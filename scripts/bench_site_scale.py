"""Benchmark: `referee site` after one move, against the size of the archive. Figures go
in docs/speed.md and docs/pictures.md.

    .venv/bin/python -m scripts.bench_site_scale [--sizes 50,500,2000] [--huge] [--moves 6]

For each size, a folder of that many games is made cheaply: the four example files
(examples/*.json) in turn, each copy with a fresh id, its log cut to its first
``--moves`` entries and its hash chain written again, straight as JSON (no game is
played). Then, each as its own process with a cache folder of its own (where the site's
record is kept, as on a game master's machine): a full `referee site` build, and three
times one game gaining one move through `referee move` and the site built again. Printed
per size: the full build's time and peak memory, the rebuild's median time and peak
memory, the rebuild's ratio to the 50-game run, and at the end the fitted exponent of the
rebuild (least squares of log time against log size). ``--huge`` adds 10,000 games.
Done-bar (issue 31): an exponent of at most 0.2 from 50 to 10,000 games.

The referee package is byte-compiled first (``compileall``): with PYTHONDONTWRITEBYTECODE
set, as on some machines, every `referee` process would otherwise compile its modules
from source, a constant ~0.1 s that is not the archive's cost (and that an installed
package never pays).
"""

from __future__ import annotations

import argparse
import compileall
import copy
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ledger import gamefile, replay

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
REFEREE = [sys.executable, "-m", "referee"]
# One child's peak memory: the wrapper runs the command and reads RUSAGE_CHILDREN.
MEASURE = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
           "r = subprocess.run(sys.argv[1:], capture_output=True); "
           "d = time.perf_counter() - t; "
           "sys.stderr.write(r.stderr.decode()) if r.returncode else None; "
           "print(d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)")


def make_folder(folder: Path, count: int, moves: int) -> None:
    """``count`` game files from the examples, each with a fresh id and a fresh chain."""
    folder.mkdir(parents=True)
    sources = [json.loads(p.read_text()) for p in EXAMPLES]
    for i in range(count):
        data = copy.deepcopy(sources[i % len(sources)])
        data["id"] = f"g{i:05d}-{data['game']}"
        log, data["log"] = data["log"][:moves], []
        for entry in log:
            entry["prev"] = gamefile.next_prev(data)
            data["log"].append(entry)
        (folder / f"{data['id']}.json").write_text(json.dumps(data, indent=1))


def measure(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds and peak MiB of one command, as its own process."""
    done = subprocess.run([sys.executable, "-c", MEASURE, *args], env=env, check=True,
                          capture_output=True, text=True)
    seconds, kib, rc = done.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(args)} failed ({rc}): {done.stderr}")
    return float(seconds), int(kib) / 1024


def one_move(path: Path, env: dict[str, str]) -> None:
    match = replay.replay(gamefile.read(path))
    player = match.game.to_move(match.state)[0]
    legal = match.game.format_move(match.game.legal_moves(match.state, player)[0])
    subprocess.run([*REFEREE, "move", str(path), "--as", player, legal], env=env,
                   check=True, capture_output=True)


def run_size(base: Path, count: int, moves: int, repeats: int) -> dict[str, Any]:
    folder, out = base / f"games-{count}", base / f"site-{count}"
    make_folder(folder, count, moves)
    env = {**os.environ, "REFEREE_CACHE_DIR": str(base / f"cache-{count}")}
    full, full_mem = measure([*REFEREE, "site", str(folder), "-o", str(out)], env)
    times, mems = [], []
    target = sorted(folder.glob("*.json"))[count // 2]
    for _ in range(repeats):
        one_move(target, env)
        seconds, mem = measure([*REFEREE, "site", str(folder), "-o", str(out)], env)
        times.append(seconds)
        mems.append(mem)
    shutil.rmtree(out)
    shutil.rmtree(folder)
    return {"size": count, "full": full, "full_mem": full_mem,
            "rebuild": statistics.median(times), "rebuild_mem": max(mems),
            "rebuilds": times}


def exponent(rows: list[dict[str, Any]]) -> float:
    xs = [math.log(r["size"]) for r in rows]
    ys = [math.log(r["rebuild"]) for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
            / sum((x - mx) ** 2 for x in xs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,500,2000")
    parser.add_argument("--huge", action="store_true", help="add 10,000 games")
    parser.add_argument("--moves", type=int, default=6, help="log entries kept per game")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([10_000] if args.huge else [])
    compileall.compile_dir(str(ROOT / "referee"), quiet=1)
    run_sizes(sizes, "bench-site-",
              lambda base, count: run_size(base, count, args.moves, args.repeats),
              lambda row: (f"full {row['full']:7.2f} s {row['full_mem']:6.0f} MiB | after one "
                           f"move {row['rebuild']:6.3f} s {row['rebuild_mem']:5.0f} MiB"),
              "the rebuild")


def run_sizes(sizes: list[int], prefix: str, run: Callable[[Path, int], dict[str, Any]],
              line: Callable[[dict[str, Any]], str], what: str) -> None:
    """Each size run in one temporary folder (``run`` gives its row, with ``rebuild``:
    the median after one move, and ``rebuilds``: each of them), printed by ``line``
    beside its ratio to the first size; then the fitted exponent of ``what``."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for count in sizes:
            start = time.perf_counter()
            row = run(Path(tmp), count)
            rows.append(row)
            ratio = row["rebuild"] / rows[0]["rebuild"]
            print(f"{count:6d} games: {line(row)} ({ratio:4.2f}x the {sizes[0]}-game run)"
                  f"  [{time.perf_counter() - start:.0f} s in all; each after one move: "
                  f"{', '.join(f'{t:.3f}' for t in row['rebuilds'])} s]", flush=True)
    if len(rows) > 1:
        print(f"fitted exponent of {what} after one move, {sizes[0]} to {sizes[-1]}: "
              f"{exponent(rows):.3f}")

if __name__ == "__main__":
    main()
