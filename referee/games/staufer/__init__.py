"""The Staufer Dynasty (Die Staufer), 2-5 players: the referee's rules package.

A game object is built from data files and a rules version (:func:`game`); :data:`GAME`
is the one for the current data files and the current rules. The rules read the data
from the state (``state.data``), which the game object's ``setup`` puts there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import Assumption, Interpretation, Option, functions_from
from referee.engine.rng import Rng
from referee.errors import GameFileError

from . import basics, components, gamesetup, moves, scoring, state, texts, views
from . import rules as turn
from .components import StauferData, current_files, data_digest, play_data
from .state import State

RULES_VERSIONS: tuple[str, ...] = ("staufer-2",)
_LATER = "referee.games.staufer."  # modules imported when first asked (start-up time)


@functions_from(turn, scoring, moves, views, state, basics, texts, lazy={
    "why_illegal": _LATER + "explain",  # only for a move that is not legal
    "hidden_items": _LATER + "hidden", "reveals": _LATER + "hidden",  # inspection, undo
    "determinize": _LATER + "determinize",  # the bots only
})
class StauferGame:
    """The Staufer Dynasty played with the component data ``data`` by rules version
    ``rules``. The rules' own functions are its members (:func:`engine.functions_from`:
    play, notation, views, copies, inspection and the words of its events); the methods
    here need the object's data."""

    name = "staufer"
    title = "The Staufer Dynasty"
    min_players = 2
    max_players = 5
    options = (
        Option(
            "privileges",
            "first-game",
            gamesetup.PRIVILEGE_DECKS,
            "privilege deck: first-game (assumed blue seals), a themed deck of the supplement, "
            "publisher (= first-game, assumed), partially-random (1, 2 + the 4 numbers in "
            "privilege_list; drawn if it is empty), random, or custom (see privilege_list)",
        ),
        Option(
            "privilege_list",
            "",
            (),
            "privileges=custom: 6 numbers incl. 1, e.g. 1,3,5,8,10,16; "
            "privileges=partially-random: the 4 chosen numbers, e.g. 5,8,13,16",
        ),
        Option(
            "privilege_copies", "2", ("1", "2"), "cards per number (always 1 with 2 players)"
        ),
        Option(
            "start",
            "first",
            (),
            "start player (Setup 9): first (the first listed), random (drawn from the "
            "game's seed) or a player id; players sit clockwise in the order listed",
        ),
    )
    move_type = moves.MOVE_TYPE

    def __init__(self, data: StauferData, rules: str = RULES_VERSIONS[-1]) -> None:
        self.data = data
        self.rules = rules

    def data_version(self) -> str:
        return f"{self.rules}+data.{self.data.digest}"

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        return gamesetup.setup(self.data, players, options, rng)

    # documentation
    def assumptions(self) -> list[Assumption]:
        """The assumed values; what each is and its source in the reader's language."""
        return components.assumptions(self.data)

    def interpretations(self) -> list[Interpretation]:
        """The readings in the reader's language (the data file's English through the
        catalog)."""
        from .texts import _

        return [Interpretation(item["key"], _(item["topic"]), _(item["reading"]),
                               _(item["rule"])) for item in self.data.interpretations]

    def data_files(self) -> dict[str, Any]:
        """All component data, with source and confidence per value."""
        return {"version": self.data_version(), "files": self.data.files}

    # capabilities in modules of this package, imported when used (engine.pictures, ...)
    pictures = "referee.games.staufer.pictures"
    usage = "referee.games.staufer.usage"


def game(files: Mapping[str, Any] | None = None, rules: str | None = None) -> StauferGame:
    """The game played with the data files ``files`` (None: the current ones) by rules
    version ``rules`` (None: the current one). Raises GameFileError for a rules version
    this package does not have or files it cannot read."""
    rules = RULES_VERSIONS[-1] if rules is None else rules
    if rules not in RULES_VERSIONS:
        raise GameFileError(
            f"this referee does not have the Staufer rules {rules}",
            hints=[f"rules versions here: {', '.join(RULES_VERSIONS)}"],
        )
    if files is None:
        return StauferGame(components.current(), rules)
    try:
        data = components.load(files)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GameFileError(f"these Staufer data files cannot be read ({type(exc).__name__}: "
                            f"{exc})") from None
    return StauferGame(data, rules)


GAME = game()

__all__ = ["GAME", "RULES_VERSIONS", "StauferData", "StauferGame", "current_files",
           "data_digest", "game", "play_data"]
