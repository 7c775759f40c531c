"""JSON Schemas (2020-12) of the game file, generated from the code.

``schemas/`` in the repository holds the committed copies; a test checks that they equal
what this module generates, so the published schema never drifts from the program.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec

from referee.engine import BUILTIN_GAMES, Game, get_game

DIALECT = "https://json-schema.org/draft/2020-12/schema"
FORMAT = "referee/1"
PLAYER_ID = r"^[a-z][a-z0-9_-]{0,23}$"
SCHEMA_BASE = "https://referee.invalid/schemas/"


def envelope() -> dict[str, Any]:
    """The schema every game file satisfies, whatever the game (moves unchecked)."""
    return _file_schema(game=None, move={"type": "object", "required": ["type"]})


def game_file(game: Game) -> dict[str, Any]:
    """The schema of one game's files: the envelope with the game's move union."""
    moves = msgspec.json.schema(game.move_type)
    defs = moves.pop("$defs", {})
    schema = _file_schema(game=game.name, move=moves)
    schema["$defs"].update(defs)
    return schema


def _file_schema(game: str | None, move: dict[str, Any]) -> dict[str, Any]:
    name = game or "file"
    return {
        "$schema": DIALECT,
        "$id": f"{SCHEMA_BASE}{name}.schema.json",
        "title": f"referee game file ({game})" if game else "referee game file (any game)",
        "type": "object",
        "required": ["format", "game", "rules", "players", "options", "rng", "log"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": FORMAT},
            "game": {"const": game} if game else {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
            "id": {"type": "string", "pattern": r"^[A-Za-z0-9._-]{1,64}$"},
            "rules": {"type": "string", "minLength": 1},
            "created": {"type": "string"},
            "players": {
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/FilePlayer"},
            },
            "options": {
                "type": "object",
                "additionalProperties": {"type": "string"},
            },
            "rng": {"$ref": "#/$defs/FileRng"},
            "log": {"type": "array", "items": {"$ref": "#/$defs/LogEntry"}},
        },
        "$defs": {
            "FilePlayer": {
                "type": "object",
                "required": ["id"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": PLAYER_ID},
                    "name": {"type": "string"},
                    "email": {"type": "string"},
                },
            },
            "FileRng": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "seed": {"type": "string", "minLength": 1},
                    "commitment": {"type": "string", "pattern": r"^sha256:[0-9a-f]{64}$"},
                    "nonces": {
                        "type": "object",
                        "additionalProperties": {"type": "string", "minLength": 1},
                    },
                },
                "anyOf": [{"required": ["seed"]}, {"required": ["commitment"]}],
            },
            "LogEntry": {
                "type": "object",
                "required": ["n", "by", "prev"],
                "oneOf": [{"required": ["move"]}, {"required": ["undo"]}],
                "additionalProperties": False,
                "properties": {
                    "n": {"type": "integer", "minimum": 1},
                    "by": {"type": "string", "pattern": PLAYER_ID},
                    "move": {"$ref": "#/$defs/GameMove"},
                    "undo": {"type": "integer", "minimum": 1},
                    "prev": {"type": "string", "pattern": r"^[0-9a-f]{64}$"},
                    "at": {"type": "string"},
                },
            },
            "GameMove": move,
        },
    }


@functools.cache
def schema_text(name: str) -> str:
    """The committed text of schema ``name`` ("file" or a game name)."""
    schema = envelope() if name == "file" else game_file(get_game(name))
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def schema_names() -> list[str]:
    """The published schemas: the envelope and one per built-in game."""
    return ["file", *BUILTIN_GAMES]
