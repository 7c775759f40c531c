"""Benchmark: replay, playouts, `status`, `check` and `pending` costs. Figures go in the
README.

    .venv/bin/python scripts/bench.py [--games staufer,dynasties] [--many 200]
        [--pending-files 400] [--throughput-only]

Measures, per game: in-process parse + schema validation + full replay (every move
checked against the generated legal moves) of the finished 5-player example; the same
without parsing, per move, next to python-chess's cost per ply for the same kind of
replay (with the [bench] extra); one full 4-player random playout (the bots' unit of
search); wall time of `referee status` and `referee check` as subprocesses next
to Python's bare start and the import of the CLI; and `check` throughput over many
finished games, in process and through one CLI call; and the two throughput figures
for repositories with many games: `check` over many finished games of both games in one
call (games/s), and `pending` over many files (files/s; cold = empty cache, warm = every
file seen before). On a shared machine wall-clock figures move with the load, so each
throughput is also given per CPU-second (user + system time of the command and its
worker processes).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from referee import gamefile
from referee.engine import get_game
from scripts.bench_bots import playouts
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


def cpu_ms(func: Callable[[], object], runs: int) -> float:
    """Best CPU time of this process over ``runs`` (as timeit advises: other work on a
    shared machine only ever adds time)."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        func()
        times.append((time.process_time() - t0) * 1000)
    return min(times)


def wall_ms(cmd: list[str], runs: int = 7) -> float:
    return median_ms(lambda: subprocess.run(cmd, check=False, capture_output=True), runs)


CHESS_GAMES = 40
PER_GAME = 40  # finished games per game for the per-game `check` figures
CHESS_PLIES = 80  # a typical game's length; random games from the start position


def chess_replay_us() -> float | None:
    """python-chess's cost per ply of a replay that generates the full legal-move list
    and checks each move is in it (the yardstick for our replay), or None without it."""
    try:
        import chess
    except ImportError:
        return None
    import random  # a benchmark's move picker, not the engine's

    picker = random.Random(1)
    games: list[list[chess.Move]] = []
    for _ in range(CHESS_GAMES):
        board, moves = chess.Board(), []
        while len(moves) < CHESS_PLIES and not board.is_game_over():
            moves.append(picker.choice(list(board.legal_moves)))
            board.push(moves[-1])
        games.append(moves)

    def replay_all() -> None:
        for moves in games:
            board = chess.Board()
            for move in moves:
                if move not in list(board.legal_moves):
                    raise AssertionError("illegal")
                board.push(move)

    plies = sum(map(len, games))
    return cpu_ms(replay_all, 5) * 1000 / plies


def bench_game(name: str, many: int) -> None:
    game = get_game(name)
    example = ROOT / "examples" / f"{name}-5p.json"
    raw = example.read_bytes()
    gf = gamefile.parse(raw)
    moves = len(gf.log)
    gc.collect()  # (the figures below must not pay for garbage made before)
    full = cpu_ms(lambda: gamefile.replay(gamefile.parse(raw)), 30)
    replay_only = cpu_ms(lambda: gamefile.replay(gf), 30)
    print(f"## {game.title}: finished 5-player example, {moves} log entries")
    print(f"- replay in process (parse + schema + legality of every move): {full:.1f} ms CPU")
    parse_ms = cpu_ms(lambda: gamefile.parse(raw), 30)
    print(f"- of which parse (JSON, duplicate keys, format, moves' types): {parse_ms:.2f} ms "
          f"CPU ({100 * parse_ms / full:.0f} %)")
    print(f"- replay in process (already parsed): {replay_only:.1f} ms CPU "
          f"({replay_only * 1000 / moves:.0f} µs per move)")
    batches = [playouts(name, 20) for _ in range(5)]
    best = max(b["playouts_per_cpu_s"] for b in batches)
    print(f"- one full 4-player random playout from setup "
          f"({batches[0]['moves_per_playout']} moves): {1000 / best:.1f} ms CPU, best of 5 "
          f"batches of 20 ({best:.0f} playouts per CPU-second)")
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


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one command (with its worker processes)."""
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=False, capture_output=True, env=env)
    return time.perf_counter() - t0, children_cpu() - cpu0


def finished_games(folder: Path, names: list[str], many: int) -> list[Path]:
    paths = []
    for i in range(many):
        name = names[i % len(names)]
        path = folder / f"{name}-{i}.json"
        path.write_text(gamefile.dumps(play(name, 3 + i % 3, f"bench-{name}-{i}")))
        paths.append(path)
    return paths


def bench_throughput(names: list[str], many: int, pending_files: int) -> None:
    """`check` over ``many`` finished games; `pending` over ``pending_files`` files (the
    games cut after every few moves: mostly unfinished, all different)."""
    with tempfile.TemporaryDirectory() as tmp:
        games = finished_games(Path(tmp), names, many)
        wall, cpu = timed_run([*REFEREE, "check", *map(str, games)])
        print(f"- `check` throughput, {many} finished 3-5 player games "
              f"({', '.join(names)}) in one call: {many / wall:.0f} games/s "
              f"({many / cpu:.0f} games per CPU-second)")
        folder = Path(tmp) / "pending"
        folder.mkdir()
        count = 0
        while count < pending_files:
            data = gamefile.parse(games[count % len(games)].read_bytes()).data
            cut = (count * 7) % (len(data["log"]) + 1)
            data["log"] = data["log"][:cut]
            (folder / f"p{count:05d}.json").write_text(gamefile.dumps(data))
            count += 1
        env = {**os.environ, "REFEREE_CACHE_DIR": str(Path(tmp) / "cache")}
        cold = timed_run([*REFEREE, "pending", str(folder)], env)
        warm = min((timed_run([*REFEREE, "pending", str(folder)], env) for _ in range(3)),
                   key=lambda t: t[0])
        print(f"- `pending` throughput, {count} files: cold cache {count / cold[0]:.0f} "
              f"files/s ({count / cold[1]:.0f} per CPU-second), warm cache "
              f"{count / warm[0]:.0f} files/s ({count / warm[1]:.0f} per CPU-second)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="staufer,dynasties")
    parser.add_argument("--many", type=int, default=200,
                        help="finished games for the `check` throughput (a repository's worth)")
    parser.add_argument("--pending-files", type=int, default=400)
    parser.add_argument("--throughput-only", action="store_true")
    args = parser.parse_args()
    names = args.games.split(",")
    print(f"Python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.throughput_only:
        bench_throughput(names, args.many, args.pending_files)
        return
    print(f"- bare `python -c pass`: {wall_ms([sys.executable, '-c', 'pass']):.0f} ms wall")
    print(f"- `python -c 'import referee.cli'`: "
          f"{wall_ms([sys.executable, '-c', 'import referee.cli']):.0f} ms wall")
    print(f"- `referee --version`: {wall_ms([*REFEREE, '--version']):.0f} ms wall")
    chess_us = chess_replay_us()
    print("- python-chess replay with the full legal list, per ply: " + (
        f"{chess_us:.0f} µs" if chess_us is not None
        else "not measured (pip install -e '.[bench]')"))
    for name in names:
        bench_game(name, PER_GAME)
    bench_throughput(names, args.many, args.pending_files)


if __name__ == "__main__":
    main()
