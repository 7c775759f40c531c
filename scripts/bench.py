"""Benchmark: start-up, replay, long logs, `check` and `pending`, each figure beside its
anchor in the same run (docs/speed.md holds the table). From the repository root:

    .venv/bin/python -m scripts.bench [--only startup,replay,long,pending,check]
        [--games staufer,dynasties] [--runs 15] [--many 200] [--pending-files 2000]
        [--long 10000]

(``.venv/bin/python scripts/bench.py ...`` works as well.) One run prints the date, the
commit and the machine, then:

- startup: whole processes, alternating, median of ``--runs``: ``python -c pass``,
  the import floor ``python -c "import click, msgspec, jsonschema"`` (the anchor),
  ``referee status FILE --as P`` and ``referee move FILE --as P MOVE`` (each on a fresh
  copy of a new game), wall and CPU time, each as a ratio to the floor. Bytecode is
  written first (PYTHONDONTWRITEBYTECODE is dropped), as an installed package has it.
  ``scripts/bench_installed.py`` times the same in venvs installed from the wheel.
- replay: in process, best CPU time, per move, of the finished 5-player examples
  (already parsed), beside python-chess's cost per ply of the same kind of replay (every
  move checked against the full generated legal list; the [bench] extra).
- long: ``referee status`` of a ``--long``-entry Staufer log of move + undo pairs beside
  one of as many meta records (the anchor), alternating, median of 3.
- pending: ``referee pending`` over ``--pending-files`` files (games cut after every few
  moves): with the cache off (the anchor), cold (empty cache) and cached, alternating,
  median of 3, in files per second of wall time and per CPU-second.
- check: ``referee check`` throughput over ``--many`` finished games in one call.

The run ends with a block headed ``--- for docs/speed.md ---``: the figures as one
Markdown table, each beside its anchor, with the date, the commit and the load.

On a shared machine wall-clock figures move with the load; ratios taken from
alternating runs of the same length move much less, and CPU figures least.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgspec

from referee.engine import Match, get_game, legal_strings
from referee.ledger import gamefile, replay
from referee.ledger.replay import undo_refusal
from scripts.make_examples import play

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
PLAYERS = ["ann", "ben", "cat"]
CHESS_GAMES = 40
CHESS_PLIES = 80  # a typical game's length; random games from the start position


#: the run's figures for docs/speed.md: (what, anchor, ratio, figure), one table row each
TABLE: list[tuple[str, str, str, str]] = []


def row(what: str, anchor: str, ratio: str, figure: str) -> None:
    TABLE.append((what, anchor, ratio, figure))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(cmd: Sequence[str], env: dict[str, str] | None = None,
              before: Callable[[], object] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one command (with its worker processes); ``before`` runs
    first, untimed."""
    if before is not None:
        before()
    cpu0, t0 = children_cpu(), time.perf_counter()
    subprocess.run(cmd, check=False, capture_output=True, env=env or ENV)
    return time.perf_counter() - t0, children_cpu() - cpu0


Case = tuple[list[str], Callable[[], object] | None]  # command, untimed step before it


def alternate(cases: dict[str, Case], runs: int,
              envs: dict[str, dict[str, str]] | None = None) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each case, the cases run in turn ``runs`` times
    (after one untimed warm-up each, which also writes the bytecode); ``envs``: the
    environment of a case, if not this one's."""
    envs = envs or {}
    for name, (cmd, before) in cases.items():
        timed_run(cmd, envs.get(name), before)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, (cmd, before) in cases.items():
            times[name].append(timed_run(cmd, envs.get(name), before))
    return {name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts))
            for name, ts in times.items()}


def ratio_line(label: str, t: tuple[float, float], anchor: tuple[float, float],
               anchor_name: str) -> str:
    return (f"- {label}: {t[0] * 1000:.0f} ms wall, {t[1] * 1000:.0f} ms CPU = "
            f"{t[0] / anchor[0]:.2f}x / {t[1] / anchor[1]:.2f}x {anchor_name}")


