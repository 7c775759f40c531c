"""Hash every legal-move list and every state over many random games, per game.

Run before and after a change that must not change play (a refactor, speed work)::

    python -m scripts.behaviour_hash                 # 200 games of each game
    python -m scripts.behaviour_hash --games 400 --game dynasties
    python -m scripts.behaviour_hash --games 400 --game dynasties --rules dynasties-1

It prints one digest per game and player count; equal digests before and after mean
that every position of every game reached the same legal moves (in the same order, by
their notation) and the same state fingerprint, and that setups came out the same.
``--rules`` plays every game by that rules version of its package (``game(None, rules)``)
instead of the current one: an older version must keep its digests when a newer one is
added.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib

from referee.engine import Game, Match, get_game
from referee.engine.rng import Rng
from referee.errors import RefereeError


def game_of(name: str, rules: str | None) -> Game:
    """Game ``name`` by the rules version ``rules`` (None: its current game)."""
    current = get_game(name)
    if rules is None:
        return current
    package = importlib.import_module(type(current).__module__)
    if not hasattr(package, "game"):
        raise SystemExit(f"{name} has no rules versions")
    try:
        return package.game(None, rules)  # type: ignore[no-any-return]
    except RefereeError as exc:
        raise SystemExit(f"{name}: {exc.message}") from None


def game_digest(game: Game, players: int, games: int) -> tuple[str, int]:
    """The digest of ``games`` random games of ``game`` with ``players`` players, and the
    number of positions hashed."""
    name = game.name
    ids = ["ann", "ben", "cat", "dan", "eve"][:players]
    h = hashlib.sha256()
    positions = 0
    for i in range(games):
        match = Match.start(game, ids, {}, f"behaviour-{name}-{players}-{i}")
        rng = Rng(f"choices-{name}-{players}-{i}")
        while not game.finished(match.state):
            h.update(game.fingerprint(match.state).encode())
            player = game.to_move(match.state)[0]
            legal = game.legal_moves(match.state, player)
            h.update("\x00".join(game.format_move(m) for m in legal).encode())
            positions += 1
            match.play(player, rng.choice(legal, "playout"))
        h.update(game.fingerprint(match.state).encode())
        h.update(repr(game.scores(match.state)).encode())
        h.update(repr(game.ranking(match.state)).encode())
    return h.hexdigest()[:16], positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per player count")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--rules", help="play by this rules version (e.g. dynasties-1)")
    args = parser.parse_args()
    for name in args.game or ["staufer", "dynasties"]:
        game = game_of(name, args.rules)
        for n in range(game.min_players, game.max_players + 1):
            games = max(1, args.games // (game.max_players - game.min_players + 1))
            digest, positions = game_digest(game, n, games)
            print(f"{name} {n}p {games} games {positions} positions: {digest}")


if __name__ == "__main__":
    main()
