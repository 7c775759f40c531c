"""Information-set MCTS (single observer): each iteration samples a determinization of
what the bot's player cannot see, walks the one shared tree with UCT over the moves legal
in that sample (availability counts), expands one move, plays uniformly random moves to
the end and backs up each mover's reward."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from referee import engine
from referee.bots.base import margin, observed
from referee.engine import Game, Move, State
from referee.engine.rng import Rng

EXPLORE = 0.7
STOP_CHECK = 16  # every this many iterations, see whether the leading move is settled
DEFAULT_ITERATIONS = 10_000  # the cap when only a time budget is given
WIN_WEIGHT = 0.8  # reward = 0.8 * share of first place + 0.2 * scaled score margin


@dataclass
class Node:
    mover: str | None  # who played the move leading here (None at the root)
    visits: int = 0
    total: float = 0.0
    available: int = 0
    children: dict[Move, Node] = field(default_factory=dict)

    def ucb(self) -> float:
        return self.total / self.visits + EXPLORE * math.sqrt(
            math.log(max(self.available, 1)) / self.visits)


def rewards(game: Game, state: State) -> dict[str, float]:
    """Per player: share of first place (ties split), plus a small score-margin term."""
    ranking = game.ranking(state)
    first = ranking[0] if ranking else []
    out: dict[str, float] = {}
    for player in game.scores(state):
        win = 1 / len(first) if player in first else 0.0
        spread = math.tanh(margin(game, state, player) / 20)  # -1..1
        out[player] = WIN_WEIGHT * win + (1 - WIN_WEIGHT) * (spread + 1) / 2
    return out


def playout(game: Game, state: State, rng: Rng) -> None:
    """Uniformly random legal moves until the end (mutates ``state``)."""
    while not game.finished(state):
        mover = game.to_move(state)[0]
        game.apply(state, mover, rng.choice(game.legal_moves(state, mover), "playout"))


@dataclass
class MctsBot:
    think: float | None = None  # seconds per decision
    iterations: int | None = None  # hard cap (tests); both None: 1 second
    level: str = "mcts"
    last_iterations: int = 0
    # what ``think`` is measured on: wall time for players, time.process_time for
    # strength runs on a shared machine (the same search whatever else runs)
    clock: Callable[[], float] = time.monotonic

    def choose(self, game: Game, state: State, player: str, rng: Rng) -> Move:
        _, legal = observed(game, state, player, rng)
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        root = Node(None)
        cap = self.iterations or DEFAULT_ITERATIONS
        think = self.think if self.think is not None else (None if self.iterations else 1.0)
        start = self.clock()
        deadline = None if think is None else start + think
        done = 0
        while done < cap and (deadline is None or done == 0 or self.clock() < deadline):
            self._iterate(game, state, player, root, rng)
            done += 1
            if done % STOP_CHECK == 0 and _settled(root, self._left(done, cap, start,
                                                                    deadline)):
                break
        self.last_iterations = done
        return _most_visited(game, root, legal)

    def _left(self, done: int, cap: int, start: float, deadline: float | None) -> int:
        """Iterations still to come: up to the cap, and at the rate so far until the
        deadline."""
        left = cap - done
        if deadline is not None:
            now = self.clock()
            rate = done / max(now - start, 1e-9)
            left = min(left, math.ceil(rate * max(deadline - now, 0.0)) + 1)
        return left

    def _iterate(self, game: Game, state: State, player: str, root: Node, rng: Rng) -> None:
        sample = engine.determinize(game, state, player, rng)
        path = [root]
        node = root
        while not game.finished(sample):
            mover = game.to_move(sample)[0]
            # moves are frozen values: equal moves of different samples share a child
            moves = game.legal_moves(sample, mover)
            children = node.children
            untried = [m for m in moves if m not in children]
            for move in moves:
                if move in children:
                    children[move].available += 1
            if untried:
                key = rng.choice(untried, "expand")
                children[key] = Node(mover, available=1)
            else:
                key = max(moves, key=lambda m: children[m].ucb())
            game.apply(sample, mover, key)
            node = node.children[key]
            path.append(node)
            if untried:
                break
        playout(game, sample, rng)
        reward = rewards(game, sample)
        for visited in path:
            visited.visits += 1
            if visited.mover is not None:
                visited.total += reward[visited.mover]


def _settled(root: Node, left: int) -> bool:
    """True when the most-visited root move stays ahead even if every iteration still
    to come went to the runner-up: thinking on cannot change the choice."""
    first = second = 0
    for child in root.children.values():
        if child.visits > first:
            first, second = child.visits, first
        elif child.visits > second:
            second = child.visits
    return first > second + left


def _most_visited(game: Game, root: Node, legal: list[Move]) -> Move:
    """The root move tried most often; on a tie (few iterations: many moves tried once)
    the best mean reward, then the first in legal order."""
    best, best_key = legal[0], (-1, 0.0)
    for move in legal:
        child = root.children.get(move)
        key = (child.visits, child.total / child.visits) if child else (0, 0.0)
        if key > best_key:
            best, best_key = move, key
    return best
