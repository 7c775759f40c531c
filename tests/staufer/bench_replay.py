"""Benchmark (not a test): replay a finished 5-player game, checking every move.

Run: .venv/bin/python -m tests.staufer.bench_replay
"""

from __future__ import annotations

import time

from referee.engine import Match, random_playout
from referee.games.staufer import GAME
from referee.rng import Rng


def main() -> None:
    players = ["a", "b", "c", "d", "e"]
    times = []
    for seed in range(20):
        match = Match.start(GAME, players, {}, f"bench-{seed}")
        random_playout(match, Rng(f"bench-play-{seed}"))
        start = time.perf_counter()
        again = Match.start(GAME, players, match.options, f"bench-{seed}")
        for who, move in match.log:
            assert who in GAME.to_move(again.state)
            assert move in GAME.legal_moves(again.state, who)
            again.play(who, move)
        times.append(time.perf_counter() - start)
        assert GAME.fingerprint(again.state) == GAME.fingerprint(match.state)
    times.sort()
    print(f"5-player replay: median {times[len(times) // 2] * 1000:.2f} ms, "
          f"max {times[-1] * 1000:.2f} ms, moves {len(match.log)}")


if __name__ == "__main__":
    main()
