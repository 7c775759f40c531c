"""The mutable state of a Dynasties game. Plain data only, so it encodes canonically;
the component data it is played with (``state.data``) rides along, left out of the
fingerprint."""

from __future__ import annotations

import copy
import hashlib
from typing import Any, TypedDict, TypeVar

import msgspec

from referee.engine.rng import Rng

from .data import Data
from .movetypes import COLOURS as COLOURS  # (the goods letters, kept importable from here)
from .tasks import Task

NEUTRAL_FIGURE = -1  # a pink neutral figure on a city space
K, W, G, B, P = range(5)  # a goods vector counts the 5 colours in the order of COLOURS
ROUNDS = 3  # "Exactly 3 rounds are played in total"

T = TypeVar("T")


def _clone(obj: T, **mutable: Any) -> T:
    """A shallow copy of a record with the given fields replaced (the fields holding
    mutable values, each given as a copy)."""
    return msgspec.structs.replace(obj, **mutable)  # type: ignore[type-var]


class CountryScoring(TypedDict):
    """Final Scoring of one country, by player id: each one's strength there, the
    majority points and the crown points (the view shows it as it is)."""

    strength: dict[str, int]
    majority: dict[str, int]
    crown: dict[str, int]


class Player(msgspec.Struct):
    id: str
    colour: str
    goods: list[int]  # k w g b p
    supply: int  # family members in the supply (the score marker is separate)
    score: int = 0
    hand: list[int] = msgspec.field(default_factory=list)  # action cards (numbers)
    scoring: list[str] = msgspec.field(default_factory=list)  # scoring cards in hand
    looking: list[str] = msgspec.field(default_factory=list)  # drawn, one to keep
    books: list[str] = msgspec.field(default_factory=list)  # book tiles held face down
    books_open: list[str] = msgspec.field(default_factory=list)  # revealed book tiles
    arms: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0, 0])  # per country
    wild: dict[str, str] = msgspec.field(default_factory=dict)  # Sword/Rose tile -> country
    passed: bool = False

    def copy(self) -> Player:
        return _clone(self, goods=self.goods[:], hand=self.hand[:], scoring=self.scoring[:],
                      looking=self.looking[:], books=self.books[:],
                      books_open=self.books_open[:], arms=self.arms[:], wild=dict(self.wild))


class CityState(msgspec.Struct):
    prince: int | None = None  # player index, NEUTRAL_FIGURE, or None
    princess: int | None = None
    star: int | None = None  # a child
    books: list[str] = msgspec.field(default_factory=list)  # face down, top first

    def copy(self) -> CityState:
        return _clone(self, books=self.books[:])


class Ship(msgspec.Struct):
    goods: list[int]
    large: int | None = None
    small: int | None = None

    def copy(self) -> Ship:
        return _clone(self, goods=self.goods[:])


class State(msgspec.Struct):
    players: list[Player]
    rng: Rng
    cities: dict[str, CityState]
    ships: list[Ship]
    bag: list[int]
    deck: list[int]
    data: Data  # the component data: shared, never changed (left out of repr)
    discard: list[int] = msgspec.field(default_factory=list)
    yellow: list[str] = msgspec.field(default_factory=list)
    yellow_discard: list[str] = msgspec.field(default_factory=list)
    scored: list[str] = msgspec.field(default_factory=list)  # scored green cards
    green_box: list[str] = msgspec.field(default_factory=list)
    book_box: list[str] = msgspec.field(default_factory=list)
    free_books: list[str] = msgspec.field(default_factory=list)
    free_cities: dict[str, int | None] = msgspec.field(default_factory=dict)
    upgraded: list[str] = msgspec.field(default_factory=list)
    neutral: int = 3
    arms: list[int] = msgspec.field(default_factory=lambda: [6, 6, 6, 6])
    tablets: dict[str, str] = msgspec.field(default_factory=dict)
    personalities: list[str] = msgspec.field(default_factory=list)  # 6 light-blue, then 2 gold
    used: list[bool] = msgspec.field(default_factory=list)
    leonardo: int | None = None
    top: list[int | None] = msgspec.field(default_factory=lambda: [None] * 4)
    long: list[list[int]] = msgspec.field(default_factory=list)  # [player, has figure]
    bonus: dict[str, list[int]] = msgspec.field(default_factory=dict)
    queue: list[Task] = msgspec.field(default_factory=list)  # tasks.py; frozen, shared by copies
    dice: list[str] = msgspec.field(default_factory=list)
    round: int = 1
    start: int = 0
    active: int = 0
    phase: str = "play"  # play | end | over
    events: list[str] = msgspec.field(default_factory=list)
    final: dict[str, CountryScoring] = msgspec.field(default_factory=dict)  # by country

    def copy(self) -> State:
        """A copy that shares nothing mutable with this state, at a fraction of the cost
        of ``copy.deepcopy`` (the bots copy a state for every search iteration). Shared
        are only immutable values: the component data and the queued tasks (frozen,
        naming the data's frozen effects). A test walks both states to check this."""
        return _clone(
            self,
            players=[pl.copy() for pl in self.players],
            rng=self.rng.copy(),
            cities={k: c.copy() for k, c in self.cities.items()},
            ships=[s.copy() for s in self.ships],
            bag=self.bag[:], deck=self.deck[:], discard=self.discard[:],
            yellow=self.yellow[:], yellow_discard=self.yellow_discard[:],
            scored=self.scored[:], green_box=self.green_box[:], book_box=self.book_box[:],
            free_books=self.free_books[:], free_cities=dict(self.free_cities),
            upgraded=self.upgraded[:], arms=self.arms[:], tablets=dict(self.tablets),
            personalities=self.personalities[:], used=self.used[:], top=self.top[:],
            long=[entry[:] for entry in self.long],
            bonus={k: v[:] for k, v in self.bonus.items()},
            queue=self.queue[:],
            dice=self.dice[:], events=self.events[:],
            final=copy.deepcopy(self.final) if self.final else {},
        )

    def __repr__(self) -> str:  # (without the component data: a page of its own)
        shown = ", ".join(f"{name}={getattr(self, name)!r}"
                          for name in self.__struct_fields__ if name != "data")
        return f"State({shown})"

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        out = memo[id(self)] = self.copy()
        return out

    @property
    def n(self) -> int:
        return len(self.players)

    def log(self, text: str) -> None:
        """A public line for the views (never hidden information)."""
        self.events.append(text)
        del self.events[:-40]

    def name(self, idx: int | None) -> str:
        if idx is None:
            return "-"
        if idx == NEUTRAL_FIGURE:
            return "neutral"
        return self.players[idx].id


copy_state = State.copy  # the game's copy for the bots and undo (engine.Bots)


def fingerprint(state: State) -> str:
    """A hash of the whole state (hidden parts and generator counters included; the
    component data left out): equal fingerprints mean equal states."""
    body = msgspec.to_builtins({name: getattr(state, name) for name in state.__struct_fields__
                                if name not in ("rng", "data")})
    body["rng"] = dict(sorted(state.rng.counters.items()))
    return hashlib.sha256(msgspec.json.encode(body, order="sorted")).hexdigest()
