"""A parsed move within the bounds its type declares, for every game (internal: the
engine's ``resolve_move`` checks every parsed move with it)."""

from __future__ import annotations

from typing import Any

import msgspec

from referee.errors import MalformedMove
from referee.i18n import domain

_, N_, ngettext = domain("referee")


def within_bounds(move_type: Any, move: Any, text: str) -> Any:
    """``move`` if every field is within the bounds ``move_type`` (the game's msgspec
    union) declares, what the file format checks of a logged move: a parser that reads a
    number past its field's bound has read something malformed, not an illegal move. A
    game may refuse it first in its own words (Dynasties does). Raises MalformedMove."""
    try:
        msgspec.convert(msgspec.to_builtins(move), move_type)
    except msgspec.ValidationError as exc:
        raise MalformedMove(_("cannot read {text}: {why}").format(
            text=repr(text), why=str(exc))) from None
    return move
