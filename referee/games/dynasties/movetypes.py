"""The moves of Dynasties as data: the goods letters, the bounded field types and the move
types (a msgspec tagged union). A leaf of the package: the component data
(:mod:`.data`) precomputes moves of these types, the notation (:mod:`.moves`, which
also offers every name here) reads and writes them, and the state counts goods in the
order of :data:`COLOURS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Union

import msgspec

from .files import current_files, vocabulary

# A goods vector counts the 5 colours in this order; the letters are the notation's.
COLOURS = "kwgbp"

# --- field types: every value outside the game's data is rejected when a move is decoded --
# The move types name the words of the current data files (the published schema does
# too); a game object is only built from data files with the same words (see game()).
WORDS = vocabulary(current_files())
CARDS = WORDS.cards
_FACE = "(?:" + "|".join(WORDS.faces) + ")"

Card = Annotated[int, msgspec.Meta(ge=1, le=CARDS, description="an action card, a01 = 1")]
CardOrNone = Annotated[int, msgspec.Meta(ge=0, le=CARDS, description="an action card or 0")]
ShipNo = Annotated[int, msgspec.Meta(ge=1, le=WORDS.ships, description="a ship, 1-3")]
TrackSpace = Annotated[int, msgspec.Meta(ge=0, le=WORDS.track,
                                         description="0 = the long space, 1-4 = top row")]
Goods = Annotated[str, msgspec.Meta(pattern="^[" + COLOURS + "]*$", max_length=16,
                                    description="goods letters k w g b p")]
if TYPE_CHECKING:  # the values come from the data: to a type checker they are strings
    Face = str
    CityKey = str
    PersonalityKey = str
    ScoringKey = str
    BonusKey = str
    CountryKey = str
    FreeCityKey = str
    Source = str
else:  # (msgspec checks each value against the data's own list)
    Face = Literal[WORDS.faces]
    CityKey = Literal[WORDS.cities]
    PersonalityKey = Literal[WORDS.personalities]
    ScoringKey = Literal[WORDS.scoring]
    BonusKey = Literal[WORDS.bonus]
    CountryKey = Literal[WORDS.countries]
    FreeCityKey = Literal[WORDS.free_cities]
    Source = Literal[("ship", "bag", *(str(s + 1) for s in range(WORDS.ships)))]
Faces = Annotated[str, msgspec.Meta(pattern=f"^{_FACE}(?:\\+{_FACE})?$",
                                    description="1 or 2 die faces joined by +")]
FacePair = Annotated[str, msgspec.Meta(pattern=f"^{_FACE}\\+{_FACE}$",
                                       description="2 die faces joined by +")]
Figure = Literal["prince", "princess"]


class Trade(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="trade"):
    card: Card
    ship: ShipNo


class TradeTwice(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="trade-twice"):
    card: Card
    ship: ShipNo
    pay: Goods


class SecondTrade(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="second-trade"):
    ship: ShipNo


class Place(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="place"):
    card: Card
    figure: Figure
    city: CityKey
    pay: Goods
    special: bool = False


class Use(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="use"):
    card: Card
    personality: PersonalityKey
    pay: Goods
    special: bool = False


class SitOut(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="sit-out"):
    card: Card


class Pass(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="pass"):
    space: TrackSpace  # 0 = the long space, 1-4 = top-row spaces
    card: CardOrNone = 0  # a Pass special-action card, or 0
    keep: CardOrNone = 0  # the one action card kept (private), or 0


class Divide(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="divide"):
    first: Goods
    second: Goods


class Choose(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="choose"):
    goods: Goods


class Take(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="take"):
    goods: Goods
    source: Source  # "ship" (the ship in question), "bag", or "1".."3"


class DivideDice(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="divide-dice"):
    single: Face
    pair: FacePair  # "points+ship"


class ChooseDice(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="choose-dice"):
    faces: Faces  # "child" or "points+ship"


class KeepScoring(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="keep"):
    card: ScoringKey  # private: the scoring card kept


class Bonus(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="bonus"):
    space: BonusKey


class Country(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="country"):
    purpose: Literal["upgrade", "wild"]
    country: CountryKey


class Marry(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="marry"):
    city: CityKey


class Envoy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="envoy"):
    city: FreeCityKey  # a free city: book | anchor | points


class Monastery(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="monastery"):
    city: CityKey
    save: bool


class Score(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="score"):
    card: ScoringKey


class Done(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="done"):
    pass


Move = Union[  # noqa: UP007 - msgspec wants a plain Union of tagged Structs
    Trade, TradeTwice, SecondTrade, Place, Use, SitOut, Pass, Divide, Choose, Take,
    DivideDice, ChooseDice, KeepScoring, Bonus, Country, Marry, Envoy, Monastery, Score, Done,
]
