"""`referee ratings GAMES_DIR` through the CLI, over folders of finished games made here:
both real games (the examples) and toy games with shared places, a file that fails the
replay skipped with its reason, a copy counted once and an unfinished game skipped, bot
games left out by default and rated apart with --with-bots, and the same table whatever
the order of the files on disk. (The cheater's attacks on the ratings:
tests/trust/test_signature_attacks.py.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ok, run
from tests.support.games import new_game

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["staufer-3p.json", "staufer-5p.json", "dynasties-3p.json", "dynasties-5p.json"]
PEOPLE = "ann=Anna <Ann@Example.org>,ben=Benno <ben@example.org>,cat=Cat"
# toy games on a pile of 5: who takes what; the last taker wins, the others share 2nd
TOY_GAMES = {
    "t1": [("ann", 2), ("ben", 2), ("cat", 1)],   # cat wins
    "t2": [("ann", 3), ("ben", 2)],               # ben wins
    "t3": [("ann", 1), ("ben", 1), ("cat", 3)],   # cat wins
}


def toy(folder: Path, name: str, moves: list[tuple[str, int]]) -> Path:
    path = folder / f"{name}.json"
    new_game(path, "toy", "--option", "pile=5", players=PEOPLE, seed=f"seed-{name}",
             game_id=f"toy-{name}")
    for player, n in moves:
        ok("move", path, "--as", player, f"take {n}")
    return path


def league(folder: Path, *extra: object) -> dict[str, Any]:
    return json.loads(ok("ratings", folder, "--json", *extra).output)


@pytest.fixture(scope="module")
def bot_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Staufer game that three random bots play to its end when it is made."""
    path = tmp_path_factory.mktemp("bots") / "bots.json"
    new_game(path, "staufer", players="bot:ann=random,bot:ben=random,bot:cat=random", seed="bots",
             game_id="staufer-bots")
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
    out = league(tmp_path / "g", "--with-bots")
    assert sorted(out["tables"]) == ["dynasties", "staufer", "toy"]
    assert out["skipped"] == []
    assert out["counted"] == {"people": 7, "with_bots": 1, "bots_rated_apart": True,
                              "copies": 0, "skipped": 0}
    toy_rows = {r["player"]: r for r in out["tables"]["toy"]}
    # rows show names; the addresses are compared (Ann@Example.org is ann@example.org)
    # and never printed
    assert set(toy_rows) == {"Anna", "Benno", "Cat"}
    assert "example.org" not in json.dumps(out)
    assert [r["games"] for r in out["tables"]["toy"]] == [3, 3, 3]
    assert out["tables"]["toy"][0]["player"] == "Cat"  # two wins of three
    assert all(r["provisional"] for r in out["tables"]["toy"])
    # ann never won: ann and the other loser share the second place of every game
    assert toy_rows["Anna"]["rating"] < toy_rows["Benno"]["rating"]
    places = {g["id"]: g["places"] for g in out["games"]}
    assert places["toy-t1"] == [["Cat"], ["Anna", "Benno"]]
    staufer = {r["player"]: r for r in out["tables"]["staufer"]}
    # the examples' seats have no address: seat ids, shown by name ("cat" is the toy
    # games' Cat too: one identity)
    assert staufer["Ann"]["games"] == 2 and not staufer["Ann"]["bot"]
    assert staufer["Cat"]["games"] == 2
    assert not any(r["bot"] for rows in out["tables"].values() for r in rows)
    # the bot game, rated apart: three random bots in one game, one identity at three
    # seats, told apart by seat
    apart = {r["player"]: r for r in out["bot_tables"]["staufer"]}
    assert sorted(apart) == ["bot:random#ann", "bot:random#ben", "bot:random#cat"]
    assert all(r["bot"] and r["games"] == 1 for r in apart.values())
    bots = out["bot_games"][0]
    assert bots["id"] == "staufer-bots" and out["left_out"] == ["bots.json"]
    assert bots["bot_seats"] == ["ann", "ben", "cat"] and bots["bot_moves"] > 0
    text = ok("ratings", tmp_path / "g", "--with-bots").output
    assert text.startswith("counted: 7 games between people; 1 game with bots rated apart; "
                           "0 copies counted once\n")
    assert "toy: 3 games rated" in text and "(bot)" in text and " *" in text
    assert "staufer (games with bots, rated apart): 1 game rated" in text
    # the people's tables are the same with the games with bots rated apart or not
    assert league(tmp_path / "g")["tables"] == out["tables"]


