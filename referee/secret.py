"""Secrets of sealed games (DESIGN §6).

A sealed game's file holds only a commitment to its seed. The seed lives with whoever
referees: in a secret file created owner-only (a game master), or derived from one
*repository secret* that serves every sealed game of a repository (CI): the seed of game
ID is HMAC-SHA256(repository secret, "referee/game-seed/" + ID), so one CI secret
referees any number of games and no game's seed reveals another's. Commands find it, in
this order: ``--secret FILE``; ``REFEREE_SECRET_FILE`` (a path); ``REFEREE_SECRET`` (a
repository secret, or a game's seed itself); FILE.secret beside the game file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

from referee import fileio
from referee.errors import GameFileError, UsageError
from referee.gamefile import GameFile
from referee.rng import commitment

FORMAT = "referee-secret/1"


def secret_text(game_id: str, seed: str) -> str:
    """The contents of a secret file."""
    return json.dumps({"format": FORMAT, "game": game_id, "seed": seed}, indent=2) + "\n"


def write_secret(path: Path, game_id: str, seed: str) -> None:
    """Create the secret file with mode 0600; never overwrites. Raises UsageError."""
    text = secret_text(game_id, seed)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise UsageError(f"secret file {path} already exists; choose another") from None
    except OSError as exc:
        raise UsageError(f"cannot create secret file {path}: {exc.strerror}") from None
    with os.fdopen(fd, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def read_secret(path: Path, game_id: str | None = None) -> str:
    """The seed in a secret file. Raises UsageError for a missing or foreign file."""
    try:
        data = json.loads(fileio.read_bytes(path, "secret file"))
    except GameFileError as exc:
        raise UsageError(exc.message) from None
    except (ValueError, RecursionError):
        raise UsageError(f"{path} is not a referee secret file (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "seed" not in data:
        raise UsageError(f"{path} is not a referee secret file")
    if game_id is not None and data.get("game") != game_id:
        raise UsageError(
            f"secret file {path} belongs to game {data.get('game')!r}, not {game_id!r}"
        )
    return str(data["seed"])


def default_secret_path(game_path: Path) -> Path:
    """Where ``new --sealed`` puts the secret unless told otherwise: FILE.secret."""
    return game_path.with_name(game_path.name + ".secret")


def find_seed(gf: GameFile, secret: Path | None, game_path: Path | None = None) -> str | None:
    """The seed for ``gf``: revealed in the file, or from the secret (``secret``, the
    environment, or FILE.secret beside the game file); None if unknown.

    Raises GameFileError when the secret does not match the game's commitment.
    """
    rng = gf.data["rng"]
    if "seed" in rng:
        return str(rng["seed"])
    seed: str | None = None
    if secret is not None:
        seed = read_secret(secret, gf.game_id)
    elif os.environ.get("REFEREE_SECRET_FILE"):
        seed = read_secret(Path(os.environ["REFEREE_SECRET_FILE"]), gf.game_id)
    elif os.environ.get("REFEREE_SECRET"):
        seed = seed_from_env(os.environ["REFEREE_SECRET"], gf.game_id, rng["commitment"])
    elif game_path is not None and default_secret_path(game_path).exists():
        seed = read_secret(default_secret_path(game_path), gf.game_id)
    if seed is not None and commitment(seed) != rng["commitment"]:
        raise GameFileError(
            "the secret does not match this game's commitment: wrong secret file?"
        )
    return seed


def game_seed(repository_secret: str, game_id: str) -> str:
    """The seed of game ``game_id`` under a repository secret."""
    mac = hmac.new(repository_secret.encode(), b"referee/game-seed/" + game_id.encode(),
                   hashlib.sha256)
    return mac.hexdigest()


def seed_from_env(value: str, game_id: str, committed: str) -> str:
    """``REFEREE_SECRET`` is a repository secret (the game's seed is derived from it) or,
    as before, one game's seed itself: whichever matches the commitment."""
    derived = game_seed(value, game_id)
    return derived if commitment(derived) == committed else value


def mail_key(seed: str) -> bytes:
    """The key of the players' mail tokens, derived from the seed."""
    return hmac.new(seed.encode(), b"referee-mail-token", hashlib.sha256).digest()
