"""What the command line says is true (issue 43): `undo` after the move that ended a game
says the game is over; `log` marks the rounds and shows what each move made happen
(scoring); `check --since` names files as the person who ran it names them and counts
in the singular where it is one; docs/index.md links every page of the manual."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ok, require_tool, run
from tests.support.games import new_game

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("name", "last", "n"), [("staufer-3p", "ben", 79),
                                                 ("dynasties-3p", "ann", 67)])
def test_undo_of_the_move_that_ended_the_game_says_the_game_is_over(
        tmp_path: Path, name: str, last: str, n: int) -> None:
    path = tmp_path / "g.json"
    shutil.copy(EXAMPLES / f"{name}.json", path)
    before = path.read_bytes()
    result = run("undo", path, "--as", last)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"error: undo of move {n} refused: the game is over: the move "
                             "that ended it cannot be taken back\n")
    german = run("--lang", "de", "undo", path, "--as", last)
    assert german.stderr == (f"Fehler: Rücknahme von Zug {n} abgelehnt: das Spiel ist vorbei: der "
                             "Zug, der es beendet hat, kann nicht zurückgenommen werden\n")
    assert path.read_bytes() == before


def test_log_marks_the_rounds_and_shows_the_scoring() -> None:
    lines = ok("log", EXAMPLES / "staufer-3p.json").stdout.splitlines()
    assert lines[0] == "-- round 1 --"
    start = lines.index("  13. ann: supply 4")
    assert lines[start:start + 9] == [
        "  13. ann: supply 4",
        "        Round 1 scoring: Strasbourg, Aachen",
        "        ann +8 (Aachen place 1)",
        "        cat +4 (Aachen place 2)",
        "  14. ann: pick free-pay",
        "  15. cat: pick purple",
        "        The King travels to Aachen",
        "        The King travels to Milano",
        "-- round 2 --"]
    assert [line for line in lines if line.startswith("--")] == [
        f"-- round {n} --" for n in range(1, 6)]
    assert lines[-1] == "Game over after round 5; winner ann with 72 points"
    rows = json.loads(ok("log", EXAMPLES / "staufer-3p.json", "--json").stdout)
    assert rows[12]["round"] == 1 and rows[12]["events"][0].startswith("Round 1 scoring")
    assert rows[15]["round"] == 2 and rows[15]["events"] == []


def test_log_in_german_marks_the_rounds_in_german() -> None:
    lines = ok("--lang", "de", "log", EXAMPLES / "dynasties-3p.json").stdout.splitlines()
    assert lines[0] == "-- Runde 1 --"
    assert "-- Runde 2 --" in lines


def test_an_undo_shows_no_events(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben,cat", seed="x")
    ok("move", path, "--as", "ann", "deploy milano 4")
    ok("undo", path, "--as", "ann")
    assert ok("log", path).stdout.splitlines()[:3] == [
        "-- round 1 --", "   1. ann: deploy milano 4", "   2. ann: undo 1"]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_check_since_names_files_from_here_and_counts_one_as_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_tool("git")
    repo = tmp_path / "repo"
    (repo / "games").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "gm@example.org")
    git(repo, "config", "user.name", "gm")
    new_game(repo / "games" / "g.json", "staufer", players="ann,ben,cat", seed="x")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a new game")
    ok("move", repo / "games" / "g.json", "--as", "ann", "supply 2")
    line = ("staufer, 3 players, 1 move (1 new move), waiting for ben; scores ann 0, ben 0, "
            "cat 0")
    monkeypatch.chdir(repo)
    assert ok("check", "--since", "HEAD").stdout == f"ok   games/g.json: {line}\n"
    monkeypatch.chdir(repo / "games")
    assert ok("check", "--since", "HEAD").stdout == f"ok   g.json: {line}\n"
    assert ok("check", "--since", "HEAD", "g.json").stdout == f"ok   g.json: {line}\n"
    monkeypatch.chdir(tmp_path)
    assert ok("check", "--since", "HEAD", repo / "games" / "g.json").stdout == (
        f"ok   repo/games/g.json: {line}\n")
    assert json.loads(ok("check", "--since", "HEAD", repo / "games" / "g.json",
                         "--json").stdout)[0]["file"] == "repo/games/g.json"
