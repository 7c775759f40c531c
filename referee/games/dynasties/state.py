"""The mutable state of a Dynasties game. Plain data only, so it encodes canonically."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.rng import Rng

NEUTRAL_FIGURE = -1  # a pink neutral figure on a city space


@dataclass
class Player:
    id: str
    colour: str
    goods: list[int]  # k w g b p
    supply: int  # family members in the supply (the score marker is separate)
    score: int = 0
    hand: list[int] = field(default_factory=list)  # action cards (numbers)
    scoring: list[str] = field(default_factory=list)  # scoring cards in hand
    looking: list[str] = field(default_factory=list)  # drawn, one to keep
    books: list[str] = field(default_factory=list)  # book tiles held face down
    books_open: list[str] = field(default_factory=list)  # revealed book tiles
    arms: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # per country
    wild: dict[str, str] = field(default_factory=dict)  # Sword/Rose tile -> country
    passed: bool = False


@dataclass
class CityState:
    prince: int | None = None  # player index, NEUTRAL_FIGURE, or None
    princess: int | None = None
    star: int | None = None  # a child
    books: list[str] = field(default_factory=list)  # face down, top first


@dataclass
class Ship:
    goods: list[int]
    large: int | None = None
    small: int | None = None


@dataclass
class State:
    players: list[Player]
    rng: Rng
    cities: dict[str, CityState]
    ships: list[Ship]
    bag: list[int]
    deck: list[int]
    discard: list[int] = field(default_factory=list)
    yellow: list[str] = field(default_factory=list)
    yellow_discard: list[str] = field(default_factory=list)
    scored: list[str] = field(default_factory=list)  # scored green cards
    green_box: list[str] = field(default_factory=list)
    book_box: list[str] = field(default_factory=list)
    free_books: list[str] = field(default_factory=list)
    free_cities: dict[str, int | None] = field(default_factory=dict)
    upgraded: list[str] = field(default_factory=list)
    neutral: int = 3
    arms: list[int] = field(default_factory=lambda: [6, 6, 6, 6])
    tablets: dict[str, str] = field(default_factory=dict)
    personalities: list[str] = field(default_factory=list)  # 6 light-blue, then 2 gold
    used: list[bool] = field(default_factory=list)
    leonardo: int | None = None
    top: list[int | None] = field(default_factory=lambda: [None] * 4)
    long: list[list[int]] = field(default_factory=list)  # [player, has figure]
    bonus: dict[str, list[int]] = field(default_factory=dict)
    queue: list[dict[str, Any]] = field(default_factory=list)
    dice: list[str] = field(default_factory=list)
    round: int = 1
    start: int = 0
    active: int = 0
    phase: str = "play"  # play | end | over
    events: list[str] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)

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
