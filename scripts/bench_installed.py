"""Benchmark: start-up of `referee status` and `referee move` in venvs installed from the
wheel, beside the editable venv that runs this script, each against its own import floor.
From the repository root (the ``[test]`` extra has ``build``):

    .venv/bin/python -m scripts.bench_installed [--runs 15] [--keep DIR]

It copies the source tree (without ``.git``, ``.venv``, ``build/``: a stale ``build/lib``
would put deleted modules into the wheel), builds the wheel (``python -m build --wheel``)
and installs it with pip, with its dependencies from the index, into fresh venvs:

- ``wheel``: pip's default, every module's bytecode compiled at install;
- ``wheel --no-compile``: no bytecode at install; Python writes it on the first run (the
  untimed warm-up), as it does wherever site-packages is writable;
- ``wheel --no-compile, no bytecode ever``: the same with ``PYTHONDONTWRITEBYTECODE=1``
  on every run (a read-only site-packages installed without bytecode, or an image that
  sets the variable): every start compiles every module it imports from source;
- ``editable source copy, no bytecode ever``: the wheel's dependencies (compiled), the
  source copy installed over it with ``pip install -e``, every run with
  ``PYTHONDONTWRITEBYTECODE=1``: a fresh checkout where Python never writes the referee's
  bytecode (the variable set in the shell), so every start compiles the referee's modules;
- ``editable``: this venv (``pip install -e``: its ``.pth`` file and the editable finder
  run at every start, the floor's as well), bytecode written as usual.

In each venv the console script (``VENV/bin/referee``, what a player runs) is timed
beside that venv's ``python -c "import click, msgspec, jsonschema"`` (and ``python -c
"import click, msgspec"``, what the two commands cannot do without): whole processes,
run in a folder outside the source tree, every command of every venv in turn
``--runs`` times (so load hits all alike), the median of each; the ratio is CPU time
(the process and its children) to the same venv's floor. It ends with a block headed
``--- for docs/speed.md ---``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run by path: make `scripts` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.bench import ENV, ROOT, alternate, header, new_game

FLOOR = "import click, msgspec, jsonschema"
#: what `status` and `move` cannot do without: the interpreter, click and msgspec
UNAVOIDABLE = "import click, msgspec"
WHAT = ("floor", "deps", "status", "move")
NO_BYTECODE = {**ENV, "PYTHONDONTWRITEBYTECODE": "1"}
#: the kinds of venv: name -> (pip install options, environment of every timed run); the
#: options ``-e`` install the source copy editable over the wheel (its dependencies)
KINDS: dict[str, tuple[list[str], dict[str, str]]] = {
    "wheel": ([], ENV),
    "wheel --no-compile": (["--no-compile"], ENV),
    "wheel --no-compile, no bytecode ever": (["--no-compile"], NO_BYTECODE),
    "editable source copy, no bytecode ever": (["-e"], NO_BYTECODE),
}
_SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                               ".*_cache", "runs", "site")


def _run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env or ENV)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def build_wheel(work: Path) -> Path:
    """The wheel of the current source tree (a clean copy of it), in ``work/dist``."""
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_SKIP, dirs_exist_ok=True)
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"),
          str(source)])
    (wheel,) = (work / "dist").glob("referee-*.whl")
    return wheel


def make_venv(where: Path, wheel: Path, options: list[str]) -> Path:
    """A fresh venv with the wheel installed by pip (``options`` added; ``-e``: then the
    source copy beside the wheel, editable, over it); its bin folder."""
    if not (where / "bin" / "referee").exists():
        _run([sys.executable, "-m", "venv", str(where)])
        pip = [str(where / "bin" / "python"), "-m", "pip", "install", "-q"]
        if options == ["-e"]:
            _run([*pip, str(wheel)], NO_BYTECODE)
            _run([*pip, "--no-deps", "-e", str(wheel.parent.parent / "source")], NO_BYTECODE)
        else:
            _run([*pip, *options, str(wheel)], NO_BYTECODE)
    return where / "bin"


Case = tuple[list[str], Callable[[], object] | None]


def cases_of(name: str, bin_: Path, game: Path, moved: Path, move: str,
             fresh: Callable[[], object], player: str = "ann") -> dict[str, Case]:
    return {
        f"{name}|floor": ([str(bin_ / "python"), "-c", FLOOR], None),
        f"{name}|deps": ([str(bin_ / "python"), "-c", UNAVOIDABLE], None),
        f"{name}|status": ([str(bin_ / "referee"), "status", str(game), "--as", player], None),
        f"{name}|move": ([str(bin_ / "referee"), "move", str(moved), "--as", player, move],
                         fresh),
    }


def mid_game(folder: Path, name: str) -> tuple[Path, bytes, str, str]:
    """The example 3-player game of ``name`` cut at the middle of its log (a valid file:
    a prefix of its chain), its bytes, the player to move there and their first legal
    move."""
    import json

    from referee.engine import legal_strings
    from referee.ledger import gamefile, replay

    data = json.loads((ROOT / "examples" / f"{name}-3p.json").read_text())
    data["log"] = data["log"][:len(data["log"]) // 2]
    path = folder / f"{name}-mid.json"
    raw = gamefile.dumps(data).encode()
    path.write_bytes(raw)
    match = replay.replay(gamefile.read(path), None)
    player = match.game.to_move(match.state)[0]
    return path, raw, player, legal_strings(match.game, match.state, player)[0]


def report(venvs: list[str], got: dict[str, tuple[float, float]]) -> list[str]:
    """Prints one line per venv; returns the table's rows for docs/speed.md."""
    rows = []
    for name in venvs:
        floor = got[f"{name}|floor"]
        cells = []
        for what in WHAT[2:]:
            wall, cpu = got[f"{name}|{what}"]
            cells.append(f"**{cpu / floor[1]:.2f}x CPU**, {wall / floor[0]:.2f}x wall "
                         f"({cpu * 1000:.0f} ms CPU)")
        deps = f"{got[f'{name}|deps'][1] / floor[1]:.2f}x"
        print(f"- {name}: floor {floor[1] * 1000:.0f} ms CPU ({floor[0] * 1000:.0f} ms "
              f"wall); status {cells[0]}; move {cells[1]}; click + msgspec alone {deps}")
        rows.append(f"| {name} | {floor[1] * 1000:.0f} ms CPU, {floor[0] * 1000:.0f} ms wall "
                    f"| {cells[0]} | {cells[1]} | {deps} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command")
    parser.add_argument("--keep", type=Path, default=None,
                        help="build and keep the wheel and venvs in DIR; reused as they are "
                        "when there (delete DIR after changing the tree)")
    parser.add_argument("--no-editable", action="store_true",
                        help="leave out this venv (when it is not an editable install)")
    parser.add_argument("--game", choices=("new", "staufer", "dynasties"), default="new",
                        help="the file: a new Staufer game (default), or the example "
                             "3-player game of GAME cut at the middle of its log")
    args = parser.parse_args()
    started = header()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep.resolve() if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        wheels = sorted((work / "dist").glob("referee-*.whl"))
        wheel = wheels[0] if args.keep and wheels else build_wheel(work)
        bins = {kind: make_venv(work / f"venv{i}", wheel, options)
                for i, (kind, (options, _)) in enumerate(KINDS.items())}
        envs = {f"{kind}|{what}": env for kind, (_, env) in KINDS.items()
                for what in WHAT}
        if not args.no_editable:
            bins["editable"] = Path(sys.executable).parent
        if args.game == "new":
            game, raw, move = new_game(Path(tmp))
            player = "ann"
        else:
            game, raw, player, move = mid_game(Path(tmp), args.game)
        moved = Path(tmp) / "moved.json"
        cases: dict[str, Case] = {}
        for name, bin_ in bins.items():
            cases |= cases_of(name, bin_, game, moved, move,
                              lambda: moved.write_bytes(raw), player)
        print(f"## Start-up installed from the wheel: median of {args.runs} alternating runs")
        here = Path.cwd()
        os.chdir(tmp)  # outside the source tree: nothing imports it from the folder
        try:
            got = alternate(cases, args.runs, envs)
        finally:
            os.chdir(here)
    rows = report(list(bins), got)
    print(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    print("\n--- for docs/speed.md ---\n")
    print(f"One run of `python -m scripts.bench_installed --runs {args.runs} --game "
          f"{args.game}`, {started}, "
          f"{os.getloadavg()[0]:.1f} at the end.\n")
    print("| venv | import floor (same venv) | `referee status FILE --as P` | "
          "`referee move FILE --as P MOVE` | `python -c \"import click, msgspec\"` |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
