"""Benchmark: `referee views` (the publish job's players' views) after one move, against
the size of the archive. Figures go in docs/speed.md.

    .venv/bin/python -m scripts.bench_views_scale [--sizes 50,500,2000] [--huge]

For each size, a git repository of that many sealed Staufer games (3 players, their
seeds derived from one REFEREE_SECRET, no move played; made in one process), an
allowed-signers file with a key for two of the three players (ssh-keygen), and a first
`referee views games/*.json --out views` that writes every view. Then, three times, one
game gains one move through `referee move` and `referee views` runs again, as its own
process, after the file system is synced (the write-back of the first run's hundreds of
megabytes of views is not charged to a run after it): printed per size are the first
run's time, the median of the three runs after one move with its peak memory, and its
ratio to the smallest size; at the end the fitted exponent (least squares of log time
against log size). ``--huge`` adds 10,000.
The referee package is byte-compiled first (see scripts/bench_site_scale.py).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import secrets
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.bench_site_scale import REFEREE, ROOT, measure, run_sizes


def make_repo(repo: Path, count: int, env: dict[str, str]) -> None:
    """``count`` sealed games in ``repo``/games, and the players' keys."""
    from click.testing import CliRunner

    from referee.cli import main

    (repo / "games").mkdir(parents=True)
    (repo / ".referee").mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    str(repo.parent / f"key-{count}")], check=True)
    key = " ".join((repo.parent / f"key-{count}.pub").read_text().split()[:2])
    (repo / ".referee" / "allowed_signers").write_text(f"ann {key}\nben {key}\n")
    runner = CliRunner()
    for i in range(count):
        result = runner.invoke(main, ["new", "staufer", str(repo / "games" / f"g{i:05d}.json"),
                                      "--players", "ann,ben,cat", "--sealed",
                                      "--id", f"g{i:05d}"], env=env)
        if result.exit_code:
            raise SystemExit(result.output)


def one_move(path: Path, env: dict[str, str]) -> None:
    status = subprocess.run([*REFEREE, "status", str(path), "--json"], env=env, check=True,
                            capture_output=True, text=True)
    player = json.loads(status.stdout)["to_move"][0]
    mine = subprocess.run([*REFEREE, "status", str(path), "--as", player, "--json"], env=env,
                          check=True, capture_output=True, text=True)
    legal = json.loads(mine.stdout)["legal"][0]
    subprocess.run([*REFEREE, "move", str(path), "--as", player, legal], env=env, check=True,
                   capture_output=True)


def run_size(base: Path, count: int, repeats: int) -> dict[str, Any]:
    repo = base / f"repo-{count}"
    env = {**os.environ, "REFEREE_SECRET": secrets.token_hex(32),
           "REFEREE_CACHE_DIR": str(base / f"cache-{count}")}
    make_repo(repo, count, env)
    files = sorted(str(p) for p in (repo / "games").glob("*.json"))
    command = [*REFEREE, "views", *files, "--out", str(repo / "views")]
    first, _ = measure(command, env)
    times, mems = [], []
    for _ in range(repeats):
        one_move(Path(files[count // 2]), env)
        os.sync()
        seconds, mem = measure(command, env)
        times.append(seconds)
        mems.append(mem)
    return {"size": count, "first": first, "rebuild": statistics.median(times),
            "rebuild_mem": max(mems), "rebuilds": times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="50,500,2000")
    parser.add_argument("--huge", action="store_true", help="add 10,000 games")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([10_000] if args.huge else [])
    compileall.compile_dir(str(ROOT / "referee"), quiet=1)
    run_sizes(sizes, "bench-views-", lambda base, count: run_size(base, count, args.repeats),
              lambda row: (f"first run {row['first']:7.2f} s | after one move "
                           f"{row['rebuild']:6.3f} s {row['rebuild_mem']:5.0f} MiB"),
              "`views`")

if __name__ == "__main__":
    main()
