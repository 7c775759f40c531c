"""The component data of Dynasties as a value: :func:`load` turns a set of data files
(the current ones in ``data/``, or a released version's) into a :class:`Data` that the
rules read through ``state.data`` or the game object's ``data``.

Besides the values themselves, a Data holds what the rules look up per turn and that
follows from the values alone (the moves each action card allows, the city costs): made
once per game object, never changed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, get_args

import msgspec

from referee.engine import Assumption
from referee.errors import GameFileError, NotImplementedRule

from .files import Vocabulary, data_digest, vocabulary
from .movetypes import COLOURS, Figure, Pass, SitOut, Trade
from .records import (
    BonusSpace,
    BookTile,
    CitySpecial,
    DieFace,
    Effect,
    Effects,
    PassSpecial,
    Personality,
    ScoringCard,
    Special,
    Tablet,
    TradeTwiceSpecial,
)
from .words import _

FIGURES: tuple[Figure, ...] = ("prince", "princess")
# the record types by the files' ``op`` and ``kind`` (records.py)
EFFECT_TYPES: dict[str, type[Effect]] = {k.__struct_config__.tag: k for k in get_args(Effect)}
SPECIAL_TYPES: dict[str, type[Special]] = {k.__struct_config__.tag: k for k in get_args(Special)}
SCORING_TYPES: dict[str, type[ScoringCard]] = {k.__struct_config__.tag: k
                                               for k in get_args(ScoringCard)}


class City(msgspec.Struct, frozen=True):
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


class ActionCard(msgspec.Struct, frozen=True):
    number: int
    key: str
    actions: tuple[str, ...]  # basic actions: trade, prince, princess, personality
    special: Special | None  # None for a joker
    text: str  # "trade+prince | special: Paris for 2g"

    def describe(self) -> str:
        return self.text


def _card_text(actions: tuple[str, ...], s: Special | None,
               cities: Mapping[str, City]) -> str:
    top = "+".join(actions)
    if s is None:
        return f"{top} | joker (no special action)"
    if isinstance(s, CitySpecial):
        spec = f"{cities[s.city].name} for {s.gold}g"
    elif isinstance(s, PassSpecial):
        spec = "pass to the frontmost free space"
    elif isinstance(s, TradeTwiceSpecial):
        spec = f"trade twice for {s.gold}g"
    else:
        spec = f"gold-yellow personality for {s.gold}g"
    return f"{top} | special: {spec}"


class Data(msgspec.Struct, frozen=True, eq=False, kw_only=True):
    """Everything the rules read from the data files (names as in the files)."""

    files: dict[str, Any]  # the files themselves (``referee data``, readings)
    digest: str
    words: Vocabulary
    # goods, figures, scoring tiles (components.json)
    colour_names: dict[str, str]
    goods_counts: list[int]
    per_ship: int
    ships: int
    family_colours: list[str]
    per_colour: int
    neutral: int
    arms_per_country: int
    figure_scoring: dict[int, tuple[int, int]]
    monastery_round: int
    green_each: int
    carry_max: int
    per_book_city: int  # book tiles on each Book city at setup
    free_book_city: int  # book tiles on the free Book city
    free_cities: list[str]
    upgrade_amount: int
    # countries and cities
    countries: list[str]
    country_names: dict[str, str]
    cities: dict[str, City]
    # personalities, dice, passing track and bonus spaces
    personalities: dict[str, Personality]
    light_blue_costs: list[int]
    gold_spaces: int
    gold_personality_cost: int
    dice: int
    faces: list[str]
    face_order: dict[str, int]
    face_effects: dict[str, Effects]
    track_costs: list[int]
    bonus: dict[str, BonusSpace]
    # cards, tablets, book tiles
    scoring: dict[str, ScoringCard]
    green: list[str]
    yellow: list[str]
    tablets: dict[str, Tablet]
    action_cards: dict[int, ActionCard]
    deal: dict[int, int]
    later_deal: int
    book_tiles: dict[str, BookTile]
    # looked up per turn (rules.turn_moves)
    card_trades: dict[int, bool]
    card_figures: dict[int, tuple[Figure, ...]]
    card_personality: dict[int, bool]
    trades: dict[int, tuple[Trade, ...]]
    sit_out: dict[int, SitOut]
    passes: list[list[Pass]]  # by space (0 = long), then the card kept
    prince_cost: dict[str, int]
    princess_cost: dict[str, int]
    max_cost: int  # the dearest city space
    # how often each card text occurs (hidden.py: a text names a card only if unique)
    card_text_counts: Counter[str]
    scoring_text_counts: Counter[str]

    def cities_in_play(self, players: int) -> list[str]:
        """Board cities; the 4 extra cities only with 5 players (Components and Setup)."""
        return [k for k, c in self.cities.items() if players == 5 or not c.five_players]


def load(files: Mapping[str, Any]) -> Data:
    """The data files ``files`` (by name, without ``.json``) as a Data. Raises
    GameFileError for files the notation cannot express, NotImplementedRule for an effect
    the rules do not know, and KeyError or TypeError for a record of the wrong shape."""
    # (a copy of plain JSON through msgspec: a fifth of copy.deepcopy's time)
    raw: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(files))
    words = vocabulary(raw)
    if words.colours != COLOURS or words.cards < 1:
        raise GameFileError("these Dynasties data files do not fit the rules: the goods "
                            f"must be {', '.join(COLOURS)} and the action cards a01-aNN")
    comp = raw["components"]
    cities = {c["key"]: City(c["key"], c["name"], c["country"], c["symbol"], c["prince"],
                             c["princess"], c["large"], c["five_players"])
              for c in raw["cities"]["cities"]}
    cards = _action_cards(raw["action_cards"]["action_cards"], cities)
    pers = raw["personalities"]
    faces = {f["key"]: DieFace(f["key"], _effects(f["effects"])) for f in raw["dice"]["faces"]}
    track = raw["bonus"]["passing_track"]["top_costs_pink"]
    scoring = {c["key"]: _scoring_card(c) for c in raw["scoring_cards"]["scoring_cards"]}
    deal = raw["action_cards"]["deal"]
    return Data(
        files=raw, digest=data_digest(raw), words=words,
        colour_names=comp["goods"]["names"], goods_counts=list(comp["goods"]["counts"]),
        per_ship=comp["goods"]["per_ship"], ships=comp["ships"]["count"],
        family_colours=comp["family"]["colours"], per_colour=comp["family"]["per_colour"],
        neutral=comp["family"]["neutral"],
        arms_per_country=comp["coats_of_arms"]["per_country"],
        figure_scoring={int(k): (v[0], v[1]) for k, v in comp["figure_scoring"].items()
                        if k.isdigit()},
        monastery_round=comp["figure_scoring"]["monastery_after_round"],
        green_each=comp["scoring_cards"]["green_each"],
        carry_max=comp["scoring_cards"]["carry_max"],
        per_book_city=comp["book_setup"]["per_book_city"],
        free_book_city=comp["book_setup"]["free_book_city"],
        free_cities=comp["free_cities"]["cities"], upgrade_amount=comp["upgraders"]["amount"],
        countries=[c["key"] for c in raw["cities"]["countries"]],
        country_names={c["key"]: c["name"] for c in raw["cities"]["countries"]},
        cities=cities,
        personalities={p["key"]: Personality(p["key"], p["name"], _effects(p["effects"]))
                       for p in pers["personalities"]},
        light_blue_costs=pers["spaces"]["light_blue_costs"],
        gold_spaces=pers["spaces"]["gold_spaces"],
        gold_personality_cost=pers["spaces"]["gold_cost"],
        dice=raw["dice"]["dice"], faces=list(faces),
        face_order={f: i for i, f in enumerate(faces)},
        face_effects={k: f.effects for k, f in faces.items()},
        track_costs=track,
        bonus={b["key"]: BonusSpace(b["key"], b["text"], b["shareable"], _effects(b["effects"]))
               for b in raw["bonus"]["bonus_spaces"]},
        scoring=scoring,
        green=[k for k, c in scoring.items() if c.deck == "green"],
        yellow=[k for k, c in scoring.items() if c.deck == "yellow"],
        tablets={t["key"]: Tablet(t["key"], t["first"], t["second"], t["crown"])
                 for t in raw["tablets"]["tablets"]},
        action_cards=cards,
        deal={int(k): v for k, v in deal.items() if k.isdigit()},
        later_deal=deal["later_rounds"],
        book_tiles={t["key"]: BookTile(t["key"], t["kind"], _effects(t["effects"]))
                    for t in raw["book_tiles"]["book_tiles"]},
        card_trades={n: "trade" in c.actions for n, c in cards.items()},
        card_figures={n: tuple(f for f in FIGURES if f in c.actions)
                      for n, c in cards.items()},
        card_personality={n: "personality" in c.actions for n, c in cards.items()},
        trades={n: tuple(Trade(n, s + 1) for s in range(words.ships)) for n in cards},
        sit_out={n: SitOut(n) for n in cards},
        passes=[[Pass(space, 0, keep) for keep in range(max(cards) + 1)]
                for space in range(len(track) + 1)],
        prince_cost={k: c.prince for k, c in cities.items()},
        princess_cost={k: c.princess for k, c in cities.items()},
        max_cost=max(max(c.prince, c.princess) for c in cities.values()),
        card_text_counts=Counter(c.text for c in cards.values()),
        scoring_text_counts=Counter(c.text for c in scoring.values()),
    )


def _effects(entries: list[Any]) -> Effects:
    """An entry's effects as records, each of the type its ``op`` names (one the rules do
    not know: NotImplementedRule, as the interpreter said of such an effect before the
    files were typed)."""
    out = []
    for effect in entries:
        op = effect.get("op") if isinstance(effect, dict) else None
        kind = EFFECT_TYPES.get(op) if isinstance(op, str) else None
        if kind is None:
            raise NotImplementedRule(f"Dynasties: unknown effect primitive {op!r} in the data")
        out.append(kind(**{k: v for k, v in effect.items() if k != "op"}))
    return tuple(out)


def _scoring_card(c: Any) -> ScoringCard:
    """A scoring card of the file (its ``kind``: the record's type)."""
    kind = SCORING_TYPES[c["kind"]]
    return kind(**{name: c[name] for name in kind.__struct_fields__})


def _special(s: Any) -> Special:
    """An action card's Special Action of the file (its ``kind``: the record's type)."""
    return SPECIAL_TYPES[s["kind"]](**{k: v for k, v in s.items() if k != "kind"})


def _action_cards(entries: list[Any], cities: Mapping[str, City]) -> dict[int, ActionCard]:
    """The action cards by number (a01 = 1), each with its text."""
    out = {}
    for c in entries:
        actions = tuple(c["actions"])
        special = None if c["special"] is None else _special(c["special"])
        number = int(c["key"][1:])
        out[number] = ActionCard(number, c["key"], actions, special,
                                 _card_text(actions, special, cities))
    return out


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
            what = f"{prefix}: " + (", ".join(fields) if fields != ["*"] else _("all values"))
            out.append(Assumption(f"{prefix}.{key}" if "key" in obj else prefix, what,
                                  json.dumps(shown, ensure_ascii=False, sort_keys=True),
                                  _(str(obj.get("source", "")))))
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and k not in ("confidence",):
                _walk(f"{prefix}.{k}", v, out)
    elif isinstance(obj, list):
        for item in obj:
            _walk(prefix, item, out)


def assumptions(files: Mapping[str, Any]) -> list[Assumption]:
    """Every value marked ``assumed`` in the data files ``files``."""
    out: list[Assumption] = []
    for name in sorted(files):
        _walk(name, files[name], out)
    return out
