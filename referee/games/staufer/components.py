"""Component data of The Staufer Dynasty, loaded from the JSON files in ``data/``.

Every value in those files carries ``source`` and ``confidence``; the rules code only
reads the ``value`` parts through the names below. ``interpretations.json`` holds text
only (the readings the engine chose) and is not part of the data pin.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from referee.engine import Assumption

DATA_DIR = Path(__file__).parent / "data"
DATA_FILES = sorted(p for p in DATA_DIR.glob("*.json"))


def _load() -> dict[str, Any]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in DATA_FILES}


RAW: dict[str, Any] = _load()


def _val(file: str, *path: str) -> Any:
    node: Any = RAW[file]
    for key in path:
        node = node[key]
    return node["value"]


# Values that only label or describe (never change play); left out of the data pin.
DISPLAY_ONLY: tuple[tuple[str, ...], ...] = (("figures", "colours"),)


def play_values(raw: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every ``value`` that can change play, keyed by its path (file.key.key...).

    Left out: ``source``, ``confidence``, ``about``, titles, the interpretations text and
    the DISPLAY_ONLY values, so that correcting a source text does not break running
    games."""
    out: list[tuple[str, Any]] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            return
        if "value" in node and "confidence" in node:
            if path not in DISPLAY_ONLY:
                out.append((".".join(path), node["value"]))
            return
        for key in sorted(node):
            walk(node[key], (*path, key))

    for file in sorted(raw):
        walk(raw[file], (file,))
    return out


def data_hash(raw: dict[str, Any] | None = None) -> str:
    """The data pin: a hash of :func:`play_values` only."""
    text = json.dumps(play_values(RAW if raw is None else raw), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


REGION_KEYS: tuple[str, ...] = tuple(sorted(RAW["regions"]["regions"]))
REGION_TITLES: dict[str, str] = {r: RAW["regions"]["regions"][r]["title"] for r in REGION_KEYS}
BONUS: dict[str, str] = {r: _val("regions", "regions", r, "bonus") for r in REGION_KEYS}
REGION_SIDE: dict[str, str] = _val("regions", "sides")


def seat_rows(side: str) -> dict[str, list[tuple[int, bool]]]:
    """Region -> seats left to right as (payment cost, Noble icon)."""
    return {
        r: [(int(c), bool(n)) for c, n in _val("regions", "regions", r, "seats", side)]
        for r in REGION_KEYS
    }


TILE_SIDE: dict[str, str] = _val("scoring_tiles", "sides")
TILES: dict[str, list[list[int]]] = {
    side: _val("scoring_tiles", "tiles", side) for side in ("2-3", "4-5")
}
SUPPLY_SPACES: list[list[str]] = _val("supply_board", "spaces")
BOARD_SIDE: dict[str, str] = _val("action_board", "sides")
ENVOY_SPACES: dict[str, list[int]] = _val("action_board", "envoy_spaces")
TRACK_LENGTH: dict[str, int] = _val("action_board", "track_length")
CHEST_MIX: dict[str, dict[str, int]] = {
    colour: _val("chests", "mix", colour) for colour in ("orange", "turquoise", "brown", "purple")
}
BROWN_POINTS: list[int] = _val("chests", "brown_points")
REGION_CONTRACT: dict[str, Any] = _val("contracts", "region")
BLUE_CONTRACTS: list[dict[str, Any]] = _val("contracts", "blue")
RED_CONTRACTS: list[dict[str, Any]] = _val("contracts", "red")
VP_VALUES: list[int] = _val("privileges", "vp_values")
DECKS: dict[str, list[int]] = {
    name: node["value"] for name, node in RAW["privileges"]["decks"].items()
}
PARTIAL_FIXED: list[int] = _val("privileges", "partially_random_fixed")
A_TILES: list[str] = _val("round_tiles", "a")
B_TILES: list[str] = _val("round_tiles", "b")
C_TILES: list[int] = _val("round_tiles", "c")
FIGURES: dict[str, int] = _val("figures", "per_colour")
COURT_START: dict[str, int] = _val("figures", "court_start")
COLOURS: list[str] = _val("figures", "colours")
INTERPRETATIONS: list[dict[str, str]] = RAW["interpretations"]["readings"]


def _chest_ids() -> tuple[list[str], dict[str, tuple[str, str]]]:
    ids: list[str] = []
    kind: dict[str, tuple[str, str]] = {}
    for colour, mix in CHEST_MIX.items():
        for ctype, count in mix.items():
            for k in range(1, count + 1):
                cid = f"{ctype}-{k}" if ctype in ("brown", "purple") else f"{colour}-{ctype}-{k}"
                ids.append(cid)
                kind[cid] = (colour, ctype)
    return ids, kind


ALL_CHESTS, CHEST_KIND = _chest_ids()

CONTRACT_IDS: dict[str, list[str]] = {
    "region": [f"contract:region-{r}" for r in REGION_CONTRACT["cards"]],
    "blue": [f"contract:blue-{c['id']}" for c in BLUE_CONTRACTS],
    "red": [f"contract:red-{c['id']}" for c in RED_CONTRACTS],
}


def assumptions() -> list[Assumption]:
    """Every value whose confidence is 'assumed' (walks all data files)."""
    out: list[Assumption] = []

    def walk(node: Any, path: list[str], file: str) -> None:
        if isinstance(node, dict):
            if "value" in node and "confidence" in node:
                if node["confidence"] == "assumed":
                    key = f"{file}." + ".".join(path)
                    out.append(
                        Assumption(
                            key=key,
                            what=RAW[file].get("about", file) + f" [{'.'.join(path)}]",
                            value=json.dumps(node["value"]),
                            source=node["source"],
                        )
                    )
                return
            for k, v in node.items():
                walk(v, [*path, k], file)

    for file in sorted(RAW):
        walk(RAW[file], [], file)
    return out
