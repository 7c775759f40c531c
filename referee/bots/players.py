"""The bot levels and the one entry point :func:`choose`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from referee import engine
from referee.bots.base import margin, observed
from referee.engine import Game, Move, State
from referee.engine.rng import Rng
from referee.errors import NotYourTurn, UsageError

LEVELS = ("random", "greedy", "mcts")


class Bot(Protocol):
    level: str

    def choose(self, game: Game, state: State, player: str, rng: Rng) -> Move:
        """A legal move for ``player``; reads ``state`` only through determinize."""
        ...


@dataclass
class RandomBot:
    level: str = "random"

    def choose(self, game: Game, state: State, player: str, rng: Rng) -> Move:
        _, legal = observed(game, state, player, rng)
        return rng.choice(legal, "bot")


@dataclass
class GreedyBot:
    """The move with the best score difference right after it, on one determinization;
    ties by a seeded choice."""

    level: str = "greedy"

    def choose(self, game: Game, state: State, player: str, rng: Rng) -> Move:
        sample, legal = observed(game, state, player, rng)
        best: list[Move] = []
        best_value = 0
        for move in legal:
            after = engine.copy_state(game, sample)
            game.apply(after, player, move)
            value = margin(game, after, player)
            if not best or value > best_value:
                best, best_value = [move], value
            elif value == best_value:
                best.append(move)
        return rng.choice(best, "bot")


def make_bot(level: str, think: float | None = None, iterations: int | None = None) -> Bot:
    """The bot of ``level``; ``think`` (seconds) and ``iterations`` bound mcts."""
    if level == "random":
        return RandomBot()
    if level == "greedy":
        return GreedyBot()
    if level == "mcts":
        from referee.bots.mcts import MctsBot

        return MctsBot(think=think, iterations=iterations)
    raise UsageError(f"unknown bot level {level!r}", hints=[f"levels: {', '.join(LEVELS)}"])


def choose(game: Game, state: State, player: str, bot: Bot, rng: Rng) -> Move:
    """``bot``'s move for ``player`` (who must owe a decision now)."""
    if game.finished(state) or player not in game.to_move(state):
        raise NotYourTurn(f"it is not {player}'s turn: {game.prompt(state)}",
                          hints=[f"waiting for: {', '.join(game.to_move(state)) or 'nobody'}"])
    return bot.choose(game, state, player, rng)


def seat_move(game: Game, state: State, player: str, level: str, iterations: int | None,
              key: bytes, limit: int | None = None) -> Move:
    """The move of a bot seat (referee/ledger/seats.py): ``level`` with a fixed iteration budget
    (never a wall time) and a generator keyed by ``key``, so that the same position and
    key give the same move anywhere. A seat recorded (by an earlier release) with more
    iterations than ``limit`` (default: the cap, seats.MAX_ITERATIONS) does not play:
    UsageError."""
    from referee.ledger import seats

    cap = seats.MAX_ITERATIONS if limit is None else limit
    if iterations is not None and iterations > cap:
        raise UsageError(f"{player}'s bot seat thinks {iterations} iterations a decision, "
                         f"above this referee's cap of {cap}",
                         hints=[f"hand the seat to mcts:{cap} or less: `referee seat FILE "
                                f"{player} --bot mcts:{cap} --as gm`"])
    return choose(game, state, player, make_bot(level, None, iterations), Rng(key))
