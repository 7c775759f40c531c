"""Sealed games vouched for by the referee, attacked without git: a player who has read
the code recomputes the hash chain after an edit, strips the referee's MACs, forges a
game master's entry, grinds nonces or picks a weak seed. Through the CLI, toy game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from referee.engine import rng
from referee.ledger import gamefile, secret
from tests.conftest import ok, run
from tests.support.games import new_game

SEED = "3f9a1c7e5b2d4f6a8c0e1a3b5d7f9a1c"  # 128 bits


def refused(result: Result, code: int, *words: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


@pytest.fixture
def refereed(tmp_path: Path) -> tuple[Path, Path]:
    """A sealed toy game in which the referee (holding the secret) accepted 3 moves."""
    path, key = tmp_path / "g.json", tmp_path / "g.secret"
    new_game(path, "toy", "--sealed", "--secret-out", key, players="ann,ben", seed=SEED,
             game_id="g1")
    for player in ("ann", "ben", "ann"):
        ok("move", path, "--as", player, "take 1", "--secret", key)
    return path, key


def rehash(data: dict) -> None:
    log, data["log"] = data["log"], []
    for entry in log:
        entry["prev"] = gamefile.next_prev(data)
        data["log"].append(entry)


def test_every_accepted_entry_carries_the_referees_mac(refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    data = json.loads(path.read_text())
    assert all(len(e["mac"]) == 64 for e in data["log"])
    ok("check", path, "--secret", key, "--vouched")


def test_a_rehashed_edit_is_caught_without_git(refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    data = json.loads(path.read_text())
    data["log"][1]["move"]["n"] = 2  # ben "took 2" after all
    rehash(data)
    path.write_text(gamefile.dumps(data))
    ok("check", path)  # without the secret a recomputed chain cannot be told apart
    refused(run("check", path, "--secret", key), 1, "entry 2", "MAC does not match")


def test_stripped_macs_are_caught_by_check_vouched(refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    data = json.loads(path.read_text())
    for entry in data["log"]:
        entry.pop("mac")
    data["log"][1]["move"]["n"] = 2
    rehash(data)
    path.write_text(gamefile.dumps(data))
    result = ok("check", path, "--secret", key)  # a legal history, but nobody vouches
    assert "3 entries at the end were appended without the referee" in result.output
    refused(run("check", path, "--secret", key, "--vouched"), 1, "entries 1-3",
            "no MAC of the referee")


def test_a_forged_game_master_entry_is_refused(refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": 4, "by": "gm", "meta": {"kind": "address",
                                                            "player": "ben",
                                                            "emails": ["mallory@evil.test"]}})
    path.write_text(gamefile.dumps(data))
    refused(run("check", path, "--secret", key), 1, "game master's entry without")


def test_an_unchecked_move_is_vouched_by_the_next_referee_entry(
        refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    ok("move", path, "--as", "ben", "take 1", "--unchecked")
    assert "1 entry at the end was appended" in ok("check", path, "--secret", key).output
    ok("move", path, "--as", "ann", "take 1", "--secret", key)
    assert "appended without" not in ok("check", path, "--secret", key, "--vouched").output


def test_a_players_void_of_a_legal_move_is_refused(refereed: tuple[Path, Path]) -> None:
    path, key = refereed
    before = path.read_bytes()
    refused(run("void", path, "3", "--as", "ann", "--secret", key), 1, "that move was legal")
    assert path.read_bytes() == before
    refused(run("void", path, "3", "--as", "ben", "--secret", key), 1, "only its author")
    refused(run("void", path, "3", "--as", "gm"), 1, "needs the game's secret")


# --- seeds and nonces -------------------------------------------------------------------


def test_a_short_seed_is_refused_for_a_sealed_game(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    refused(run("new", "toy", path, "--players", "ann,ben", "--sealed", "--seed", "271828"),
            2, "about 20 bits", "at least 128")
    assert not path.exists() and not (tmp_path / "g.json.secret").exists()
    new_game(path, "toy", players="ann,ben", seed="271828")  # open: no secret


def test_one_repository_secret_serves_every_sealed_game(tmp_path: Path) -> None:
    master = "9f2c4e1a7b3d5f6e8a0c2e4f6a8b0d1c3e5f7a9b1d3f5a7c9e1b3d5f7a9c1e3f"
    env = {"REFEREE_SECRET": master}
    for name in ("a", "b"):
        ok("new", "toy", tmp_path / f"{name}.json", "--players", "ann,ben", "--sealed",
           "--id", f"game-{name}", env=env)
        assert not (tmp_path / f"{name}.json.secret").exists()
    commits = {json.loads((tmp_path / f"{n}.json").read_text())["rng"]["commitment"]
               for n in "ab"}
    assert len(commits) == 2  # every game has its own seed
    header_a = json.loads((tmp_path / "a.json").read_text())
    assert rng.commitment(secret.game_seed(master, header_a)) in commits  # bound to it
    for name in ("a", "b"):
        ok("move", tmp_path / f"{name}.json", "--as", "ann", "take 1", env=env)
    blind = run("status", tmp_path / "a.json")  # without the secret: no state, no board
    assert blind.exit_code == 0 and "This game is sealed, and neither its secret" in blind.output
    refused(run("move", tmp_path / "a.json", "--as", "ben", "take 1"), 1, "--unchecked")
    refused(run("check", tmp_path / "a.json", env={"CI": "true"}), 1, "secret is required")
    refused(run("check", tmp_path / "a.json", "--require-secret"), 1, "secret is required")


def test_nobody_can_grind_a_nonce(tmp_path: Path) -> None:
    """The last player cannot choose a nonce knowing the others': nonces are committed
    first, and a revealed nonce must match its commitment."""
    path = tmp_path / "g.json"
    new_game(path, "toy", "--sealed", "--nonces", "--secret-out", tmp_path / "k", players="ann,ben",
             seed=SEED)
    ok("nonce", path, "--as", "ann")
    # ben tries to reveal (or to give a nonce in clear) before committing: refused
    data = json.loads(path.read_text())
    assert "nonces" in data["rng"] and data["rng"]["nonces"] == {}
    ok("nonce", path, "--as", "ben")
    ok("nonce", path, "--as", "ann")  # reveal
    # ben, now knowing ann's nonce, edits his reveal to another value: refused on read
    data = json.loads(path.read_text())
    data["rng"]["nonces"]["ben"] = "ground-until-it-deals-me-the-best-hand"
    path.write_text(gamefile.dumps(data))
    refused(run("check", path), 1, "does not match its commitment")
    refused(run("status", path, "--secret", tmp_path / "k"), 1, "does not match")


def test_a_nonce_revealed_before_all_commitments_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "toy", "--nonces", players="ann,ben", seed="s")
    ok("nonce", path, "--as", "ann", "a-nonce")
    data = json.loads(path.read_text())
    data["rng"]["nonces"]["ann"] = "a-nonce"  # revealed early, by hand
    path.write_text(gamefile.dumps(data))
    refused(run("check", path), 1, "before every player had committed")


def test_a_forged_sealed_choice_is_caught_and_can_be_struck(tmp_path: Path) -> None:
    """A hidden choice is sealed to the referee's recipient: one that does not open with
    the game's secret is refused by `check`, and its author can strike it."""
    path, key = tmp_path / "d.json", tmp_path / "d.secret"
    new_game(path, "dynasties", "--sealed", "--secret-out", key, players="ann,ben,cat", seed=SEED)
    passes = [m for m in json.loads(ok("status", path, "--as", "ann", "--json", "--secret",
                                       key).output)["legal"] if m.startswith("pass")]
    ok("move", path, "--as", "ann", passes[-1], "--unchecked")
    data = json.loads(path.read_text())
    assert "sealed" in data["log"][0] and "keep" not in data["log"][0]["move"]
    data["log"][0]["sealed"] = "AAAA" + data["log"][0]["sealed"][4:]  # a forged blob
    path.write_text(gamefile.dumps(data))
    refused(run("check", path, "--secret", key), 1, "cannot be opened")
    ok("void", path, "1", "--as", "ann")
    ok("check", path, "--secret", key)


@pytest.mark.parametrize("meta", [
    {"kind": "address", "player": "ben", "emails": ["mallory@evil.test"]},
    {"kind": "replace", "player": "ben", "name": "Mallory", "email": "mallory@evil.test"},
    {"kind": "gm", "email": "ann@evil.test"},
    {"kind": "notify", "player": "ben", "mode": "digest"},
    {"kind": "upgrade", "data": "toy-1"},
])
def test_a_player_cannot_write_the_game_masters_records(tmp_path: Path, meta: dict) -> None:
    """ann, who can write the file (git), records a change of ben's address, replaces
    ben, makes herself game master, changes ben's notifications or upgrades the data: every
    such record by a player makes the file invalid."""
    path = tmp_path / "g.json"
    new_game(path, "toy", players="ann,ben", seed="s")
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": 1, "by": "ann", "meta": meta})
    path.write_text(gamefile.dumps(data))
    refused(run("check", path), 1, "only the game master")
    data["log"] = []
    gamefile.append_raw(data, {"n": 1, "by": "ann", "meta": {"kind": "notify",
                                                             "player": "ann",
                                                             "mode": "digest"}})
    path.write_text(gamefile.dumps(data))
    ok("check", path)  # her own notification is hers to set
