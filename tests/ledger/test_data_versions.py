"""Released data versions: a game replays with the data version it pinned, an unknown
version is refused by name, `referee upgrade` reports and moves a game to the current
data, and `referee data` lists the versions."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.engine import Game, Match, get_game
from referee.engine.rng import Rng
from referee.ledger import dataversions, gamefile, replay, secret
from tests.conftest import ok, run
from tests.support import games

PLAYERS = ["ann", "ben", "cat", "dan"]


def current_files(name: str) -> dict[str, Any]:
    return copy.deepcopy(dataversions.files_of(name, dataversions.split_pin(
        dataversions.current_pin(name))[1]))


def cheaper_seats(files: dict[str, Any]) -> None:
    """Staufer: every assumed 3-5 player seat costing more than 3 costs 1 less."""
    for region in files["regions"]["regions"].values():
        seats = region["seats"]["3-5"]
        assert seats["confidence"] == "assumed"
        seats["value"] = [[c - 1 if c > 3 else c, noble] for c, noble in seats["value"]]


def second_place_plus_one(files: dict[str, Any]) -> None:
    """Staufer: the assumed second-place points of the 2-3 player scoring tiles."""
    node = files["scoring_tiles"]["tiles"]["2-3"]
    assert node["confidence"] == "assumed"
    node["value"] = [[first, second + 1] for first, second in node["value"]]


def dearer_light_blue(files: dict[str, Any]) -> None:
    """Dynasties: the assumed cost of the first light-blue personality space."""
    spaces = files["personalities"]["spaces"]
    assert spaces["confidence"]["light_blue_costs"] == "assumed"
    spaces["light_blue_costs"][0] += 1


def digest_of(name: str, files: dict[str, Any]) -> str:
    """The data digest that game ``name``'s package gives the data files ``files`` (its
    ``data_digest``, the package contract of docs/adding-a-game.md)."""
    return str(sys.modules[type(get_game(name)).__module__].data_digest(dict(files)))


def register(name: str, files: dict[str, Any]) -> str:
    """Make the data files ``files`` known as a released version of game ``name`` in this
    process (beside data/versions/); returns its pin."""
    digest = digest_of(name, files)
    dataversions._registered.setdefault(name, {})[digest] = json.loads(json.dumps(files))
    return f"{dataversions.split_pin(dataversions.current_pin(name))[0]}" \
        f"{dataversions.SEPARATOR}{digest}"


def unregister(name: str, digest: str) -> None:
    """Forget a version :func:`register` added, and the game objects built from it."""
    dataversions._registered.get(name, {}).pop(digest, None)
    for key in [k for k in dataversions._games if k[0] == name and k[2] == digest]:
        del dataversions._games[key]


@pytest.fixture
def variant() -> Iterator[Callable[[str, Callable[[dict[str, Any]], None]], str]]:
    """Register a released version with one assumed value changed; returns its pin."""
    made: list[tuple[str, str]] = []

    def make(name: str, edit: Callable[[dict[str, Any]], None]) -> str:
        files = current_files(name)
        edit(files)
        pin = register(name, files)
        assert pin != dataversions.current_pin(name)
        made.append((name, dataversions.split_pin(pin)[1]))
        return pin

    yield make
    for name, digest in made:
        unregister(name, digest)


def new_game(tmp_path: Path, name: str, pin: str, n: int = 3) -> Path:
    """A new game file whose header pins ``pin`` (as a referee with that data made it)."""
    path = tmp_path / f"{name}.json"
    games.new_game(path, name, players=",".join(PLAYERS[:n]), seed="dv", game_id="g1")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"] = pin
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    return path


def play(path: Path, count: int, label: str = "dv") -> None:
    """Append ``count`` moves chosen among the legal ones of the game's data in force."""
    gf = gamefile.read(path)
    match = replay.replay(gf)
    chooser = Rng(label)
    for _ in range(count):
        if match.game.finished(match.state):
            break
        by = match.game.to_move(match.state)[0]
        move = chooser.choice(match.game.legal_moves(match.state, by), "pick")
        match.play(by, move)
        gamefile.append_entry(gf.data, by, move)
    path.write_text(gamefile.dumps(gf.data), encoding="utf-8")


def same_moves(game: Game, path: Path) -> Match | None:
    """The file's moves played afresh in ``game``; None if one is not legal there."""
    gf = gamefile.read(path)
    match = Match.start(game, gf.players, gf.data["options"], gamefile.rng_key(gf))
    for entry in gf.log:
        if "move" not in entry:
            continue
        move = msgspec.convert(entry["move"], game.move_type)
        if move not in game.legal_moves(match.state, entry["by"]):
            return None
        match.play(entry["by"], move)
    return match


