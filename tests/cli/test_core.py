"""The referee core through the CLI, with the toy game (tests/toygame.py).

Each bad input must give a clear message, the documented exit code, no traceback, and
leave the game file byte for byte as it was.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest
from click.testing import Result

from referee.ledger import fileio, gamefile
from tests.conftest import run


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    result = run("new", "toy", path, "--players", "ann,ben", "--seed", "s1", "--id", "g1")
    assert result.exit_code == 0, result.output
    return path


def assert_rejected(result: Result, code: int, *fragments: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output


def test_new_prints_players_assumptions_and_first_prompt(game: Path) -> None:
    result = run("status", game)
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "ann to take from a pile of 10"
    text = game.read_text()
    assert '"log": [\n  ]' in text
    assert json.loads(text)["rules"] == "toy-1"


def test_new_mentions_assumed_data(tmp_path: Path) -> None:
    result = run("new", "toy", tmp_path / "x.json", "--players", "ann,ben")
    assert "uses 1 assumed component values" in result.output
    assert "referee data toy" in result.output


def test_move_appends_one_line_and_shows_next_turn(game: Path) -> None:
    before = game.read_text().splitlines()
    result = run("move", game, "--as", "ann", "take", "2")
    assert result.output == "move 1: ann: take 2\nben to take from a pile of 8\n"
    after = game.read_text().splitlines()
    assert len(after) == len(before) + 1
    run("move", game, "--as", "ben", "TAKE  3")
    third = game.read_text().splitlines()
    added = [line for line in third if line not in after]
    assert len(third) == len(after) + 1 and len(added) == 1
    assert added[0].startswith("  , {")


def test_status_json_contract(game: Path) -> None:
    run("move", game, "--as", "ann", "take", "1")
    out = json.loads(run("status", game, "--as", "ben", "--json").output)
    for key in ("game", "to_move", "legal", "finished", "scores"):
        assert key in out
    assert out["to_move"] == ["ben"]
    assert out["legal"] == ["take 1", "take 2", "take 3", "peek", "draw"]
    assert out["view"]["card"].startswith("card-")
    public = json.loads(run("status", game, "--json").output)
    assert "legal" not in public and "card" not in public["view"]


def test_every_legal_string_is_accepted_verbatim(game: Path, tmp_path: Path) -> None:
    legal = json.loads(run("status", game, "--as", "ann", "--json").output)["legal"]
    for i, text in enumerate(legal):
        copy = tmp_path / f"copy{i}.json"
        copy.write_bytes(game.read_bytes())
        result = run("move", copy, "--as", "ann", text, "--json")
        assert json.loads(result.output)["accepted"] == text


def test_finished_game_and_check(game: Path) -> None:
    for player, n in [("ann", 3), ("ben", 3), ("ann", 3), ("ben", 1)]:
        assert run("move", game, "--as", player, f"take {n}").exit_code == 0
    result = run("check", game)
    assert result.exit_code == 0
    assert "4 moves, finished; scores ann 0, ben 1" in result.output
    out = json.loads(run("status", game, "--json").output)
    assert out["finished"] is True and out["ranking"] == [["ben"], ["ann"]]
    assert_rejected(run("move", game, "--as", "ann", "take 1"), 1, "game is over")


def test_log_lists_moves_in_notation(game: Path) -> None:
    run("move", game, "--as", "ann", "take 2")
    run("move", game, "--as", "ben", "peek")
    assert run("log", game).output == (
        "   1. ann: take 2\n   2. ben: peek\nann to take from a pile of 8\n"
    )
    rows = json.loads(run("log", game, "--json").output)
    assert [r["move"] for r in rows] == ["take 2", "peek"]


# --- rejected moves -------------------------------------------------------------------


def unchanged(path: Path, result: Result, before: bytes, code: int, *fragments: str) -> None:
    assert_rejected(result, code, *fragments)
    assert path.read_bytes() == before


def test_move_out_of_turn(game: Path) -> None:
    before = game.read_bytes()
    unchanged(game, run("move", game, "--as", "ben", "take 1"), before, 1,
              "not ben's turn", "waiting for: ann")


def test_move_by_unknown_player(game: Path) -> None:
    before = game.read_bytes()
    unchanged(game, run("move", game, "--as", "zed", "take 1"), before, 2,
              "'zed' is not a player", "players: ann, ben")


def test_garbage_move(game: Path) -> None:
    before = game.read_bytes()
    unchanged(game, run("move", game, "--as", "ann", "xyzzy"), before, 1,
              "cannot read 'xyzzy'", "closest legal moves")


def test_half_right_move_names_the_rule(game: Path) -> None:
    before = game.read_bytes()
    unchanged(game, run("move", game, "--as", "ann", "take 7"), before, 1,
              "'take 7' is not legal", "at most the 10 in the pile", "take 3")


def test_rejected_move_as_json(game: Path) -> None:
    result = run("move", game, "--as", "ann", "take 9", "--json")
    assert result.exit_code == 1
    out = json.loads(result.output)
    assert out["error"] == "IllegalMove" and "take 3" in out["legal"]


# --- bad files ------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    assert_rejected(run("status", tmp_path / "nope.json"), 1, "no game file at")
    assert_rejected(run("move", tmp_path / "nope.json", "--as", "a", "x"), 1, "no game file")


def test_malformed_and_truncated_json(game: Path) -> None:
    text = game.read_text()
    game.write_text(text[: len(text) // 2])
    assert_rejected(run("status", game), 1, "is not valid JSON", "line")
    assert_rejected(run("check", game), 1, "FAIL", "not valid JSON")
    before = game.read_bytes()
    unchanged(game, run("move", game, "--as", "ann", "take 1"), before, 1, "not valid JSON")


def test_schema_violation_names_the_path(game: Path) -> None:
    data = json.loads(game.read_text())
    data["players"][1]["id"] = "Ben Smith"
    game.write_text(json.dumps(data))
    assert_rejected(run("status", game), 1, "$.players[1].id: expected `str` matching regex")


def test_bad_move_object_names_the_path(game: Path) -> None:
    run("move", game, "--as", "ann", "take 1")
    data = json.loads(game.read_text())
    data["log"][0]["move"] = {"type": "take", "n": "one"}
    game.write_text(json.dumps(data))
    assert_rejected(run("check", game), 1, "$.log[0].move.n: expected `int`, got `str`")


def test_unknown_game_in_file(game: Path) -> None:
    data = json.loads(game.read_text())
    data["game"] = "chess"
    game.write_text(json.dumps(data))
    assert_rejected(run("status", game), 1, "$.game", "chess")


def test_duplicate_player_in_file(game: Path) -> None:
    data = json.loads(game.read_text())
    data["players"][1]["id"] = "ann"
    game.write_text(json.dumps(data))
    assert_rejected(run("check", game), 1, "player listed twice: ann")


def test_edited_history_is_caught_by_the_hash_chain(game: Path) -> None:
    for player, text in [("ann", "take 1"), ("ben", "take 1"), ("ann", "take 1")]:
        run("move", game, "--as", player, text)
    data = json.loads(game.read_text())
    data["log"][0]["move"]["n"] = 2  # still a legal game, but not the one played
    game.write_text(gamefile.dumps(data))
    assert_rejected(run("check", game), 1, "$.log[1] (entry 2)", "hash chain is broken")


def test_illegal_entry_in_log_is_caught_on_replay(game: Path) -> None:
    data = json.loads(game.read_text())
    data["log"].append({"n": 1, "by": "ben", "move": {"type": "take", "n": 1},
                        "prev": gamefile.next_prev(data)})
    game.write_text(gamefile.dumps(data))
    assert_rejected(run("check", game), 1, "entry 1", "not ben's turn")


def test_rules_pin_mismatch_is_refused(game: Path) -> None:
    data = json.loads(game.read_text())
    data["rules"] = "toy-0"
    game.write_text(gamefile.dumps(data))
    assert_rejected(run("status", game), 1, "made with rules/data toy-0")


def test_concurrent_writer_waits_then_gives_up(game: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    monkeypatch.setattr(fileio, "LOCK_WAIT_SECONDS", 0.2)
    before = game.read_bytes()
    with game.open("rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        unchanged(game, run("move", game, "--as", "ann", "take 1"), before, 1,
                  "being changed by another referee command")
    assert run("move", game, "--as", "ann", "take 1").exit_code == 0


# --- new: usage errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["new", "chess", "{f}", "--players", "a,b"], "unknown game 'chess'"),
        (["new", "toy", "{f}", "--players", "ann,ann"], "player listed twice: ann"),
        (["new", "toy", "{f}", "--players", "ann"], "for 2 to 4 players, not 1"),
        (["new", "toy", "{f}", "--players", "Ann B,ben"], "bad player id 'Ann B'"),
        (["new", "toy", "{f}", "--players", "ann,,ben"], "empty player name"),
        (["new", "toy", "{f}", "--players", "ann,ben", "--option", "pile=7"],
         "option pile cannot be '7'"),
        (["new", "toy", "{f}", "--players", "ann,ben", "--option", "size=7"],
         "toy has no option 'size'"),
    ],
)
def test_new_usage_errors(tmp_path: Path, args: list[str], fragment: str) -> None:
    path = tmp_path / "n.json"
    result = run(*[a.format(f=path) for a in args])
    assert_rejected(result, 2, fragment)
    assert not path.exists()


def test_new_refuses_to_overwrite(game: Path) -> None:
    before = game.read_bytes()
    result = run("new", "toy", game, "--players", "ann,ben")
    unchanged(game, result, before, 2, "already exists")


def test_new_with_names_and_emails(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    run("new", "toy", path, "--players", "ann=Ann Smith <ann@example.org>,ben")
    players = json.loads(path.read_text())["players"]
    assert players[0] == {"id": "ann", "name": "Ann Smith", "email": "ann@example.org"}


def test_same_seed_same_game(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run("new", "toy", a, "--players", "ann,ben", "--seed", "same")
    run("new", "toy", b, "--players", "ann,ben", "--seed", "same")
    card = json.loads(run("status", a, "--as", "ann", "--json").output)["view"]["card"]
    assert card == json.loads(run("status", b, "--as", "ann", "--json").output)["view"]["card"]


def test_schema_and_data_commands() -> None:
    schema = json.loads(run("schema").output)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert_rejected(run("schema", "nope"), 2, "no schema 'nope'")
    result = run("data", "toy")
    assert "1 value is ASSUMED (the rulebook we hold does not print it)." in result.output
    assert "[T1] deck size: 20" in result.output
    assert json.loads(run("data", "toy", "--json").output)["assumptions"][0]["key"] == "T1"
