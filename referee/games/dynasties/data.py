"""Component data of Dynasties, loaded from the JSON files in ``data/``.

Every value in those files carries a ``source`` and a ``confidence``; values marked
``assumed`` are defaults from shared/reference/dynasties-components.md and are listed by
:func:`assumptions`. Edit the JSON files to correct them (the data version changes).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine import Assumption

DATA_DIR = Path(__file__).parent / "data"
FILES = sorted(p.name for p in DATA_DIR.glob("*.json"))


def _load(name: str) -> Any:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


RAW: dict[str, Any] = {name.removesuffix(".json"): _load(name) for name in FILES}


# Keys that only describe a value (where it comes from, how sure it is, how it is shown):
# they are left out of the data version, so correcting them does not change play.
DESCRIPTIVE_KEYS = frozenset({"source", "confidence", "note", "text", "name", "names", "use",
                              "running_out"})
# Files that only describe the engine (its readings of the rulebook), not data it plays by.
DESCRIPTIVE_FILES = frozenset({"interpretations"})


def play_values(obj: Any) -> Any:
    """``obj`` without its descriptive keys, recursively: what can change play."""
    if isinstance(obj, dict):
        return {k: play_values(v) for k, v in obj.items() if k not in DESCRIPTIVE_KEYS}
    if isinstance(obj, list):
        return [play_values(v) for v in obj]
    return obj


def data_version(raw: dict[str, Any] | None = None) -> str:
    """``dynasties-1+data.`` + the first 12 hex of sha256 over the play values of all data
    files (descriptive keys and files left out; canonical JSON, keys sorted)."""
    raw = RAW if raw is None else raw
    body = {name: play_values(v) for name, v in raw.items() if name not in DESCRIPTIVE_FILES}
    blob = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "dynasties-1+data." + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


# --- goods -----------------------------------------------------------------------------
COMPONENTS = RAW["components"]
COLOURS: str = "".join(COMPONENTS["goods"]["colours"])  # "kwgbp"
K, W, G, B, P = range(5)
COLOUR_NAMES: dict[str, str] = COMPONENTS["goods"]["names"]
GOODS_COUNTS: list[int] = COMPONENTS["goods"]["counts"]
PER_SHIP: int = COMPONENTS["goods"]["per_ship"]
SHIPS: int = COMPONENTS["ships"]["count"]
FAMILY_COLOURS: list[str] = COMPONENTS["family"]["colours"]
PER_COLOUR: int = COMPONENTS["family"]["per_colour"]
NEUTRAL: int = COMPONENTS["family"]["neutral"]
ARMS_PER_COUNTRY: int = COMPONENTS["coats_of_arms"]["per_country"]
FIGURE_SCORING: dict[int, tuple[int, int]] = {
    int(k): tuple(v) for k, v in COMPONENTS["figure_scoring"].items() if k.isdigit()
}
MONASTERY_ROUND: int = COMPONENTS["figure_scoring"]["monastery_after_round"]
GREEN_EACH: int = COMPONENTS["scoring_cards"]["green_each"]
CARRY_MAX: int = COMPONENTS["scoring_cards"]["carry_max"]
BOOK_SETUP = COMPONENTS["book_setup"]
FREE_CITIES: list[str] = COMPONENTS["free_cities"]["cities"]
UPGRADE_AMOUNT: int = COMPONENTS["upgraders"]["amount"]
ROUNDS = 3


# --- countries and cities ---------------------------------------------------------------
@dataclass(frozen=True)
class City:
    key: str
    name: str
    country: str
    symbol: str  # points | anchor | book | crown
    prince: int  # cost in black goods
    princess: int  # cost in white goods
    large: str  # "prince" or "princess": the dearer, larger space
    five_players: bool

    def cost(self, figure: str) -> int:
        return self.prince if figure == "prince" else self.princess

    @property
    def small(self) -> str:
        return "princess" if self.large == "prince" else "prince"


COUNTRIES: list[str] = [c["key"] for c in RAW["cities"]["countries"]]
COUNTRY_NAMES: dict[str, str] = {c["key"]: c["name"] for c in RAW["cities"]["countries"]}
CITIES: dict[str, City] = {
    c["key"]: City(
        c["key"], c["name"], c["country"], c["symbol"], c["prince"], c["princess"],
        c["large"], c["five_players"],
    )
    for c in RAW["cities"]["cities"]
}


def cities_in_play(players: int) -> list[str]:
    """Board cities; the 4 extra cities only with 5 players (Components and Setup)."""
    return [k for k, c in CITIES.items() if players == 5 or not c.five_players]


# --- personalities, dice, bonus spaces, passing track ------------------------------------
PERS = RAW["personalities"]
PERSONALITIES: dict[str, dict[str, Any]] = {p["key"]: p for p in PERS["personalities"]}
LIGHT_BLUE_COSTS: list[int] = PERS["spaces"]["light_blue_costs"]
GOLD_SPACES: int = PERS["spaces"]["gold_spaces"]
GOLD_PERSONALITY_COST: int = PERS["spaces"]["gold_cost"]

DICE: int = RAW["dice"]["dice"]
FACES: list[str] = [f["key"] for f in RAW["dice"]["faces"]]
FACE_EFFECTS: dict[str, list[dict[str, Any]]] = {
    f["key"]: f["effects"] for f in RAW["dice"]["faces"]
}

TRACK_COSTS: list[int] = RAW["bonus"]["passing_track"]["top_costs_pink"]
BONUS: dict[str, dict[str, Any]] = {b["key"]: b for b in RAW["bonus"]["bonus_spaces"]}

# --- cards, tablets, book tiles ---------------------------------------------------------
SCORING: dict[str, dict[str, Any]] = {c["key"]: c for c in RAW["scoring_cards"]["scoring_cards"]}
GREEN = [k for k, c in SCORING.items() if c["deck"] == "green"]
YELLOW = [k for k, c in SCORING.items() if c["deck"] == "yellow"]
TABLETS: dict[str, dict[str, Any]] = {t["key"]: t for t in RAW["tablets"]["tablets"]}


@dataclass(frozen=True)
class ActionCard:
    number: int
    key: str
    actions: tuple[str, ...]  # basic actions: trade, prince, princess, personality
    special: dict[str, Any] | None  # None for a joker

    def describe(self) -> str:
        top = "+".join(self.actions)
        s = self.special
        if s is None:
            return f"{top} | joker (no special action)"
        if s["kind"] == "city":
            spec = f"{CITIES[s['city']].name} for {s['gold']}g"
        elif s["kind"] == "pass":
            spec = "pass to the frontmost free space"
        elif s["kind"] == "trade_twice":
            spec = f"trade twice for {s['gold']}g"
        else:
            spec = f"gold-yellow personality for {s['gold']}g"
        return f"{top} | special: {spec}"


ACTION_CARDS: dict[int, ActionCard] = {
    int(c["key"][1:]): ActionCard(int(c["key"][1:]), c["key"], tuple(c["actions"]), c["special"])
    for c in RAW["action_cards"]["action_cards"]
}
DEAL: dict[int, int] = {int(k): v for k, v in RAW["action_cards"]["deal"].items() if k.isdigit()}
LATER_DEAL: int = RAW["action_cards"]["deal"]["later_rounds"]
BOOK_TILES: dict[str, dict[str, Any]] = {t["key"]: t for t in RAW["book_tiles"]["book_tiles"]}


# --- assumptions --------------------------------------------------------------------------
def _assumed_fields(entry: dict[str, Any]) -> list[str]:
    conf = entry.get("confidence")
    if conf == "assumed":
        return ["*"]
    if isinstance(conf, dict):
        return [k for k, v in conf.items() if v == "assumed"]
    return []


def _walk(prefix: str, obj: Any, out: list[Assumption]) -> None:
    if isinstance(obj, dict):
        fields = _assumed_fields(obj)
        if fields:
            key = obj.get("key", prefix.rsplit(".", 1)[-1])
            shown = {k: v for k, v in obj.items() if k not in ("source", "confidence", "key")}
            if fields != ["*"]:
                shown = {k: shown.get(k) for k in fields if k in shown} or shown
            what = f"{prefix}: " + (", ".join(fields) if fields != ["*"] else "all values")
            out.append(Assumption(f"{prefix}.{key}" if "key" in obj else prefix, what,
                                  json.dumps(shown, ensure_ascii=False, sort_keys=True),
                                  str(obj.get("source", ""))))
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and k not in ("confidence",):
                _walk(f"{prefix}.{k}", v, out)
    elif isinstance(obj, list):
        for item in obj:
            _walk(prefix, item, out)


def assumptions() -> list[Assumption]:
    out: list[Assumption] = []
    for name in sorted(RAW):
        _walk(name, RAW[name], out)
    return out
