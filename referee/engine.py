"""The Game protocol every game implements, the registry, and replay.

One definition of legality: a game generates its legal moves in one function
(``legal_moves``); a submitted move is accepted only if it is equal to one of them, and
``apply`` trusts that and never checks legality a second time.

State objects are the game's own (mutable) classes. ``apply`` mutates the state it is
given; nothing else does. All randomness comes from the :class:`~referee.rng.Rng` that
``setup`` receives and keeps inside the state, so replaying the log from the header
always rebuilds the same state.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from referee.errors import (
    AmbiguousMove,
    IllegalMove,
    MalformedMove,
    NotYourTurn,
    UsageError,
)
from referee.rng import Rng

Move = Any  # a frozen msgspec.Struct of the game's move union
State = Any  # the game's own state object


@dataclass(frozen=True)
class Option:
    """A game option for ``referee new --option name=value``."""

    name: str
    default: str
    choices: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class Assumption:
    """A component value the rulebook does not give; shown by ``referee data``."""

    key: str  # e.g. "A1" or "seats.Aachen"
    what: str  # human text: what is assumed
    value: str  # the value in use
    source: str  # where it comes from, e.g. "reference note A1 (ASSUMPTION)"


@dataclass(frozen=True)
class Interpretation:
    """A reading the engine chose where the rulebook is silent or unclear; shown by
    ``referee data`` so that players know which rulings they are playing under."""

    key: str  # e.g. "S1"
    topic: str  # what it is about, e.g. "start player"
    reading: str  # what the engine does
    rule: str  # the rulebook passage it reads (section), or what the rulebook omits


@dataclass(frozen=True)
class HiddenItem:
    """One piece of hidden state, for leak tests (``Game.hidden_items``).

    ``tokens`` are the exact strings a public text or view would show if it leaked the
    item (the game's own words for it: ``card:a07`` and ``a07``, a contract's id and its
    text, the labels of the next chests in draw order); a checker matches them as whole
    tokens. ``owner`` is the one player who may see it (None: nobody). ``distinct`` is
    False for a token that can also appear by chance in honest text (a sequence of
    chest labels), so that plain substring searches leave it out."""

    kind: str  # "card", "contract", "chest", "tile", "draw"
    where: str  # for messages: "ann's hand", "the chest stack, no. 2 from the top"
    tokens: tuple[str, ...]
    owner: str | None = None
    distinct: bool = True


class GameDefaults:
    """Defaults for the optional parts of the protocol; game classes inherit it."""

    def private_fields(self, move: Move) -> tuple[str, ...]:
        """Fields of ``move`` that only its author may see (a secretly kept card). In
        sealed games they are stored sealed; public outputs use :meth:`public_text`."""
        return ()

    def public_text(self, move: Move) -> str:
        """``move`` as other players may read it: the notation with every private field
        replaced by words ("pass 2, kept a card")."""
        return self.format_move(move)  # type: ignore[attr-defined]

    def interpretations(self) -> list[Interpretation]:
        """Every reading the engine chose where the rulebook is silent."""
        return []

    def copy_state(self, state: State) -> State:
        """An independent copy of ``state`` that moves can be applied to (the bots copy
        a position for every move they try). Games with a cheaper copy override it."""
        import copy

        return copy.deepcopy(state)

    def is_legal(self, state: State, player: str, move: Move) -> bool:
        """Whether ``move`` is one of ``player``'s legal moves (replay asks this of every
        logged move). The default asks the one generator for the whole list; a game may
        ask the same generator for only the moves that could equal ``move`` (its kind,
        its region), as python-chess masks its generator by squares. Never a second
        definition of legality: tests hold it equal to ``move in legal_moves(...)``."""
        return move in self.legal_moves(state, player)  # type: ignore[attr-defined]

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]:
        """Inspection for leak tests, item by item: everything ``viewer`` (None: the
        public) must not see now, each with the exact strings a text or JSON view
        would use if it leaked it. Decides nothing in play. Games with hidden parts
        override it; the default says there is nothing hidden."""
        return []

    def determinize(self, state: State, player: str, rng: Rng) -> State:
        """A copy of ``state`` with every part ``player`` cannot see re-dealt from ``rng``
        (the bots' only way to look at hidden parts). Games with hidden parts override it."""
        raise UsageError(f"{self.name} cannot be played by bots: it has no determinize",  # type: ignore[attr-defined]
                         hints=["the game package must define determinize(state, player, rng)"])


@runtime_checkable
class Game(Protocol):
    """What every game module provides (as a module-level object ``GAME``)."""

    name: str  # "staufer"
    title: str  # "The Staufer Dynasty"
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    move_type: Any  # the msgspec tagged union of move Structs (for schemas/)

    def data_version(self) -> str:
        """Rules/data version pinned in new game files, e.g. ``staufer-1+data.3f2a9c1e``."""
        ...

    def setup(self, players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
        """The state before the first move. ``options`` is complete (defaults filled)."""
        ...

    def to_move(self, state: State) -> list[str]:
        """Players who owe a decision now, in the order they should make it; [] at the end."""
        ...

    def legal_moves(self, state: State, player: str) -> list[Move]:
        """Every legal move of ``player`` now, in a stable order; [] if they owe nothing."""
        ...

    def apply(self, state: State, player: str, move: Move) -> None:
        """Carry out a move that ``legal_moves`` generated. Mutates ``state``."""
        ...

    def format_move(self, move: Move) -> str:
        """The canonical notation; ``parse_move(format_move(m), ...) == m``."""
        ...

    def parse_move(self, text: str, legal: Sequence[Move]) -> Move:
        """Read notation. Raises MalformedMove (not notation) or AmbiguousMove (an
        abbreviation that fits several of ``legal``). Does not decide legality."""
        ...

    def why_illegal(self, state: State, player: str, move: Move) -> str:
        """For a well-formed move that is not legal: which rule forbids it (cite the
        rulebook section). Only explains; never used to decide legality."""
        ...

    def prompt(self, state: State) -> str:
        """One line for people: who must decide what now (or the final result)."""
        ...

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        """JSON-able view: everything ``viewer`` may see (None = public only)."""
        ...

    def render(self, state: State, viewer: str | None, wide: bool = False) -> str:
        """The same view as text for a terminal or an e-mail: lines of at most 80
        characters with a legend of its abbreviations (``wide``: one long table)."""
        ...

    def finished(self, state: State) -> bool: ...

    def scores(self, state: State) -> dict[str, int]:
        """Current score of every player (final scores once finished)."""
        ...

    def ranking(self, state: State) -> list[list[str]]:
        """Places after all tie-breaks, best first; players sharing a place together."""
        ...

    def fingerprint(self, state: State) -> str:
        """A hash of the whole state, hidden parts and generator counters included:
        equal fingerprints mean equal states (replay tests, undo, golden files)."""
        ...

    def invariants(self, state: State) -> list[str]:
        """Violated conservation invariants (empty when all hold). For tests and check."""
        ...

    def reveals(self, before: State, after: State) -> bool:
        """Whether the move from ``before`` to ``after`` drew, showed or moved anything
        hidden (a card left a hand, a tile was drawn, the game ended and hands were
        opened). Such a move may not be undone (docs/playing.md: undo); the random generator's
        counters are compared by the caller."""
        ...

    def assumptions(self) -> list[Assumption]:
        """Every assumed component value in use."""
        ...

    def data(self) -> dict[str, Any]:
        """All component data, with source and confidence per value."""
        ...

    def private_fields(self, move: Move) -> tuple[str, ...]: ...

    def public_text(self, move: Move) -> str: ...

    def interpretations(self) -> list[Interpretation]: ...

    def is_legal(self, state: State, player: str, move: Move) -> bool: ...

    def copy_state(self, state: State) -> State: ...

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]: ...

    def determinize(self, state: State, player: str, rng: Rng) -> State: ...


BUILTIN_GAMES = ("staufer", "dynasties")
_GAMES = {name: f"referee.games.{name}" for name in BUILTIN_GAMES}


def register(name: str, module: str) -> None:
    """Make the game in ``module`` (which defines ``GAME``) known as ``name``."""
    _GAMES[name] = module


def game_names() -> list[str]:
    return list(_GAMES)


def get_game(name: str) -> Game:
    """The game called ``name``. Raises UsageError for an unknown name."""
    if name not in _GAMES:
        raise UsageError(
            f"unknown game {name!r}", hints=[f"known games: {', '.join(_GAMES)}"]
        )
    module = importlib.import_module(_GAMES[name])
    return module.GAME


def full_options(game: Game, given: Mapping[str, str]) -> dict[str, str]:
    """Options with defaults filled in. Raises UsageError for unknown names or values."""
    known = {o.name: o for o in game.options}
    out = {o.name: o.default for o in game.options}
    for name, value in given.items():
        if name not in known:
            raise UsageError(
                f"{game.name} has no option {name!r}",
                hints=[f"options: {', '.join(known) or 'none'}"],
            )
        option = known[name]
        if option.choices and value not in option.choices:
            raise UsageError(
                f"option {name} cannot be {value!r}",
                hints=[f"choices: {', '.join(option.choices)}"],
            )
        out[name] = value
    return out


def closest(text: str, candidates: Sequence[str], n: int = 5) -> list[str]:
    """The candidates most like ``text`` (for "did you mean")."""
    import difflib  # only for a rejected move

    found = difflib.get_close_matches(text, candidates, n=n, cutoff=0.0)
    return found or list(candidates[:n])


def legal_strings(game: Game, state: State, player: str) -> list[str]:
    """``player``'s legal moves in canonical notation (each accepted verbatim by move)."""
    return [game.format_move(m) for m in game.legal_moves(state, player)]


def resolve_move(game: Game, state: State, player: str, text: str) -> Move:
    """Turn ``text`` into one of ``player``'s legal moves.

    Raises NotYourTurn, MalformedMove, AmbiguousMove or IllegalMove (with the rule that
    forbids it and the closest legal moves).
    """
    if game.finished(state):
        raise NotYourTurn("the game is over; no more moves are accepted")
    owing = game.to_move(state)
    if player not in owing:
        raise NotYourTurn(
            f"it is not {player}'s turn: {game.prompt(state)}",
            hints=[f"waiting for: {', '.join(owing)}"],
        )
    legal = game.legal_moves(state, player)
    notation = [game.format_move(m) for m in legal]
    try:
        move = game.parse_move(text, legal)
    except (MalformedMove, AmbiguousMove) as exc:
        if not exc.legal:
            exc.legal = closest(text, notation)
        raise
    if move in legal:
        return move
    canonical = game.format_move(move)
    raise IllegalMove(
        f"{canonical!r} is not legal: {game.why_illegal(state, player, move)}",
        legal=closest(canonical, notation),
    )


@dataclass
class Match:
    """A game in progress: the game, its header facts, the state and the move log."""

    game: Game
    players: list[str]
    options: dict[str, str]
    state: State
    rng: Rng
    log: list[tuple[str, Move]] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        game: Game,
        players: Sequence[str],
        options: Mapping[str, str],
        key: bytes | str,
    ) -> Match:
        opts = full_options(game, options)
        rng = Rng(key)
        state = game.setup(list(players), opts, rng)
        return cls(game, list(players), opts, state, rng)

    def play(self, player: str, move: Move) -> None:
        """Apply a move already known to be legal (from resolve or legal_moves)."""
        self.game.apply(self.state, player, move)
        self.log.append((player, move))

    def submit(self, player: str, text: str) -> Move:
        """Resolve ``text`` for ``player`` and play it. Raises the MoveError kinds."""
        move = resolve_move(self.game, self.state, player, text)
        self.play(player, move)
        return move


def random_playout(match: Match, rng: Rng, max_moves: int = 100_000) -> int:
    """Play uniformly random legal moves until the game ends; returns moves played.

    For fuzz tests and benchmarks. Raises AssertionError on a dead end (a player owes a
    decision but has no legal move, or nobody owes one before the end).
    """
    game = match.game
    for count in range(max_moves):
        if game.finished(match.state):
            return count
        owing = game.to_move(match.state)
        assert owing, f"dead end: nobody to move, game not over ({game.prompt(match.state)})"
        player = owing[0]
        legal = game.legal_moves(match.state, player)
        assert legal, f"dead end: {player} must move but has no legal move"
        match.play(player, rng.choice(legal, "playout"))
    raise AssertionError(f"game did not end within {max_moves} moves")
