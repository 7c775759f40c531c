"""Every registered game through the command line and its files: a game started with
`new` and played with `move` (each move one of those `status --as P --json` lists),
whose `status`, `status --json`, `status --wide`, `log` and each player's own status
show nothing hidden from their reader (tests/leaks.py) and each player's own hidden
items; a finished sealed game played by bot seats that passes `check --strict
--vouched`, whose sealed entries are exactly the moves with private fields, and whose
public part refuses a forged field (or, for a game without hidden choices, refuses any
sealed entry); the bots choosing a legal move reproducibly; and the data versions: the
current data released and every snapshot hashing to its name, or, for a game without
component data, the rules version as its pin."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee import engine
from referee.bots import choose, make_bot
from referee.engine import Match, get_game
from referee.engine.rng import Rng
from referee.ledger import dataversions, gamefile, replay, secret
from tests.conformance.bounds import outside_texts, structs
from tests.conformance.checks import players_for
from tests.conformance.registry import BOTS, GAMES
from tests.conftest import ok, run
from tests.leaks import assert_hidden, assert_shows, leaks, own_items
from tests.support.games import new_game

MOVES = 12  # moves played through the CLI


def three(name: str) -> list[str]:
    game = get_game(name)
    return players_for(game, min(max(3, game.min_players), game.max_players))


def cli_outputs(path: Path, players: list[str]) -> dict[str | None, dict[str, str]]:
    """What the leak tests search: the public outputs and each player's own."""
    out: dict[str | None, dict[str, str]] = {None: {
        "status": ok("status", path).output,
        "status --json": ok("status", path, "--json").output,
        "status --wide": ok("status", path, "--wide").output,
        "log": ok("log", path).output}}
    for p in players:
        out[p] = {"status --as": ok("status", path, "--as", p).output,
                  "status --as --json": ok("status", path, "--as", p, "--json").output}
    return out


def check_outputs(name: str, path: Path, players: list[str], ignore: list[str]) -> None:
    game = get_game(name)
    state = replay.replay(gamefile.read(path)).state
    outputs = cli_outputs(path, players)
    assert_hidden(game, state, outputs, ignore=ignore)
    for k, p in enumerate(players):
        own = own_items(game, state, p)
        assert_shows(outputs[p]["status --as --json"], own, ignore)
        assert_shows(outputs[p]["status --as"], own, ignore)
        if own:  # what p may see is hidden from the next player: their output would fail
            other = players[(k + 1) % len(players)]
            assert leaks(outputs[p]["status --as --json"],
                         engine.hidden_items(game, state, other), ignore)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_plays_through_the_cli_and_its_outputs_hide_what_they_must(
        name: str, tmp_path: Path) -> None:
    path, players = tmp_path / "g.json", three(name)
    new_game(path, name, players=",".join(players), seed="conformance-cli")
    check_outputs(name, path, players, [str(tmp_path)])
    choice = random.Random(f"cli-{name}")
    for _ in range(MOVES):
        status = json.loads(ok("status", path, "--json").output)
        if status["finished"]:
            break
        player = status["to_move"][0]
        legal = json.loads(ok("status", path, "--as", player, "--json").output)["legal"]
        ok("move", path, "--as", player, choice.choice(legal))
    assert len(json.loads(path.read_text())["log"]) > 0
    assert "ok " in ok("check", path).output
    check_outputs(name, path, players, [str(tmp_path)])
    before = path.read_bytes()
    refused = run("move", path, "--as", players[0], "no such move 12")
    assert refused.exit_code in (1, 2) and "Traceback" not in refused.output
    assert refused.output.startswith("error: ") and path.read_bytes() == before


@pytest.mark.parametrize("name", GAMES)
def test_a_move_outside_its_bounds_is_malformed_through_the_cli(name: str,
                                                                tmp_path: Path) -> None:
    """The cheater types a legal move with one field set just outside its declared
    bound: refused as unreadable (exit 1, "cannot read", never "not legal": no rule sees
    the value), the file unchanged; the legal move itself is then accepted."""
    path, players = tmp_path / "g.json", three(name)
    new_game(path, name, players=",".join(players), seed="conformance-bounds")
    game = get_game(name)
    tried = 0
    for _ in range(MOVES):
        status = json.loads(ok("status", path, "--json").output)
        if status["finished"]:
            break
        player = status["to_move"][0]
        legal = json.loads(ok("status", path, "--as", player, "--json").output)["legal"]
        before = path.read_bytes()
        moves = [game.parse_move(text, []) for text in legal[:20]]
        for text in outside_texts(game, moves)[:6]:
            result = run("move", path, "--as", player, text)
            assert result.exit_code == 1, (text, result.output)
            assert "not legal" not in result.output and "Traceback" not in result.output
            assert result.output.startswith("error: ") and path.read_bytes() == before
            tried += 1
        ok("move", path, "--as", player, legal[0])
    assert tried > 0 or not any(s.fields for s in structs(game))


SEED = "0123456789abcdef0123456789abcdef"


SealedGame = Callable[[str], tuple[Path, Path]]


