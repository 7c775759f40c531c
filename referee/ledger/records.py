"""The parts of a game file as the code builds them: TypedDicts of the header, a player,
the generator, the time control and a log entry.

A file is read as JSON and checked against the msgspec Structs of
:mod:`referee.ledger.schema` (what the published schemas are generated from); what is
kept and written back is the JSON itself (``GameFile.data``: its bytes are hashed into
the chain). These TypedDicts name the keys of that JSON where the referee makes or reads
a part of it, key for key the fields of the Structs (a test holds the two equal), so that
a misspelt key fails the type check.
"""

# (no `from __future__ import annotations`: TypedDict reads NotRequired and Required from
# the annotations themselves)

from typing import Any, Literal, NotRequired, Required, TypedDict


class BotRecord(TypedDict):
    """A bot seat (schema.FileBot): its level and, for mcts, its iterations."""

    level: str  # random, greedy or mcts
    iterations: NotRequired[int]


class PlayerRecord(TypedDict):
    """A player of the header (schema.FilePlayer)."""

    id: str
    name: NotRequired[str]
    email: NotRequired[str]
    github: NotRequired[str]
    matrix: NotRequired[str]
    bot: NotRequired[BotRecord]


class RngRecord(TypedDict, total=False):
    """The generator (schema.FileRng): an open seed or a sealed commitment, the nonces."""

    seed: str
    commitment: str
    nonces: dict[str, str]
    nonce_commitments: dict[str, str]
    recipient: str


class ClockRecord(TypedDict):
    """A time control (schema.FileClock): seconds, and days of vacation."""

    bank: int
    increment: int
    cap: int
    vacation: int
    pause: NotRequired[str]  # weekends
    timeout: str  # bot, gm or forfeit
    level: NotRequired[str]


class RematchOf(TypedDict):
    """The game a rematch follows (schema.FileRematchOf)."""

    id: NotRequired[str]
    header: str


class MetaFields(TypedDict, total=False):
    """A meta record: its ``kind`` (schema.MetaRecord's tags) and the fields of the kinds
    (each kind has some of them: schema.py's Meta* Structs)."""

    kind: Required[str]
    player: str
    email: str
    name: str
    emails: list[str]
    hours: int
    bot: str | None
    level: str | None
    iterations: int | None
    on: bool
    digest: Literal["round"] | int
    mode: str  # turn, every or digest
    data: str
    lines: list[str]
    sealed: str
    control: ClockRecord | None
    days: int
    lang: str  # en, de
    via: str  # also, only or off


class NewEntry(TypedDict, total=False):
    """A log entry as a writer hands it to the write core, which numbers it: ``by`` and
    exactly one of ``move``, ``undo``, ``void`` and ``meta``."""

    by: Required[str]
    move: dict[str, Any]  # the game's move as JSON (its move types check it)
    undo: int
    void: int
    meta: MetaFields


class Entry(NewEntry, total=False):
    """A log entry (schema.LogEntry): its number ``n``, ``by`` and its kind's fields, and
    what the write core and the doors add."""

    n: Required[int]
    sealed: str
    prev: str
    at: str
    mail: str
    matrix: str
    github: str
    bot: bool
    public: str
    mac: str
    plan: int


class Header(TypedDict):
    """A game file (schema.GameFileDoc): the header and the log."""

    format: str
    game: str
    id: NotRequired[str]
    rules: str
    created: NotRequired[str]
    players: list[PlayerRecord]
    options: dict[str, str]
    rng: RngRecord
    clock: NotRequired[ClockRecord]
    rematch_of: NotRequired[RematchOf]
    log: list[Entry]
