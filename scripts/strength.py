"""Strength runs: 4-player games of one mcts bot against three bots of another level,
the mcts seat rotated from game to game. Each finished game is appended to a JSON-lines
file at once, so a long run can be stopped and resumed; ``--report`` summarises files.

    .venv/bin/python -m scripts.strength --game staufer --against random --games 100 \\
        --think 1 --out runs/staufer-random.jsonl
    .venv/bin/python -m scripts.strength --report runs/*.jsonl

The mcts bot thinks ``--think`` seconds per decision, by the wall clock like `referee bot
--think` (``--clock cpu``: seconds of this process's CPU time, the same search whatever
else shares the machine, but slower to run on a busy one). A decision with one legal move
is played without thinking, and a decision is cut short only when further iterations
could not change the chosen move. Each row records the mcts iterations, so a report shows
how much search a busy machine allowed.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import Counter
from pathlib import Path

from referee.bots.mcts import MctsBot
from referee.bots.players import make_bot
from referee.bots.simulate import play_one
from referee.engine import get_game

PLAYERS = 4


CLOCKS = {"wall": time.monotonic, "cpu": time.process_time}


def play(game_name: str, against: str, g: int, think: float, seed: str,
         clock: str = "wall") -> dict[str, object]:
    game = get_game(game_name)
    ids = [f"p{i + 1}" for i in range(PLAYERS)]
    mcts_seat = g % PLAYERS
    bots = {p: (MctsBot(think=think, clock=CLOCKS[clock]) if s == mcts_seat
                else make_bot(against)) for s, p in enumerate(ids)}
    thinking: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    cpu = time.process_time()
    match = play_one(game, bots, f"{seed}-{g}", thinking)
    first = game.ranking(match.state)[0]
    mcts = ids[mcts_seat]
    return {"game": game_name, "against": against, "g": g, "think": think, "clock": clock,
            "mcts_seat": mcts_seat + 1, "scores": game.scores(match.state),
            "first": first, "win": 1 / len(first) if mcts in first else 0.0,
            "moves": len(match.log), "mcts_decisions": thinking[0]["mcts"],
            "mcts_thought": thinking[0]["mcts-thought"],
            "mcts_iterations": thinking[1]["mcts"],
            "cpu_s": round(time.process_time() - cpu, 1)}


def run(args: argparse.Namespace) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {json.loads(line)["g"] for line in out.read_text().splitlines()} \
        if out.exists() else set()
    for g in range(args.games):
        if g in done:
            continue
        row = play(args.game, args.against, g, args.think, args.seed, args.clock)
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a win rate."""
    if not n:
        return 0.0, 0.0
    p = wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


def report(paths: list[str]) -> None:
    print("| game | mcts against | think per move | games | mcts wins | win rate "
          "(95 % interval) | iterations per thought move | mcts mean score | "
          "others' mean score |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in paths:
        rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
        if not rows:
            continue
        wins = sum(r["win"] for r in rows)
        low, high = wilson(wins, len(rows))
        iters = sum(r["mcts_iterations"] for r in rows) / max(
            sum(r["mcts_thought"] for r in rows), 1)
        mine = [r["scores"][f"p{r['mcts_seat']}"] for r in rows]
        others = [v for r in rows for p, v in r["scores"].items()
                  if p != f"p{r['mcts_seat']}"]
        print(f"| {rows[0]['game']} | 3 × {rows[0]['against']} | {rows[0]['think']} s "
              f"{rows[0].get('clock', 'cpu')} | "
              f"{len(rows)} | {wins:g} | {100 * wins / len(rows):.0f} % "
              f"({100 * low:.0f}-{100 * high:.0f} %) | {iters:.0f} | "
              f"{sum(mine) / len(mine):.1f} | {sum(others) / len(others):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="staufer")
    parser.add_argument("--against", default="random", choices=["random", "greedy"])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--seed", default="strength")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--out")
    parser.add_argument("--report", nargs="*", metavar="FILE")
    args = parser.parse_args()
    if args.report is not None:
        report(args.report)
    else:
        if not args.out:
            parser.error("--out is required for a run")
        run(args)


if __name__ == "__main__":
    main()