@pytest.fixture(scope="module")
def sealed_game(tmp_path_factory: pytest.TempPathFactory) -> SealedGame:
    """A finished sealed game of a game with bots, played by random bot seats (they
    play as `new` writes the file), made once per module: (file, secret)."""
    made: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in made:
            folder = tmp_path_factory.mktemp(name)
            path, key = folder / "g.json", folder / "g.secret"
            seats = ",".join(f"bot:{p}=random" for p in three(name))
            new_game(path, name, "--sealed", "--secret-out", key, players=seats, seed=SEED)
            status = json.loads(ok("status", path, "--json", "--secret", key).output)
            assert status["finished"]
            made[name] = path, key
        return made[name]
    return get


def private_kinds(name: str, path: Path, key: Path) -> list[str]:
    """The move types of the log that have private fields (what a sealed game seals)."""
    game = get_game(name)
    match = replay.replay(gamefile.read(path), seed=secret.read_secret(key))
    return sorted({msgspec_tag(m) for _, m in match.log if engine.private_fields(game, m)})


def msgspec_tag(move: Any) -> str:
    return str(type(move).__struct_config__.tag)


@pytest.mark.parametrize("name", BOTS)
def test_a_finished_sealed_game_passes_check_strict_vouched(
        name: str, tmp_path: Path, sealed_game: SealedGame) -> None:
    path, key = sealed_game(name)
    data = json.loads(path.read_text())
    sealed = sorted({e["move"]["type"] for e in data["log"] if "sealed" in e})
    assert sealed == private_kinds(name, path, key)
    assert all("mac" in e for e in data["log"])
    assert "ok " in ok("check", path, "--strict", "--vouched", "--secret", key).output
    assert "structure and hash chain only" in ok("check", path, "--strict").output
    revealed = tmp_path / "r.json"
    revealed.write_bytes(path.read_bytes())
    ok("reveal", revealed, "--secret", key)
    assert "ok " in ok("check", revealed, "--strict", "--vouched", "--secret", key).output
    assert "ok " in ok("check", revealed, "--strict").output


def refused(path: Path, *words: str) -> None:
    before = path.read_bytes()
    result = run("check", path)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    for word in words:
        assert word in result.output, result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", BOTS)
def test_the_public_part_of_a_sealed_move_refuses_what_it_may_not_hold(
        name: str, tmp_path: Path, sealed_game: SealedGame) -> None:
    """Without the secret: a MiB hidden in a sealed move's clear part is refused, and so
    is a sealed entry without its public text; a game without hidden choices refuses
    every sealed entry."""
    path, _ = sealed_game(name)
    data = json.loads(path.read_text())
    forged = tmp_path / "g.json"
    entries = [i for i, e in enumerate(data["log"]) if "sealed" in e]
    if not entries:  # no hidden choice: no sealed entry is valid
        entry = next(e for e in data["log"] if "move" in e)
        entry.update(sealed="c2VhbGVk", public="a move")
        forged.write_text(gamefile.dumps(data))
        i = data["log"].index(entry)
        refused(forged, f"$.log[{i}].move: {get_game(name).title} has no hidden choice "
                "to seal")
        return
    i = entries[0]
    data["log"][i]["move"]["hand"] = "x" * 1024 * 1024
    forged.write_text(gamefile.dumps(data))
    refused(forged, f"$.log[{i}].move: object contains unknown field", "public part")
    del data["log"][i]["move"]["hand"]
    data["log"][i].pop("public")
    forged.write_text(gamefile.dumps(data))
    refused(forged, f"$.log[{i}]: `sealed` and `public` come together")


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("level", ["random", "greedy", "mcts"])
def test_bots_choose_a_legal_move_reproducibly(name: str, level: str) -> None:
    game = get_game(name)
    match = Match.start(game, three(name), {}, "bots")
    player = game.to_move(match.state)[0]
    first = choose(game, match.state, player, make_bot(level, iterations=5), Rng("x"))
    again = choose(game, match.state, player, make_bot(level, iterations=5), Rng("x"))
    assert first == again and first in game.legal_moves(match.state, player)


def digest_of(name: str, files: dict[str, Any]) -> str:
    """The data digest that game ``name``'s package gives the data files ``files`` (its
    ``data_digest``, the package contract of docs/adding-a-game.md)."""
    return str(sys.modules[type(get_game(name)).__module__].data_digest(dict(files)))


@pytest.mark.parametrize("name", GAMES)
def test_the_data_version_is_released_or_the_rules_version_alone(name: str) -> None:
    """A game with component data pins ``RULES+data.DIGEST``: the current data is
    released (committed in its package's data/versions/) and every snapshot hashes to
    its name. A game without data pins its rules version alone."""
    game = get_game(name)
    if not dataversions.keeps_versions(name):
        assert game.data_version() == game.rules
        return
    rules, digest = dataversions.split_pin(game.data_version())
    assert rules == game.rules == dataversions.rules_versions(name)[-1]
    assert digest in dataversions.on_disk(name), (
        f"the {name} data changed: release it with `referee release-data {name}` and "
        f"commit data/versions/{digest}.json")
    for found in dataversions.on_disk(name):
        body = json.loads((dataversions.versions_dir(name) / f"{found}.json").read_text())
        assert digest_of(name, body["files"]) == found
        assert body["rules"] == f"{dataversions.split_pin(body['rules'])[0]}+data.{found}"
