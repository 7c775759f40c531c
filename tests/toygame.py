"""A tiny game for testing the referee core without a real game's rules.

Take-away: a pile of counters; on your turn take 1, 2 or 3; whoever takes the last one
wins. Each player is dealt a secret card from a shuffled deck (hidden information); a
player may instead "peek", which is only legal once.

:class:`ToyCore` is the core protocol only (``engine.Game``): the referee must work for
it through the fallbacks in ``referee/engine.py`` (registered as ``toycore``, ``CORE``).
:class:`ToyGame` adds the optional capabilities the core tests exercise: explanations,
inspection (fingerprint, invariants, hidden items), undo (``reveals``), copies and
documentation (registered as ``toy``, ``GAME``).
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import msgspec

from referee.engine import Assumption, HiddenItem, Option
from referee.engine.rng import Rng
from referee.errors import MalformedMove


class Take(msgspec.Struct, frozen=True, tag="take"):
    n: Annotated[int, msgspec.Meta(ge=1, le=99)]  # (a bound, as every field has)


class Peek(msgspec.Struct, frozen=True, tag="peek"):
    pass


class Draw(msgspec.Struct, frozen=True, tag="draw"):
    """Swap your card for the top card of the deck (reveals a hidden card to you)."""


ToyMove = Take | Peek | Draw


@dataclass
class ToyState:
    players: list[str]
    pile: int
    turn: int = 0
    cards: dict[str, str] = field(default_factory=dict)
    deck: list[str] = field(default_factory=list)
    peeked: list[str] = field(default_factory=list)
    winner: str | None = None
    rng: Rng | None = None


class ToyCore:
    """The core protocol and nothing else."""

    name = "toycore"
    title = "Toy Take-Away (core only)"
    rules = "toycore-1"
    min_players = 2
    max_players = 4
    options = (Option("pile", "10", ("5", "10", "21"), "counters in the pile"),)
    move_type = ToyMove

    def data_version(self) -> str:
        return self.rules

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> ToyState:
        deck = [f"card-{i:02d}" for i in range(20)]
        rng.shuffle(deck, "deck")
        cards = {p: deck.pop() for p in players}
        return ToyState(list(players), int(options["pile"]), cards=cards, deck=deck, rng=rng)

    def to_move(self, state: ToyState) -> list[str]:
        return [] if state.winner else [state.players[state.turn]]

    def legal_moves(self, state: ToyState, player: str) -> list[Any]:
        if player not in self.to_move(state):
            return []
        moves: list[Any] = [Take(n) for n in (1, 2, 3) if n <= state.pile]
        if player not in state.peeked:
            moves.append(Peek())
        if state.deck:
            moves.append(Draw())
        return moves

    def apply(self, state: ToyState, player: str, move: Any) -> None:
        if isinstance(move, Take):
            state.pile -= move.n
            if state.pile == 0:
                state.winner = player
                return
        elif isinstance(move, Draw):
            state.deck.insert(0, state.cards[player])
            state.cards[player] = state.deck.pop()
        else:
            state.peeked.append(player)
        state.turn = (state.turn + 1) % len(state.players)

    def format_move(self, move: Any) -> str:
        if isinstance(move, Take):
            return f"take {move.n}"
        return "draw" if isinstance(move, Draw) else "peek"

    def parse_move(self, text: str, legal: Sequence[Any]) -> Any:
        words = text.lower().split()
        if words == ["peek"]:
            return Peek()
        if words == ["draw"]:
            return Draw()
        if len(words) == 2 and words[0] == "take" and words[1].isascii() and words[1].isdigit() \
                and len(words[1]) <= 2 and int(words[1]) >= 1:
            return Take(int(words[1]))
        raise MalformedMove(f"cannot read {text!r}: expected 'take N' (N from 1 to 99), "
                            "'peek' or 'draw'")

    def prompt(self, state: ToyState) -> str:
        if state.winner:
            return f"game over: {state.winner} wins"
        return f"{state.players[state.turn]} to take from a pile of {state.pile}"

    def view(self, state: ToyState, viewer: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"pile": state.pile, "deck": len(state.deck)}
        if viewer is not None:
            out["card"] = state.cards[viewer]
        return out

    def render(self, state: ToyState, viewer: str | None, width: int = 80) -> str:
        text = f"pile: {state.pile}"
        if viewer is not None:
            text += f"\nyour card: {state.cards[viewer]}"
        return text

    def finished(self, state: ToyState) -> bool:
        return state.winner is not None

    def scores(self, state: ToyState) -> dict[str, int]:
        return {p: int(p == state.winner) for p in state.players}

    def ranking(self, state: ToyState) -> list[list[str]]:
        rest = [p for p in state.players if p != state.winner]
        return [[state.winner], rest] if state.winner else [state.players]


class ToyGame(ToyCore):
    """The toy with the optional capabilities."""

    name = "toy"
    title = "Toy Take-Away"
    rules = "toy-1"

    def why_illegal(self, state: ToyState, player: str, move: Any) -> str:
        if isinstance(move, Peek):
            return "you may peek only once per game"
        return f"you may take 1 to 3 counters, at most the {state.pile} in the pile"

    def copy_state(self, state: ToyState) -> ToyState:
        return copy.deepcopy(state)

    def fingerprint(self, state: ToyState) -> str:
        blob = json.dumps([state.pile, state.turn, state.cards, state.deck, state.peeked,
                           state.winner, state.rng.counters if state.rng else {}])
        return hashlib.sha256(blob.encode()).hexdigest()

    def invariants(self, state: ToyState) -> list[str]:
        total = len(state.deck) + len(state.cards)
        return [] if total == 20 else [f"{total} cards instead of 20"]

    def hidden_items(self, state: ToyState, viewer: str | None) -> list[HiddenItem]:
        items = [HiddenItem("card", f"{p}'s card", (c,), p)
                 for p, c in state.cards.items() if p != viewer]
        return items + [HiddenItem("draw", "the deck", (c,)) for c in state.deck]

    def reveals(self, before: ToyState, after: ToyState) -> bool:
        return (before.cards, before.deck) != (after.cards, after.deck)

    def assumptions(self) -> list[Assumption]:
        return [Assumption("T1", "deck size", "20", "invented for tests")]

    def data_files(self) -> dict[str, Any]:
        return {"deck": {"value": 20, "source": "invented", "confidence": "assumed"}}


GAME = ToyGame()
CORE = ToyCore()
