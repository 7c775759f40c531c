"""Secrets of sealed games.

A sealed game's file holds only a commitment to its seed. The seed lives with whoever
referees: in a secret file created owner-only (a game master), or derived from one
*repository secret* that serves every sealed game of a repository (CI). Commands find
it, in this order: ``--secret FILE``; ``REFEREE_SECRET_FILE`` (a path);
``REFEREE_SECRET`` (a repository secret, or a game's seed itself); FILE.secret beside
the game file.

A seed derived from the repository secret is bound to the game's whole identity
(:func:`identity`): HMAC-SHA256(repository secret, "referee/game-seed/2|" + the
canonical header without the log and without what is derived from the seed). A copy of
a sealed game with anything in its header changed (seats swapped, another ``created``,
another id) derives another seed, which does not match the commitment it copied, so the
copy cannot be replayed, dealt or viewed with the repository secret.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.engine.rng import commitment
from referee.errors import GameFileError, UsageError
from referee.ledger import fileio
from referee.ledger.gamefile import GameFile, canonical
from referee.ledger.secretplace import default_secret_path as default_secret_path
from referee.ledger.secretplace import secret_place

FORMAT = "referee-secret/1"


def secret_text(game_id: str, seed: str) -> str:
    """The contents of a secret file."""
    return json.dumps({"format": FORMAT, "game": game_id, "seed": seed}, indent=2) + "\n"


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


def find_seed(gf: GameFile, secret: Path | None, game_path: Path | None = None) -> str | None:
    """The seed for ``gf``: revealed in the file, or from the secret (``secret``, the
    environment, or FILE.secret beside the game file); None if unknown.

    Raises GameFileError when the secret does not match the game's commitment.
    """
    rng = gf.data["rng"]
    if "seed" in rng:
        return str(rng["seed"])
    place = secret_place(secret, game_path)
    seed: str | None = None
    if place is not None and place[0] == "env":
        seed = seed_from_env(str(place[1]), gf)
    elif place is not None:
        seed = read_secret(Path(place[1]), gf.game_id)
    if seed is not None and commitment(seed) != rng["commitment"]:
        raise GameFileError(
            "the secret does not match this game's commitment: wrong secret file, or a "
            "copy of another game (a sealed game's seed is bound to its whole header)"
        )
    return seed


# What is left out of a game's identity: the log, and the fields of ``rng`` that are
# derived from the seed (the commitment, the referee recipient; a revealed seed) or
# filled in after the game is made (nonce commitments and nonces: only whether the game
# takes them belongs to its identity).
DERIVED_RNG = ("seed", "commitment", "recipient")
FILLED_RNG = ("nonce_commitments", "nonces")
SEED_CONTEXT = b"referee/game-seed/2|"
LEGACY_CONTEXT = b"referee/game-seed/"


def identity(header: Mapping[str, Any]) -> bytes:
    """The canonical bytes that name one game: its header (format, game, id, rules,
    created, players with their seats and logins, options) without the log and without
    what is derived from its seed. Two files share it only if one copies the other."""
    head = {k: v for k, v in header.items() if k != "log"}
    rng = head.get("rng", {})
    head["rng"] = {k: (True if k in FILLED_RNG else v) for k, v in rng.items()
                   if k not in DERIVED_RNG}
    return canonical(head)


def game_seed(repository_secret: str, header: Mapping[str, Any]) -> str:
    """The seed of the game with this header under a repository secret."""
    mac = hmac.new(repository_secret.encode(), SEED_CONTEXT + identity(header),
                   hashlib.sha256)
    return mac.hexdigest()


def legacy_game_seed(repository_secret: str, game_id: str) -> str:
    """The seed earlier releases derived from the game id alone. Kept only so that games
    made with them go on replaying. A copy of such a game (same id, other seats) would
    derive the same seed: that is safe ONLY because copies are refused by id, header and
    commitment wherever the repository secret serves several games (referee/ledger/identity.py:
    ``check --since``, ``pending``, ``site``, ``views``, the judge)."""
    mac = hmac.new(repository_secret.encode(), LEGACY_CONTEXT + game_id.encode(),
                   hashlib.sha256)
    return mac.hexdigest()


def repository_seed(repository_secret: str, gf: GameFile) -> str | None:
    """The seed of ``gf`` derived from ``repository_secret`` if it matches the game's
    commitment (bound to the header; for games of earlier releases, to the id), else
    None."""
    committed = gf.data["rng"].get("commitment")
    for seed in (game_seed(repository_secret, gf.data),
                 legacy_game_seed(repository_secret, gf.game_id)):
        if commitment(seed) == committed:
            return seed
    return None


def seed_from_env(value: str, gf: GameFile) -> str:
    """``REFEREE_SECRET`` is a repository secret (the game's seed is derived from it) or,
    as before, one game's seed itself: whichever matches the commitment."""
    return repository_seed(value, gf) or value


def mail_key(seed: str) -> bytes:
    """The key of the players' mail tokens, derived from the seed."""
    return hmac.new(seed.encode(), b"referee-mail-token", hashlib.sha256).digest()