def status(path: Path, player: str | None = None) -> dict[str, Any]:
    result = run("status", path, "--json", *(["--as", player] if player else []))
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def move_on(path: Path) -> None:
    """The player to move plays their first legal move through the CLI."""
    player = status(path)["to_move"][0]
    text = status(path, player)["legal"][0]
    result = run("move", path, "--as", player, text)
    assert result.exit_code == 0, result.output


# --- a game replays with its pinned version ------------------------------------------------


def test_old_staufer_game_replays_and_plays_on_with_its_pinned_data(tmp_path: Path,
                                                                     variant: Any) -> None:
    """The seat costs were corrected after the game began: it keeps the costs it pinned."""
    pin = variant("staufer", cheaper_seats)
    path = new_game(tmp_path, "staufer", pin)
    play(path, 30)
    gf = gamefile.read(path)
    match = replay.replay(gf)
    pinned_game = dataversions.game_for("staufer", pin)
    assert gf.game is pinned_game and match.game is pinned_game
    assert pinned_game is not get_game("staufer")
    assert pinned_game.data_version() == pin
    assert get_game("staufer").data_version() == dataversions.current_pin("staufer")
    fresh = same_moves(pinned_game, path)
    assert fresh is not None
    assert pinned_game.fingerprint(match.state) == pinned_game.fingerprint(fresh.state)
    aachen = match.state.seat_cost  # the pinned costs, not the current ones
    current = Match.start(get_game("staufer"), gf.players, {}, gamefile.rng_key(gf)).state
    assert aachen != current.seat_cost
    assert status(path)["rules"] == pin
    move_on(path)
    gf = gamefile.read(path)
    assert len(replay.replay(gf).log) == 31
    assert run("check", path).exit_code == 0


def test_old_dynasties_game_replays_and_plays_on_with_its_pinned_data(tmp_path: Path,
                                                                       variant: Any) -> None:
    pin = variant("dynasties", dearer_light_blue)
    path = new_game(tmp_path, "dynasties", pin, n=4)
    play(path, 25)
    gf = gamefile.read(path)
    match = replay.replay(gf)
    pinned_game = dataversions.game_for("dynasties", pin)
    assert match.game is pinned_game
    current = get_game("dynasties")
    assert pinned_game.data.light_blue_costs[0] == current.data.light_blue_costs[0] + 1
    fresh = same_moves(pinned_game, path)
    assert fresh is not None
    assert pinned_game.fingerprint(match.state) == pinned_game.fingerprint(fresh.state)
    player = status(path)["to_move"][0]
    assert status(path, player)["legal"] == [
        pinned_game.format_move(m) for m in pinned_game.legal_moves(match.state, player)]
    move_on(path)
    assert len(replay.replay(gamefile.read(path)).log) == 26


def test_unknown_data_version_is_refused_naming_the_versions_here(tmp_path: Path) -> None:
    path = new_game(tmp_path, "staufer", "staufer-2+data.000000000000")
    before = path.read_bytes()
    result = run("status", path)
    assert result.exit_code == 1
    assert "staufer data version 000000000000, which this referee does not have" in result.output
    versions = ", ".join(dataversions.released("staufer"))
    assert f"data versions here: {versions}" in result.output
    assert "Traceback" not in result.output
    assert path.read_bytes() == before
    data = json.loads(before)
    data["rules"] = "staufer-2+data.../../../x"
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    result = run("status", path)
    assert result.exit_code == 1
    assert ("error: 'staufer-2+data.../../../x': '../../../x' is not a data version "
            "(12 hex digits)") in result.output


def test_other_rules_are_refused(tmp_path: Path) -> None:
    digest = dataversions.split_pin(dataversions.current_pin("staufer"))[1]
    path = new_game(tmp_path, "staufer", f"staufer-1+data.{digest}")
    result = run("status", path)
    assert result.exit_code == 1
    assert "made with rules staufer-1, but this referee plays staufer-2" in result.output


def test_upgrade_entry_of_a_player_is_refused(tmp_path: Path) -> None:
    path = new_game(tmp_path, "staufer", dataversions.current_pin("staufer"))
    play(path, 3)
    data = json.loads(path.read_text(encoding="utf-8"))
    gamefile.append_raw(data, {"n": 4, "by": "ann", "meta": {
        "kind": "upgrade", "data": dataversions.current_pin("staufer")}})
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    result = run("status", path)
    assert result.exit_code == 1
    assert "$.log[3]: only the game master (gm) upgrades the data of a game" in result.output


# --- referee upgrade ---------------------------------------------------------------------


