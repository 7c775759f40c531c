"""What every bot sees and values, below the bot levels (``referee.bots.players``) and
the tree search (``referee.bots.mcts``), which both build on it."""

from __future__ import annotations

from referee import engine
from referee.engine import Game, Move, State
from referee.engine.rng import Rng
from referee.errors import UsageError


def observed(game: Game, state: State, player: str, rng: Rng) -> tuple[State, list[Move]]:
    """The bot's input: a determinization for ``player`` and ``player``'s legal moves in
    it (the same moves as in the true state: they depend only on what ``player`` sees)."""
    sample = engine.determinize(game, state, player, rng)
    legal = game.legal_moves(sample, player)
    if not legal:
        raise UsageError(f"{player} has no move to make now: {game.prompt(sample)}")
    return sample, legal


def margin(game: Game, state: State, player: str) -> int:
    """``player``'s score minus the best score of the others."""
    scores = game.scores(state)
    others = [v for p, v in scores.items() if p != player]
    return scores[player] - max(others, default=0)
