"""Nim for 2 or 3 players: a game package from outside the referee (its plug-in test and
the example of docs/adding-a-game.md).

Heaps of counters lie on the table; on your turn take 1 to ``max_take`` counters from one
heap. Rules versions: ``nim-1``, the player who takes the last counter wins; ``nim-2``
(misère), that player loses and everyone else wins. The heaps and ``max_take`` are the
component data (``data/nim.json``), released as data versions in ``data/versions/``.

The package provides what the referee asks of every game package: ``GAME``,
``RULES_VERSIONS``, ``game(files, rules)``, ``current_files()``, ``data_digest(files)``
and ``play_data(files)``; the game object the core protocol and a few capabilities
(``why_illegal``, ``determinize``, ``reveals``, ``assumptions``, ``data_files``), and no
pictures, usage extraction or mail legend: the referee's generic ones serve.
"""

from __future__ import annotations

import copy
import hashlib
import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec

from referee.engine import Assumption, Option, Rng
from referee.errors import GameFileError, MalformedMove

RULES_VERSIONS = ("nim-1", "nim-2")  # oldest first; the last is current
DATA_FILES = ("nim",)
HERE = Path(__file__).resolve().parent


class Take(msgspec.Struct, frozen=True, tag="take", forbid_unknown_fields=True):
    """Take ``n`` counters from heap ``heap`` (a letter)."""

    heap: Annotated[str, msgspec.Meta(pattern="^[a-z]$")]
    n: Annotated[int, msgspec.Meta(ge=1, le=99)]


@dataclass
class NimState:
    players: list[str]
    heaps: list[int]
    turn: int = 0
    last: str | None = None  # who took the last counter


# --- the data files ----------------------------------------------------------------------


def current_files() -> dict[str, Any]:
    """The package's data files by name (what a data release snapshots)."""
    return {name: json.loads((HERE / "data" / f"{name}.json").read_text(encoding="utf-8"))
            for name in DATA_FILES}


def play_data(files: Mapping[str, Any]) -> dict[str, Any]:
    """The values that decide play (what the data digest hashes)."""
    nim = files["nim"]
    return {"heaps": nim["heaps"]["value"], "max_take": nim["max_take"]["value"]}


