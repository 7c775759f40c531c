"""Bots that play fair: they see ``game.view(state, P)`` and determinizations only.

Every bot starts a decision by re-dealing what its player cannot see
(``game.determinize(state, P, rng)``) and never reads the state it was given for anything
else, so two states that differ only in PLAYER's hidden parts give the same move for the
same seed. Levels: ``random``, ``greedy`` (best immediate score difference) and ``mcts``
(information-set Monte Carlo tree search).
"""

from referee.bots.players import LEVELS, Bot, choose, make_bot

__all__ = ["LEVELS", "Bot", "choose", "make_bot"]
