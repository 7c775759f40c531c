"""Players' nonces, committed first and revealed after (docs/rng.md).

A game made with ``--nonces`` mixes every player's nonce into the generator's key. If a
player could choose a nonce after seeing the others', the last one could try nonces until
the shuffle suits them; so each player first records only a commitment (SHA-256 of the
nonce), and reveals the nonce once every player has committed. A revealed nonce must match
its commitment, and none may be revealed before all are committed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from referee.engine import rng as rngmod
from referee.errors import GameFileError, UsageError
from referee.ledger import fileio
from referee.ledger.gamefile import GameFile, nonce_phase


def give(gf: GameFile, player: str, value: str | None, keep: Path) -> str:
    """Record ``player``'s next step in ``gf``'s header: "commit" or "reveal" (the step
    taken). The nonce is kept in ``keep`` (owner-only) between the two steps. Raises
    UsageError."""
    rng = gf.data["rng"]
    phase = nonce_phase(gf)
    if player in rng["nonces"]:
        raise UsageError(f"{player} has already given a nonce")
    if "nonce_commitments" not in rng:  # a game made before nonces were committed first
        rng["nonces"][player] = value or rngmod.new_seed()
        return "reveal"
    commits = rng["nonce_commitments"]
    if phase == "commit":
        if player in commits:
            waiting = [p for p in gf.players if p not in commits]
            raise UsageError(f"{player} has already committed; reveal once "
                             f"{', '.join(waiting)} {'has' if len(waiting) == 1 else 'have'} "
                             "committed too")
        nonce = value or _kept(keep) or rngmod.new_seed()
        _keep(keep, nonce)
        commits[player] = rngmod.commitment(nonce)
        return "commit"
    revealed = value or _kept(keep)
    if revealed is None:
        raise UsageError(f"no nonce to reveal: give it as VALUE or keep it in {keep}")
    if rngmod.commitment(revealed) != commits[player]:
        raise UsageError(f"this nonce does not match {player}'s commitment")
    rng["nonces"][player] = revealed
    return "reveal"


def check(gf: GameFile) -> None:
    """Every revealed nonce matches its commitment, and none was revealed before every
    player had committed. Raises GameFileError."""
    rng = gf.data["rng"]
    commits = rng.get("nonce_commitments")
    if commits is None or not rng.get("nonces"):
        return
    if any(p not in commits for p in gf.players):
        raise GameFileError("$.rng.nonces: a nonce was revealed before every player had "
                            "committed to one")
    for player, nonce in rng["nonces"].items():
        if commits.get(player) != rngmod.commitment(nonce):
            raise GameFileError(f"$.rng.nonces.{player} does not match its commitment")


NONCE_FILE_MAX = 4096  # bytes: a nonce is a few words


def _kept(keep: Path) -> str | None:
    """The nonce kept in ``keep``, or None if there is no such file. Only a regular,
    owner-only file of this user counts, as :func:`_keep` writes it: in a shared folder
    another player could put a symlink to a private file there (whose text would be
    revealed as the nonce), a file with a nonce they chose, or a FIFO. Raises UsageError."""
    try:
        fd = os.open(keep, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _not_kept(keep, "a symlink" if os.path.islink(keep)
                        else exc.strerror or str(exc)) \
            from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_kept(keep, "not a regular file")
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise _not_kept(keep, "not an owner-only file of yours (mode 600)")
        if st.st_size > NONCE_FILE_MAX:
            raise _not_kept(keep, f"more than {NONCE_FILE_MAX} bytes")
        data = os.read(fd, NONCE_FILE_MAX + 1)
    finally:
        os.close(fd)
    try:
        return data.decode().strip() or None
    except UnicodeDecodeError:
        raise _not_kept(keep, "not UTF-8 text") from None


def _not_kept(keep: Path, why: str) -> UsageError:
    return UsageError(f"{keep} is no nonce file kept by referee ({why}): nothing was "
                      "done", hints=[f"if you did not put it there, someone else did: "
                                     f"remove {keep} and run the command again"])


def _keep(keep: Path, nonce: str) -> None:
    if _kept(keep) == nonce:
        return
    try:
        fileio.write_atomic(keep, (nonce + "\n").encode(), mode=0o600, what="nonce file")
    except GameFileError as exc:
        raise UsageError(exc.message) from None
