"""A backup beside a game and other JSON in a folder of games: `pending` and `site` list
the game once and name the copy (referee/ledger/identity.py's sort_copies); `check
FOLDER` checks every game file in it; the views' index or a clock view beside the games
is passed over, a damaged file still reported (referee/reports/folders.py)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from referee.ledger import identity
from tests.conftest import ok, run
from tests.support.games import new_game

PROMPT = "Round 1: ann to choose an action (supply/deploy)"
SINCE = "2026-01-01T00:00:00Z"  # REFEREE_NOW of the tests


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """game.json and its backup (a newer file), the current folder."""
    monkeypatch.chdir(tmp_path)
    new_game("game.json", "staufer", players="ann,ben,cat", seed="x", game_id="g1")
    shutil.copy("game.json", "backup.json")
    newer(Path("backup.json"), Path("game.json"))
    return tmp_path


def newer(path: Path, than: Path) -> None:
    stamp = than.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(stamp, stamp))


def test_pending_lists_a_game_once_and_names_its_copy(folder: Path) -> None:
    result = run("pending", ".")
    assert result.exit_code == 0, result.output
    assert result.output == (f"game.json: waiting for ann since {SINCE}: {PROMPT}\n"
                             "       backup.json is a copy of game.json\n")
    rows = json.loads(ok("pending", ".", "--json").stdout)
    assert rows[0] == {"file": "backup.json", "copy_of": "game.json", "older": False,
                       "message": "backup.json is a copy of game.json"}
    assert rows[1]["copies"] == [rows[0]] and rows[1]["waiting"] == ["ann"]


def test_the_oldest_of_two_equal_files_is_the_game(folder: Path) -> None:
    newer(Path("game.json"), Path("backup.json"))
    assert run("pending", ".").output.splitlines() == [
        f"backup.json: waiting for ann since {SINCE}: {PROMPT}",
        "       game.json is a copy of backup.json"]


def test_the_game_that_went_on_is_the_game(folder: Path) -> None:
    newer(Path("game.json"), Path("backup.json"))  # the game is written to last
    ok("move", "game.json", "--as", "ann", "supply 2")
    assert run("pending", ".").output.splitlines() == [
        f"game.json: waiting for ben since {SINCE}: Round 1: ben to choose an action "
        "(supply/deploy)",
        "       backup.json is a copy of game.json (an older one: the game went on in "
        "game.json)"]


def test_two_files_whose_logs_went_apart_are_not_listed(folder: Path) -> None:
    ok("move", "game.json", "--as", "ann", "supply 2")
    ok("move", "backup.json", "--as", "ann", "supply 3")
    result = run("pending", ".")
    assert result.exit_code == 1
    why = ("game.json is the same game as backup.json: the same header, and logs that went "
           "apart (neither is a copy of the other) ('g1'); a game's identity "
           "cannot be copied")
    assert result.output.splitlines() == [f"backup.json: not listed: {why}",
                                          f"game.json: not listed: {why}"]


def test_other_json_beside_the_games_is_passed_over(folder: Path) -> None:
    Path("backup.json").unlink()
    Path("game.views.json").write_text('{"format": "referee-views/1", "views": {}}\n')
    Path("notes.json").write_text("[1, 2]\n")
    Path("sub").mkdir()
    Path("sub/damaged.json").write_text('{"format": "referee/1", "game"')
    result = run("pending", ".")
    assert result.exit_code == 1  # the damaged game file is still reported
    assert result.output.splitlines() == [
        f"game.json: waiting for ann since {SINCE}: {PROMPT}",
        "sub/damaged.json: cannot read: sub/damaged.json is not valid JSON: it ends too "
        "early at line 1 column 31"]
    named = run("pending", "notes.json")  # a file named is read whatever it holds
    assert named.exit_code == 1 and "notes.json: cannot read:" in named.output


def test_check_a_folder_checks_every_game_file_in_it(folder: Path) -> None:
    Path("sub").mkdir()
    new_game("sub/t.json", "toy", players="ann,ben", seed="s")
    Path("game.views.json").write_text('{"format": "referee-views/1"}\n')
    Path(".hidden.json").write_text("{")
    result = run("check", ".")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "ok   backup.json: staufer, 3 players, 0 moves, waiting for ann; scores ann 0, ben 0, "
        "cat 0",
        "ok   game.json: staufer, 3 players, 0 moves, waiting for ann; scores ann 0, ben 0, "
        "cat 0",
        "ok   sub/t.json: toy, 2 players, 0 moves, waiting for ann; scores ann 0, ben 0"]
    Path("sub/broken.json").write_text("{")
    result = run("check", "sub")
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith("FAIL sub/broken.json: ")


def test_site_serves_a_game_once_and_names_its_copy(folder: Path) -> None:
    result = run("site", ".", "-o", folder.parent / "out")
    assert result.exit_code == 0, result.output
    assert result.output == ("backup.json is a copy of game.json: served once, as game.json\n"
                             "wrote " + str(folder.parent / "out") + "/index.html: 1 game\n")


def test_sort_copies_keeps_every_other_second_file_refused() -> None:
    """A copy needs the same header and a log the game's starts with; a served sealed
    game's copy needs the very same log."""
    def held(name: str, log: list[int], header: str = "h", sealed: bool = False
             ) -> identity.Held:
        return identity.Held(name, header, [{"n": n} for n in log], sealed, (name,))

    def sort(*files: identity.Held, served: bool = False) -> tuple[list[str], list[str]]:
        found = [identity.Duplicate(f.file, files[0].file, "header", "g") for f in files[1:]]
        by = {f.file: f for f in files}
        copies, refused = identity.sort_copies(found, by.get, served=served)
        return sorted(c.message for c in copies.values()), sorted(refused)

    assert sort(held("a", [1]), held("b", [1, 2])) == (
        ["a is a copy of b (an older one: the game went on in b)"], [])
    assert sort(held("a", [1, 2]), held("b", [1, 3])) == ([], ["a", "b"])
    assert sort(held("a", [1]), held("b", [1], header="other")) == ([], ["a", "b"])
    assert sort(held("a", [1], sealed=True), held("b", [1, 2], sealed=True),
                served=True) == ([], ["a", "b"])
    assert sort(held("a", [1, 2], sealed=True), held("b", [1, 2], sealed=True),
                served=True) == (["b is a copy of a"], [])


def test_a_folder_takes_a_game_file_by_its_head_as_the_format_says() -> None:
    """`pending` from its cache does not import the format's module: the head it takes a
    game file by is the one every game file starts with."""
    from referee.ledger import fileformat, gamefile
    from referee.reports import folders

    assert folders.GAME_HEAD == fileformat.GAME_FILE_HEAD
    assert gamefile.dumps({"format": fileformat.FORMAT, "log": []}).encode().startswith(
        folders.GAME_HEAD)


def test_pending_of_a_sealed_game_without_its_secret_points_to_status(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    new_game("s.json", "staufer", "--sealed", "--secret-out", tmp_path / "away.secret",
             players="ann,ben,cat")
    shutil.copy("s.json", "s-backup.json")
    newer(Path("s-backup.json"), Path("s.json"))
    result = run("pending", ".")
    assert result.exit_code == 1  # nothing to say of its state here
    assert result.output == (
        "s.json: sealed, and its secret is not at hand: `referee status s.json` shows the "
        "public view its referee signed\n"
        "       s-backup.json is a copy of s.json\n")