def test_upgrade_reports_the_difference_then_moves_the_game_on(tmp_path: Path,
                                                               variant: Any) -> None:
    """The scoring tiles were corrected: the dry run names the change and the scores under
    both data; the upgrade appends the game master's entry; the game goes on
    under the current data from then on."""
    pin = variant("staufer", second_place_plus_one)
    current = dataversions.current_pin("staufer")
    path = new_game(tmp_path, "staufer", pin)
    play(path, 60)
    before = path.read_bytes()
    scores_pinned = status(path)["scores"]
    result = run("upgrade", path, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    tiles = current_files("staufer")["scoring_tiles"]["tiles"]["2-3"]["value"]
    assert report["differences"] == [
        {"path": f"scoring_tiles.tiles.2-3[{i}]", "old": [a, b + 1], "new": [a, b]}
        for i, (a, b) in enumerate(tiles)]
    assert (report["pinned"], report["target"]) == (pin, current)
    assert report["upgradable"] and report["first_illegal"] is None
    assert len(report["moves"]) == 60 and all(m["legal"] for m in report["moves"])
    assert [m["n"] for m in report["moves"]] == list(range(1, 61))
    assert report["scores"]["pinned"] == scores_pinned
    expected = same_moves(get_game("staufer"), path)
    assert expected is not None
    assert report["scores"]["target"] == get_game("staufer").scores(expected.state)
    assert report["scores"]["target"] != report["scores"]["pinned"]
    changed = [m for m in report["moves"] if m["scores_pinned"] != m["scores_target"]]
    assert changed and not any(m["same_state"] for m in changed)
    assert (report["dry_run"], report["upgraded"]) == (True, False)
    assert path.read_bytes() == before
    text = run("upgrade", path, "--dry-run")
    assert text.exit_code == 0
    assert f"  scoring_tiles.tiles.2-3[0]: [{tiles[0][0]}, {tiles[0][1] + 1}] -> " \
           f"{json.dumps(tiles[0])}\n" in text.output
    first = changed[0]
    assert (f"  entry {first['n']} {first['by']} {first['move']!r}: scores "
            f"{', '.join(f'{p} {v}' for p, v in first['scores_pinned'].items())} -> "
            f"{', '.join(f'{p} {v}' for p, v in first['scores_target'].items())}\n"
            ) in text.output
    assert "every move stays legal" in text.output
    assert "dry run: nothing written; the game can be upgraded." in text.output
    assert path.read_bytes() == before

    done = run("upgrade", path)
    assert done.exit_code == 0, done.output
    assert f"upgraded: the game now plays by {current} (log entry 61: [upgrade] by gm)." \
           in done.output
    entry = json.loads(path.read_text(encoding="utf-8"))["log"][-1]
    assert (entry["n"], entry["by"], entry["meta"]) == (
        61, "gm", {"kind": "upgrade", "data": current})
    assert json.loads(path.read_text(encoding="utf-8"))["rules"] == pin  # header unchanged
    gf = gamefile.read(path)
    assert dataversions.pinned_for(gf) == current
    assert dataversions.pinned_for(gf, upto=60) == pin
    assert status(path)["scores"] == report["scores"]["target"]
    move_on(path)
    gf = gamefile.read(path)
    match = replay.replay(gf)
    assert match.game is get_game("staufer") and len(match.log) == 61
    assert run("check", path).exit_code == 0
    again = run("upgrade", path)
    assert again.exit_code == 0
    assert f"nothing to do: the game already plays by {current}." in again.output


def test_upgrade_names_the_first_move_that_becomes_illegal_and_refuses(
        tmp_path: Path, variant: Any) -> None:
    pin = variant("staufer", cheaper_seats)
    path = new_game(tmp_path, "staufer", pin)
    play(path, 40)
    before = path.read_bytes()
    result = run("upgrade", path, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert not report["upgradable"]
    first = report["first_illegal"]
    assert first is not None and report["moves"][-1] == first
    assert all(m["legal"] for m in report["moves"][:-1])
    # the same verdict, found independently: the moves before it, then this one
    gf = gamefile.read(path)
    game = get_game("staufer")
    match = Match.start(game, gf.players, {}, gamefile.rng_key(gf))
    for entry in gf.log[:first["n"] - 1]:
        match.play(entry["by"], msgspec.convert(entry["move"], game.move_type))
    bad = msgspec.convert(gf.log[first["n"] - 1]["move"], game.move_type)
    assert bad not in game.legal_moves(match.state, first["by"])
    assert first["problem"] == game.why_illegal(match.state, first["by"], bad)
    assert report["problem"] == (f"entry {first['n']} is not legal under "
                                 f"{dataversions.current_pin('staufer')}: {first['problem']}")
    assert {d["path"].split(".")[0] for d in report["differences"]} == {"regions"}
    # the scores now are the whole game's under its pinned data, not those after the
    # first illegal move (which printed "scores now: ann 0, ben 0, cat 0 -> -")
    now = status(path)["scores"]
    assert report["scores"] == {"pinned": now, "target": None}
    assert any(now.values())
    text = run("upgrade", path, "--dry-run").output
    assert (f"scores now: {', '.join(f'{p} {v}' for p, v in now.items())} -> - (the game "
            f"cannot go past entry {first['n']} under {dataversions.current_pin('staufer')})"
            ) in text
    refused = run("upgrade", path)
    assert refused.exit_code == 1
    assert f"first move that becomes illegal: entry {first['n']}" in refused.output
    assert f"error: not upgraded: entry {first['n']} is not legal" in refused.output
    assert path.read_bytes() == before
    assert run("upgrade", path, "--json").exit_code == 1
    assert path.read_bytes() == before


def test_upgrade_of_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    result = run("upgrade", tmp_path / "none.json")
    assert result.exit_code == 1
    assert "error: no game file at" in result.output and "Traceback" not in result.output


# --- referee data --------------------------------------------------------------------------


def test_data_lists_the_released_versions(variant: Any) -> None:
    current = dataversions.current_pin("staufer")
    pin = variant("staufer", second_place_plus_one)
    result = run("data", "staufer")
    assert result.exit_code == 0
    assert f"  {current} (current)\n" in result.output
    assert f"  {pin} (not yet released in data/versions)\n" in result.output
    listed = json.loads(run("data", "staufer", "--json").output)["versions"]
    assert {"pin": current, "current": True, "in_package": True} in listed
    assert {"pin": pin, "current": False, "in_package": False} in listed
    assert [v["pin"] for v in listed] == sorted(v["pin"] for v in listed)


def test_damaged_snapshots_are_refused_clearly(tmp_path: Path, monkeypatch: Any) -> None:
    files = current_files("staufer")
    second_place_plus_one(files)
    digest = digest_of("staufer", files)
    folder = tmp_path / "versions"
    folder.mkdir()
    monkeypatch.setattr(dataversions, "versions_dir", lambda name: folder)
    game = tmp_path / "game"
    game.mkdir()
    path = new_game(game, "staufer", f"staufer-2+data.{digest}")
    (folder / f"{digest}.json").write_text("{not json", encoding="utf-8")
    result = run("status", path)
    assert result.exit_code == 1
    assert (f"error: the released staufer data version {digest} cannot be read "
            "(JSONDecodeError): reinstall the referee") in result.output
    other = current_files("staufer")
    other["privileges"]["vp_values"]["value"] = [1, 1, 1, 1, 1]
    (folder / f"{digest}.json").write_text(json.dumps({"files": other}), encoding="utf-8")
    result = run("status", path)
    assert result.exit_code == 1
    wrong = digest_of("staufer", other)
    assert (f"error: the released staufer data version {digest} is damaged: its files hash "
            f"to staufer-2+data.{wrong}") in result.output
    assert f"staufer_data_{digest}" not in sys.modules


def test_sealed_game_upgrade_carries_the_referee_mac(tmp_path: Path, variant: Any) -> None:
    pin = variant("staufer", second_place_plus_one)
    path = tmp_path / "sealed.json"
    result = run("new", "staufer", path, "--players", "ann,ben,cat", "--sealed", "--id", "s1")
    assert result.exit_code == 0, result.output
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"] = pin
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    assert seed is not None and "seed" not in gf.data["rng"]
    match = replay.replay(gf, seed)
    chooser = Rng("sealed")
    for _ in range(20):
        by = match.game.to_move(match.state)[0]
        move = chooser.choice(match.game.legal_moves(match.state, by), "pick")
        match.play(by, move)
        gamefile.append_entry(gf.data, by, move, seed=seed)
    path.write_text(gamefile.dumps(gf.data), encoding="utf-8")
    done = run("upgrade", path, "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["upgraded"] is True
    entry = json.loads(path.read_text(encoding="utf-8"))["log"][-1]
    assert entry["meta"] == {"kind": "upgrade", "data": dataversions.current_pin("staufer")}
    assert len(entry["mac"]) == 64
    assert run("check", path).exit_code == 0
    move_on(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["log"][20]["mac"] = "0" * 64  # the upgrade entry's MAC forged
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    assert run("status", path).exit_code == 1


def test_release_keeps_the_current_data_once(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(dataversions, "versions_dir", lambda name: tmp_path / name)
    pin = dataversions.current_pin("dynasties")
    digest = dataversions.split_pin(pin)[1]
    written = tmp_path / "dynasties" / f"{digest}.json"
    assert ok("release-data", "dynasties").output == f"dynasties: released {pin} in {written}\n"
    body = json.loads(written.read_text(encoding="utf-8"))
    assert body["rules"] == pin
    assert digest_of("dynasties", body["files"]) == digest
    assert ok("release-data", "dynasties").output == f"dynasties: {pin} was released\n"
    assert json.loads(ok("release-data", "dynasties", "--json").output) == [
        {"game": "dynasties", "pin": pin, "file": None, "released": False}]
    assert run("release-data").exit_code == 2
    refused = run("release-data", "toy")
    assert refused.exit_code == 2
    assert "toy keeps no released data versions" in refused.output


def test_upgrade_skips_undone_moves_and_numbers_moves_by_log_entry(tmp_path: Path,
                                                                   variant: Any) -> None:
    pin = variant("staufer", second_place_plus_one)
    path = new_game(tmp_path, "staufer", pin)
    play(path, 5)
    for _ in range(10):  # entries 6 and 7: a move and its undo (one that revealed nothing)
        player = status(path)["to_move"][0]
        assert run("move", path, "--as", player, status(path, player)["legal"][-1]
                   ).exit_code == 0
        if run("undo", path, "--as", player).exit_code == 0:
            break
    log = json.loads(path.read_text(encoding="utf-8"))["log"]
    undo_at = len(log)
    assert log[-1]["undo"] == undo_at - 1
    move_on(path)
    report = json.loads(run("upgrade", path, "--dry-run", "--json").output)
    numbers = [m["n"] for m in report["moves"]]
    assert numbers == [n for n in range(1, undo_at + 2) if n not in (undo_at - 1, undo_at)]
    assert report["upgradable"]
    assert run("upgrade", path).exit_code == 0
    assert run("check", path).exit_code == 0


def test_a_kept_card_stays_sealed_in_a_game_on_older_data(tmp_path: Path,
                                                          variant: Any) -> None:
    pin = variant("dynasties", dearer_light_blue)
    path = tmp_path / "sealed.json"
    assert run("new", "dynasties", path, "--players", "ann,ben,cat", "--sealed", "--id", "s2"
               ).exit_code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["rules"] = pin
    path.write_text(gamefile.dumps(data), encoding="utf-8")
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    match = replay.replay(gf, seed)
    chooser = Rng("keep")
    for _ in range(300):
        by = match.game.to_move(match.state)[0]
        legal = match.game.legal_moves(match.state, by)
        private = [m for m in legal if match.game.private_fields(m)]
        move = private[0] if private else chooser.choice(legal, "pick")
        match.play(by, move)
        entry = gamefile.append_entry(gf.data, by, move, seed=seed)
        if private:
            assert "sealed" in entry
            assert not set(match.game.private_fields(move)) & set(entry["move"])
            return
    raise AssertionError("no move with a private field came up")


# --- loading a version is a lookup; rules versions ---------------------------------------


def test_a_pinned_version_is_built_once(variant: Any) -> None:
    pin = variant("staufer", cheaper_seats)
    game = dataversions.game_for("staufer", pin)
    assert dataversions.game_for("staufer", pin) is game
    assert game.data_version() == pin
    assert dataversions.game_for("staufer", dataversions.current_pin("staufer")) is \
        get_game("staufer")


def test_rules_versions_of_a_game(tmp_path: Path) -> None:
    assert dataversions.rules_versions("staufer")[-1] == \
        dataversions.split_pin(dataversions.current_pin("staufer"))[0]
    assert dataversions.rules_versions("toy") == ("toy-1",)
    assert dataversions.listing("toy") == []


def test_upgrade_to_names_a_version(tmp_path: Path, variant: Any) -> None:
    pin = variant("staufer", second_place_plus_one)
    path = new_game(tmp_path, "staufer", dataversions.current_pin("staufer"))
    play(path, 4)
    before = path.read_bytes()
    report = json.loads(run("upgrade", path, "--to", pin, "--dry-run", "--json").output)
    assert report["target"] == pin and report["upgradable"]
    assert report["rules"] == {"pinned": "staufer-2", "target": "staufer-2"}
    for bad, message in (("nonsense", "is not a rules/data pin"),
                         ("staufer-9+data.000000000000", "this referee plays staufer-2")):
        result = run("upgrade", path, "--to", bad)
        assert result.exit_code == 1 and message in result.output, result.output
        assert "Traceback" not in result.output
    assert path.read_bytes() == before
