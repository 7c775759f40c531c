"""Benchmark: replay, `status` and `check` costs. Figures go in the README.

    .venv/bin/python scripts/bench.py [--games staufer,dynasties] [--many 40]

Measures, per game: in-process parse + schema validation + full replay (every move
checked against the generated legal moves) of the finished 5-player example; the same
without parsing; wall time of `referee status` and `referee check` as subprocesses next
to Python's bare start and the import of the CLI; and `check` throughput over many
finished games, in process and through one CLI call.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from referee import gamefile
from referee.engine import get_game
from scripts.make_examples import play

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]


def median_ms(func: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        func()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def wall_ms(cmd: list[str], runs: int = 7) -> float:
    return median_ms(lambda: subprocess.run(cmd, check=False, capture_output=True), runs)


def bench_game(name: str, many: int) -> None:
    game = get_game(name)
    example = ROOT / "examples" / f"{name}-5p.json"
    raw = example.read_bytes()
    gf = gamefile.parse(raw)
    moves = len(gf.log)
    full = median_ms(lambda: gamefile.replay(gamefile.parse(raw)), 30)
    replay_only = median_ms(lambda: gamefile.replay(gf), 30)
    print(f"## {game.title}: finished 5-player example, {moves} log entries")
    print(f"- replay in process (parse + schema + legality of every move): {full:.1f} ms")
    print(f"- replay in process (already parsed): {replay_only:.1f} ms "
          f"({replay_only * 1000 / moves:.0f} µs per move)")
    print(f"- `referee status FILE`: {wall_ms([*REFEREE, 'status', str(example)]):.0f} ms wall")
    print(f"- `referee check FILE`: {wall_ms([*REFEREE, 'check', str(example)]):.0f} ms wall")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(many):
            data = play(name, 3 + i % 3, f"bench-{name}-{i}")
            path = Path(tmp) / f"g{i}.json"
            path.write_text(gamefile.dumps(data))
            paths.append(path)
        t0 = time.perf_counter()
        for path in paths:
            gamefile.replay(gamefile.read(path))
        inproc = many / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run([*REFEREE, "check", *map(str, paths)], check=True, capture_output=True)
        cli = many / (time.perf_counter() - t0)
    print(f"- `check` throughput over {many} finished 3-5 player games: "
          f"{inproc:.0f} games/s in process, {cli:.0f} games/s in one `referee check` call")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="staufer,dynasties")
    parser.add_argument("--many", type=int, default=40)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    print(f"- bare `python -c pass`: {wall_ms([sys.executable, '-c', 'pass']):.0f} ms wall")
    print(f"- `python -c 'import referee.cli'`: "
          f"{wall_ms([sys.executable, '-c', 'import referee.cli']):.0f} ms wall")
    print(f"- `referee --version`: {wall_ms([*REFEREE, '--version']):.0f} ms wall")
    for name in args.games.split(","):
        bench_game(name, args.many)


if __name__ == "__main__":
    main()
