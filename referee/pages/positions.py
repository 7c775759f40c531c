"""Views of a game at every position of its log, for pictures and the site.

The whole log is first replayed by :func:`referee.ledger.replay.replay` (every check it
makes); then the positions are rebuilt once more, move by move, to take a view after
each log entry. Views only: nothing here hands the state to a drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from referee.engine import Match
from referee.errors import UsageError
from referee.ledger import gamefile, replay
from referee.pictures.changes import Marks, new_events


@dataclass
class Position:
    """The game after ``n`` log entries (0 = before the first move)."""

    n: int
    view: dict[str, Any]
    by: str | None = None  # who made entry n
    text: str = ""  # entry n as others may read it (notation; "undo 6")
    words: list[str] = field(default_factory=list)  # what happened, from the view's events
    at: str | None = None


def view_at(gf: gamefile.GameFile, seed: str | None, viewer: str | None,
            upto: int | None = None) -> dict[str, Any]:
    """The view of ``viewer`` after ``upto`` log entries (None = all)."""
    match = replay.replay(gf, seed, upto=upto)
    return dict(match.game.view(match.state, viewer))


def since_marks(gf: gamefile.GameFile, seed: str | None, viewer: str | None,
                since: int) -> tuple[dict[str, Any], Marks]:
    """The view now and what changed in it since move ``since``. Raises UsageError for a
    move number outside the log."""
    total = len(gf.log)
    if not 0 <= since <= total:
        raise UsageError(f"--since {since}: this game has moves 0 to {total}")
    now = view_at(gf, seed, viewer)
    before = view_at(gf, seed, viewer, since)
    return now, Marks.between(before, now)


def positions(gf: gamefile.GameFile, seed: str | None,
              viewer: str | None = None) -> list[Position]:
    """The view after every log entry, from the start (n = 0) to the end."""
    return replay_positions(gf, seed, viewer)[1]


def replay_positions(gf: gamefile.GameFile, seed: str | None,
                     viewer: str | None = None) -> tuple[Match, list[Position]]:
    """The match at the end and the view after every log entry (n = 0: the start)."""
    game = gf.game
    out = [Position(0, _frozen(game.view(replay.start_state(gf, seed).state, viewer)))]

    def record(i: int, match: Match) -> None:
        entry = gf.log[i]
        view = _frozen(game.view(match.state, viewer))
        words = new_events(out[-1].view.get("events", []), view.get("events", []))
        text = replay.entry_text(gf, i)  # public: hidden choices as "kept a card"
        out.append(Position(entry["n"], view, entry["by"], text, words, entry.get("at")))

    match = replay.replay(gf, seed, on_entry=record)  # every check, and every position
    return match, out


def _frozen(view: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``view`` that shares nothing with the state: a view may hold the state's
    own lists (Staufer's privilege display does), which later moves change."""
    return dict(msgspec.json.decode(msgspec.json.encode(view)))