def data_digest(files: Mapping[str, Any]) -> str:
    blob = json.dumps(play_data(files), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class NimData:
    """The data value the rules read: the heaps by player count, the largest take."""

    heaps: dict[int, tuple[int, ...]]
    max_take: int
    digest: str


def _data(files: Mapping[str, Any]) -> NimData:
    try:
        values = play_data(files)
        heaps = {int(k): tuple(int(c) for c in v) for k, v in values["heaps"].items()}
        max_take = int(values["max_take"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GameFileError(f"the nim data files are damaged ({type(exc).__name__})") from None
    return NimData(heaps, max_take, data_digest(files))


# --- the game ----------------------------------------------------------------------------


class Nim:
    name = "nim"
    title = "Nim"
    min_players = 2
    max_players = 3
    options: tuple[Option, ...] = ()
    move_type = Take

    def __init__(self, data: NimData, rules: str) -> None:
        self.data = data
        self.rules = rules

    def data_version(self) -> str:
        return f"{self.rules}+data.{self.data.digest}"

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> NimState:
        return NimState(list(players), list(self.data.heaps[len(players)]))

    def to_move(self, state: NimState) -> list[str]:
        return [] if self.finished(state) else [state.players[state.turn]]

    def legal_moves(self, state: NimState, player: str) -> list[Any]:
        if player not in self.to_move(state):
            return []
        return [Take(string.ascii_lowercase[i], n) for i, count in enumerate(state.heaps)
                for n in range(1, min(count, self.data.max_take) + 1)]

    def apply(self, state: NimState, player: str, move: Any) -> None:
        state.heaps[string.ascii_lowercase.index(move.heap)] -= move.n
        if self.finished(state):
            state.last = player
        else:
            state.turn = (state.turn + 1) % len(state.players)

    def format_move(self, move: Any) -> str:
        return f"take {move.n} from {move.heap}"

    def parse_move(self, text: str, legal: Sequence[Any]) -> Any:
        """``take 2 from b``, ``take 2 b`` or ``b2``."""
        words = text.lower().replace("from", " ").split()
        if len(words) == 1 and len(words[0]) >= 2:
            words = ["take", words[0][1:], words[0][0]]
        if (len(words) == 3 and words[0] == "take" and words[1].isascii() and words[1].isdigit()
                and len(words[1]) <= 2 and len(words[2]) == 1
                and words[2] in string.ascii_lowercase):
            if int(words[1]) == 0:  # every parsed move within Take's bounds (1-99)
                raise MalformedMove(f"cannot read {text!r}: take 1 to 99 counters")
            return Take(words[2], int(words[1]))
        raise MalformedMove(f"cannot read {text!r}: expected 'take N from HEAP', e.g. "
                            "'take 2 from b'")

    def view(self, state: NimState, viewer: str | None) -> dict[str, Any]:
        return {"game": self.name, "rules": self.rules,
                "heaps": {string.ascii_lowercase[i]: c for i, c in enumerate(state.heaps)},
                "to_move": self.to_move(state), "prompt": self.prompt(state),
                "scores": self.scores(state)}

    def render(self, state: NimState, viewer: str | None, width: int = 80) -> str:
        heaps = ", ".join(f"{string.ascii_lowercase[i]} {c}" for i, c in enumerate(state.heaps))
        return "\n".join([f"Heaps: {heaps}", f"Take 1 to {self.data.max_take} counters "
                          "from one heap; " + ("the last counter loses." if self._misere
                                               else "the last counter wins.")])

    def prompt(self, state: NimState) -> str:
        if self.finished(state):
            return f"game over: {state.last} took the last counter"
        return f"{state.players[state.turn]} to take from a heap"

    def finished(self, state: NimState) -> bool:
        return sum(state.heaps) == 0

    def scores(self, state: NimState) -> dict[str, int]:
        if state.last is None:
            return {p: 0 for p in state.players}
        return {p: int((p == state.last) != self._misere) for p in state.players}

    def ranking(self, state: NimState) -> list[list[str]]:
        scores = self.scores(state)
        places = sorted(set(scores.values()), reverse=True)
        return [[p for p in state.players if scores[p] == s] for s in places]

    @property
    def _misere(self) -> bool:
        return self.rules == "nim-2"

    # --- optional capabilities (referee/engine.py gives a fallback for each) -------------

    def why_illegal(self, state: NimState, player: str, move: Any) -> str:
        heap = string.ascii_lowercase.index(move.heap)
        if heap >= len(state.heaps):
            return f"there is no heap {move.heap}"
        return (f"take 1 to {self.data.max_take} counters from a heap that has them "
                f"(heap {move.heap} has {state.heaps[heap]})")

    def determinize(self, state: NimState, player: str, rng: Rng) -> NimState:
        return copy.deepcopy(state)  # nothing is hidden: the bots see the state itself

    def reveals(self, before: NimState, after: NimState) -> bool:
        return False  # nothing is hidden, so any move may be undone

    def assumptions(self) -> list[Assumption]:
        files = current_files()["nim"]
        return [Assumption(key, files[key].get("about", key), json.dumps(files[key]["value"]),
                           files[key]["source"])
                for key in ("heaps", "max_take") if files[key]["confidence"] == "assumed"]

    def data_files(self) -> dict[str, Any]:
        return {"version": self.data_version(), "files": current_files()}


def game(files: Mapping[str, Any] | None = None, rules: str | None = None) -> Nim:
    """The game built from the data files ``files`` (None: the current ones) and rules
    version ``rules`` (None: the current one). Raises GameFileError for another."""
    rules = RULES_VERSIONS[-1] if rules is None else rules
    if rules not in RULES_VERSIONS:
        raise GameFileError(f"nim has no rules version {rules!r}",
                            hints=[f"rules versions: {', '.join(RULES_VERSIONS)}"])
    return Nim(_data(current_files() if files is None else files), rules)


GAME = game()