def test_bot_games_are_left_out_by_default(tmp_path: Path, bot_game: Path) -> None:
    fill(tmp_path / "g", bot_game, ["staufer-3p.json", "bots"])
    out = league(tmp_path / "g")
    assert out["left_out"] == ["bots.json"]
    assert [g["id"] for g in out["games"]] == ["staufer-3p-example"]
    assert not any(r["bot"] for r in out["tables"]["staufer"])
    assert out["bot_tables"] == {} and out["bot_games"] == []
    text = ok("ratings", tmp_path / "g").output
    assert text.startswith("counted: 1 game between people; 1 game with bots left out "
                           "(--with-bots rates them apart); 0 copies counted once\n")
    assert "left out (bots): bots.json" in text and "(bot)" not in text
    assert league(tmp_path / "g", "--no-bots") == out  # the old option: the default


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
    (folder / "u1.json").write_text(t1)  # the same game twice: it counts once
    unfinished = folder / "t4.json"
    new_game(unfinished, "toy", "--option", "pile=5", players=PEOPLE)
    ok("move", unfinished, "--as", "ann", "take 1")
    (folder / "junk.json").write_text("{not json")
    out = league(folder)
    skipped = {s["file"]: s["reason"] for s in out["skipped"]}
    assert sorted(skipped) == ["forged.json", "junk.json", "t4.json"]
    assert skipped["t4.json"] == "not finished"
    assert out["copies"] == [{"file": "u1.json", "copy_of": "t1.json",
                              "why": "the same moves, the same header, the same game id"}]
    assert [g["id"] for g in out["games"]] == [g["id"] for g in clean["games"]]
    assert out["tables"] == clean["tables"]
    assert [g["id"] for g in clean["games"]] == ["toy-t1", "toy-t2"]
    text = ok("ratings", folder).output
    assert "skipped: forged.json:" in text
    assert "chain" in skipped["forged.json"] or "illegal" in skipped["forged.json"]


def sealed_toy(folder: Path) -> Path:
    """A folder holding s.json, a sealed toy game played to its end, with its secret."""
    folder.mkdir()
    path = folder / "s.json"
    new_game(path, "toy", "--option", "pile=5", "--sealed", players=PEOPLE)
    for player, n in TOY_GAMES["t1"]:
        ok("move", path, "--as", player, f"take {n}")
    return folder


def test_sealed_games_count_with_their_secret(tmp_path: Path) -> None:
    folder = sealed_toy(tmp_path / "g")
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


def test_two_players_of_one_name_are_told_apart(tmp_path: Path) -> None:
    folder = tmp_path / "g"
    folder.mkdir()
    for name, first in (("a", "ann=Ann <one@example.org>"), ("b", "ann=Ann <two@example.org>")):
        path = folder / f"{name}.json"
        new_game(path, "toy", "--option", "pile=5", players=f"{first},ben")
        ok("move", path, "--as", "ann", "take 3")
        ok("move", path, "--as", "ben", "take 2")
    rows = league(folder)["tables"]["toy"]
    names = sorted(r["player"] for r in rows)
    assert names[0] == "Ann#" + names[0][4:] and names[1].startswith("Ann#")
    assert names[0] != names[1] and len(names[0]) == 10
    assert [r["games"] for r in rows if r["player"] == "ben"] == [2]


