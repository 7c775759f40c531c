"""The one way a test makes a game: ``referee new`` through the CLI, in process.

:func:`new_game` runs ``referee new GAME PATH --players PLAYERS [--seed SEED] [--id ID]
EXTRA...`` with :func:`tests.conftest.run` and requires exit 0 (the output is the
assertion's message), so a test starts from a file the referee itself wrote."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result

from tests.conftest import ok


def new_game_result(path: Path, game: str = "toy", *extra: object, players: str = "ann,ben",
                    seed: str | None = None, game_id: str | None = None) -> Result:
    """``referee new`` as :func:`new_game`, returning click's Result (its output)."""
    args: list[object] = ["new", game, path, "--players", players]
    if seed is not None:
        args += ["--seed", seed]
    if game_id is not None:
        args += ["--id", game_id]
    return ok(*args, *extra)


def new_game(path: Path, game: str = "toy", *extra: object, players: str = "ann,ben",
             seed: str | None = None, game_id: str | None = None) -> Path:
    """A new game file of ``game`` at ``path`` (made by ``referee new``, which must exit
    0), seated with ``players`` (``ann,ben``; ``id=Name <address>`` and ``bot:`` seats as
    the command takes them), of ``seed`` and ``game_id`` if given, with the further
    options ``extra`` (``--sealed``, ``--clock ...``): ``path``."""
    new_game_result(path, game, *extra, players=players, seed=seed, game_id=game_id)
    return path
