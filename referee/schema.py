"""The game-file format (DESIGN §3): msgspec types, and the JSON Schemas made from them.

One definition: the msgspec Structs below check every file on every read (fast, with
errors that name the JSON path), and the published JSON Schemas (2020-12) in ``schemas/``
are generated from the same Structs plus each game's move union. The two rules a Struct
cannot express (an rng has a seed or a commitment; a log entry has exactly one kind)
are added to the schema here and checked in :func:`check_shape`. A test checks that the
committed schemas equal the generated ones and that example files pass both validators.
"""

# (no `from __future__ import annotations`: msgspec reads these annotations at the first
# decode of a game file, and evaluating them from strings costs every command some ms)

import functools
import json
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from referee.engine import BUILTIN_GAMES, Game, get_game

DIALECT = "https://json-schema.org/draft/2020-12/schema"
FORMAT = "referee/1"
PLAYER_ID = r"^[a-z][a-z0-9_-]{0,23}$"
GAME_ID = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"
SCHEMA_BASE = "https://referee.invalid/schemas/"

PlayerId = Annotated[str, Meta(pattern=PLAYER_ID)]
NonEmpty = Annotated[str, Meta(min_length=1)]
Sha256Hex = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]
Sha256Ref = Annotated[str, Meta(pattern=r"^sha256:[0-9a-f]{64}$")]


