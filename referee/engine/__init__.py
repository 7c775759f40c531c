"""The engine: the game SDK, the one surface a game package builds on.

This package's own module is the Game protocol: the core every game implements, the
optional capabilities with their fallbacks, a game class made from its rules' modules
(:func:`functions_from`) and playing moves. Beside it: finding games by name and entry
point (``registry``, re-exported here), the deterministic random numbers every game
draws from (``rng``), dealing (``deal``) and laying out text boards (``textlayout``);
the drawing toolkit a game's pictures use is :mod:`referee.pictures`. May import:
:mod:`referee.errors` and :mod:`referee.i18n` only.

The API is declared: :data:`__all__` names everything public, the three public modules
``rng``, ``deal`` and ``textlayout`` among them (each with its own ``__all__``);
``registry`` and ``bounds`` are internal (import the registry's names from here), and so
is every name of this module that ``__all__`` leaves out (docs/api.md).

One definition of legality: a game generates its legal moves in one function
(``legal_moves``); a submitted move is accepted only if it is equal to one of them, and
``apply`` trusts that and never checks legality a second time.

State objects are the game's own (mutable) classes. ``apply`` mutates the state it is
given; nothing else does. All randomness comes from the :class:`~referee.engine.rng.Rng` that
``setup`` receives and keeps inside the state, so replaying the log from the header
always rebuilds the same state.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import msgspec

from referee.engine.registry import (  # noqa: F401 (finding games, re-exported)
    ENTRY_POINTS,
    NUMBER_DIGITS_MAX,
    _loaded,
    _registered,
    game_module,
    game_names,
    get_game,
    packaged_games,
    register,
)
from referee.engine.rng import Rng
from referee.errors import (
    AmbiguousMove,
    IllegalMove,
    MalformedMove,
    NotYourTurn,
    UsageError,
)
from referee.i18n import domain

__all__ = [
    "CORE_FUNCTIONS",
    "ENTRY_POINTS",
    "FUNCTIONS",
    "NUMBER_DIGITS_MAX",
    "Assumption",
    "Bots",
    "Documents",
    "Explains",
    "FastLegality",
    "Game",
    "HiddenItem",
    "Inspects",
    "Interpretation",
    "Match",
    "Move",
    "Option",
    "Rng",
    "Seals",
    "State",
    "Undo",
    "assumptions",
    "copy_state",
    "data_files",
    "deal",
    "determinize",
    "event_text",
    "fingerprint",
    "full_options",
    "functions_from",
    "game_module",
    "game_names",
    "get_game",
    "hidden_items",
    "interpretations",
    "invariants",
    "is_legal",
    "legal_strings",
    "legend",
    "new_events",
    "packaged_games",
    "pictures",
    "private_fields",
    "public_text",
    "random_playout",
    "register",
    "resolve_move",
    "reveals",
    "rng",
    "textlayout",
    "usage",
    "view_events",
    "view_round",
    "why_illegal",
]

_, N_, ngettext = domain("referee")

Move = Any  # a frozen msgspec.Struct of the game's move union
State = Any  # the game's own state object


class Option(msgspec.Struct, frozen=True):
    """A game option for ``referee new --option name=value``."""

    name: str
    default: str
    choices: tuple[str, ...]
    help: str


class Assumption(msgspec.Struct, frozen=True):
    """A component value the rulebook does not give; shown by ``referee data``."""

    key: str  # e.g. "A1" or "seats.Aachen"
    what: str  # human text: what is assumed
    value: str  # the value in use
    source: str  # where it comes from, e.g. "reference note A1 (ASSUMPTION)"


class Interpretation(msgspec.Struct, frozen=True):
    """A reading the engine chose where the rulebook is silent or unclear; shown by
    ``referee data`` so that players know which rulings they are playing under."""

    key: str  # e.g. "S1"
    topic: str  # what it is about, e.g. "start player"
    reading: str  # what the engine does
    rule: str  # the rulebook passage it reads (section), or what the rulebook omits


class HiddenItem(msgspec.Struct, frozen=True):
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


@runtime_checkable
class Game(Protocol):
    """The core every game implements (as a module-level object ``GAME`` of its package).

    Everything else is an optional capability (below), found by attribute; the core of
    the referee works for a game that has none of them."""

    name: str  # "staufer"
    title: str  # "The Staufer Dynasty"
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    move_type: Any  # the msgspec tagged union of move Structs (for schemas/)
    rules: str  # the rules version it plays, e.g. "staufer-2"

    def data_version(self) -> str:
        """The pin of new game files: ``f"{rules}+data.{digest}"``."""
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
        """Read notation. Raises MalformedMove or AmbiguousMove; does not decide legality."""
        ...

    def view(self, state: State, viewer: str | None) -> dict[str, Any]:
        """JSON-able view: everything ``viewer`` may see (None = public only)."""
        ...

    def render(self, state: State, viewer: str | None, width: int = 80) -> str:
        """The same view as text, lines of at most ``width`` characters."""
        ...

    def prompt(self, state: State) -> str:
        """One line for people: who must decide what now (or the final result)."""
        ...

    def finished(self, state: State) -> bool: ...

    def scores(self, state: State) -> dict[str, int]:
        """Current score of every player (final scores once finished)."""
        ...

    def ranking(self, state: State) -> list[list[str]]:
        """Places after all tie-breaks, best first; players sharing a place together."""
        ...


# --- optional capabilities ----------------------------------------------------------------
# Each is a small protocol a game may implement, and a function here that callers use: it
# asks the game, or gives the fallback for a game without the capability.


@runtime_checkable
class Explains(Protocol):
    def why_illegal(self, state: State, player: str, move: Move) -> str:
        """For a well-formed move that is not legal: which rule forbids it. Only
        explains; never used to decide legality."""
        ...


@runtime_checkable
class FastLegality(Protocol):
    def is_legal(self, state: State, player: str, move: Move) -> bool:
        """Whether ``move`` is one of ``player``'s legal moves, asking the one generator
        for only the moves that could equal it. Never a second definition of legality:
        tests hold it equal to ``move in legal_moves(...)``."""
        ...


@runtime_checkable
class Seals(Protocol):
    def private_fields(self, move: Move) -> tuple[str, ...]:
        """Fields of ``move`` only its author may see (stored sealed in sealed games)."""
        ...

    def public_text(self, move: Move) -> str:
        """``move`` as other players may read it ("pass 2, kept a card")."""
        ...


@runtime_checkable
class Bots(Protocol):
    def copy_state(self, state: State) -> State:
        """An independent copy of ``state`` that moves can be applied to."""
        ...

    def determinize(self, state: State, player: str, rng: Rng) -> State:
        """A copy of ``state`` with every part ``player`` cannot see re-dealt from ``rng``
        (the bots' only way to look at hidden parts)."""
        ...


@runtime_checkable
class Documents(Protocol):
    def assumptions(self) -> list[Assumption]:
        """Every assumed component value in use."""
        ...

    def interpretations(self) -> list[Interpretation]:
        """Every reading the engine chose where the rulebook is silent."""
        ...

    def data_files(self) -> dict[str, Any]:
        """All component data, with source and confidence per value (``referee data``)."""
        ...


@runtime_checkable
class Inspects(Protocol):
    def fingerprint(self, state: State) -> str:
        """A hash of the whole state, hidden parts and generator counters included."""
        ...

    def invariants(self, state: State) -> list[str]:
        """Violated conservation invariants (empty when all hold)."""
        ...

    def hidden_items(self, state: State, viewer: str | None) -> list[HiddenItem]:
        """Everything ``viewer`` (None: the public) must not see now, item by item."""
        ...


@runtime_checkable
class Undo(Protocol):
    def reveals(self, before: State, after: State) -> bool:
        """Whether the move from ``before`` to ``after`` drew, showed or moved anything
        hidden; such a move may not be undone. The generator's counters are compared by
        the caller (:func:`referee.ledger.replay.undo_refusal`)."""
        ...


def why_illegal(game: Game, state: State, player: str, move: Move) -> str:
    """Which rule forbids ``move`` (the game's own words), else a plain statement."""
    explain = getattr(game, "why_illegal", None)
    return str(explain(state, player, move)) if explain else _("it is not among the legal "
                                                                 "moves")


def is_legal(game: Game, state: State, player: str, move: Move) -> bool:
    """Whether ``move`` is one of ``player``'s legal moves (the game's fast check, else
    the whole list from the one generator)."""
    check = getattr(game, "is_legal", None)
    return bool(check(state, player, move)) if check else move in game.legal_moves(state, player)


def private_fields(game: Game, move: Move) -> tuple[str, ...]:
    """The fields of ``move`` only its author may see; () for a game without sealing."""
    found = getattr(game, "private_fields", None)
    return tuple(found(move)) if found else ()


def public_text(game: Game, move: Move) -> str:
    """``move`` as other players may read it; its notation for a game without sealing."""
    found = getattr(game, "public_text", None)
    return str(found(move)) if found else game.format_move(move)


def event_text(game: Game, event: object) -> str:
    """One event of the game's own account of what happened (a state's ``events``) in
    the reader's language; the event as it is stored for a game without a translation."""
    found = getattr(game, "event_text", None)
    return str(found(event)) if found else str(event)


def view_round(view: Mapping[str, Any]) -> int | None:
    """The round a view shows (its ``round``, a whole number), or None for a game whose
    views name no round: what `log` marks and the site shows."""
    found = view.get("round")
    return found if type(found) is int else None


def view_events(view: Mapping[str, Any]) -> list[str]:
    """The game's own account of what happened lately, the latest last (a view's
    ``events``: texts in the reader's language, scoring included), or []. A view may keep
    only the latest ones: :func:`new_events` finds what a move added."""
    found = view.get("events")
    return [str(e) for e in found] if isinstance(found, list) else []


def new_events(old: list[str], new: list[str]) -> list[str]:
    """Events in ``new`` that ``old`` did not have. Views may keep only the latest events
    (a sliding window), so ``new`` is ``old`` minus some leading items plus the new ones."""
    for start in range(len(old) + 1):
        kept = old[start:]
        if new[: len(kept)] == kept:
            return new[len(kept):]
    return list(new)


def copy_state(game: Game, state: State) -> State:
    """An independent copy of ``state`` (the game's own copy, else a deep copy)."""
    found = getattr(game, "copy_state", None)
    if found is not None:
        return found(state)
    import copy

    return copy.deepcopy(state)


def determinize(game: Game, state: State, player: str, rng: Rng) -> State:
    """``state`` with what ``player`` cannot see re-dealt. A game without the capability
    cannot be played by bots (a bot must never look at hidden parts): UsageError."""
    found = getattr(game, "determinize", None)
    if found is None:
        raise UsageError(f"{game.name} cannot be played by bots: it has no determinize",
                         hints=["the game package must define determinize(state, player, rng)"
                                " (a copy of the state for a game without hidden parts)"])
    return found(state, player, rng)


def assumptions(game: Game) -> list[Assumption]:
    found = getattr(game, "assumptions", None)
    return list(found()) if found else []


def interpretations(game: Game) -> list[Interpretation]:
    found = getattr(game, "interpretations", None)
    return list(found()) if found else []


def data_files(game: Game) -> dict[str, Any]:
    """All component data for ``referee data`` ({} for a game that documents none)."""
    found = getattr(game, "data_files", None)
    return dict(found()) if found is not None else {}


def invariants(game: Game, state: State) -> list[str]:
    found = getattr(game, "invariants", None)
    return list(found(state)) if found else []


def hidden_items(game: Game, state: State, viewer: str | None) -> list[HiddenItem]:
    """What ``viewer`` must not see ([] for a game that declares nothing hidden)."""
    found = getattr(game, "hidden_items", None)
    return list(found(state, viewer)) if found else []


def fingerprint(game: Game, state: State) -> str:
    """The game's hash of the whole state, else a SHA-256 of the state's fields (the
    generator by its counters, sets sorted): equal fingerprints mean equal states."""
    found = getattr(game, "fingerprint", None)
    if found is not None:
        return str(found(state))
    import hashlib

    def plain(obj: Any) -> Any:
        if isinstance(obj, Rng):
            return dict(sorted(obj.counters.items()))
        if isinstance(obj, (set, frozenset)):
            return sorted(obj, key=repr)
        if hasattr(obj, "__dict__"):
            return vars(obj)
        raise TypeError(f"cannot fingerprint a {type(obj).__name__}")

    return hashlib.sha256(msgspec.json.encode(state, enc_hook=plain, order="sorted")).hexdigest()


def reveals(game: Game, before: State, after: State) -> bool | None:
    """Whether the move from ``before`` to ``after`` moved anything hidden (then it may
    not be undone). None for a game without the undo capability: nothing says what is
    hidden, so the caller refuses every undo (the safe answer)."""
    found = getattr(game, "reveals", None)
    return bool(found(before, after)) if found else None


def _capability(game: Game, name: str) -> Any:
    """The game's module or object for ``name`` (``pictures``, ``usage``, ``legend``), or
    None. The attribute may hold the object or a module's dotted name, imported now
    (so that a game's pictures cost nothing until drawn)."""
    found = getattr(game, name, None)
    return importlib.import_module(found) if isinstance(found, str) else found


def pictures(game: Game) -> Any:
    """The game's SVG drawing (``draw(view, marks, since, pieces)``, optionally
    ``tiles(view)``), or None: then :mod:`referee.pictures.generic` draws it."""
    return _capability(game, "pictures")


def usage(game: Game) -> Any:
    """The game's usage extraction for ``simulate`` (``extract``, ``prefix``,
    ``in_play``), or None."""
    return _capability(game, "usage")


def legend(game: Game) -> list[str]:
    """Lines explaining the abbreviations of the game's board, for a mail whose board
    does not carry its own; [] for a game whose render has its legend (or none)."""
    found = _capability(game, "legend")
    if found is None:
        return []
    lines = getattr(found, "LINES", found)
    return [str(line) for line in (lines() if callable(lines) else lines)]


# --- a game object from the game's modules ------------------------------------------------
def _functions(*protocols: type) -> tuple[str, ...]:
    return tuple(sorted({n for p in protocols for n, v in vars(p).items()
                         if callable(v) and n[0] != "_"}))


CORE_FUNCTIONS = _functions(Game)
# what the referee may ask a game for: the core, every capability, and event_text
FUNCTIONS = (*_functions(Game, Explains, FastLegality, Seals, Bots, Documents, Inspects, Undo),
             "event_text")
_Class = TypeVar("_Class", bound=type)


def _on_demand(module: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        found = sys.modules.get(module) or importlib.import_module(module)
        return getattr(found, name)(*args, **kwargs)

    return call


def functions_from(*modules: object, lazy: Mapping[str, str] | None = None
                   ) -> Callable[[_Class], _Class]:
    """A class decorator: every function of :data:`FUNCTIONS` the game class does not
    define itself becomes its (static) member, from the one of ``modules`` that defines
    it, or (``lazy``: name -> module) from a module imported at its first call (start-up
    pays nothing for what only bots or explanations use). TypeError when the class is
    made for a name two sources define (a class's own member settles it for modules), a
    ``lazy`` name that is no game function, and a core function nobody defines."""
    later = dict(lazy or {})
    if unknown := sorted(set(later) - set(FUNCTIONS)):
        raise TypeError(f"not functions of a game: {', '.join(unknown)}")

    def decorate(cls: _Class) -> _Class:
        for name in FUNCTIONS:
            own = hasattr(cls, name)  # (a member that needs the object, e.g. its data)
            found = {id(f): f for m in modules if callable(f := getattr(m, name, None))}
            if own and name not in later:
                continue
            if len(found) + own + (name in later) > 1:
                raise TypeError(f"{cls.__name__}: two sources of {name} (say which in it)")
            if name in later:
                setattr(cls, name, staticmethod(_on_demand(later[name], name)))
            elif found:
                setattr(cls, name, staticmethod(next(iter(found.values()))))
        if missing := [n for n in CORE_FUNCTIONS if not hasattr(cls, n)]:
            raise TypeError(f"{cls.__name__} lacks {', '.join(missing)} (engine.Game)")
        return cls

    return decorate


def full_options(game: Game, given: Mapping[str, str]) -> dict[str, str]:
    """Options with defaults filled in. Raises UsageError for unknown names or values."""
    known = {o.name: o for o in game.options}
    out = {o.name: o.default for o in game.options}
    for name, value in given.items():
        if name not in known:
            raise UsageError(
                _("{game} has no option {name}").format(game=game.name, name=repr(name)),
                hints=[_("options: {names}").format(names=", ".join(known) or _("none"))],
            )
        option = known[name]
        if option.choices and value not in option.choices:
            raise UsageError(
                _("option {name} cannot be {value}").format(name=name, value=repr(value)),
                hints=[_("choices: {names}").format(names=", ".join(option.choices))],
            )
        out[name] = value
    return out


def _closest(text: str, candidates: Sequence[str], n: int = 5) -> list[str]:
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
        raise NotYourTurn(_("the game is over; no more moves are accepted"))
    owing = game.to_move(state)
    if player not in owing:
        raise NotYourTurn(
            _("it is not {player}'s turn: {prompt}").format(player=player,
                                                             prompt=game.prompt(state)),
            hints=[_("waiting for: {players}").format(players=", ".join(owing))],
        )
    from referee.engine.bounds import within_bounds  # (a command that resolves a move)

    legal = game.legal_moves(state, player)
    notation = [game.format_move(m) for m in legal]
    try:
        move = within_bounds(game.move_type, game.parse_move(text, legal), text)
    except (MalformedMove, AmbiguousMove) as exc:
        if not exc.legal:
            exc.legal = _closest(text, notation)
        raise
    if move in legal:
        return move
    canonical = game.format_move(move)
    raise IllegalMove(
        _("{move} is not legal: {why}").format(move=repr(canonical),
                                               why=why_illegal(game, state, player, move)),
        legal=_closest(canonical, notation),
    )


class Match(msgspec.Struct):
    """A game in progress: the game, its header facts, the state and the move log."""

    game: Game
    players: list[str]
    options: dict[str, str]
    state: State
    rng: Rng
    log: list[tuple[str, Move]] = msgspec.field(default_factory=list)

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
