"""Dynasties: Heirate & Herrsche (3-5 players) for the referee.

A game object is built from a set of data files and a rules version (:func:`game`); the
package's ``GAME`` plays the current data by the current rules. Released data versions
stay in ``data/versions/<digest>.json``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import Assumption, Interpretation, Option, functions_from
from referee.engine.rng import Rng
from referee.errors import GameFileError, UsageError

from . import data as D
from . import moves, play, rules, state, views, words
from .files import current_files, data_digest, play_data, vocabulary
from .rules import RULES_VERSIONS
from .state import State

__all__ = ["GAME", "RULES_VERSIONS", "DynastiesGame", "current_files", "data_digest", "game",
           "play_data"]
_LATER = "referee.games.dynasties."  # modules imported when first asked (start-up time)


@functions_from(play, moves, views, state, lazy={
    "determinize": _LATER + "determinize",  # the bots only
    "hidden_items": _LATER + "hidden", "reveals": _LATER + "hidden",  # inspection, undo
    "invariants": _LATER + "checks",  # inspection only
})
class DynastiesGame:
    """Dynasties played with the component data ``data`` by the rules version ``rules``.
    The rules' own functions are its members (:func:`engine.functions_from`: play,
    explanations, notation, views, copies, inspection); the methods here need the
    object's data or rules version."""

    name = "dynasties"
    title = "Dynasties: Heirate & Herrsche"
    min_players = 3
    max_players = 5
    options: tuple[Option, ...] = ()
    move_type = moves.Move
    sealed_fields = moves.SEALED_FIELDS  # the fields a hidden choice may hide

    def __init__(self, data: D.Data, rules: str) -> None:
        self.data = data
        self.rules = rules

    def __repr__(self) -> str:
        return f"<DynastiesGame {self.data_version()}>"

    def data_version(self) -> str:
        return f"{self.rules}+data.{self.data.digest}"

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        if not self.min_players <= len(players) <= self.max_players:
            raise UsageError("Dynasties is for 3 to 5 players")
        return rules.setup(self.data, self.rules, players, options, rng)

    def parse_move(self, text: str, legal: Sequence[Any]) -> Any:
        return moves.parse_move(text, legal, self.data)

    # documentation: from the data files
    def assumptions(self) -> list[Assumption]:
        return D.assumptions(self.data.files)

    def interpretations(self) -> list[Interpretation]:
        """The readings in force under this rules version (an entry naming ``rules``
        holds only for those versions)."""
        from .words import _  # in the reader's language

        return [Interpretation(i["key"], _(i["topic"]), _(i["reading"]), _(i["rule"]))
                for i in self.data.files["interpretations"]["interpretations"]
                if self.rules in i.get("rules", RULES_VERSIONS)]

    def event_text(self, event: str) -> str:
        """An event of the state, for the reader (its components named from this data)."""
        return words.event(event, self.data)

    def data_files(self) -> dict[str, Any]:
        """All component data with source and confidence per value (``referee data``)."""
        return {"version": self.data_version(), **self.data.files}

    # capabilities in modules of this package, imported when used (engine.pictures, ...)
    pictures = "referee.games.dynasties.pictures"
    usage = "referee.games.dynasties.usage"


def game(files: Mapping[str, Any] | None = None, rules: str | None = None) -> DynastiesGame:
    """Dynasties with the data files ``files`` (None: the current ones) by the rules
    version ``rules`` (None: the current one). Raises GameFileError for a rules version
    this package does not have, or files whose cards, cities, ... the notation does not
    name (such a change of the words needs a new rules version)."""
    rules = RULES_VERSIONS[-1] if rules is None else rules
    if rules not in RULES_VERSIONS:
        raise GameFileError(f"Dynasties has no rules version {rules!r}",
                            hints=[f"rules versions here: {', '.join(RULES_VERSIONS)}"])
    files = current_files() if files is None else files
    try:
        if vocabulary(files) != moves.WORDS:
            raise GameFileError("these Dynasties data files name other cards, cities or "
                                "keys than the moves of this referee")
        return DynastiesGame(_current_data() if files is current_files() else D.load(files),
                             rules)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise GameFileError(f"the Dynasties data files are damaged ({type(exc).__name__})"
                            ) from None


@functools.cache
def _current_data() -> D.Data:
    """The current data files as a Data, made once: every rules version that plays them
    (a game pinned to an older rules version with today's data) shares it."""
    return D.load(current_files())


GAME = game()
