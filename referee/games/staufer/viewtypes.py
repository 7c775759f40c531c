"""The view of a Staufer game as types: what ``views.view`` writes and the board's text
(render.py) and picture (pictures.py) read. At run time a view is plain JSON (dicts and
lists, as every renderer and the players' view files hold it); these TypedDicts name its
keys so that a misspelt key fails the type check rather than a game.
"""

# (no `from __future__ import annotations`: TypedDict reads NotRequired from the
# annotations themselves)

from typing import NotRequired, Required, TypedDict


class Figures(TypedDict):
    envoys: int
    nobles: int


class SeatView(TypedDict):
    seat: int  # 1 = leftmost
    cost: int
    noble_only: bool
    figures: list[str]  # "ann:E"
    chests: list[str]  # chest labels


class RegionView(TypedDict):
    region: str
    title: str
    king: bool
    distance_from_king: int
    scoring_tile: list[int]
    bonus: str  # in words
    seats: list[SeatView]
    payment: dict[str, Figures]  # by player: their figures on the payment space


class PlayerView(TypedDict):
    score: int
    court: Figures
    province: Figures
    chests: list[str]
    privileges: list[int]
    vp_privilege: int  # the Victory Point privilege's value (0: none)
    contracts: int  # how many (which: the player's own view)
    colour: str


class PendingView(TypedDict, total=False):
    """What the player to move decides now: the keys of the phase (``phase`` always)."""

    phase: Required[str]
    player: str
    region: str  # a Move/Deploy's region and seat (phase "seat")
    seat: int
    move_payments: list[str]
    deploy_payments: list[str]
    track_envoy: bool
    figure: str  # the figure a supply shortage asks for (phase "take")
    revealed: list[str]  # the chests revealed and who picks them (phase "pick")
    pickers: list[str]
    queue: list[str]  # who owes a purple decision (phase "purple")
    scored: list[str]  # the Regions scored (phases "keep" and "return")


class SupplySpace(TypedDict):
    space: int
    figures: str  # "E+N", "-"
    chests: list[str]


class Tracks(TypedDict):
    turn_order: list[str]
    supply_top_to_bottom: list[str]
    move_deploy_bottom_to_top: list[str]


class PrivilegeDisplay(TypedDict):
    numbers: list[int]
    left: dict[str, int]  # privilege number -> cards left
    vp_stack_top_last: list[int]


class RoundRow(TypedDict):
    round: int
    a: str  # the Region scored
    b: str  # the condition of the second Region
    c: int | str  # the King's steps, or "final scoring"


class Evaluation(TypedDict):
    a: str
    b_now: str
    b_condition: str


class ContractText(TypedDict):
    id: str
    text: str


class View(TypedDict):
    game: str
    round: int
    finished: bool
    prompt: str
    to_move: list[str]
    pending: PendingView
    king: str
    regions: list[RegionView]  # in ring order
    supply_board: list[SupplySpace]
    seating: list[str]
    start_player: str
    tracks: Tracks
    players: dict[str, PlayerView]
    privilege_display: PrivilegeDisplay
    round_display: list[RoundRow]
    evaluation: Evaluation
    chest_stack: int
    discard_pile: int
    events: list[str]
    scores: dict[str, int]
    final_scoring: NotRequired[dict[str, dict[str, int]]]  # player -> part -> points
    contracts: NotRequired[dict[str, list[str]]]
    you: NotRequired[str]
    your_contracts: NotRequired[list[ContractText]]
    legal: NotRequired[list[str]]
