"""The Staufer Dynasty (Die Staufer), 2-5 players: the referee's rules package."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from referee.engine import Assumption, HiddenItem, Interpretation, Option
from referee.rng import Rng

from . import components as C
from . import gamesetup, moves, rules, views
from .state import E, N, State, encode


class StauferGame:
    name = "staufer"
    title = "The Staufer Dynasty"
    min_players = 2
    max_players = 5
    options = (
        Option(
            "privileges",
            "first-game",
            gamesetup.PRIVILEGE_DECKS,
            "privilege deck: first-game (assumed blue seals), a themed deck of the supplement, "
            "publisher (= first-game, assumed), partially-random (1, 2 + the 4 numbers in "
            "privilege_list; drawn if it is empty), random, or custom (see privilege_list)",
        ),
        Option(
            "privilege_list",
            "",
            (),
            "privileges=custom: 6 numbers incl. 1, e.g. 1,3,5,8,10,16; "
            "privileges=partially-random: the 4 chosen numbers, e.g. 5,8,13,16",
        ),
        Option(
            "privilege_copies", "2", ("1", "2"), "cards per number (always 1 with 2 players)"
        ),
        Option(
            "start",
            "first",
            (),
            "start player (Setup 9): first (the first listed), random (drawn from the "
            "game's seed) or a player id; players sit clockwise in the order listed",
        ),
    )
    move_type = moves.MOVE_TYPE

    def data_version(self) -> str:
        return "staufer-2+data." + C.data_hash()

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        return gamesetup.setup(players, options, rng)

    def to_move(self, state: State) -> list[str]:
        return [] if state.finished else [state.players[state.active]]

    def legal_moves(self, state: State, player: str) -> list[Any]:
        return rules.legal_moves(state, player)

    def copy_state(self, state: State) -> State:
        return state.copy()

    def is_legal(self, state: State, player: str, move: Any) -> bool:
        return rules.is_legal(state, player, move)

    def apply(self, state: State, player: str, move: Any) -> None:
        rules.apply(state, player, move)

    def format_move(self, move: Any) -> str:
        return moves.format_move(move)

    def parse_move(self, text: str, legal: Sequence[Any]) -> Any:
        return moves.parse_move(text, legal)

    def why_illegal(self, state: State, player: str, move: Any) -> str:
        from . import explain  # only for a move that is not legal

        return explain.why_illegal(state, player, move)

    def prompt(self, state: State) -> str:
        return views.prompt(state)

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        return views.view(state, viewer)

    def render(self, state: State, viewer: str | None, wide: bool = False) -> str:
        return views.render(state, viewer, wide)

    def finished(self, state: State) -> bool:
        return state.finished

    def scores(self, state: State) -> dict[str, int]:
        return dict(zip(state.players, state.score, strict=True))

    def ranking(self, state: State) -> list[list[str]]:
        """Most points; tie: most figures in the Court; then a shared place (Final
        Scoring; the "bluest blood" is read as a shared place, interpretation S11)."""
        key = {p: (state.score[i], sum(state.court[i])) for i, p in enumerate(state.players)}
        places: list[list[str]] = []
        for p in sorted(state.players, key=lambda q: key[q], reverse=True):
            if places and key[places[-1][0]] == key[p]:
                places[-1].append(p)
            else:
                places.append([p])
        return places

    def fingerprint(self, state: State) -> str:
        return hashlib.sha256(encode(state)).hexdigest()

    def invariants(self, state: State) -> list[str]:
        return invariants(state)

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]:
        from . import hidden  # inspection and undo only

        return hidden.hidden_items(state, viewer)

    def reveals(self, before: State, after: State) -> bool:
        from . import hidden

        return hidden.reveals(before, after)

    def assumptions(self) -> list[Assumption]:
        return C.assumptions()

    def interpretations(self) -> list[Interpretation]:
        return [Interpretation(**item) for item in C.INTERPRETATIONS]

    def data(self) -> dict[str, Any]:
        return {"version": self.data_version(), "files": C.RAW}

    def determinize(self, state: State, player: str, rng: Rng) -> State:
        from .determinize import determinize

        return determinize(state, player, rng)

    # capabilities in modules of this package, imported when used (engine.capability)
    pictures = "referee.games.staufer.pictures"
    usage = "referee.games.staufer.usage"


def invariants(state: State) -> list[str]:
    errors: list[str] = []
    for p, who in enumerate(state.players):
        count = [state.court[p][E] + state.province[p][E], state.court[p][N] + state.province[p][N]]
        for figs in [*(o for row in state.seats for o in row), *state.payment]:
            for q, kind in figs:
                if q == p:
                    count[E if kind == "E" else N] += 1
        if count != [C.FIGURES["E"], C.FIGURES["N"]]:
            errors.append(f"{who} has {count[E]} Envoys and {count[N]} Nobles, not 15 and 3")
        if min(state.court[p] + state.province[p]) < 0:
            errors.append(f"{who} has a negative figure count")
        figures = state.turn_track + state.supply_track + state.deploy_track
        in_hand = int(state.phase == "turn" and state.active == p and not state.finished)
        if figures.count(p) + in_hand != 3:
            errors.append(f"{who} has {figures.count(p) + in_hand} Action Figures, not 3")
    chests = list(state.stack) + state.discard + state.revealed
    chests += [c for row in state.seat_chests for seat in row for c in seat]
    chests += [c for space in state.supply_chests for c in space]
    chests += [c for held in state.held for c in held]
    if sorted(chests) != sorted(C.ALL_CHESTS):
        errors.append(f"chests: {len(chests)} found, {len(set(chests))} distinct, not the 72")
    if min(state.score) < 0:
        errors.append("a negative score")
    return errors


GAME = StauferGame()

__all__ = ["GAME", "StauferGame", "msgspec"]
