"""Benchmark the bots: random playouts per second, one full 4-player random playout's
cost, determinization and state-copy cost, MCTS iterations per second, and (optionally)
MCTS win rates against random and greedy bots. Figures go in docs/speed.md.

    .venv/bin/python -m scripts.bench_bots [--games staufer,dynasties] [--playouts 40]
        [--winrate 20 --think 0.1]

Wall-clock figures move with the machine's load; the playout figures are also given per
CPU-second of this process.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from typing import Any

from referee.bots.mcts import MctsBot
from referee.bots.simulate import simulate
from referee.engine import Match, get_game, random_playout
from referee.engine.rng import Rng

PLAYERS = ["ann", "ben", "cat", "dan"]


def playouts(name: str, count: int) -> dict[str, Any]:
    """``count`` full 4-player random games from the start (setup included)."""
    game = get_game(name)
    moves = []
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(count):
        match = Match.start(game, PLAYERS, {}, f"bench-{i}")
        moves.append(random_playout(match, Rng(f"bench-moves-{i}")))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"playouts_per_s": round(count / wall, 1),
            "playouts_per_cpu_s": round(count / cpu, 1),
            "ms_per_playout": round(1000 * wall / count, 2),
            "moves_per_playout": round(statistics.mean(moves), 1)}


def midgame(name: str) -> Match:
    game = get_game(name)
    match = Match.start(game, PLAYERS, {}, "bench-mid")
    rng = Rng("bench-mid")
    for _ in range(40):
        mover = game.to_move(match.state)[0]
        match.play(mover, rng.choice(game.legal_moves(match.state, mover), "m"))
    return match


def per_call_ms(func: Any, runs: int = 200) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        func()
    return round(1000 * (time.perf_counter() - start) / runs, 3)


def costs(name: str) -> dict[str, Any]:
    game = get_game(name)
    match = midgame(name)
    player = game.to_move(match.state)[0]
    rng = Rng("bench-det")
    bot = MctsBot(think=1.0)
    start = time.perf_counter()
    bot.choose(game, match.state, player, Rng("bench-mcts"))
    wall = time.perf_counter() - start
    return {"deepcopy_ms": per_call_ms(lambda: copy.deepcopy(match.state)),
            "copy_state_ms": per_call_ms(lambda: game.copy_state(match.state)),
            "determinize_ms": per_call_ms(lambda: game.determinize(match.state, player, rng)),
            "mcts_iterations_per_s": round(bot.last_iterations / wall, 1)}


def winrates(name: str, games: int, think: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for opponent in ("random", "greedy"):
        result = simulate(get_game(name), 4, games, ["mcts", opponent, opponent, opponent],
                          think=think, seed="bench").to_json(get_game(name))
        out[f"mcts_vs_{opponent}"] = result["by_bot"]["mcts"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="staufer,dynasties")
    parser.add_argument("--playouts", type=int, default=40)
    parser.add_argument("--winrate", type=int, default=0, metavar="K",
                        help="also play K 4-player games of mcts against 3 random and 3 "
                             "greedy bots")
    parser.add_argument("--think", type=float, default=0.1)
    args = parser.parse_args()
    for name in args.games.split(","):
        print(name, "random playouts (4 players):", playouts(name, args.playouts))
        print(name, "costs (4 players, after 40 moves):", costs(name))
        if args.winrate:
            print(name, f"win rates ({args.winrate} games, {args.think} s/move):",
                  winrates(name, args.winrate, args.think))


if __name__ == "__main__":
    main()
