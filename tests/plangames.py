"""Games played up to a chosen decision, for the plan tests: a real setup from `referee
new`, then legal moves chosen by a seeded policy, appended in memory (with the
referee's MACs in a sealed game) and written as a file a test starts from."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.engine import Match, Move
from referee.engine.rng import Rng
from referee.ledger import gamefile, replay
from tests.conftest import ok

PLAYERS = "ann,ben,cat"
SEED = "plan-tests-0123456789abcdef0123456789abcdef"

# whether to stop after a move: (the position after it, its mover, the move)
Stop = Callable[[Match, str, Move], bool]


def new(tmp: Path, game: str, sealed: bool = False, name: str = "g.json") -> Path:
    path = tmp / name
    args = ["new", game, path, "--players", PLAYERS, "--seed", SEED, "--id", "plan-test"]
    if sealed:
        args += ["--sealed", "--insecure-seed"]
    ok(*args)
    return path


def raised(kinds: tuple[str, ...]) -> Stop:
    """A stop: after the move, someone other than its author owes a decision whose
    legal moves include one of ``kinds`` (move type tags)."""

    def stop(match: Match, mover: str, move: Move) -> bool:
        game = match.game
        if game.finished(match.state):
            return False
        for other in game.to_move(match.state):
            if other != mover and any(type(m).__struct_config__.tag in kinds
                                      for m in game.legal_moves(match.state, other)):
                return True
        return False

    return stop


def play_until(path: Path, policy: str, stop: Stop, limit: int = 3000,
               seed: str = SEED) -> tuple[str, Move, list[str]]:
    """Append policy moves to the game at ``path`` until the move after which ``stop``
    holds; that move is NOT appended: returns its player, the move and who owes a
    decision after it. Raises AssertionError if no such move comes."""
    gf = gamefile.read(path)
    key = seed if gf.sealed else None
    match = replay.replay(gf, key)
    data: dict[str, Any] = json.loads(path.read_text())
    rng = Rng(policy.encode())
    game = match.game
    for _ in range(limit):
        assert not game.finished(match.state), "the game ended first"
        mover = game.to_move(match.state)[0]
        move = rng.choice(game.legal_moves(match.state, mover), "policy")
        after = game.copy_state(match.state)
        game.apply(after, mover, move)
        probe = Match(game, match.players, match.options, after,
                      getattr(after, "rng", match.rng))
        if stop(probe, mover, move):
            path.write_text(gamefile.dumps(data))
            return mover, move, list(game.to_move(probe.state))
        gamefile.append_entry(data, mover, move, seed=key)
        match.play(mover, move)
    raise AssertionError("no such decision within the limit")


def state(path: Path, seed: str = SEED) -> Match:
    gf = gamefile.read(path)
    return replay.replay(gf, seed if gf.sealed else None)


def text(match: Match, move: Move) -> str:
    return str(match.game.format_move(move))


def pick_position(tmp: Path, sealed: bool = False) -> tuple[Path, str, str, str, list[str]]:
    """A Staufer game just before a move that raises another player's bonus chest
    pick: (file, mover, the move's text, the picker, the picks they will have)."""
    path = new(tmp, "staufer", sealed=sealed)
    mover, move, owing = play_until(path, "p0", raised(("pick",)))
    match = state(path)
    picker = next(p for p in owing if p != mover)
    after = match.game.copy_state(match.state)
    match.game.apply(after, mover, move)
    picks = [match.game.format_move(m) for m in match.game.legal_moves(after, picker)]
    return path, mover, text(match, move), picker, picks