def cpu_ms(func: Callable[[], object], runs: int) -> float:
    """Best CPU time of this process over ``runs`` (as timeit advises: other work on a
    shared machine only ever adds time)."""
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        func()
        times.append((time.process_time() - t0) * 1000)
    return min(times)


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def header() -> str:
    """Prints the run's heading; returns its record (date, commit, Python, load)."""
    commit = _git("rev-parse", "--short=12", "HEAD") or "unknown (no git)"
    dirty = " with uncommitted changes" if _git("status", "--porcelain", "--", "referee",
                                                "scripts") else ""
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# referee bench, {now}, commit {commit}{dirty}")
    machine = (f"Python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} "
               f"cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(machine)
    return f"{now}, commit `{commit}`{dirty}, {machine}"


def block(started: str, sections: list[str]) -> str:
    """The run's table for docs/speed.md, each figure beside its anchor."""
    lines = [f"One run of `python -m scripts.bench --only {','.join(sections)}`, {started}, "
             f"{os.getloadavg()[0]:.1f} at the end.", "",
             "| | anchor (same run) | ratio | figure |", "| --- | --- | --- | --- |"]
    lines += [f"| {what} | {anchor} | {ratio} | {figure} |" for what, anchor, ratio, figure
              in TABLE]
    return "\n".join(lines)


# --- start-up ---------------------------------------------------------------------------


def new_game(folder: Path, name: str = "staufer") -> tuple[Path, bytes, str]:
    """A new 3-player game file, its bytes and the first player's first legal move."""
    game = get_game(name)
    data = gamefile.new_data(game, [{"id": p} for p in PLAYERS], {}, {"seed": "bench"},
                             "bench")
    match = Match.start(game, PLAYERS, data["options"], "bench")
    path = folder / "game.json"
    raw = gamefile.dumps(data).encode()
    path.write_bytes(raw)
    return path, raw, legal_strings(game, match.state, game.to_move(match.state)[0])[0]


def bench_startup(runs: int) -> None:
    print(f"## Start-up: whole processes, median of {runs} alternating runs")
    with tempfile.TemporaryDirectory() as tmp:
        path, raw, move = new_game(Path(tmp))
        moved = Path(tmp) / "moved.json"

        def fresh() -> None:
            moved.write_bytes(raw)

        py = sys.executable
        got = alternate({
            "pass": ([py, "-c", "pass"], None),
            "floor": ([py, "-c", "import click, msgspec, jsonschema"], None),
            "status": ([*REFEREE, "status", str(path), "--as", "ann"], None),
            "move": ([*REFEREE, "move", str(moved), "--as", "ann", move], fresh),
            "help": ([*REFEREE, "--help"], None),
        }, runs)
    floor = got["floor"]
    anchor = "the import floor"
    print(ratio_line("`python -c pass`", got["pass"], floor, anchor))
    print(ratio_line("the import floor `python -c \"import click, msgspec, jsonschema\"`",
                     floor, floor, anchor))
    print(ratio_line("`referee status FILE --as ann` (new Staufer game)", got["status"],
                     floor, anchor))
    print(ratio_line(f"`referee move FILE --as ann {move}` (written, fsynced)", got["move"],
                     floor, anchor))
    print(ratio_line("`referee --help` (every command listed)", got["help"], floor, anchor))
    floor_text = (f"import floor `python -c \"import click, msgspec, jsonschema\"` "
                  f"({floor[1] * 1000:.0f} ms CPU, {floor[0] * 1000:.0f} ms wall)")
    for name, what in (("status", "`referee status FILE --as P` (new game), whole process"),
                       ("move", "`referee move FILE --as P MOVE` (written, fsynced)"),
                       ("help", "`referee --help`"), ("pass", "`python -c pass`")):
        wall, cpu = got[name]
        row(what, floor_text if name == "status" else "import floor",
            f"**{cpu / floor[1]:.2f}x CPU**, {wall / floor[0]:.2f}x wall",
            f"{cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall")


# --- replay -----------------------------------------------------------------------------


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

    return cpu_ms(replay_all, 5) * 1000 / sum(map(len, games))


def bench_replay(names: list[str]) -> None:
    print("## Replay in process (best CPU time of 30)")
    chess_us = chess_replay_us()
    print("- python-chess, full legal list per ply (the anchor): " + (
        f"{chess_us:.1f} µs per ply" if chess_us is not None
        else "not measured (pip install -e '.[bench]')"))
    for name in names:
        raw = (ROOT / "examples" / f"{name}-5p.json").read_bytes()
        gf = gamefile.parse(raw)
        gc.collect()  # (the figures below must not pay for garbage made before)
        full = cpu_ms(lambda raw=raw: replay.replay(gamefile.parse(raw)), 30)
        only = cpu_ms(lambda gf=gf: replay.replay(gf), 30)
        per = only * 1000 / len(gf.log)
        versus = f" = {per / chess_us:.1f}x python-chess" if chess_us else ""
        parse_ms = cpu_ms(lambda raw=raw: gamefile.parse(raw), 30)
        row(f"replay per move, finished 5-player example, {get_game(name).title}",
            f"python-chess, full legal list per ply: {chess_us:.0f} µs" if chess_us else
            "python-chess (not installed)", f"{per / chess_us:.2f}x" if chess_us else "",
            f"{per:.0f} µs; parse {parse_ms:.2f} ms = {100 * parse_ms / full:.0f} % of a "
            f"replay with parse")
        print(f"- {get_game(name).title}, finished 5-player example ({len(gf.log)} entries): "
              f"{per:.0f} µs per move{versus}; with parse and schema {full:.1f} ms, of which "
              f"parse (JSON, duplicate keys, format, moves' types) {parse_ms:.2f} ms "
              f"({100 * parse_ms / full:.0f} %)")


# --- long logs --------------------------------------------------------------------------


def _undoable(game: Any, data: dict[str, Any]) -> tuple[str, Any]:
    match = Match.start(game, PLAYERS, data["options"], "long")
    player = game.to_move(match.state)[0]
    for move in game.legal_moves(match.state, player):
        after = Match.start(game, PLAYERS, data["options"], "long")
        after.play(player, move)
        if undo_refusal(after, match) is None:  # the replay's one definition
            return player, move
    raise AssertionError("no first move that can be undone")


def long_logs(folder: Path, count: int) -> tuple[Path, Path]:
    """Two Staufer files of ``count`` entries: move + undo pairs (each followed by another
    player's record: a player takes back at most 5 moves in a row); meta records."""
    game = get_game("staufer")
    files = []
    for kind in ("pairs", "meta"):
        data = gamefile.new_data(game, [{"id": p} for p in PLAYERS], {}, {"seed": "long"},
                                 "long")
        player, move = _undoable(game, data)
        body = msgspec.to_builtins(move)
        while len(data["log"]) < count:
            n = len(data["log"]) + 1
            if kind == "meta":
                entry = {"n": n, "by": "gm", "meta": {"kind": "deadline", "hours": 24}}
            elif n % 3 == 1:
                entry = {"n": n, "by": player, "move": body}
            elif n % 3 == 2:
                entry = {"n": n, "by": player, "undo": n - 1}
            else:  # another player's entry: at most 5 take-backs in a row (replay.py)
                other = next(p for p in PLAYERS if p != player)
                entry = {"n": n, "by": other, "meta": {"kind": "notify", "player": other,
                                                       "mode": ("every", "turn")[n // 3 % 2]}}
            gamefile.append_raw(data, entry)
        path = folder / f"{kind}.json"
        path.write_text(gamefile.dumps(data))
        files.append(path)
    return files[0], files[1]


def bench_long(count: int) -> None:
    print(f"## Long logs: `referee status` of {count} entries, median of 3 alternating runs")
    with tempfile.TemporaryDirectory() as tmp:
        pairs, meta = long_logs(Path(tmp), count)
        got = alternate({"pairs": ([*REFEREE, "status", str(pairs)], None),
                         "meta": ([*REFEREE, "status", str(meta)], None)}, 3)
    anchor = f"{count} meta records"
    print(ratio_line(f"{count} meta records (the anchor)", got["meta"], got["meta"], anchor))
    print(ratio_line(f"{count // 3} move + undo pairs, each with another player's record",
                     got["pairs"], got["meta"], anchor))
    (wall, cpu), (meta_wall, meta_cpu) = got["pairs"], got["meta"]
    row(f"`status` of {count:,} entries of move + undo pairs (each with another player's "
        "record)", f"`status` of {count:,} meta records ({meta_cpu * 1000:.0f} ms CPU)",
        f"**{cpu / meta_cpu:.2f}x CPU**, {wall / meta_wall:.2f}x wall (the target: 2x)",
        f"{cpu * 1000:.0f} ms CPU")


# --- pending and check ------------------------------------------------------------------


def finished_games(folder: Path, names: list[str], many: int) -> list[Path]:
    paths = []
    for i in range(many):
        name = names[i % len(names)]
        path = folder / f"{name}-{i}.json"
        path.write_text(gamefile.dumps(play(name, 3 + i % 3, f"bench-{name}-{i}")))
        paths.append(path)
    return paths


def pending_folder(folder: Path, games: list[Path], count: int) -> Path:
    """``count`` files: the games cut after every few moves (mostly unfinished, all
    different)."""
    out = folder / "pending"
    out.mkdir()
    for i in range(count):
        data = gamefile.parse(games[i % len(games)].read_bytes()).data
        data["log"] = data["log"][:(i * 7) % (len(data["log"]) + 1)]
        (out / f"p{i:05d}.json").write_text(gamefile.dumps(data))
    return out


def bench_pending(names: list[str], count: int) -> None:
    print(f"## `referee pending` over {count} files, median of 3 alternating runs")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pending_folder(Path(tmp), finished_games(Path(tmp), names, 60), count)
        empty = Path(tmp) / "empty"
        empty.mkdir()
        caches = Path(tmp) / "caches"
        cold = {**ENV}
        fresh = iter(range(10**6))

        def empty_cache() -> None:
            cold["REFEREE_CACHE_DIR"] = str(caches / f"cold-{next(fresh)}")

        warm = {**ENV, "REFEREE_CACHE_DIR": str(caches / "warm")}
        cmd = [*REFEREE, "pending", str(folder)]
        got = alternate({"off": (cmd, None), "cold": (cmd, empty_cache),
                         "cached": (cmd, None),
                         "none": ([*REFEREE, "pending", str(empty)], None)}, 3,
                        {"off": {**ENV, "REFEREE_CACHE_DIR": "off"}, "cold": cold,
                         "cached": warm, "none": warm})
    for name, label in (("off", "cache off (the anchor)"), ("cold", "cold cache"),
                        ("cached", "cached")):
        wall, cpu = got[name]
        print(f"- {label}: {count / wall:.0f} files/s ({count / cpu:.0f} per CPU-second) = "
              f"{got['off'][0] / wall:.2f}x the speed with the cache off")
    off = got["off"]
    for name, what in (("cold", "cold cache"), ("cached", "cached")):
        wall, cpu = got[name]
        row(f"`pending`, {count:,} files, {what}",
            f"the cache off: {count / off[0]:.0f} files/s" if name == "cold" else "the cache off",
            f"**{off[0] / wall:.2f}x**", f"{count / wall:,.0f} files/s "
            f"({count / cpu:,.0f} per CPU-second; the target: "
            f"{'as fast as the cache off' if name == 'cold' else '5,000 files/s'})")
    wall = got["cached"][0] - got["none"][0]
    start = f"{got['none'][0] * 1000:.0f} ms over an empty folder"
    print(f"- cached, less the command's start ({start}): " + (
        f"{count / wall:.0f} files/s" if wall > 0 else
        "not measurable in this run (the start varied by more than the work)"))


def bench_check(names: list[str], many: int) -> None:
    print(f"## `referee check` over {many} finished 3-5 player games in one call")
    with tempfile.TemporaryDirectory() as tmp:
        games = finished_games(Path(tmp), names, many)
        wall, cpu = timed_run([*REFEREE, "check", *map(str, games)])
    print(f"- {many / wall:.0f} games/s ({many / cpu:.0f} games per CPU-second)")
    row(f"`check`, {many} finished games, one call", "", "",
        f"{many / wall:.0f} games/s ({many / cpu:.0f} per CPU-second)")


SECTIONS = ("startup", "replay", "long", "pending", "check")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections to run, of {', '.join(SECTIONS)}")
    parser.add_argument("--games", default="staufer,dynasties")
    parser.add_argument("--runs", type=int, default=15, help="start-up runs of each command")
    parser.add_argument("--many", type=int, default=200,
                        help="finished games for the `check` throughput (a repository's worth)")
    parser.add_argument("--pending-files", type=int, default=2000)
    parser.add_argument("--long", type=int, default=10_000, help="entries of the long logs")
    args = parser.parse_args()
    names = args.games.split(",")
    only = args.only.split(",")
    unknown = sorted(set(only) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}")
    started = header()
    for section in SECTIONS:
        if section in only:
            {"startup": lambda: bench_startup(args.runs),
             "replay": lambda: bench_replay(names),
             "long": lambda: bench_long(args.long),
             "pending": lambda: bench_pending(names, args.pending_files),
             "check": lambda: bench_check(names, args.many)}[section]()
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    print("\n--- for docs/speed.md ---\n")
    print(block(started, [s for s in SECTIONS if s in only]))


if __name__ == "__main__":
    main()
