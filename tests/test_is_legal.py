"""``is_legal`` (what replay asks of every logged move) agrees with the one generator:
for every state of random games at every player count, every player and a pool of
candidate moves (this state's legal moves and moves legal elsewhere in the game),
``is_legal(state, p, m) == (m in legal_moves(state, p))``."""

from __future__ import annotations

import pytest

from referee.engine import Match, get_game
from referee.engine.rng import Rng

CASES = [("staufer", n) for n in range(2, 6)] + [("dynasties", n) for n in range(3, 6)]
POOL = 60  # candidates kept from earlier states


@pytest.mark.parametrize(("name", "count"), CASES)
@pytest.mark.parametrize("seed", ["a", "b"])
def test_is_legal_agrees_with_legal_moves(name: str, count: int, seed: str) -> None:
    game = get_game(name)
    players = [f"p{i}" for i in range(count)]
    match = Match.start(game, players, {}, f"is-legal-{seed}-{count}")
    rng = Rng(f"is-legal-moves-{seed}")
    pool: list[object] = []
    checked = disagreements = 0
    while not game.finished(match.state):
        mover = game.to_move(match.state)[0]
        for player in players:
            legal = game.legal_moves(match.state, player)
            for move in [*legal, *pool]:
                checked += 1
                if game.is_legal(match.state, player, move) != (move in legal):
                    disagreements += 1
                    raise AssertionError(
                        f"{name} {count}p: is_legal({player}, {game.format_move(move)!r}) "
                        f"is {move not in legal}, the generator says {move in legal}")
        legal = game.legal_moves(match.state, mover)
        for _ in range(3):
            move = rng.choice(legal, "pool")
            if move not in pool:
                pool.append(move)
        del pool[:-POOL]
        match.play(mover, rng.choice(legal, "move"))
    assert checked > 1000 and disagreements == 0
    assert not game.is_legal(match.state, players[0], pool[0])  # the game is over
