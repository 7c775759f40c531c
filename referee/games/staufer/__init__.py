"""The Staufer Dynasty (Die Staufer), 2-5 players: the referee's rules package.

A game object is built from data files and a rules version (:func:`game`); :data:`GAME`
is the one for the current data files and the current rules. The rules read the data
from the state (``state.data``), which the game object's ``setup`` puts there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.engine import Assumption, HiddenItem, Interpretation, Option
from referee.engine.rng import Rng
from referee.errors import GameFileError

from . import basics, components, gamesetup, moves, scoring, texts, views
from . import rules as turn
from .components import StauferData, current_files, data_digest, play_data
from .state import State
from .state import fingerprint as fingerprint_of

RULES_VERSIONS: tuple[str, ...] = ("staufer-2",)


class StauferGame:
    """The Staufer Dynasty played with the component data ``data`` by rules version
    ``rules``. Its members are the rules' own functions; the few methods need the
    object's data or import a module only when it is asked for (start-up time)."""

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

    # play
    to_move = staticmethod(turn.to_move)
    legal_moves = staticmethod(turn.legal_moves)
    is_legal = staticmethod(turn.is_legal)
    apply = staticmethod(turn.apply)
    finished = staticmethod(turn.finished)
    scores = staticmethod(scoring.scores)
    ranking = staticmethod(scoring.ranking)
    # notation (no move holds a secret: the public text is the notation)
    format_move = staticmethod(moves.format_move)
    parse_move = staticmethod(moves.parse_move)
    private_fields = staticmethod(moves.private_fields)
    public_text = staticmethod(moves.format_move)
    # what players see
    prompt = staticmethod(views.prompt)
    view = staticmethod(views.view)
    render = staticmethod(views.render)
    # bots and inspection
    copy_state = staticmethod(State.copy)
    fingerprint = staticmethod(fingerprint_of)
    invariants = staticmethod(basics.invariants)
    event_text = staticmethod(texts.event_text)  # an event of the state, for the reader

    def why_illegal(self, state: State, player: str, move: Any) -> str:
        from . import explain  # only for a move that is not legal

        return explain.why_illegal(state, player, move)

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]:
        from . import hidden  # inspection and undo only

        return hidden.hidden_items(state, viewer)

    def reveals(self, before: State, after: State) -> bool:
        from . import hidden

        return hidden.reveals(before, after)

    def determinize(self, state: State, player: str, rng: Rng) -> State:
        from .determinize import determinize  # the bots only

        return determinize(state, player, rng)

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

    # capabilities in modules of this package, imported when used (engine.capability)
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
