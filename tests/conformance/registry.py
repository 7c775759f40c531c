"""Which games the conformance suite plays: every game the referee finds, found the way
the referee finds them (``referee.engine.game_names``: the games of ``referee/games/``,
the entry points of the group ``referee.games`` and the games registered in this process,
such as the toys of tests/conftest.py), with the Nim plug-in of tests/plugin/ installed
first as a player would install it: built as a wheel from its pyproject.toml and
installed with pip into a folder of its own, which is put on ``sys.path`` (the plug-in
test, tests/engine/test_plugin_game.py, uses the same install).

Nothing of the plug-in outlives its use: :func:`plugin_on_path` restores ``sys.path``
and drops the engine's cached game object, so that the modules that do not ask for the
plug-in see the referee's games only. The suite's list of names requires ``nim``: the
plug-in is never silently left out (in CI or anywhere)."""

from __future__ import annotations

import atexit
import base64
import hashlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee import engine
from tests.leaks import has_bots

PLUGIN = Path(__file__).resolve().parent.parent / "plugin"
PLUGIN_GAME = "nim"  # the name its entry point declares (tests/plugin/pyproject.toml)


def build_wheel(source: Path, out: Path) -> Path:
    """The plug-in as a wheel, from its pyproject.toml (its name, version and entry
    points) and its package folder: what a build backend would make, without one (the
    test runs offline and in a second)."""
    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    dist = f"{project['name'].replace('-', '_')}-{project['version']}"
    meta = {
        "METADATA": f"Metadata-Version: 2.1\nName: {project['name']}\n"
                    f"Version: {project['version']}\n",
        "WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                 "Tag: py3-none-any\n",
        "entry_points.txt": "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
            for group, points in project["entry-points"].items()),
    }
    files = {str(p.relative_to(source)): p.read_bytes()
             for p in sorted((source / "referee_nim").rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts}
    files |= {f"{dist}.dist-info/{name}": text.encode() for name, text in meta.items()}
    record = "".join(
        f"{name},sha256={_digest(body)},{len(body)}\n" for name, body in files.items()
    ) + f"{dist}.dist-info/RECORD,,\n"
    wheel = out / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, body in files.items():
            z.writestr(name, body)
        z.writestr(f"{dist}.dist-info/RECORD", record)
    return wheel


def _digest(body: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()


def install(root: Path) -> Path:
    """The plug-in installed with pip into ``root/site``, from its wheel: that folder."""
    target = root / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--target", str(target), str(build_wheel(PLUGIN, root))],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert (target / "referee_nim" / "data" / "nim.json").is_file()
    return target


_SITE: list[Path] = []


def plugin_site() -> Path:
    """The plug-in's installed folder: installed once per process, into a temporary
    folder removed at exit."""
    if not _SITE:
        root = Path(tempfile.mkdtemp(prefix="referee-plugin-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _SITE.append(install(root))
    return _SITE[0]


@contextmanager
def plugin_on_path() -> Iterator[Path]:
    """The plug-in importable and its entry point found (its folder first on
    ``sys.path``) inside the block; afterwards ``sys.path`` as it was and no game object
    of it cached by the engine."""
    site = str(plugin_site())
    sys.path.insert(0, site)
    try:
        yield Path(site)
    finally:
        if site in sys.path:
            sys.path.remove(site)
        engine._loaded.pop(PLUGIN_GAME, None)


def survey() -> tuple[dict[str, list[int]], list[str]]:
    """Every game the referee finds with the plug-in installed (sorted, the games
    registered in this process last), with every player count it allows; and those
    that bots can play (for the tests' parameters, known when they are collected)."""
    with plugin_on_path():
        names = engine.game_names()
        games = {name: engine.get_game(name) for name in names}
    assert PLUGIN_GAME in names, f"the plug-in's game is not found: {names}"
    counts = {name: list(range(g.min_players, g.max_players + 1)) for name, g in games.items()}
    return counts, [name for name, g in games.items() if has_bots(g)]


COUNTS, BOTS = survey()
GAMES = list(COUNTS)
CASES = [(name, count) for name, counts in COUNTS.items() for count in counts]
