"""`referee ratings GAMES_DIR` through the CLI, over folders of finished games made here:
both real games (the examples) and toy games with shared places, a file that fails the
replay skipped with its reason, a copy and an unfinished game skipped, bot games marked
and left out by --no-bots, and the same table whatever the order of the files on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli import ok, run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["staufer-3p.json", "staufer-5p.json", "dynasties-3p.json", "dynasties-5p.json"]
PEOPLE = "ann=Ann <Ann@Example.org>,ben=Ben <ben@example.org>,cat"
# toy games on a pile of 5: who takes what; the last taker wins, the others share 2nd
TOY_GAMES = {
    "t1": [("ann", 2), ("ben", 2), ("cat", 1)],   # cat wins
    "t2": [("ann", 3), ("ben", 2)],               # ben wins
    "t3": [("ann", 1), ("ben", 1), ("cat", 3)],   # cat wins
}


def toy(folder: Path, name: str, moves: list[tuple[str, int]]) -> Path:
    path = folder / f"{name}.json"
    ok("new", "toy", path, "--players", PEOPLE, "--option", "pile=5", "--id", f"toy-{name}",
       "--seed", f"seed-{name}")
    for player, n in moves:
        ok("move", path, "--as", player, f"take {n}")
    return path


def league(folder: Path, *extra: object) -> dict[str, Any]:
    return json.loads(ok("ratings", folder, "--json", *extra).output)


@pytest.fixture(scope="module")
def bot_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Staufer game that three random bots play to its end when it is made."""
    path = tmp_path_factory.mktemp("bots") / "bots.json"
    ok("new", "staufer", path, "--players", "bot:ann=random,bot:ben=random,bot:cat=random",
       "--seed", "bots", "--id", "staufer-bots")
    return path


def fill(folder: Path, bot_game: Path, order: list[str]) -> None:
    """The same games, written in ``order`` (names of examples and toy games)."""
    folder.mkdir()
    for name in order:
        if name in TOY_GAMES:
            toy(folder, name, TOY_GAMES[name])
        elif name == "bots":
            shutil.copy(bot_game, folder / "bots.json")
        else:
            shutil.copy(ROOT / "examples" / name, folder / name)


NAMES = [*EXAMPLES, *TOY_GAMES, "bots"]


def test_tables_per_game_shared_places_and_bots(tmp_path: Path, bot_game: Path) -> None:
    fill(tmp_path / "g", bot_game, NAMES)
    out = league(tmp_path / "g")
    assert sorted(out["tables"]) == ["dynasties", "staufer", "toy"]
    assert out["skipped"] == []
    toy_rows = {r["player"]: r for r in out["tables"]["toy"]}
    # the identity is the e-mail (lower-cased) where the file has one, else the seat id
    assert set(toy_rows) == {"ann@example.org", "ben@example.org", "cat"}
    assert [r["games"] for r in out["tables"]["toy"]] == [3, 3, 3]
    assert out["tables"]["toy"][0]["player"] == "cat"  # two wins of three
    assert all(r["provisional"] for r in out["tables"]["toy"])
    # ann never won: ann and the other loser share the second place of every game
    assert toy_rows["ann@example.org"]["rating"] < toy_rows["ben@example.org"]["rating"]
    places = {g["id"]: g["places"] for g in out["games"]}
    assert places["toy-t1"] == [["cat"], ["ann@example.org", "ben@example.org"]]
    staufer = {r["player"]: r for r in out["tables"]["staufer"]}
    # three random bots in one game: one identity at three seats, told apart by seat
    for seat in ("ann", "ben", "cat"):
        assert staufer[f"bot:random#{seat}"]["bot"]
        assert staufer[f"bot:random#{seat}"]["games"] == 1
    assert staufer["ann"]["games"] == 2 and not staufer["ann"]["bot"]
    bots = next(g for g in out["games"] if g["id"] == "staufer-bots")
    assert bots["bot_seats"] == ["ann", "ben", "cat"] and bots["bot_moves"] > 0
    text = ok("ratings", tmp_path / "g").output
    assert "toy: 3 games rated" in text and "(bot)" in text and " *" in text


