"""What the site knows of one game (its index row and its page's log), the names the
site keeps for itself, and where a game's seed comes from: shared by the full build
(referee/pages/site.py) and the incremental one (referee/pages/incremental.py)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.engine.rng import commitment
from referee.errors import UsageError
from referee.ledger import gamefile, secret

MARKER = ".referee-site"  # a folder holding this file was written by `referee site`


@dataclass
class MoveRow:
    n: int
    by: str
    text: str
    words: list[str] = field(default_factory=list)
    at: str | None = None


@dataclass
class GameSummary:
    """One game as the index and its page show it."""

    slug: str
    file: str
    game: str
    title: str
    game_id: str
    players: list[dict[str, str]]
    moves: int
    since: str
    finished: bool = False
    to_move: list[str] = field(default_factory=list)
    prompt: str = ""
    scores: dict[str, int] = field(default_factory=dict)
    ranking: list[list[str]] = field(default_factory=list)
    needs_secret: bool = False
    colours: dict[str, str] = field(default_factory=dict)  # player -> fill colour
    log: list[MoveRow] = field(default_factory=list)
    clock: list[str] = field(default_factory=list)  # a time bank's lines (docs/clocks.md)
    # the links that open an issue for a move (--github-repo; referee/git/issues.py)
    links: dict[str, Any] = field(default_factory=dict)


# Names in OUT that the site itself writes: no game's folder may take one (case-blind).
SITE_NAMES = frozenset({"index.html", "style.css", "league.html", MARKER})


def seed_for(gf: gamefile.GameFile, path: Path, secret_path: Path | None) -> str | None:
    """The game's seed for a site of many games: revealed in the file, or a secret that
    belongs to this game: ``--secret`` (a folder of FILE.secret files, or one game's
    secret file), the repository secret in REFEREE_SECRET (derived as every command
    derives it: secret.repository_seed; or one game's seed itself), REFEREE_SECRET_FILE
    when it is this game's, or FILE.secret beside it. A secret that is another game's is
    passed over: that game's page then shows its log only."""
    rng = gf.data["rng"]
    if "seed" in rng:
        return str(rng["seed"])
    if secret_path is not None and secret_path.is_dir():
        candidate = secret_path / f"{path.name}.secret"
        if candidate.exists():
            return secret.find_seed(gf, candidate)
    elif secret_path is not None and _secret_game(secret_path) == gf.game_id:
        return secret.find_seed(gf, secret_path, path)
    env_seed = os.environ.get("REFEREE_SECRET")
    if env_seed:
        found = secret.repository_seed(env_seed, gf)
        if found is not None or commitment(env_seed) == rng["commitment"]:
            return found or env_seed
    if os.environ.get("REFEREE_SECRET_FILE"):
        env_file = Path(os.environ["REFEREE_SECRET_FILE"])
        if _secret_game(env_file) == gf.game_id:
            return secret.find_seed(gf, env_file)
    default = secret.default_secret_path(path)
    return secret.find_seed(gf, default) if default.exists() else None


def _secret_game(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        raise UsageError(f"{path} is not a referee secret file") from None
    return data.get("game") if isinstance(data, dict) else None
