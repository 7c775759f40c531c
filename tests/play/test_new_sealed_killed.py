"""`new --sealed` killed at any moment: the game and its secret both exist or neither,
and after the next write into the folder no temporary file is left."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.ledger import fileio

ROOT = Path(__file__).resolve().parents[2]
GAME_TEXT = '{"game": "x"}\n' * 200
SECRET_TEXT = '{"seed": "s"}\n'


def assert_all_or_nothing(folder: Path, game: Path, secret: Path) -> bool:
    """After recovery: only finished files, both or neither. Returns whether both."""
    names = sorted(p.name for p in folder.iterdir())
    assert names in ([], sorted([game.name, secret.name])), names
    if names:
        assert game.read_text() == GAME_TEXT
        assert secret.read_text() == SECRET_TEXT
        assert secret.stat().st_mode & 0o777 == 0o600
    return bool(names)


def fork_and_kill(game: Path, secret: Path, delay: float) -> None:
    pid = os.fork()
    if pid == 0:  # the child: create the pair, then leave without cleanup handlers
        try:
            fileio.create_pair(game, GAME_TEXT, secret, SECRET_TEXT)
        finally:
            os._exit(0)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.mark.slow
def test_kill_at_random_moments_leaves_both_or_neither(tmp_path: Path) -> None:
    t0 = time.perf_counter()
    fileio.create_pair(tmp_path / "probe.json", GAME_TEXT, tmp_path / "probe.secret",
                       SECRET_TEXT)
    span = (time.perf_counter() - t0) * 1.5 + 0.002
    for p in tmp_path.iterdir():
        p.unlink()
    rng = random.Random(20261130)
    outcomes = {True: 0, False: 0}
    interrupted = 0  # runs killed with a journal or temporary file on disk
    for i in range(100):
        folder = tmp_path / f"run{i}"
        folder.mkdir()
        game, secret = folder / "g.json", folder / "g.json.secret"
        fork_and_kill(game, secret, rng.uniform(0, span))
        interrupted += any(p.name.startswith(".") for p in folder.iterdir())
        fileio.remove_stale_temps(folder)  # what the next write into the folder does
        outcomes[assert_all_or_nothing(folder, game, secret)] += 1
    assert interrupted > 0, outcomes  # some kills landed inside create_pair


def test_a_secret_in_another_folder_is_rolled_back_too(tmp_path: Path) -> None:
    games, secrets = tmp_path / "games", tmp_path / "secrets"
    games.mkdir()
    secrets.mkdir()
    env = {**os.environ, "REFEREE_TEST_PAUSE": "secret-linked"}
    proc = start(["new", "staufer", str(games / "g.json"), "--players", "a,b", "--sealed",
                  "--secret-out", str(secrets / "g.secret")], env)
    kill_when_paused(proc)
    assert (secrets / "g.secret").exists()  # the moment between the two links
    fileio.remove_stale_temps(games)
    assert list(games.iterdir()) == []
    assert list(secrets.iterdir()) == []


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "referee", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_when_paused(proc: subprocess.Popen[str]) -> None:
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("paused at "), line
    proc.kill()
    proc.wait(timeout=30)


@pytest.mark.parametrize(("step", "both"), [
    ("journal", False), ("temps", False), ("secret-linked", False), ("linked", True),
])
def test_the_cli_killed_at_each_step(tmp_path: Path, step: str, both: bool) -> None:
    game = tmp_path / "g.json"
    proc = start(["new", "staufer", str(game), "--players", "a,b", "--sealed"],
                 {**os.environ, "REFEREE_TEST_PAUSE": step})
    kill_when_paused(proc)
    other = tmp_path / "next.json"  # the next run writes into the same folder
    done = subprocess.run([sys.executable, "-m", "referee", "new", "staufer", str(other),
                           "--players", "a,b"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    other.unlink()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == (["g.json", "g.json.secret"] if both else [])
    if both:
        check = subprocess.run([sys.executable, "-m", "referee", "check", str(game)],
                               cwd=ROOT, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout
