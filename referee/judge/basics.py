"""The judge's data types: its configuration, a loaded game and the fixed names.

A leaf of :mod:`referee.judge`: it imports nothing of the judge, so every part of the
judge (the core, the front doors, the handlers, the sweep) can name these types without a
loop.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.engine import Match
from referee.ledger import gamefile, roster

# The seat part of a watcher's mails: no player id starts with '_', so a player called
# "watcher" is never taken for the watchers (their board, their token) nor they for it.
WATCHER = "_watcher"


def plays(gf: gamefile.GameFile) -> int:
    """The number of log entries that change the game (all but meta entries): a reply
    must answer a mail written at the current number
    (:func:`referee.ledger.gamefile.play_number`)."""
    return gamefile.play_number(gf.log)


def played_at(log: Sequence[Mapping[str, Any]], field: str, ref: str) -> int | None:
    """The index of the log entry that played the text a door names ``ref`` under
    ``field`` (``mail``, ``matrix``, ``github``), or None: a text is played once."""
    return next((i for i, entry in enumerate(log) if entry.get(field) == ref), None)


def decision_moves(game: Loaded, player: str) -> list[str]:
    """The legal moves of ``player``, as typed, if the game waits for their decision now
    (not over, no nonce owed by anyone); [] otherwise. What a door numbers or links, and
    what a number then plays."""
    from referee import engine

    match, gf = game.match, game.gf
    if gamefile.missing_nonces(gf) or player not in gamefile.waiting(gf, match):
        return []
    return engine.legal_strings(match.game, match.state, player)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


@dataclass
class Config:
    """What a judge needs besides its inbox."""

    games_dir: Path
    sender: str
    gm: str | None = None
    deadline_hours: int | None = None
    deadline_bot: str | None = None  # a bot of this level plays a missed decision
    reminder_fraction: float = 0.75
    clock: Callable[[], dt.datetime] = utcnow
    log: Callable[[str], None] = field(default=lambda line: None)
    site_url: str | None = None  # the games' site: notices link to SITE/GAME-ID/
    notify_private: bool = False  # channels may post to loopback or a private network
    sleep: Callable[[float], None] = field(default=time.sleep)  # between channel tries


@dataclass
class Loaded:
    """A game file with everything the judge needs to write about it."""

    path: Path
    gf: gamefile.GameFile
    seed: str
    key: bytes
    match: Match
    settings: roster.Settings


