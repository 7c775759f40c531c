"""Moves by number in chat: the post to the player who must decide, in their direct
room, numbers their legal moves; a message of just a number plays that move
(docs/chat.md, "Moves by number").

The numbers are those of the post: the chat door keeps the play number the numbered post
was made at, and a number typed is the text of that play number
(:attr:`referee.judge.door.Said.at`), so a number typed after the game moved on is
stale (refused, answered) rather than another move; the core turns a fresh number into
its move (:mod:`referee.judge.handling`). Only in the seat's direct room: at the table
a number is table chat. At most :data:`NUMBERED_MAX` moves are numbered; the rest are
typed as listed.
"""

from __future__ import annotations

from referee import i18n
from referee.judge.basics import Loaded, decision_moves
from referee.judge.text import more_moves

_, N_, ngettext = i18n.domain("referee")

NUMBERED_MAX = 40


def numbered(game: Loaded, player: str) -> list[str]:
    """The numbered moves of ``player`` if they must decide now ([] otherwise)."""
    legal = decision_moves(game, player)
    if not legal:
        return []
    found = [_("Or type just a number to play its move:"),
             *(f"  {k:>2}  {move}" for k, move in enumerate(legal[:NUMBERED_MAX], 1))]
    if len(legal) > NUMBERED_MAX:
        found.append("  " + more_moves(len(legal) - NUMBERED_MAX))
    return found
