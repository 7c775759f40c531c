"""The real games through the CLI: a whole game by `referee move`, every legal string
accepted verbatim, decisions owed by non-active players, and one real subprocess run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.engine import get_game
from referee.engine.rng import Rng
from tests.conftest import run
from tests.leaks import assert_hidden, assert_shows, own_items

GAMES = [("staufer", 3), ("dynasties", 4)]


def status(path: Path, player: str | None = None) -> dict:
    args = ["status", path, "--json"] + (["--as", player] if player else [])
    result = run(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "n"), GAMES)
def test_whole_game_through_the_cli(tmp_path: Path, name: str, n: int) -> None:
    """Every move typed as the canonical string that `status --as` offered; a player who
    is not the active player but owes a decision is named in to_move."""
    path = tmp_path / "g.json"
    players = ["ann", "ben", "cat", "dan", "eve"][:n]
    assert run("new", name, path, "--players", ",".join(players), "--seed", "cli").exit_code == 0
    chooser = Rng("cli-choices")
    moves = 0
    owers: set[str] = set()
    while True:
        public = status(path)
        if public["finished"]:
            break
        player = public["to_move"][0]
        owers.add(player)
        mine = status(path, player)
        assert mine["legal"], f"{player} owes a decision but has no legal move"
        others = [p for p in players if p not in public["to_move"]]
        if others:
            assert status(path, others[0])["legal"] == []
        text = chooser.choice(mine["legal"], "pick")
        result = run("move", path, "--as", player, text)
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"move {moves + 1}: {player}: {text}\n")
        moves += 1
    assert owers == set(players)
    check = run("check", path, "--json")
    assert check.exit_code == 0
    report = json.loads(check.output)[0]
    assert report["finished"] and report["moves"] == moves
    assert sorted(status(path)["scores"]) == sorted(players)


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_first_position_legal_strings_all_accepted(tmp_path: Path, name: str, n: int) -> None:
    path = tmp_path / "g.json"
    players = ["ann", "ben", "cat", "dan", "eve"][:n]
    run("new", name, path, "--players", ",".join(players), "--seed", "verbatim")
    first = status(path)["to_move"][0]
    legal = status(path, first)["legal"]
    original = path.read_bytes()
    for text in legal:
        path.write_bytes(original)
        result = run("move", path, "--as", first, text, "--json")
        assert result.exit_code == 0, (text, result.output)
        assert json.loads(result.output)["accepted"] == text


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_public_status_hides_private_views(tmp_path: Path, name: str, n: int) -> None:
    path = tmp_path / "g.json"
    players = ["ann", "ben", "cat", "dan", "eve"][:n]
    run("new", name, path, "--players", ",".join(players), "--seed", "hidden")
    from referee.ledger import gamefile, replay

    match = replay.replay(gamefile.read(path))
    game = get_game(name)
    outputs: dict[str | None, dict[str, str]] = {
        None: {"status": run("status", path).output,
               "status --json": run("status", path, "--json").output}}
    for viewer in players:
        outputs[viewer] = {"status --as": run("status", path, "--as", viewer).output,
                           "status --as --json": run("status", path, "--as", viewer,
                                                     "--json").output}
        assert_shows(outputs[viewer]["status --as --json"],
                     own_items(game, match.state, viewer))
    assert_hidden(game, match.state, outputs, ignore=[str(tmp_path)])


def test_real_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "REFEREE_NOW": "2026-01-01T00:00:00Z"}
    path = tmp_path / "sub.json"

    def referee(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                              text=True, env=env, check=False)

    made = referee("new", "staufer", str(path), "--players", "ann,ben", "--seed", "sub")
    assert made.returncode == 0, made.stderr
    assert "assumed component values" in made.stdout
    legal = json.loads(referee("status", str(path), "--as", "ann", "--json").stdout)["legal"]
    moved = referee("move", str(path), "--as", "ann", legal[0])
    assert moved.returncode == 0 and moved.stdout.startswith(f"move 1: ann: {legal[0]}")
    wrong = referee("move", str(path), "--as", "ann", "supply", "9")
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert wrong.stderr.startswith("error: ")
    usage = referee("status")
    assert usage.returncode == 2
    assert referee("check", str(path)).returncode == 0


def test_a_closed_pipe_is_no_error() -> None:
    """`referee data dynasties | head -2`: the reader goes away; no message, exit 0."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "referee", "data", "dynasties"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    assert proc.wait() == 0
    assert proc.stderr.read() == b""


@pytest.mark.parametrize("name", ["staufer", "dynasties"])
def test_the_research_note_ships_with_the_data(name: str) -> None:
    result = run("data", name, "--reference")
    assert result.exit_code == 0
    assert "component data" in result.output.splitlines()[0]
    assert "ASSUMPTION" in result.output