class FileBot(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A bot seat (referee/seats.py): the bot's level and, for mcts, its fixed number of
    iterations per decision (so that its moves are reproducible)."""

    level: Literal["random", "greedy", "mcts"]
    iterations: Annotated[int, Meta(ge=1, le=5_000)] | UnsetType = UNSET


class FilePlayer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A player: ``id`` is what moves and commands use; name and e-mail are optional;
    ``bot`` makes the seat a bot seat."""

    id: PlayerId
    name: str | UnsetType = UNSET
    email: str | UnsetType = UNSET
    # GitHub login: `check --since REV --by-github LOGIN` maps a pull request's author to
    # this player
    github: Annotated[str, Meta(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")] | UnsetType = UNSET
    bot: FileBot | UnsetType = UNSET


class FileRng(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The generator: an open ``seed``, or a sealed ``commitment`` (sha256 of the seed),
    with optional ``nonces`` per player, committed to first in ``nonce_commitments``
    (docs/rng.md); a sealed game's ``recipient`` is the age key hidden choices are sealed
    to (referee/vouch.py)."""

    seed: NonEmpty | UnsetType = UNSET
    commitment: Sha256Ref | UnsetType = UNSET
    nonces: dict[PlayerId, NonEmpty] | UnsetType = UNSET
    nonce_commitments: dict[PlayerId, Sha256Ref] | UnsetType = UNSET
    recipient: Annotated[str, Meta(pattern=r"^age1[0-9a-z]{20,100}$")] | UnsetType = UNSET


ENTRY_KINDS = ("move", "undo", "void", "meta")
GAME_MASTER = "gm"  # the ``by`` of entries made by the game master (never a player id)


class LogEntry(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One log entry, of exactly one kind: a ``move`` (the game's move object), an
    ``undo`` of entry n (by its author), a ``void`` that strikes entry n (an unchecked move
    found illegal), or a ``meta`` record of the game master (an address change, a
    deadline, ...) that does not touch the game's state."""

    n: Annotated[int, Meta(ge=1)]
    by: PlayerId
    move: dict[str, Any] | UnsetType = UNSET
    undo: Annotated[int, Meta(ge=1)] | UnsetType = UNSET
    void: Annotated[int, Meta(ge=1)] | UnsetType = UNSET
    meta: dict[str, Any] | UnsetType = UNSET
    sealed: NonEmpty | UnsetType = UNSET  # a move's private fields, encrypted (sealed games)
    prev: Sha256Hex
    at: str | UnsetType = UNSET
    mail: str | UnsetType = UNSET  # Message-ID of the mail that made this move
    bot: bool | UnsetType = UNSET  # the move was chosen by a bot
    public: str | UnsetType = UNSET  # a sealed move as other players may read it
    mac: Sha256Hex | UnsetType = UNSET  # the referee's MAC (sealed games; referee/vouch.py)


class GameFileDoc(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A referee game file: a header and an append-only log."""

    format: Literal["referee/1"]
    game: Annotated[str, Meta(pattern=r"^[a-z][a-z0-9-]*$")]
    id: Annotated[str, Meta(pattern=GAME_ID)] | UnsetType = UNSET
    rules: NonEmpty
    created: str | UnsetType = UNSET
    players: Annotated[list[FilePlayer], Meta(min_length=1)]
    options: dict[str, str]
    rng: FileRng
    log: list[LogEntry]


def path_first(message: str, prefix: str = "$") -> str:
    """msgspec's "Expected `int`, got `str` - at `$.n`" as "$.n: expected `int`, ..."."""
    text, sep, path = message.rpartition(" - at `")
    if not sep:
        return f"{prefix}: {message[:1].lower()}{message[1:]}"
    path = prefix + path.rstrip("`")[1:]
    return f"{path}: {text[:1].lower()}{text[1:]}"


def check_shape(data: Any) -> str | None:
    """Why ``data`` is not a game file (JSON path first), or None if its shape is right."""
    try:
        doc = msgspec.convert(data, GameFileDoc)
    except msgspec.ValidationError as exc:
        return path_first(str(exc))
    bad_id = _id_with_newline(doc)
    if bad_id:
        return f"{bad_id}: an id may not end with a line break"
    for i, player in enumerate(doc.players):
        bot = player.bot
        if bot is not UNSET and (bot.level == "mcts") == (bot.iterations is UNSET):
            return (f"$.players[{i}].bot: an mcts seat needs `iterations`, and only an "
                    "mcts seat takes them")
    if doc.rng.seed is UNSET and doc.rng.commitment is UNSET:
        return "$.rng: needs `seed` or `commitment`"
    for i, entry in enumerate(doc.log):
        kinds = [k for k in ENTRY_KINDS if getattr(entry, k) is not UNSET]
        if len(kinds) != 1:
            return f"$.log[{i}]: needs exactly one of `move`, `undo`, `void` and `meta`"
        if entry.meta is not UNSET and not isinstance(entry.meta.get("kind"), str):
            return f"$.log[{i}].meta: needs a string `kind`"
        if entry.move is not UNSET and not isinstance(entry.move.get("type"), str):
            return f"$.log[{i}].move: needs a string `type`"
    return None


def _id_with_newline(doc: GameFileDoc) -> str | None:
    """The path of an id that ends with "\\n" (a regex `$` lets one through)."""
    ids = [("$.id", doc.id if isinstance(doc.id, str) else "")]
    ids += [(f"$.players[{i}].id", p.id) for i, p in enumerate(doc.players)]
    ids += [(f"$.log[{i}].by", e.by) for i, e in enumerate(doc.log)]
    if isinstance(doc.rng.nonces, dict):
        ids += [("$.rng.nonces", k) for k in doc.rng.nonces]
    for path, value in ids:
        if value.endswith("\n"):
            return path
    return None


# --- strict JSON ------------------------------------------------------------------------

INT_LIMIT = 2**63  # integers in a game file fit in a signed 64-bit integer


class _Marked:
    """Base of the values the decoder hooks put where a game file breaks the rules."""


class _DuplicateKeys(dict, _Marked):  # type: ignore[type-arg]
    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.problem = f"duplicate key {key!r}"


class _Float(float, _Marked):
    problem = "a number with a fraction or exponent (numbers in a game file are integers)"


class _BigInt(int, _Marked):
    problem = "an integer outside the signed 64-bit range"


class JsonProblem(ValueError):
    """Why bytes are not a game file's JSON; ``path`` is the JSON path when known."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


def strict_json(raw: bytes) -> Any:
    """Decode a game file's JSON strictly: UTF-8, no duplicate keys anywhere, no NaN or
    Infinity, no lone surrogates, integers only (signed 64-bit), limited nesting.
    Raises JsonProblem."""
    try:
        msgspec.json.decode(raw)  # strict JSON and UTF-8, fast; catches lone surrogates
    except msgspec.ValidationError:
        pass  # a number out of range: the second pass below names its path
    except msgspec.DecodeError as exc:
        raise JsonProblem(_with_position(str(exc), raw)) from None
    except RecursionError:
        raise JsonProblem("arrays or objects nested too deeply") from None
    marked: list[bool] = []
    try:
        data = json.loads(raw, object_pairs_hook=functools.partial(_pairs, marked),
                          parse_float=functools.partial(_float, marked),
                          parse_int=functools.partial(_int, marked))
    except RecursionError:
        raise JsonProblem("arrays or objects nested too deeply") from None
    except ValueError as exc:  # beyond what msgspec accepts, e.g. int digit limits
        raise JsonProblem(str(exc)) from None
    if marked:
        path, problem = _find_marked(data, "$")
        raise JsonProblem(problem, path)
    return data


def _pairs(marked: list[bool], pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    marked.append(True)
    return _DuplicateKeys(pairs, key)


def _float(marked: list[bool], text: str) -> float:
    marked.append(True)
    return _Float(text)


def _int(marked: list[bool], text: str) -> int:
    if len(text) > 20 or (len(text) > 18 and not -INT_LIMIT <= int(text) < INT_LIMIT):
        marked.append(True)
        return _BigInt(0)
    return int(text)


def _find_marked(data: Any, path: str) -> tuple[str, str]:
    """The first (path, problem) of a marked value in ``data``, depth first."""
    if isinstance(data, _Marked):
        return path, data.problem  # type: ignore[attr-defined]
    children = (
        ((f"{path}.{k}" if k.isidentifier() else f"{path}[{json.dumps(k)}]", v)
         for k, v in data.items()) if isinstance(data, dict)
        else ((f"{path}[{i}]", v) for i, v in enumerate(data)) if isinstance(data, list)
        else ()
    )
    for child_path, child in children:
        found = _find_marked(child, child_path)
        if found[0]:
            return found
    return "", ""


def _with_position(message: str, raw: bytes) -> str:
    """msgspec's "... (byte 123)" as "... at line L column C"."""
    text = message if message[1:2].isupper() else message[:1].lower() + message[1:]
    head, sep, tail = text.rpartition(" (byte ")
    if sep and tail.rstrip(")").isdigit():
        offset = int(tail.rstrip(")"))
    elif "truncated" in text:
        head, offset = "it ends too early", len(raw)
    else:
        return text
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return f"{head} at line {line} column {column}"


# --- JSON Schema generation -------------------------------------------------------------


def _file_schema(name: str, title: str, move: dict[str, Any],
                 move_defs: dict[str, Any]) -> dict[str, Any]:
    generated = msgspec.json.schema(GameFileDoc)
    defs = generated["$defs"]
    top = defs.pop("GameFileDoc")
    defs["FileRng"]["anyOf"] = [{"required": ["seed"]}, {"required": ["commitment"]}]
    defs["FileBot"].update({"if": {"properties": {"level": {"const": "mcts"}}},
                            "then": {"required": ["iterations"]},
                            "else": {"not": {"required": ["iterations"]}}})
    entry = defs["LogEntry"]
    entry["oneOf"] = [{"required": [k]} for k in ENTRY_KINDS]
    entry["properties"]["move"] = {"$ref": "#/$defs/GameMove"}
    defs["GameMove"] = move
    clash = set(defs) & set(move_defs)
    assert not clash, f"move type names clash with file definitions: {clash}"
    defs.update(move_defs)
    return {"$schema": DIALECT, "$id": f"{SCHEMA_BASE}{name}.schema.json", **top,
            "title": title, "$defs": dict(sorted(defs.items()))}


def envelope() -> dict[str, Any]:
    """The schema every game file satisfies, whatever the game (moves unchecked)."""
    move = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
    return _file_schema("file", "referee game file (any game)", move, {})


def game_file(game: Game) -> dict[str, Any]:
    """The schema of one game's files: the envelope with the game's move union."""
    moves = msgspec.json.schema(game.move_type)
    defs = moves.pop("$defs", {})
    schema = _file_schema(game.name, f"referee game file: {game.title}", moves, defs)
    schema["properties"]["game"] = {"const": game.name}
    return schema


@functools.cache
def schema_text(name: str) -> str:
    """The committed text of schema ``name`` ("file" or a game name)."""
    schema = envelope() if name == "file" else game_file(get_game(name))
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def schema_names() -> list[str]:
    """The published schemas: the envelope and one per built-in game."""
    return ["file", *BUILTIN_GAMES]
