"""Where a sealed game's secret is found: FILE.secret beside the game file
(:func:`default_secret_path`) and the order :func:`referee.ledger.secret.find_seed`
looks in (:func:`secret_place`). Light on purpose (nothing but ``os`` and ``pathlib``):
the reports' caches key their rows by what it names without importing the replay.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def default_secret_path(game_path: Path) -> Path:
    """Where ``new --sealed`` puts the secret unless told otherwise: FILE.secret."""
    return game_path.with_name(game_path.name + ".secret")


def secret_place(secret: Path | None, game_path: Path | None,
                 exists: Callable[[Path], bool] = Path.exists
                 ) -> tuple[str, Path | str] | None:
    """Where :func:`referee.ledger.secret.find_seed` takes a sealed game's secret from,
    in its order: ``secret`` (``("file", path)``), else ``REFEREE_SECRET_FILE``
    (``("file", path)``), else ``REFEREE_SECRET`` (``("env", value)``), else FILE.secret
    beside ``game_path`` if it ``exists`` (``("beside", path)``); None: nowhere. The one
    definition of that order (the reports' caches key their rows by what it names)."""
    if secret is not None:
        return "file", secret
    if os.environ.get("REFEREE_SECRET_FILE"):
        return "file", Path(os.environ["REFEREE_SECRET_FILE"])
    if os.environ.get("REFEREE_SECRET"):
        return "env", os.environ["REFEREE_SECRET"]
    if game_path is not None and exists(default_secret_path(game_path)):
        return "beside", default_secret_path(game_path)
    return None
