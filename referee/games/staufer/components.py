"""Component data of The Staufer Dynasty: the JSON files in ``data/`` as a value.

:func:`load` turns data files (by name, without ``.json``) into a :class:`StauferData`;
the rules read it from the state (``state.data``) or the game object (``game.data``),
so that a game pinned to a released data version is played with that version's value,
built from its files. Every value in the files carries ``source`` and ``confidence``;
the rules only read the ``value`` parts. ``interpretations.json`` holds text only (the
readings the engine chose) and is not part of the data pin.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union, get_args

import msgspec

from referee.engine import Assumption

from .texts import _

DATA_DIR = Path(__file__).parent / "data"

# Values that only label or describe (never change play); left out of the data pin.
DISPLAY_ONLY: tuple[tuple[str, ...], ...] = (("figures", "colours"),)
BOARD_SIDES = ("2", "3-5")  # the sides of the Region cards (seat rows)
TILE_SIDES = ("2-3", "4-5")  # the sides of the scoring tiles
CHEST_COLOURS = ("orange", "turquoise", "brown", "purple")

Seats = dict[str, list[tuple[int, bool]]]  # Region -> seats left to right: (cost, Noble icon)


# --- the contract cards (Supplement: Contract Cards) -----------------------------------------
class RegionContracts(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The Region cards: the majority of a Region (one card a Region)."""

    first: int
    second: int  # (no 2nd place with 2 players)
    cards: list[str]  # the Regions