def test_the_site_gets_a_league_page(tmp_path: Path, bot_game: Path) -> None:
    pytest.importorskip("jinja2")
    fill(tmp_path / "g", bot_game, ["staufer-3p.json", "dynasties-3p.json", "bots"])
    ok("site", tmp_path / "g", "-o", tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<a href="league.html">League</a>' in index
    page = (tmp_path / "site" / "league.html").read_text()
    assert "<h2>dynasties</h2>" in page and "<h2>staufer</h2>" in page
    tables = league(tmp_path / "g")["tables"]
    staufer = page[page.index("<h2>staufer</h2>"):]
    for row in tables["staufer"]:  # in the table's order, bots marked
        assert f"<td>{row['player']}" in staufer
    assert staufer.index(tables["staufer"][0]["player"]) < staufer.index(
        tables["staufer"][-1]["player"])
    assert "(bot)" not in staufer  # the bot game is left out, and the page says so
    assert ("2 games between people; 1 game with bots left out; 0 copies counted once"
            in page)


def test_a_bug_on_one_file_skips_it(tmp_path: Path, bot_game: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An internal error while replaying one file (a bug, simulated here) skips that
    file with a message, and the others still count."""
    from referee.reports.ratings import results

    fill(tmp_path / "g", bot_game, ["t1", "t2"])
    real = results.result_from

    def flaky(raw: bytes, path: Path, name: str) -> results.Result:
        if path.name == "t1.json":
            raise KeyError("boom")
        return real(raw, path, name)

    monkeypatch.setattr(results, "result_from", flaky)
    out = league(tmp_path / "g")
    assert [g["id"] for g in out["games"]] == ["toy-t2"]
    assert "internal error while replaying it (KeyError)" in out["skipped"][0]["reason"]


def test_without_openskill_one_message_and_no_league_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    pytest.importorskip("jinja2")
    folder = tmp_path / "g"
    folder.mkdir()
    shutil.copy(ROOT / "examples" / "staufer-3p.json", folder)
    monkeypatch.setitem(sys.modules, "openskill", None)  # import openskill fails
    result = run("ratings", folder)
    assert result.exit_code == 2
    assert "ratings need openskill" in result.output and "referee[ratings]" in result.output
    ok("site", folder, "-o", tmp_path / "site")
    assert not (tmp_path / "site" / "league.html").exists()
    assert "league.html" not in (tmp_path / "site" / "index.html").read_text()


def test_same_table_in_other_processes(tmp_path: Path, bot_game: Path) -> None:
    """Another process, another hash seed, time zone and working folder: the same
    bytes out (the real games; the toy game lives in this process only)."""
    import os
    import subprocess
    import sys

    fill(tmp_path / "g", bot_game, [*EXAMPLES, "bots"])
    outs = []
    for seed, tz, cwd in (("1", "UTC", tmp_path), ("2", "Asia/Tokyo", ROOT)):
        env = {**os.environ, "PYTHONHASHSEED": seed, "TZ": tz}
        done = subprocess.run([sys.executable, "-m", "referee", "ratings",
                               str(tmp_path / "g"), "--json"], cwd=cwd, env=env,
                              capture_output=True, text=True, check=True)
        outs.append(done.stdout)
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["tables"] == league(tmp_path / "g")["tables"]


def test_the_league_page_counts_the_games_in_play_in_one_line(tmp_path: Path,
                                                              bot_game: Path) -> None:
    """A game still in play is not listed under "Not counted" (in an archive most games
    are in play: the list was most of the page); it is counted in one line, and a game
    left out for another reason is still listed with it."""
    pytest.importorskip("jinja2")
    folder = tmp_path / "g"
    fill(folder, bot_game, ["staufer-3p.json", "dynasties-3p.json"])
    for n in (1, 2):
        open_game = folder / f"open{n}.json"
        new_game(open_game, "staufer", players="ann,ben,cat", seed=f"s{n}")
    sealed = folder / "sealed.json"  # its secret kept elsewhere: not counted, listed
    new_game(sealed, "staufer", "--sealed", "--secret-out", tmp_path / "sealed.secret",
             players="ann,ben,cat")
    ok("site", folder, "-o", tmp_path / "site")
    page = (tmp_path / "site" / "league.html").read_text()
    assert "<p>2 games still in play: rated when they end.</p>" in page
    assert "open1.json" not in page and "open2.json" not in page
    skipped = {s["file"]: s["reason"] for s in league(folder)["skipped"]}
    assert skipped["open1.json"] == skipped["open2.json"] == "not finished"
    assert "<h2>Not counted</h2>" in page and "<li>sealed.json: a sealed game" in page