def test_no_bots_leaves_bot_games_out(tmp_path: Path, bot_game: Path) -> None:
    fill(tmp_path / "g", bot_game, ["staufer-3p.json", "bots"])
    out = league(tmp_path / "g", "--no-bots")
    assert out["left_out"] == ["bots.json"]
    assert [g["id"] for g in out["games"]] == ["staufer-3p-example"]
    assert not any(r["bot"] for r in out["tables"]["staufer"])
    assert "left out (bots): bots.json" in ok("ratings", tmp_path / "g", "--no-bots").output


def test_same_table_whatever_the_order_on_disk(tmp_path: Path, bot_game: Path) -> None:
    fill(tmp_path / "a", bot_game, NAMES)
    fill(tmp_path / "b", bot_game, list(reversed(NAMES)))
    first, second = league(tmp_path / "a"), league(tmp_path / "b")
    assert first == second
    assert ok("ratings", tmp_path / "a").output == ok("ratings", tmp_path / "b").output
    # renamed files: the same games in the same order, the same table
    (tmp_path / "a" / "t1.json").rename(tmp_path / "a" / "zz.json")
    assert league(tmp_path / "a")["tables"] == first["tables"]


def test_failing_unfinished_and_copied_files_are_skipped(tmp_path: Path,
                                                         bot_game: Path) -> None:
    folder = tmp_path / "g"
    fill(folder, bot_game, ["t1", "t2"])
    clean = league(folder)
    t1 = (folder / "t1.json").read_text()
    # a result rewritten by hand: ben's 2 made 3, which the replay refuses
    (folder / "forged.json").write_text(
        t1.replace('"toy-t1"', '"toy-forged"').replace('{"n":2}', '{"n":3}'))
    (folder / "u1.json").write_text(t1)  # the same game twice: neither counts
    unfinished = folder / "t4.json"
    ok("new", "toy", unfinished, "--players", PEOPLE, "--option", "pile=5")
    ok("move", unfinished, "--as", "ann", "take 1")
    (folder / "junk.json").write_text("{not json")
    out = league(folder)
    skipped = {s["file"]: s["reason"] for s in out["skipped"]}
    assert sorted(skipped) == ["forged.json", "junk.json", "t1.json", "t4.json", "u1.json"]
    assert skipped["t4.json"] == "not finished"
    assert "same game" in skipped["u1.json"] and "same game" in skipped["t1.json"]
    assert [g["id"] for g in out["games"]] == ["toy-t2"]
    assert [g["id"] for g in clean["games"]] == ["toy-t1", "toy-t2"]
    text = ok("ratings", folder).output
    assert "skipped: forged.json:" in text
    assert "chain" in skipped["forged.json"] or "illegal" in skipped["forged.json"]


def test_sealed_games_count_with_their_secret(tmp_path: Path) -> None:
    folder = tmp_path / "g"
    folder.mkdir()
    path = folder / "s.json"
    ok("new", "toy", path, "--players", PEOPLE, "--option", "pile=5", "--sealed")
    for player, n in TOY_GAMES["t1"]:
        ok("move", path, "--as", player, f"take {n}")
    assert league(folder)["games"][0]["finish"] == "2026-01-01T00:00:00Z"  # vouched
    (folder / "s.json.secret").rename(tmp_path / "kept.secret")
    out = league(folder)
    assert out["games"] == [] and "without its secret" in out["skipped"][0]["reason"]


def test_bad_folder_is_one_message(tmp_path: Path) -> None:
    result = run("ratings", tmp_path / "nope")
    assert result.exit_code == 2 and "not a folder" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no finished game to rate" in ok("ratings", empty).output
