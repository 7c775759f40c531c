"""The tasks of ``state.queue``: what must happen next, front first (rules.py explains the
flow). A :class:`Decision` waits for the move of its player (decisions.py); a
:class:`Step` is carried out at once (rules.py, the end of a round in roundend.py).

A task is a frozen msgspec Struct whose type is its kind: a state's copy shares its tasks,
and its fingerprint writes each as ``{"k": kind, "p": player, ...}``. A class is its
kind's name in CamelCase (``take_ship``: :class:`TakeShip`), the kind its ``kind``.
"""

# (no `from __future__ import annotations`: msgspec would evaluate every annotation from
# its string when the class is made, which costs the start of every command)

from typing import cast

import msgspec

from . import records

NOBODY = -1  # the player of a step that belongs to no one


class Task(msgspec.Struct, frozen=True, kw_only=True, tag_field="k"):
    player: int = msgspec.field(default=NOBODY, name="p")

    @property
    def kind(self) -> str:
        """The kind, as the fingerprint writes it (``divide``, ``end_turn``)."""
        return cast(str, self.__struct_config__.tag)


class Decision(Task, frozen=True, kw_only=True):
    """A choice its player owes: its legal moves are the options (decisions.py)."""


class Step(Task, frozen=True, kw_only=True):
    """An automatic step, carried out as soon as it is first in the queue."""


# --- decisions ------------------------------------------------------------------------------
class Divide(Decision, frozen=True, tag="divide"):
    """Trade (Dividing): the second figure on a ship divides its goods."""

    ship: int  # 0-based


class Choose(Decision, frozen=True, tag="choose"):
    """Trade (Choosing): the large space chooses one of the two groups."""

    ship: int
    groups: tuple[str, str]
    divider: int


class SelfTake(Decision, frozen=True, tag="self_take"):
    """Trading with yourself: take 2 goods from the ship."""

    ship: int


class LoneTake(Decision, frozen=True, tag="lone_take"):
    """End of a Round 1: a lone figure on a ship takes 2 of its goods."""

    ship: int


class TakeShip(Decision, frozen=True, tag="take_ship"):
    """A good from any ship, ``left`` times (Francis Drake)."""

    left: int
    touched: tuple[int, ...]  # the ships taken from so far, refilled at the end


class TakeBag(Decision, frozen=True, tag="take_bag"):
    count: int


class DowryDivide(Decision, frozen=True, tag="dowry_divide"):
    """The Marriage: the small space divides the dice 1 / 2."""

    city: str
    dice: tuple[str, ...]
    chooser: int


class DowryChoose(Decision, frozen=True, tag="dowry_choose"):
    """The Marriage (Choosing): the large space chooses a group of dice."""

    city: str
    groups: tuple[str, str]
    divider: int


class NeutralDice(Decision, frozen=True, tag="neutral_dice"):
    """A neutral marriage: keep ``keep`` of the dice rolled."""

    city: str
    dice: tuple[str, ...]
    keep: int


class KeepScoring(Decision, frozen=True, tag="keep_scoring"):
    """Keep 1 of the scoring cards drawn."""


class Upgrade(Decision, frozen=True, tag="upgrade"):
    amount: int


class Wild(Decision, frozen=True, tag="wild"):
    """The country of a Sword/Rose book tile."""

    tile: str


class Envoy(Decision, frozen=True, tag="envoy"):
    """A free city for a family member."""


class Marry(Decision, frozen=True, tag="marry"):
    """A city for the neutral marriage."""

    keep: int


class SecondTrade(Decision, frozen=True, tag="second_trade"):
    """The second Trade of a Trade Twice (optional)."""


class Bonus(Decision, frozen=True, tag="bonus"):
    """End of a Round 4: a bonus action (optional)."""

    leonardo: bool  # Leonardo's extra bonus action


class Monastery(Decision, frozen=True, tag="monastery"):
    """After round 2: pay 1 pink for an unmarried figure or send it to the monastery."""

    city: str


class ScoreCards(Decision, frozen=True, tag="score_cards"):
    """Round Scoring 2: play scoring cards."""


# --- automatic steps ------------------------------------------------------------------------
class Trade(Step, frozen=True, tag="trade"):
    ship: int


class Effects(Step, frozen=True, tag="effects"):
    """Effects of the data, one at a time so that the decisions they raise keep their
    order (``city``: the marriage city)."""

    effects: records.Effects
    city: str | None


class DiceEffects(Step, frozen=True, tag="dice_effects"):
    faces: str  # "points+ship"
    city: str


class Refill(Step, frozen=True, tag="refill"):
    ships: tuple[int, ...]


class EndTurn(Step, frozen=True, tag="end_turn"):
    pass


# End of a Round, Round Scoring and the Final Scoring (roundend.py)
class LoneFigures(Step, frozen=True, tag="lone_figures"):
    pass


class ClearShips(Step, frozen=True, tag="clear_ships"):
    pass


class Redeal(Step, frozen=True, tag="redeal"):
    pass


class NewStart(Step, frozen=True, tag="new_start"):
    pass


class BonusStart(Step, frozen=True, tag="bonus_start"):
    pass


class BonusEnd(Step, frozen=True, tag="bonus_end"):
    pass


class DealCards(Step, frozen=True, tag="deal_cards"):
    pass


class BooksReveal(Step, frozen=True, tag="books_reveal"):
    pass


class FigureScoring(Step, frozen=True, tag="figure_scoring"):
    pass


class MonasteryStart(Step, frozen=True, tag="monastery_start"):
    pass


class CardsStart(Step, frozen=True, tag="cards_start"):
    pass


class NextRound(Step, frozen=True, tag="next_round"):
    pass


class Final(Step, frozen=True, tag="final"):
    pass
