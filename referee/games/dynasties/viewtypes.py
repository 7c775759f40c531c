"""The view of a Dynasties game as types: what ``views.view`` writes and the board's text
(render.py) and picture (pictures.py) read. At run time a view is plain JSON (dicts and
lists, as every renderer and the players' view files hold it); these TypedDicts name its
keys so that a misspelt key fails the type check rather than a game.
"""

# (no `from __future__ import annotations`: TypedDict reads NotRequired from the
# annotations themselves)

from typing import Literal, NotRequired, TypedDict, final

from .state import CountryScoring


class PendingView(TypedDict):
    player: str
    decision: str  # in words (views.describe)


class PlayerView(TypedDict):
    """A player's public row: what everyone may see of them."""

    id: str
    colour: str
    score: int
    goods: str  # goods letters
    supply: int
    action_cards: int
    scoring_cards: int
    book_tiles_face_down: int
    book_tiles_open: list[str]
    book_tiles_open_names: list[str]
    coats_of_arms: dict[str, int]  # by country, those held
    wild: dict[str, str]  # Sword/Rose tile -> country
    passed: bool
    track_position: int | None


class FigureSpace(TypedDict):
    cost: str  # "3k", "1w"
    player: str  # "-" when empty


class CityView(TypedDict):
    city: str
    name: str
    country: str
    symbol: str
    large: str  # "prince" or "princess"
    prince: FigureSpace
    princess: FigureSpace
    child: str
    book_tiles: int


class ShipView(TypedDict):
    ship: int  # 1-3
    goods: str
    large: str
    small: str


class PersonalityView(TypedDict):
    space: int  # 1-8
    personality: str
    name: str
    cost: str  # in words
    used: bool


@final
class TrackSpace(TypedDict):
    """A space of the top row of the passing track."""

    space: int
    cost_pink: int
    player: str


@final
class LongSpace(TypedDict):
    """The long space, behind the top row."""

    space: Literal["long"]
    players: list[str]


class TabletView(TypedDict):
    tablet: str
    first: int
    second: int
    crown: int


class YouView(TypedDict):
    """The viewer's own hidden things (their own view only)."""

    player: str
    hand: list[str]
    scoring_cards: list[str]
    drawn_scoring_cards: list[str]
    book_tiles: list[str]
    index: int


class View(TypedDict):
    game: str
    round: int
    phase: str
    prompt: str
    pending: PendingView | None
    starting_player: str
    players: list[PlayerView]
    cities: list[CityView]
    ships: list[ShipView]
    personalities: list[PersonalityView]
    leonardo: str
    passing_track: list[TrackSpace | LongSpace]  # the top row, then the long space
    bonus_spaces: dict[str, list[str]]
    free_cities: dict[str, str]
    free_book_city_tiles: int
    tablets: dict[str, TabletView]  # by country
    coats_of_arms_left: dict[str, int]
    neutral_figures_left: int
    dice: list[str]
    action_deck: int
    action_discard: list[str]
    yellow_deck: int
    scoring_discard: list[str]
    bag: int
    events: list[str]
    final_scoring: NotRequired[dict[str, CountryScoring]]
    you: NotRequired[YouView]
