"""Bot levels, the `bot` and `simulate` commands, and component usage."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from referee.bots import choose, make_bot
from referee.bots.mcts import MctsBot, rewards
from referee.bots.players import GreedyBot, margin
from referee.bots.simulate import seat_bots, simulate
from referee.bots.usage import in_play, matches, usage_prefix
from referee.engine import Match, get_game
from referee.engine.rng import Rng
from referee.errors import NotYourTurn, UsageError
from tests.conftest import run


def test_greedy_takes_the_best_immediate_margin() -> None:
    """Every move greedy may choose has the best score difference found by trying them all
    on the same determinization it used."""
    game = get_game("dynasties")
    match = Match.start(game, ["ann", "ben", "cat"], {}, "greedy")
    rng = Rng("g")
    for _ in range(60):  # play into the game until greedy faces different margins
        player = game.to_move(match.state)[0]
        sample = game.determinize(match.state, player, rng.copy())
        values = {}
        for move in game.legal_moves(sample, player):
            after = copy.deepcopy(sample)
            game.apply(after, player, move)
            values[game.format_move(move)] = margin(game, after, player)
        chosen = GreedyBot().choose(game, match.state, player, rng.copy())
        assert values[game.format_move(chosen)] == max(values.values())
        match.play(player, chosen)
        rng.block("next")


def test_mcts_counts_iterations_and_rewards_split_a_shared_win() -> None:
    game = get_game("staufer")
    match = Match.start(game, ["ann", "ben"], {}, "mcts")
    bot = MctsBot(iterations=7)
    bot.choose(game, match.state, "ann", Rng("m"))
    assert bot.last_iterations == 7
    match.state.finished = True
    match.state.score = [10, 10]  # equal points and equal Court: a shared first place
    r = rewards(game, match.state)
    assert r == {"ann": pytest.approx(0.4 + 0.1), "ben": pytest.approx(0.4 + 0.1)}


def test_bot_refuses_a_player_who_owes_nothing() -> None:
    game = get_game("staufer")
    match = Match.start(game, ["ann", "ben"], {}, "turn")
    idle = next(p for p in match.players if p not in game.to_move(match.state))
    with pytest.raises(NotYourTurn):
        choose(game, match.state, idle, make_bot("random"), Rng("r"))
    with pytest.raises(UsageError):
        make_bot("clever")


def test_bot_command_plays_and_marks_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    assert run("new", "dynasties", path, "--players", "ann,ben,cat", "--seed", "b").exit_code == 0
    result = run("bot", path, "--as", "ann", "--level", "greedy", "--seed", "1")
    assert result.exit_code == 0, result.output
    entry = json.loads(path.read_text())["log"][-1]
    assert entry["bot"] is True and entry["by"] == "ann"
    logged = json.loads(run("log", path, "--json").output)[-1]["move"]
    assert result.output.startswith(f"move 1: ann: {logged} (bot, greedy)\n")
    before = path.read_bytes()
    refused = run("bot", path, "--as", "cat", "--level", "random")
    assert refused.exit_code == 1 and "not cat's turn" in refused.output
    assert run("bot", path, "--as", "zed").exit_code == 2
    assert path.read_bytes() == before  # nothing changed on a refusal


def test_bot_command_in_a_sealed_game_with_its_secret(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    assert run("new", "staufer", path, "--players", "ann,ben", "--sealed").exit_code == 0
    result = run("bot", path, "--as", "ann", "--level", "mcts", "--iterations", "3",
                 "--seed", "s", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["n"] == 1 and out["player"] == "ann" and out["level"] == "mcts"
    assert run("status", path).exit_code == 0


def test_simulate_tallies_by_seat_and_bot() -> None:
    game = get_game("staufer")
    result = simulate(game, 3, 3, ["greedy", "random"], seed="t")
    out = result.to_json(game)
    assert out["games"] == 3 and seat_bots(["greedy", "random"], 3) == out["bots"]
    assert out["by_bot"]["greedy"]["games"] == 6 and out["by_bot"]["random"]["games"] == 3
    decisions = sum(r["decisions"] for r in out["by_bot"].values())
    assert decisions == pytest.approx(out["length"]["mean"] * 3, abs=0.2)
    assert sum(r["games"] for r in out["by_seat"].values()) == 9
    assert sum(r["wins"] for r in out["by_seat"].values()) == pytest.approx(3)
    assert sum(r["wins"] for r in out["by_bot"].values()) == pytest.approx(3)
    assert out["length"]["min"] <= out["length"]["mean"] <= out["length"]["max"]
    assert out["components"]["move:Deploy"]["games"] == 3
    rows = {a["key"]: a for a in out["assumptions"]}
    assert rows["regions.regions.aachen.seats.2"]["flag"] == "not in play with 3 players"
    assert rows["action_board.sides"]["flag"].startswith("not measured")
    assert simulate(game, 3, 3, ["greedy", "random"], seed="t").to_json(game) == out


def test_simulate_reports_mcts_iterations() -> None:
    game = get_game("dynasties")
    out = simulate(game, 3, 1, ["mcts", "random"], iterations=2, seed="i").to_json(game)
    assert out["by_bot"]["mcts"]["mean_iterations"] == 2.0
    assert "mean_iterations" not in out["by_bot"]["random"]


def test_simulate_command_text_json_and_errors() -> None:
    result = run("simulate", "dynasties", "--players", "3", "--games", "2",
                 "--bots", "random", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)  # a progress line may go to stderr on a slow machine
    assert out["by_bot"]["random"]["games"] == 6 and out["games"] == 2
    text = run("simulate", "dynasties", "--players", "3", "--games", "1", "--bots", "random")
    assert text.exit_code == 0 and "random          3" in text.output
    assert "assumed values (almost) never used" in text.output
    assert "iterations per" not in text.output
    mcts = run("simulate", "staufer", "--players", "2", "--games", "1", "--bots", "mcts,random",
               "--iterations", "2")
    assert "mcts: 2.0 iterations per decision with a choice (mean)" in mcts.output
    assert run("simulate", "dynasties", "--players", "2").exit_code == 2
    assert run("simulate", "staufer", "--players", "2", "--bots", "nobody").exit_code == 2
    assert run("simulate", "chess", "--players", "2").exit_code == 2


def test_usage_keys_and_assumption_matching() -> None:
    assert usage_prefix("dynasties", "personalities.personalities.drake") == "personality:drake"
    assert usage_prefix("staufer", "contracts.blue") == "contract-scored:blue-"
    assert usage_prefix("staufer", "privileges.decks.first-game") == "privilege:"
    assert usage_prefix("staufer", "figures.colours") is None
    assert matches("privilege:1", "privilege:1") and not matches("privilege:10", "privilege:1")
    assert matches("chest:orange:vp2", "chest:orange")
    assert matches("contract-scored:blue-2-gap", "contract-scored:blue-")
    assert not in_play("staufer", "regions.regions.aachen.seats.2", 4)
    assert in_play("staufer", "regions.regions.aachen.seats.2", 2)


def test_mcts_final_choice_prefers_visits_then_mean_reward() -> None:
    from referee.bots.mcts import Node, _most_visited

    game = get_game("staufer")
    match = Match.start(game, ["ann", "ben"], {}, "pick")
    legal = game.legal_moves(match.state, game.to_move(match.state)[0])
    a, b, c = legal[:3]
    root = Node(None, children={a: Node("ann", 1, 0.2), b: Node("ann", 1, 0.9),
                                c: Node("ann", 1, 0.5)})
    assert _most_visited(game, root, legal) == legal[1]
    root.children[c] = Node("ann", 2, 0.6)
    assert _most_visited(game, root, legal) == legal[2]
    assert _most_visited(game, Node(None), legal) == legal[0]