class BlueContract(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A pattern of Regions around the ring, ``points`` each time it is fulfilled."""

    id: str
    offsets: list[int]
    points: int


class _RedContract(msgspec.Struct, frozen=True, forbid_unknown_fields=True,
                   tag_field="kind"):
    """Office seats: points for the seats a player's figures stand on."""

    id: str


class CostSeats(_RedContract, frozen=True, tag="cost"):
    """Seats of one cost: ``values`` for 1, 2, ... of them, ``beyond`` each further one."""

    cost: int
    values: list[int]
    beyond: int


class AllSeats(_RedContract, frozen=True, tag="all"):
    """Every seat: ``values`` for 1, 2, ... seats, ``beyond`` each further one."""

    values: list[int]
    beyond: int


class Pairs(_RedContract, frozen=True, tag="pairs"):
    """``points`` for each pair of seats of the same cost."""

    points: int


class Series(_RedContract, frozen=True, tag="series"):
    """``points`` for each series of seats costing 3, 4 and 5."""

    points: int


RedContract = Union[CostSeats, AllSeats, Pairs, Series]  # noqa: UP007


class StauferData(msgspec.Struct, frozen=True, eq=False):
    """The component values one game is played with (built by :func:`load`).

    Immutable by convention (its dicts and lists are never changed); compared and hashed
    by identity, so a rules cache may key on it. Copies (``copy.deepcopy`` of a state)
    share it."""

    files: Mapping[str, Any]  # the data files it was built from (source, confidence)
    digest: str  # the data pin: 12 hex digits over the play-relevant values
    region_keys: tuple[str, ...]
    region_titles: dict[str, str]
    bonus: dict[str, str]  # Region -> its Region Bonus
    region_side: dict[str, str]  # players -> side of the Region cards
    seat_rows: dict[str, Seats]  # side -> Region -> seats
    tile_side: dict[str, str]  # players -> side of the scoring tiles
    tiles: dict[str, list[list[int]]]  # side -> the scoring tiles
    supply_spaces: list[list[str]]  # figure kinds of each Supply Board space
    board_side: dict[str, str]  # players -> side of the Action Board
    envoy_spaces: dict[str, list[int]]  # side -> Move/Deploy track spaces with an Envoy
    track_length: dict[str, int]
    chest_mix: dict[str, dict[str, int]]  # colour -> chest type -> count
    brown_points: list[int]
    region_contract: RegionContracts
    vp_values: list[int]
    decks: dict[str, list[int]]
    partial_fixed: list[int]
    a_tiles: list[str]
    b_tiles: list[str]
    c_tiles: list[int]
    figures: dict[str, int]  # per colour: "E", "N"
    court_start: dict[str, int]
    colours: list[str]
    interpretations: list[dict[str, str]]
    # derived from the values above
    all_chests: list[str]  # every chest id
    chest_kind: dict[str, tuple[str, str]]  # chest id -> (colour, type)
    chest_type: dict[str, str]  # chest id -> type
    purples: frozenset[str]  # the purple chests' ids
    contract_ids: dict[str, list[str]]  # "region", "blue", "red" -> card ids
    blue: dict[str, BlueContract]  # card id -> blue contract
    red: dict[str, RedContract]  # card id -> red contract
    supply_numbers: tuple[int, ...]  # the Supply Board's spaces, 1 = leftmost
    max_cost: int  # the highest printed seat cost
    max_seats: int  # the most seats of a Region

    def __repr__(self) -> str:
        return f"StauferData({self.digest})"

    def __copy__(self) -> StauferData:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> StauferData:
        return self


def _val(files: Mapping[str, Any], file: str, *path: str) -> Any:
    node: Any = files[file]
    for key in path:
        node = node[key]
    return node["value"]


def play_values(raw: Mapping[str, Any]) -> list[tuple[str, Any]]:
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


def data_digest(raw: Mapping[str, Any]) -> str:
    """The data pin of the data files ``raw``: a hash of :func:`play_values` only."""
    text = json.dumps(play_values(raw), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def play_data(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The play-relevant values of the data files ``raw`` by path (what the pin hashes)."""
    return dict(play_values(raw))


@functools.cache
def _read_files() -> dict[str, Any]:
    # (a listing, not Path.glob: its pattern machinery costs every command about 1 ms)
    return {name[:-len(".json")]: json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
            for name in sorted(os.listdir(DATA_DIR)) if name.endswith(".json")}


def current_files() -> dict[str, Any]:
    """The data files in ``data/`` by name (read once; a copy the caller may change)."""
    return copy.deepcopy(_read_files())


@functools.cache
def current() -> StauferData:
    """The value of the current data files (what new games are played with)."""
    return _build(_read_files())


def load(files: Mapping[str, Any]) -> StauferData:
    """The value of the data files ``files`` (copied: later changes to ``files`` do
    not reach it). Raises KeyError or TypeError for files that lack a value."""
    return _build(copy.deepcopy(dict(files)))


def _seat_rows(files: Mapping[str, Any], keys: tuple[str, ...], side: str) -> Seats:
    return {r: [(int(c), bool(n)) for c, n in _val(files, "regions", "regions", r, "seats", side)]
            for r in keys}


def _chests(mix: dict[str, dict[str, int]]) -> dict[str, tuple[str, str]]:
    """Chest id -> (colour, type), in the order of the mix."""
    kind: dict[str, tuple[str, str]] = {}
    for colour, counts in mix.items():
        for ctype, count in counts.items():
            for k in range(1, count + 1):
                cid = f"{ctype}-{k}" if ctype in ("brown", "purple") else f"{colour}-{ctype}-{k}"
                kind[cid] = (colour, ctype)
    return kind


RED_TYPES: dict[str, type[RedContract]] = {k.__struct_config__.tag: k
                                           for k in get_args(RedContract)}


def _red(card: Any) -> RedContract:
    """A red contract of the file (its ``kind``: the record's type; made field by field,
    not by msgspec.convert, which compiles a type on first use at every start)."""
    return RED_TYPES[card["kind"]](**{k: v for k, v in card.items() if k != "kind"})


def _build(files: Mapping[str, Any]) -> StauferData:
    regions = files["regions"]["regions"]
    keys = tuple(sorted(regions))
    rows = {side: _seat_rows(files, keys, side) for side in BOARD_SIDES}
    mix = {colour: _val(files, "chests", "mix", colour) for colour in CHEST_COLOURS}
    kind = _chests(mix)
    region_contract = RegionContracts(**_val(files, "contracts", "region"))
    blue = [BlueContract(**c) for c in _val(files, "contracts", "blue")]
    red = [_red(c) for c in _val(files, "contracts", "red")]
    supply = _val(files, "supply_board", "spaces")
    return StauferData(
        files=files,
        digest=data_digest(files),
        region_keys=keys,
        region_titles={r: regions[r]["title"] for r in keys},
        bonus={r: _val(files, "regions", "regions", r, "bonus") for r in keys},
        region_side=_val(files, "regions", "sides"),
        seat_rows=rows,
        tile_side=_val(files, "scoring_tiles", "sides"),
        tiles={side: _val(files, "scoring_tiles", "tiles", side) for side in TILE_SIDES},
        supply_spaces=supply,
        board_side=_val(files, "action_board", "sides"),
        envoy_spaces=_val(files, "action_board", "envoy_spaces"),
        track_length=_val(files, "action_board", "track_length"),
        chest_mix=mix,
        brown_points=_val(files, "chests", "brown_points"),
        region_contract=region_contract,
        vp_values=_val(files, "privileges", "vp_values"),
        decks={name: node["value"] for name, node in files["privileges"]["decks"].items()},
        partial_fixed=_val(files, "privileges", "partially_random_fixed"),
        a_tiles=_val(files, "round_tiles", "a"),
        b_tiles=_val(files, "round_tiles", "b"),
        c_tiles=_val(files, "round_tiles", "c"),
        figures=_val(files, "figures", "per_colour"),
        court_start=_val(files, "figures", "court_start"),
        colours=_val(files, "figures", "colours"),
        interpretations=files["interpretations"]["readings"],
        all_chests=list(kind),
        chest_kind=kind,
        chest_type={cid: ctype for cid, (_cid, ctype) in kind.items()},
        purples=frozenset(cid for cid in kind if cid.startswith("purple")),
        contract_ids={
            "region": [f"contract:region-{r}" for r in region_contract.cards],
            "blue": [f"contract:blue-{c.id}" for c in blue],
            "red": [f"contract:red-{c.id}" for c in red],
        },
        blue={f"contract:blue-{c.id}": c for c in blue},
        red={f"contract:red-{c.id}": c for c in red},
        supply_numbers=tuple(range(1, len(supply) + 1)),
        max_cost=max(c for side in rows.values() for row in side.values() for c, _noble in row),
        max_seats=max(len(row) for side in rows.values() for row in side.values()),
    )


def assumptions(data: StauferData) -> list[Assumption]:
    """Every value of ``data``'s files whose confidence is 'assumed' (what it is and its
    source in the reader's language: the file's English through the catalog)."""
    out: list[Assumption] = []
    files = data.files

    def walk(node: Any, path: list[str], file: str) -> None:
        if isinstance(node, dict):
            if "value" in node and "confidence" in node:
                if node["confidence"] == "assumed":
                    key = f"{file}." + ".".join(path)
                    out.append(
                        Assumption(
                            key=key,
                            what=_(files[file].get("about", file)) + f" [{'.'.join(path)}]",
                            value=json.dumps(node["value"]),
                            source=_(node["source"]),
                        )
                    )
                return
            for k, v in node.items():
                walk(v, [*path, k], file)

    for file in sorted(files):
        walk(files[file], [], file)
    return out
