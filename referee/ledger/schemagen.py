"""The published JSON Schemas (2020-12) of the game-file format, made from the msgspec
Structs of :mod:`referee.ledger.schema` plus each game's move union and the public parts of its
sealed moves, with the rules a Struct cannot express added (an rng has a seed or a
commitment; a log entry has exactly one kind; ``sealed`` and ``public`` come together,
in a move). ``schemas/`` holds them as :func:`schema_text` writes them
(scripts/gen_schemas.py); a test checks that the committed schemas equal these. Only
``referee schema``, ``check --strict`` and the tests build them."""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec

from referee.engine import Game, get_game, packaged_games
from referee.ledger.fileformat import ENTRY_KINDS
from referee.ledger.schema import GameFileDoc, sealed_move_type

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_BASE = "https://referee.invalid/schemas/"


def _file_schema(name: str, title: str, move: dict[str, Any], move_defs: dict[str, Any],
                 sealed: dict[str, Any]) -> dict[str, Any]:
    generated = msgspec.json.schema(GameFileDoc)
    defs = generated["$defs"]
    top = defs.pop("GameFileDoc")
    defs["FileRng"]["anyOf"] = [{"required": ["seed"]}, {"required": ["commitment"]}]
    defs["FileBot"].update({"if": {"properties": {"level": {"const": "mcts"}}},
                            "then": {"required": ["iterations"]},
                            "else": {"not": {"required": ["iterations"]}}})
    entry = defs["LogEntry"]
    entry["oneOf"] = [{"required": [k]} for k in ENTRY_KINDS]
    entry["dependentRequired"] = {"sealed": ["move", "public"], "public": ["sealed"]}
    # a move in clear is one of the game's moves; a sealed one is its public part
    entry["properties"]["move"] = {"type": "object"}
    entry.update({"if": {"required": ["sealed"]},
                  "then": {"properties": {"move": {"$ref": "#/$defs/SealedMove"}}},
                  "else": {"properties": {"move": {"$ref": "#/$defs/GameMove"}}}})
    defs["MetaPlan"]["oneOf"] = [{"required": ["lines"]}, {"required": ["sealed"]}]
    defs["MetaChannel"].update({"if": {"properties": {"via": {"const": "off"}}},
                                "then": {"not": {"required": ["sealed"]}},
                                "else": {"required": ["sealed"]}})
    entry["dependentSchemas"] = {"plan": {"required": ["move"], "not": {"required": ["bot"]}}}
    defs["GameMove"] = move
    defs["SealedMove"] = sealed
    clash = set(defs) & set(move_defs)
    assert not clash, f"move type names clash with file definitions: {clash}"
    defs.update(move_defs)
    return {"$schema": DIALECT, "$id": f"{SCHEMA_BASE}{name}.schema.json", **top,
            "title": title, "$defs": dict(sorted(defs.items()))}


def envelope() -> dict[str, Any]:
    """The schema every game file satisfies, whatever the game (moves unchecked)."""
    move = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
    return _file_schema("file", "referee game file (any game)", move, {}, move)


def game_file(game: Game) -> dict[str, Any]:
    """The schema of one game's files: the envelope with the game's move union, and the
    public parts of its moves that may be sealed (none: no sealed move is valid)."""
    moves = msgspec.json.schema(game.move_type)
    defs = moves.pop("$defs", {})
    public = sealed_move_type(game)
    if public is None:
        sealed: dict[str, Any] = {"not": {}}
    else:
        sealed = msgspec.json.schema(public)
        defs.update(sealed.pop("$defs", {}))
    schema = _file_schema(game.name, f"referee game file: {game.title}", moves, defs, sealed)
    schema["properties"]["game"] = {"const": game.name}
    return schema


@functools.cache
def schema_text(name: str) -> str:
    """The committed text of schema ``name`` ("file" or a game name)."""
    schema = envelope() if name == "file" else game_file(get_game(name))
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def schema_names() -> list[str]:
    """The published schemas: the envelope and one per game of this package."""
    return ["file", *packaged_games()]
