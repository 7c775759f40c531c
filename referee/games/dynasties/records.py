"""The records of the data files as types: effects, Special Actions, personalities, bonus
spaces, scoring cards, majority tablets and book tiles. A leaf of the package:
:mod:`.data` reads a set of files into these (a field the type does not have, or an
effect the rules do not know, is refused as it is read) and the rules read them through
``state.data``.

An effect is one primitive of the interpreter (:func:`.effects.run`), written in the
files as ``{"op": "points", "n": 3}``: its type is its ``op``. Every record is frozen,
so the tasks of a state may name the data's effects without copying them. The keys that
only describe a value (``source``, ``confidence``, ``note``) stay in the files
(``Data.files``).
"""

# (no `from __future__ import annotations`: msgspec would evaluate every annotation from
# its string when the class is made, which costs the start of every command)

from typing import Literal, Union

import msgspec


class _Effect(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op"):
    """An effect primitive (the files' ``op``); a state's fingerprint writes a queued
    effect as the files do."""


class Points(_Effect, frozen=True, tag="points"):
    n: int


class DrawGoods(_Effect, frozen=True, tag="draw_goods"):
    count: int


class TakeColours(_Effect, frozen=True, tag="take_colours"):
    goods: str  # goods letters, each taken from the bag if it is there


class TakeFromShips(_Effect, frozen=True, tag="take_from_ships"):
    count: int


class TakeFromBag(_Effect, frozen=True, tag="take_from_bag"):
    count: int


class DrawActionCards(_Effect, frozen=True, tag="draw_action_cards"):
    count: int


class DrawScoring(_Effect, frozen=True, tag="draw_scoring"):
    count: int


class DrawScoringKeep(_Effect, frozen=True, tag="draw_scoring_keep"):
    draw: int
    keep: int


class Child(_Effect, frozen=True, tag="child"):
    fallback_points: int  # when the star is taken or no figure is left


class ArmsCity(_Effect, frozen=True, tag="arms_city"):
    fallback_points: int  # when no coat of arms of the country is left


class Leonardo(_Effect, frozen=True, tag="leonardo"):
    pass


class NeutralMarriage(_Effect, frozen=True, tag="neutral_marriage"):
    keep_dice: int


class FreeCity(_Effect, frozen=True, tag="free_city"):
    pass


class Upgrade(_Effect, frozen=True, tag="upgrade"):
    amount: int


class WildArms(_Effect, frozen=True, tag="wild_arms"):
    pass  # a Sword/Rose tile: a coat of arms of the country its owner names


class ArmsTile(_Effect, frozen=True, tag="arms_tile"):
    country: str


Effect = Union[  # noqa: UP007 - msgspec wants a plain Union of tagged Structs
    Points, DrawGoods, TakeColours, TakeFromShips, TakeFromBag, DrawActionCards,
    DrawScoring, DrawScoringKeep, Child, ArmsCity, Leonardo, NeutralMarriage, FreeCity,
    Upgrade, WildArms, ArmsTile,
]
Effects = tuple[Effect, ...]


class _Special(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind"):
    """The lower part of an action card: its Special Action (a joker has none)."""


class PassSpecial(_Special, frozen=True, tag="pass"):
    pass  # to the frontmost free space of the passing track


class CitySpecial(_Special, frozen=True, tag="city"):
    city: str
    gold: int


class PersonalitySpecial(_Special, frozen=True, tag="personality"):
    gold: int  # a gold-yellow personality


class TradeTwiceSpecial(_Special, frozen=True, tag="trade_twice"):
    gold: int


Special = Union[PassSpecial, CitySpecial, PersonalitySpecial, TradeTwiceSpecial]  # noqa: UP007


class Record(msgspec.Struct, frozen=True):
    """A keyed entry of a data file (its descriptive keys left out)."""

    key: str


class Personality(Record, frozen=True):
    name: str
    effects: Effects


class BonusSpace(Record, frozen=True):
    text: str
    shareable: bool  # "only the 3 Points space may be used more than once per round"
    effects: Effects


class DieFace(Record, frozen=True):
    effects: Effects


class Tablet(Record, frozen=True):
    first: int
    second: int
    crown: int


class BookTile(Record, frozen=True):
    kind: str  # card | points | ship | arms | sword ...
    effects: Effects


class _ScoringCard(Record, frozen=True, tag_field="kind"):
    deck: Literal["green", "yellow"]
    text: str
    measure: str  # what the card counts (scoring.measure)
    arg: str | None  # a symbol or a country, for the measures that name one


class AllCard(_ScoringCard, frozen=True, tag="all"):
    """Points once the measure reaches ``at_least``."""

    at_least: int
    points: int


class EachCard(_ScoringCard, frozen=True, tag="each"):
    """``per`` points for each one measured, at most ``max``."""

    per: int
    max: int


ScoringCard = Union[AllCard, EachCard]  # noqa: UP007
