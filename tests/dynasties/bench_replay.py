"""Benchmark (not a test): replay whole random 5-player games as `referee check` does.

    .venv/bin/python -m tests.dynasties.bench_replay

Per game: setup + for every log entry a legal_moves membership check + apply.
"""

from __future__ import annotations

import time

from referee.engine import Match, random_playout
from referee.games.dynasties import GAME
from referee.rng import Rng


def main(games: int = 50) -> None:
    times, lengths = [], []
    for seed in range(games):
        match = Match.start(GAME, [f"p{i}" for i in range(5)], {}, f"bench-{seed}")
        random_playout(match, Rng(f"bench-moves-{seed}"))
        lengths.append(len(match.log))
        start = time.perf_counter()
        replay = Match.start(GAME, match.players, {}, f"bench-{seed}")
        for player, move in match.log:
            assert move in GAME.legal_moves(replay.state, player)
            GAME.apply(replay.state, player, move)
        times.append(time.perf_counter() - start)
    times.sort()
    print(f"{games} five-player games, {min(lengths)}-{max(lengths)} log entries: "
          f"median {times[len(times) // 2] * 1000:.1f} ms, worst {times[-1] * 1000:.1f} ms, "
          f"{sum(times) / sum(lengths) * 1e6:.0f} us per entry")


if __name__ == "__main__":
    main()
