"""The data files of Dynasties: reading the current ones, what the data version hashes,
and the words of the notation they define.

Every value in the files carries a ``source`` and a ``confidence``; values marked
``assumed`` are listed by ``referee data dynasties``. Edit the JSON files in ``data/`` to
correct them (the data version changes when a play value changes). :mod:`.data` turns a
set of files into the value the rules read.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

DATA_DIR = Path(__file__).parent / "data"
FILES = sorted(p.name for p in DATA_DIR.glob("*.json"))

# Keys that only describe a value (where it comes from, how sure it is, how it is shown):
# they are left out of the data version, so correcting them does not change play.
DESCRIPTIVE_KEYS = frozenset({"source", "confidence", "note", "text", "name", "names", "use",
                              "running_out"})
# Files that only describe the engine (its readings of the rulebook), not data it plays by.
DESCRIPTIVE_FILES = frozenset({"interpretations"})


@functools.cache
def current_files() -> dict[str, Any]:
    """The data files in ``data/`` by name (without ``.json``), read once. Shared by every
    caller: copy before editing."""
    return {name.removesuffix(".json"): json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
            for name in FILES}


def play_values(obj: Any) -> Any:
    """``obj`` without its descriptive keys, recursively: what can change play."""
    if isinstance(obj, dict):
        return {k: play_values(v) for k, v in obj.items() if k not in DESCRIPTIVE_KEYS}
    if isinstance(obj, list):
        return [play_values(v) for v in obj]
    return obj


def play_data(files: Mapping[str, Any]) -> dict[str, Any]:
    """The play-relevant values of the data files ``files`` by file (what the pin hashes)."""
    return {name: play_values(v) for name, v in files.items() if name not in DESCRIPTIVE_FILES}


def data_digest(files: Mapping[str, Any]) -> str:
    """The data part of a pin: the first 12 hex of sha256 over the play values of all
    data files (descriptive keys and files left out; canonical JSON, keys sorted)."""
    blob = json.dumps(play_data(files), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


class Vocabulary(msgspec.Struct, frozen=True):
    """The words of the notation that come from the data: the action cards (numbered
    1..cards), the ships and track spaces, and the keys of the die faces, cities,
    personalities, scoring cards, bonus spaces, countries and free cities. The move
    types (and the published schema) are built from the current files' vocabulary."""

    cards: int
    ships: int
    track: int
    colours: str
    faces: tuple[str, ...]
    cities: tuple[str, ...]
    personalities: tuple[str, ...]
    scoring: tuple[str, ...]
    bonus: tuple[str, ...]
    countries: tuple[str, ...]
    free_cities: tuple[str, ...]


def _keys(entries: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(str(e["key"]) for e in entries)


def vocabulary(files: Mapping[str, Any]) -> Vocabulary:
    """The notation's words in the data files ``files``."""
    components = files["components"]
    cards = sorted(int(c["key"][1:]) for c in files["action_cards"]["action_cards"])
    return Vocabulary(
        cards=len(cards) if cards == list(range(1, len(cards) + 1)) else -1,
        ships=int(components["ships"]["count"]),
        track=len(files["bonus"]["passing_track"]["top_costs_pink"]),
        colours="".join(components["goods"]["colours"]),
        faces=_keys(files["dice"]["faces"]),
        cities=_keys(files["cities"]["cities"]),
        personalities=_keys(files["personalities"]["personalities"]),
        scoring=_keys(files["scoring_cards"]["scoring_cards"]),
        bonus=_keys(files["bonus"]["bonus_spaces"]),
        countries=_keys(files["cities"]["countries"]),
        free_cities=tuple(components["free_cities"]["cities"]),
    )
