"""Helpers of the German Staufer tests: random positions of random games. (The check for
English left in German text is tests/i18n_check.py's, the pictures' tests/svg_fit.py's.)"""

from __future__ import annotations

from collections.abc import Iterator

from referee.engine import full_options
from referee.engine.rng import Rng
from referee.games.staufer import GAME, gamesetup
from referee.games.staufer.state import State

NAMES = ["ann", "ben", "cat", "dan", "eve"]


def positions(players: int, games: int = 2, every: int = 9) -> Iterator[State]:
    """Positions of random games (every ``every``-th decision and the end)."""
    for g in range(games):
        state = gamesetup.setup(GAME.data, NAMES[:players], full_options(GAME, {}),
                                Rng(f"de-{players}-{g}"))
        rng = Rng(f"de-play-{players}-{g}")
        step = 0
        while not GAME.finished(state):
            if step % every == 0:
                yield state
            who = GAME.to_move(state)[0]
            legal = GAME.legal_moves(state, who)
            GAME.apply(state, who, legal[rng.below(len(legal), "move")])
            step += 1
        yield state
