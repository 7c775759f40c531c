"""Benchmark: pictures and the site. Figures go in docs/speed.md and docs/pictures.md.

    .venv/bin/python -m scripts.bench_pictures [--games 50] [--workers N]  (from the root)

Measures: drawing one SVG from a view (median over every position of the finished
5-player examples, both games; the view is taken first and not timed), the same with
its PNG, `referee show FILE --svg OUT` as a whole process, the mails' tiles (what a
judge with the picture cache renders per decision over a whole game: only the tiles the
decision changed), and `referee site` over ``--games`` finished games (Staufer 2-5 and
Dynasties 3-5 players in turn), in process.
Budget: one SVG in at most 30 ms; the site of 50 finished games in at most 30 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run by path: make `scripts`, `tests` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.ledger import gamefile
from referee.pages.positions import positions
from referee.pages.site import build_site
from referee.pictures import draw_svg, svg_to_png
from referee.pictures.changes import Marks
from scripts.make_examples import play

ROOT = Path(__file__).resolve().parent.parent
MIX = [("staufer", 2), ("staufer", 3), ("staufer", 4), ("staufer", 5),
       ("dynasties", 3), ("dynasties", 4), ("dynasties", 5)]


def per_svg(name: str) -> None:
    gf = gamefile.read(ROOT / "examples" / f"{name}-5p.json")
    steps = positions(gf, None)
    draw, cpu, png = [], [], []
    previous = None
    for i, step in enumerate(steps):
        marks = Marks.between(previous, step.view)
        t0, c0 = time.perf_counter(), time.process_time()
        svg = draw_svg(step.view, marks, step.n - 1 if step.n else None)
        t1, c1 = time.perf_counter(), time.process_time()
        if i % 10 == 0:
            svg_to_png(svg)
            png.append((time.process_time() - c1) * 1000)
        draw.append((t1 - t0) * 1000)
        cpu.append((c1 - c0) * 1000)
        previous = step.view
    print(f"- {name}: {len(steps)} positions; one SVG: median {statistics.median(draw):.1f} ms "
          f"wall ({statistics.median(cpu):.1f} ms CPU), max {max(draw):.1f} ms wall; "
          f"SVG to PNG: median {statistics.median(png):.0f} ms CPU")
    example = ROOT / "examples" / f"{name}-5p.json"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "referee", "show", str(example), "--since", "100",
               "--svg", str(Path(tmp) / "b.svg")]
        walls = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            walls.append((time.perf_counter() - t0) * 1000)
        print(f"  `referee show FILE --since 100 --svg OUT`: {statistics.median(walls):.0f} ms "
              "wall")


def mail_tiles(name: str) -> None:
    """The tiles of a judge's mails over every position of a finished example: how many
    a decision changes (those a judge with its cache renders), their CPU and size."""
    from referee.pictures.tiles import tiles

    gf = gamefile.read(ROOT / "examples" / f"{name}-3p.json")
    steps = positions(gf, None)
    known: dict[str, str] = {}
    renders, cpu, size = 0, 0.0, 0
    whole = [t for t in tiles(steps[0].view) if t.svg]
    for step in steps:
        for tile in tiles(step.view):
            if tile.svg and known.get(tile.name) != tile.svg:
                c0 = time.process_time()
                size += len(svg_to_png(tile.svg))
                cpu += time.process_time() - c0
                renders += 1
                known[tile.name] = tile.svg
    decisions = len(steps) - 1
    print(f"- {name} 3 players, mail tiles: {len(whole)} a board; {renders} renders over "
          f"{decisions} log entries ({(renders - len(whole)) / decisions:.2f} a decision), "
          f"{cpu * 1000 / renders:.0f} ms CPU and {size / renders / 1024:.1f} KB a tile, "
          f"{(cpu * 1000) / decisions:.0f} ms CPU a decision")


def site(count: int, workers: int | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games"
        games.mkdir()
        moves = 0
        for i in range(count):
            name, n = MIX[i % len(MIX)]
            data = play(name, n, f"bench-{i}")
            moves += len(data["log"])
            (games / f"{i:02d}-{name}-{n}p.json").write_text(gamefile.dumps(data))
        cpu0 = _cpu()
        t0 = time.perf_counter()
        build_site(games, Path(tmp) / "site", workers=workers)
        took = time.perf_counter() - t0
        cpu = _cpu() - cpu0
        files = sum(1 for _ in (Path(tmp) / "site").rglob("*.svg"))
    print(f"- site of {count} finished games ({moves} moves, {files} SVG pictures), "
          f"{workers or os.cpu_count()} worker(s): {took:.1f} s wall, {cpu:.1f} s CPU "
          f"({cpu * 1000 / files:.1f} ms CPU per position)")


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the site's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--site-only", action="store_true", help="skip the single pictures")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}")
    if not args.site_only:
        print("## One picture (finished 5-player examples)")
        for name in ("staufer", "dynasties"):
            per_svg(name)
        print("## The mails' tiles (finished 3-player examples)")
        for name in ("staufer", "dynasties"):
            mail_tiles(name)
    print("## The site")
    site(args.games, args.workers)


if __name__ == "__main__":
    main()
