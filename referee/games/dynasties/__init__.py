"""Dynasties: Heirate & Herrsche (3-5 players) for the referee."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

import msgspec

from referee.engine import Assumption, HiddenItem, Interpretation, Option
from referee.rng import Rng

from . import data as D
from . import moves, rules, views
from .state import State


class Dynasties:
    name = "dynasties"
    title = "Dynasties: Heirate & Herrsche"
    min_players = 3
    max_players = 5
    options: tuple[Option, ...] = ()
    move_type = moves.Move
    sealed_fields = moves.SEALED_FIELDS  # the fields a hidden choice may hide

    def data_version(self) -> str:
        return D.data_version()

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        if not self.min_players <= len(players) <= self.max_players:
            from referee.errors import UsageError

            raise UsageError("Dynasties is for 3 to 5 players")
        return rules.setup(players, options, rng)

    def _index(self, state: State, player: str) -> int:
        for i, pl in enumerate(state.players):
            if pl.id == player:
                return i
        return -1

    def to_move(self, state: State) -> list[str]:
        if state.phase == "over":
            return []
        t = rules.pending(state)
        return [state.name(t["p"] if t is not None else state.active)]

    def legal_moves(self, state: State, player: str) -> list[Any]:
        p = self._index(state, player)
        return rules.legal_moves(state, p) if p >= 0 else []

    def copy_state(self, state: State) -> State:
        return state.copy()

    def is_legal(self, state: State, player: str, move: Any) -> bool:
        """Asks the one generator for only the moves that could equal ``move``."""
        p = self._index(state, player)
        return p >= 0 and move in rules.legal_moves(state, p, like=move)

    def apply(self, state: State, player: str, move: Any) -> None:
        rules.apply(state, self._index(state, player), move)

    def format_move(self, move: Any) -> str:
        return moves.format_move(move)

    def parse_move(self, text: str, legal: Sequence[Any]) -> Any:
        return moves.parse_move(text, legal)

    def private_fields(self, move: Any) -> tuple[str, ...]:
        return moves.private_fields(move)

    def public_text(self, move: Any) -> str:
        return moves.public_text(move)

    def why_illegal(self, state: State, player: str, move: Any) -> str:
        from . import illegal  # only for a move that is not legal

        return illegal.why_illegal(state, self._index(state, player), move)

    def prompt(self, state: State) -> str:
        return views.prompt(state)

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        return views.view(state, viewer)

    def render(self, state: State, viewer: str | None, wide: bool = False) -> str:
        return views.render(state, viewer, wide)

    def finished(self, state: State) -> bool:
        return state.phase == "over"

    def scores(self, state: State) -> dict[str, int]:
        return {pl.id: pl.score for pl in state.players}

    def ranking(self, state: State) -> list[list[str]]:
        """Most points wins; a tie goes to more goods left in the supply (Final Scoring)."""
        keyed: dict[tuple[int, int], list[str]] = {}
        for pl in state.players:
            keyed.setdefault((pl.score, sum(pl.goods)), []).append(pl.id)
        return [keyed[k] for k in sorted(keyed, reverse=True)]

    def fingerprint(self, state: State) -> str:
        body = msgspec.to_builtins(
            {f.name: getattr(state, f.name) for f in fields(state) if f.name != "rng"})
        body["rng"] = dict(sorted(state.rng.counters.items()))
        return hashlib.sha256(msgspec.json.encode(body, order="sorted")).hexdigest()

    def invariants(self, state: State) -> list[str]:
        from .checks import invariants

        return invariants(state)

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]:
        from .hidden import hidden_items

        return hidden_items(state, viewer)

    def reveals(self, before: State, after: State) -> bool:
        from .hidden import reveals

        return reveals(before, after)

    def assumptions(self) -> list[Assumption]:
        return D.assumptions()

    def interpretations(self) -> list[Interpretation]:
        return [Interpretation(i["key"], i["topic"], i["reading"], i["rule"])
                for i in D.RAW["interpretations"]["interpretations"]]

    def data(self) -> dict[str, Any]:
        return {"version": D.data_version(), **D.RAW}

    def determinize(self, state: State, player: str, rng: Rng) -> State:
        from referee.games.dynasties.determinize import determinize

        return determinize(state, player, rng)

    # capabilities in modules of this package, imported when used (engine.capability)
    pictures = "referee.games.dynasties.pictures"
    usage = "referee.games.dynasties.usage"


GAME = Dynasties()
