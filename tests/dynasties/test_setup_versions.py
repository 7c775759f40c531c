"""The rules versions' setups. Components and Setup (72 goods): "for each ship ..., the
Banker draws 5 goods from the bag and places them on the ship. He then searches out 1
good of each color from the bag for each player as 'starting capital.'" dynasties-2 does
so (new games); dynasties-1 (games begun before) drew the capital first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.engine import Match
from referee.engine.rng import Rng
from referee.games.dynasties import GAME, game
from referee.games.dynasties import rules as R
from referee.games.dynasties.state import COLOURS, State
from referee.ledger import dataversions, gamefile, replay
from tests.conftest import ok
from tests.support.games import new_game

FIVE = ["ann", "ben", "cat", "dan", "eve"]
SETUPS = 2500
TOLERANCE = 0.12  # about 4 standard errors of a colour's mean over SETUPS setups


def ship_goods_means(rules: str, setups: int = SETUPS) -> list[float]:
    """The mean number of goods of each colour on the 3 ships over 5-player setups."""
    played = game(rules=rules)
    total = [0] * 5
    for i in range(setups):
        state = played.setup(FIVE, {}, Rng(f"odds-{i}"))
        for ship in state.ships:
            total = [t + g for t, g in zip(total, ship.goods, strict=True)]
    return [t / setups for t in total]


def test_new_games_load_the_ships_with_the_printed_orders_odds() -> None:
    """Drawn first from the full bag of 18/18/12/12/12, the 15 ship goods hold on average
    15 x count / 72 of each colour: 3.75, 3.75, 2.5, 2.5, 2.5."""
    assert GAME.rules == "dynasties-2"
    counts = GAME.data.goods_counts
    expected = [15 * c / sum(counts) for c in counts]
    means = ship_goods_means("dynasties-2")
    for colour, mean, want in zip(COLOURS, means, expected, strict=True):
        assert abs(mean - want) < TOLERANCE, (colour, means, expected)


def test_old_games_keep_the_capital_first_odds() -> None:
    """dynasties-1 searched out the 25 goods of the capital first: the ships drew from
    13/13/7/7/7, about 4.15 black and white and 2.23 of each other colour (the bias this
    version keeps for the games that pinned it; the same measurement tells them apart)."""
    means = ship_goods_means("dynasties-1", 1000)
    assert all(abs(m - 15 * 13 / 47) < TOLERANCE for m in means[:2]), means
    assert all(abs(m - 15 * 7 / 47) < TOLERANCE for m in means[2:]), means


def test_the_versions_differ_only_in_the_goods() -> None:
    """Everything else of a setup comes out the same under both rules versions."""
    goods = {"ships", "bag", "players", "rng", "data"}
    for i in range(20):
        old = game(rules="dynasties-1").setup(FIVE[:3 + i % 3], {}, Rng(f"same-{i}"))
        new = GAME.setup(FIVE[:3 + i % 3], {}, Rng(f"same-{i}"))
        for name in State.__struct_fields__:
            if name not in goods:
                assert getattr(old, name) == getattr(new, name), name
        assert [pl.goods for pl in old.players] == [[1] * 5] * old.n
        assert [pl.goods for pl in new.players] == [[1] * 5] * new.n
        assert [p.hand for p in old.players] == [p.hand for p in new.players]
        assert not GAME.invariants(old) and not GAME.invariants(new)


def bag_short_after_loading(seed: str) -> list[int]:
    """Setup ``seed`` (5 players, dynasties-2) as far as the loaded ships: the colours the
    bag then holds fewer of than there are players."""
    rng = Rng(seed)
    seen: list[list[int]] = []
    original = R.hand_out_capital

    def spy(s: State) -> None:
        seen.append(list(s.bag))
        original(s)

    R.hand_out_capital = spy
    try:
        GAME.setup(FIVE, {}, rng)
    finally:
        R.hand_out_capital = original
    return [c for c, n in enumerate(seen[0]) if n < len(FIVE)]


@pytest.mark.parametrize("seed", ["short-1431", "short-5487"])
def test_the_rare_shortfall_takes_the_missing_good_from_a_ship(seed: str) -> None:
    """2 of the first 5,488 seeds (about 1 in 1,900) load 8 or more goods of one colour
    onto the ships, so the bag cannot give all 5 players one: the missing goods come from
    the ship holding most of them, which is topped up again (reading D-SETUP)."""
    assert bag_short_after_loading(seed)
    state = GAME.setup(FIVE, {}, Rng(seed))
    assert [pl.goods for pl in state.players] == [[1] * 5] * 5
    assert [sum(ship.goods) for ship in state.ships] == [5, 5, 5]
    assert GAME.invariants(state) == []


def test_hand_out_capital_robs_the_richest_ship_and_refills_it() -> None:
    state = GAME.setup(FIVE, {}, Rng("rob"))
    for pl in state.players:
        pl.goods = [0] * 5
    state.bag = list(GAME.data.goods_counts)
    loads = [[1, 0, 3, 1, 0], [0, 0, 5, 0, 0], [1, 1, 1, 1, 1]]  # 9 gold-yellow
    for ship, load in zip(state.ships, loads, strict=True):
        ship.goods = list(load)
        state.bag = [b - g for b, g in zip(state.bag, load, strict=True)]
    R.hand_out_capital(state)
    assert [pl.goods for pl in state.players] == [[1] * 5] * 5
    assert state.ships[1].goods[2] == 3  # 12 - 9 = 3 left in the bag, 2 came from ship 2
    assert state.ships[0].goods == [1, 0, 3, 1, 0] and sum(state.ships[1].goods) == 5
    assert state.ships[2].goods == [1, 1, 1, 1, 1]
    assert GAME.invariants(state) == []


def test_a_game_pinned_to_dynasties_1_replays_and_plays_on_by_it(tmp_path: Path) -> None:
    """New games pin dynasties-2; a file pinned to dynasties-1 (every game begun before)
    is set up, replayed and continued by dynasties-1 through the CLI."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    for path in (old, new):
        new_game(path, "dynasties", players="ann,ben,cat", seed="pin", game_id="g")
    assert json.loads(new.read_text())["rules"] == GAME.data_version()
    data = json.loads(old.read_text())
    data["rules"] = f"dynasties-1+data.{GAME.data.digest}"
    old.write_text(gamefile.dumps(data), encoding="utf-8")
    pinned = dataversions.game_for("dynasties", data["rules"])
    assert pinned.rules == "dynasties-1" and pinned.data.digest == GAME.data.digest
    matches = {p: replay.replay(gamefile.read(p)) for p in (old, new)}
    assert matches[old].game is pinned and matches[new].game is GAME
    ships = {p: [s.goods for s in m.state.ships] for p, m in matches.items()}
    expected = Match.start(pinned, ["ann", "ben", "cat"], {}, gamefile.rng_key(
        gamefile.read(old))).state
    assert ships[old] == [s.goods for s in expected.ships]
    assert ships[old] != ships[new]  # the same seed, the goods drawn in the other order
    legal = json.loads(ok("status", old, "--as", "ann", "--json").output)["legal"]
    ok("move", old, "--as", "ann", legal[0])
    assert len(replay.replay(gamefile.read(old)).log) == 1
    assert ok("check", old).exit_code == 0
