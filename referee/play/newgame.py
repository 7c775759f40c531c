"""Starting a game: the seed, its commitment, the checks and the one write of a new file.

``referee new`` and ``referee rematch`` (referee/play/rematch.py) both build a header with
:func:`referee.ledger.gamefile.new_data` and hand it to :func:`start`, which chooses the seed
(open, sealed with a secret file, or derived from the repository secret), proves that the
setup replays and that the bot seats can play, and writes the file (and a sealed game's
secret beside it, both or neither) through :func:`referee.play.writecore.create`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from referee.engine import Match, get_game
from referee.engine import rng as rngmod
from referee.errors import UsageError
from referee.ledger import gamefile, replay, seats, secret, vouch
from referee.play import writecore

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import Header, RngRecord


@dataclass(frozen=True)
class Started:
    """A game just written: its file, its state, and where its secret went."""

    gf: gamefile.GameFile
    match: Match
    derived: bool  # the seed comes from REFEREE_SECRET and the header: no secret file
    secret_path: Path | None  # the secret file written beside the game, if any


def choose_seed(seed: str | None, sealed: bool, insecure: bool, header: Header
                ) -> tuple[str, bool]:
    """The game's seed, and whether it is derived from the repository secret. A sealed
    game's seed must carry at least 128 bits: a short one would fall out of the
    commitment by trying them all. Raises UsageError."""
    if seed is not None:
        bits = rngmod.seed_bits(seed)
        if sealed and bits < rngmod.MIN_SEED_BITS and not insecure:
            raise UsageError(
                f"this --seed carries about {bits:.0f} bits; a sealed game's seed needs at "
                f"least {rngmod.MIN_SEED_BITS}, or anyone can find it from the commitment",
                hints=["leave out --seed (a strong one is made), or add --insecure-seed"],
            )
        return seed, False
    repository = os.environ.get("REFEREE_SECRET")
    if sealed and repository:
        if rngmod.seed_bits(repository) < rngmod.MIN_SEED_BITS:
            raise UsageError("REFEREE_SECRET carries fewer than 128 bits; make it with "
                             "`python3 -c 'import secrets; print(secrets.token_hex(32))'`")
        return secret.game_seed(repository, header), True
    return rngmod.new_seed(), False


def start(path: Path, data: Header, *, seed: str | None = None, sealed: bool = False,
          insecure: bool = False, secret_out: Path | None = None) -> Started:
    """Seed the header ``data`` (its ``rng`` holds only the nonce fields so far), check it
    as every reader will, replay its setup, and write the new game at ``path``. Nothing is
    written unless every check passes. Raises UsageError and the errors of a write."""
    from referee.play.submit import check_bots_can_play

    seed, derived = choose_seed(seed, sealed, insecure, data)  # bound to the header
    rng: RngRecord = {"seed": seed}
    if sealed:
        rng = {"commitment": rngmod.commitment(seed), "recipient": vouch.recipient(seed)}
    data["rng"] = rng | data["rng"]
    gamefile.check_new(data)
    gf = gamefile.GameFile.of(data, get_game(data["game"]))
    match = replay.replay(gf, seed)  # proves the setup works before anything is written
    check_bots_can_play(match, list(seats.header_seats(data)))
    if data.get("clock", {}).get("timeout") in ("bot", "forfeit"):  # a bot plays on time
        check_bots_can_play(match, gf.players[:1])
    secret_path = secret_out or secret.default_secret_path(path)
    if sealed and not derived:  # both files or neither, even if killed (fileio.create_pair)
        writecore.create(path, data, secret_path=secret_path,
                         secret_text=secret.secret_text(gf.game_id, seed))
        return Started(gf, match, derived, secret_path)
    writecore.create(path, data)
    return Started(gf, match, derived, None)
