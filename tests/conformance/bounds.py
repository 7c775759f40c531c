"""Every move within its type's declared bounds: the conformance checks of the move types.

A game's ``move_type`` is a msgspec union of Structs whose fields declare their bounds
(``msgspec.Meta(ge=, le=, max_length=, pattern=)``, a ``Literal``): the file format
refuses a logged move outside them, and the parser must refuse the same move typed by a
player as malformed, before any rule sees it (so that the message is "cannot read", not
"not legal", and no rule code meets a value the data does not have).

- :func:`check_declared_bounds`: every field a player controls declares a bound (an
  integer its range, a string its length or an anchored pattern without repetition, a
  sequence its length; booleans and literals are bounded by their type).
- :func:`check_in_bounds`: every legal move is within its bounds and comes back equal
  from the file format's JSON.
- :class:`Probes`: for each kind of move, each bounded field is set just outside its
  bound (one below the least, one above the most, its own letters over the length, an
  unknown word), the move is written in notation and parsed back; and every number of
  a legal move's notation is replaced by 0, 00, 999, 0000001, 25 digits, 4,301 digits
  (one more than Python converts to a number), ``²`` and full-width ``１２``. Whatever
  comes back must be a refusal (``MalformedMove``, ``AmbiguousMove``) or a move within
  its bounds; anything else raised fails too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
import msgspec.inspect as mi

from referee.engine import Game, Move
from referee.errors import AmbiguousMove, MalformedMove

_DECODERS: dict[int, tuple[Any, msgspec.json.Decoder[Any]]] = {}
_NUMBER = re.compile(r"\d+")
#: what a player may type for a number: past the bounds, too long, digits that are no
#: ASCII (``"²".isdigit()`` is true, ``int("²")`` raises)
NUMBERS = ("0", "00", "999", "0000001", "9" * 25, "1" * 4301, "²", "１２")


def _decoder(move_type: Any) -> msgspec.json.Decoder[Any]:
    found = _DECODERS.get(id(move_type))
    if found is None or found[0] is not move_type:
        found = _DECODERS[id(move_type)] = (move_type, msgspec.json.Decoder(move_type))
    return found[1]


def bound_problem(game: Game, move: Move) -> str | None:
    """Why ``move`` is outside its declared bounds (msgspec's words), or None: the move
    as JSON decoded as the file format decodes a logged move."""
    try:
        _decoder(game.move_type).decode(msgspec.json.encode(move))
    except msgspec.ValidationError as exc:
        return str(exc)
    return None


_FIELDS: dict[type, tuple[mi.Field, ...]] = {}


def _fields(kind: type) -> tuple[mi.Field, ...]:
    """A move type's fields with their declared types (msgspec's inspection)."""
    if kind not in _FIELDS:
        info = mi.type_info(kind)
        assert isinstance(info, mi.StructType), kind
        _FIELDS[kind] = info.fields
    return _FIELDS[kind]


def structs(game: Game) -> list[mi.StructType]:
    info = mi.type_info(game.move_type)
    kinds = info.types if isinstance(info, mi.UnionType) else (info,)
    found = [k for k in kinds if isinstance(k, mi.StructType)]
    assert len(found) == len(kinds), f"{game.name}: move_type is not a union of Structs"
    return found


def _plain(t: mi.Type) -> mi.Type:
    return t.type if isinstance(t, mi.Metadata) else t


_REPEAT = re.compile(r"[*+]|\{\d*,\}")


def _unbounded(t: mi.Type) -> bool:
    t = _plain(t)
    if isinstance(t, mi.IntType):
        return (t.ge is None and t.gt is None) or (t.le is None and t.lt is None)
    if isinstance(t, mi.StrType):
        if t.max_length is not None:
            return False
        pattern = re.sub(r"\\.", "", t.pattern or "")  # escaped characters repeat nothing
        return not (pattern.startswith("^") and pattern.endswith("$")) or \
            bool(_REPEAT.search(pattern))
    if isinstance(t, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
        return t.max_length is None or _unbounded(t.item_type)
    if isinstance(t, mi.TupleType):
        return any(_unbounded(x) for x in t.item_types)
    if isinstance(t, (mi.BoolType, mi.LiteralType, mi.NoneType, mi.EnumType)):
        return False
    if isinstance(t, mi.UnionType):
        return any(_unbounded(x) for x in t.types)
    return True  # floats, dicts, Any, bytes, nested objects: no bound a player can rely on


def check_declared_bounds(game: Game) -> None:
    """Every field of every move type declares a bound."""
    loose = [f"{s.cls.__name__}.{f.name}: {_plain(f.type)!r}" for s in structs(game)
             for f in s.fields if _unbounded(f.type)]
    assert not loose, f"{game.name}: move fields without a bound:\n  " + "\n  ".join(loose)


def check_in_bounds(game: Game, moves: Sequence[Move]) -> None:
    """Every move of ``moves`` (legal ones) is within its bounds and comes back equal
    from JSON, as a logged move is read."""
    for move in moves:
        problem = bound_problem(game, move)
        assert problem is None, (f"{game.name}: legal move {game.format_move(move)!r} is "
                                 f"outside its declared bounds: {problem}")
        again = _decoder(game.move_type).decode(msgspec.json.encode(move))
        assert again == move, f"{game.name}: {move!r} reads back from JSON as {again!r}"


def _outside(t: mi.Type, value: Any) -> Iterator[tuple[str, Any]]:
    """(what, value): values of a field of type ``t`` just outside its bounds."""
    t = _plain(t)
    if isinstance(t, mi.IntType):
        if t.ge is not None or t.gt is not None:
            yield "below the least", (t.ge if t.ge is not None else t.gt + 1) - 1
        if t.le is not None or t.lt is not None:
            yield "above the most", (t.le if t.le is not None else t.lt - 1) + 1
    elif isinstance(t, mi.StrType):
        if t.max_length is not None and value:  # (its own letters: the parser reads them)
            yield "too long", value * (t.max_length // len(value) + 1)
        if t.pattern and value:
            yield "twice over", value + value
    elif isinstance(t, mi.LiteralType) and all(isinstance(v, str) for v in t.values):
        numbers = [int(v) for v in t.values if v.isdigit()]  # ("ship", "bag", "1", "2")
        if numbers:
            yield "above the most", str(max(numbers) + 1)
            yield "zero", "0"
        if isinstance(value, str) and value:
            yield "an unknown word", value + "zz"
    elif isinstance(t, (mi.VarTupleType, mi.ListType)) and t.max_length is not None \
            and value:
        yield "one item too many", type(value)([*value] * (t.max_length // len(value) + 1))


def outside_texts(game: Game, legal: Sequence[Move]) -> list[str]:
    """The notation of each legal move with one field just outside its bound (what a
    cheater would type to reach the rules with a value the data does not have)."""
    probes = Probes(game)
    return list(dict.fromkeys(game.format_move(variant) for move in legal
                              for _, variant, _ in probes._variants(move)))


class Probes:
    """Parse what a player could type just outside the bounds; each kind of probe once
    per move type and field (a game's playouts then probe every kind of move they
    meet)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.done: set[tuple[str, str, str]] = set()
        self.count = 0

    def probe(self, legal: Sequence[Move]) -> None:
        for move in legal:
            kind = type(move).__name__
            for key, variant, what in self._variants(move):
                if key not in self.done:
                    self.done.add(key)
                    self._parsed(self.game.format_move(variant), legal, f"{kind} {what}")
            if (kind, "", "digits") not in self.done:
                self.done.add((kind, "", "digits"))
                self._numbers(move, legal)

    def _variants(self, move: Move) -> Iterator[tuple[tuple[str, str, str], Move, str]]:
        kind = type(move).__name__
        for field in _fields(type(move)):
            for what, value in _outside(field.type, getattr(move, field.name)):
                key = (kind, field.name, what)
                if key in self.done:
                    continue
                try:
                    variant = msgspec.structs.replace(move, **{field.name: value})
                    if bound_problem(self.game, variant) is None:
                        continue  # (not outside after all: a pattern that allows it)
                    self.game.format_move(variant)
                except (ValueError, TypeError, KeyError, IndexError, AttributeError):
                    continue  # a value the move or its notation cannot even hold
                yield key, variant, f"{field.name} {what} ({value!r:.40})"

    def _numbers(self, move: Move, legal: Sequence[Move]) -> None:
        text = self.game.format_move(move)
        for found in _NUMBER.finditer(text):
            for digits in NUMBERS:
                typed = text[:found.start()] + digits + text[found.end():]
                self._parsed(typed, legal, f"{type(move).__name__} with {len(digits)} digits")

    def _parsed(self, text: str, legal: Sequence[Move], label: str) -> None:
        self.count += 1
        try:
            move = self.game.parse_move(text, legal)
        except (MalformedMove, AmbiguousMove):
            return
        except Exception as exc:
            raise AssertionError(f"{self.game.name}: parsing {text[:80]!r} ({label}) raised "
                                 f"{type(exc).__name__}: {exc}"[:500]) from None
        problem = bound_problem(self.game, move)
        assert problem is None, (f"{self.game.name}: {text[:80]!r} ({label}) parses to "
                                 f"{move!r:.200}, outside its declared bounds: {problem}")
