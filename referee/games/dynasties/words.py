"""Dynasties in the reader's language: the game's catalog (``dynasties``), the names of
its components, its public events and its action cards' texts.

The data files and the state stay English (the events are part of the state, so of its
fingerprint): a text is translated where a reader sees it. Names of components are
marked here (``COMPONENT_NAMES``) so that the catalog holds every one of them; a test
checks that every name in the data files is among them. The German words are those of
"Dynasties: Heirate & Herrsche"; the terms chosen here are listed in the game's
interpretations (``referee data dynasties``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol

from referee import i18n
from referee.i18n import domain

from .records import CitySpecial, PassSpecial, ScoringCard, TradeTwiceSpecial

_, N_, ngettext = domain("dynasties", __file__)

# --- names of components (data files: cities.json, personalities.json, components.json,
# bonus.json, scoring_cards.json); translated with _(name) where shown ---------------------
COMPONENT_NAMES = (
    # countries
    N_("Britannia"), N_("France"), N_("Hispania"), N_("Sacrum Romanum Imperium"),
    # cities
    N_("Paris"), N_("Carcassonne"), N_("Brest"), N_("Lyon"), N_("London"), N_("York"),
    N_("Plymouth"), N_("Canterbury"), N_("Edinburgh"), N_("Madrid"), N_("Granada"),
    N_("Barcelona"), N_("Toledo"), N_("Sevilla"), N_("Vienna"), N_("Prague"),
    N_("Augsburg"), N_("Lübeck"), N_("Cologne"), N_("Nuremberg"), N_("Bristol"),
    N_("Bordeaux"), N_("Valencia"), N_("Hamburg"),
    # personalities
    N_("Francis Drake"), N_("Leonardo"), N_("Matchmaker (P3)"), N_("Diplomat (P4)"),
    N_("Chronicler (P5)"), N_("Merchant (P6)"), N_("Free-city envoy (P7)"),
    N_("Reformer (P8)"),
    # the players' colours
    N_("blue"), N_("red"), N_("yellow"), N_("green"), N_("orange"),
    # goods
    N_("black"), N_("white"), N_("gold-yellow"), N_("light blue"), N_("pink"),
    # bonus spaces
    N_("3 points"), N_("draw 2 action cards"), N_("draw 2 yellow scoring cards, keep 1"),
    N_("take 2 goods of your choice from the bag"),
    N_("take 2 goods from the ships (the ships you took from are refilled)"),
    N_("take 1 light-blue and 1 gold-yellow good from the bag"),
    # scoring cards
    N_("figures in >= 3 countries"), N_(">= 2 figures in Anchor cities"),
    N_(">= 2 figures in Book cities"), N_(">= 2 figures in 2 Points cities"),
    N_(">= 2 figures in Crown cities"), N_(">= 2 married figures"), N_(">= 1 child"),
    N_(">= 2 figures in Britannia"), N_(">= 2 figures in France"),
    N_(">= 2 figures in Hispania"), N_(">= 2 figures in SRI"),
    N_(">= 1 coat of arms (any country)"), N_("2 per married figure, max 10"),
    N_("2 per child, max 8"), N_("1 per coat of arms, max 6"),
    N_("2 per figure in Britannia, max 8"), N_("2 per figure in France, max 8"),
    N_("2 per figure in Hispania, max 8"), N_("2 per figure in SRI, max 8"),
    N_("2 per figure in 2 Points cities, max 8"), N_("2 per figure in Anchor cities, max 8"),
    N_("2 per figure in Book cities, max 8"), N_("3 per figure in Crown cities, max 9"),
    N_("1 per 2 goods in supply, max 5"),
    N_("2 per Prince-and-Princess pair (the smaller of your Princes and Princesses), max 8"),
    N_("2 per unmarried figure, max 6"),
    N_("strictly most figures in at least one country: 5"),
    N_("2 per book tile held, max 6"), N_("1 per city with a figure of yours, max 6"),
    N_(">= 4 goods of one colour: 4"),
    N_("2 per country with a married figure of yours, max 8"),
    N_("2 per country with a figure of yours in a Crown city, max 8"),
)

FIGURE_NAME = {"prince": N_("Prince"), "princess": N_("Princess")}
SYMBOL_NAME = {"crown": N_("crown"), "points": N_("points"), "anchor": N_("anchor"),
               "book": N_("book")}
#: a book tile's name by its kind (book_tiles.json); "arms" tiles name their country
BOOK_TILE_NAME = {"card": N_("Card (1 scoring card)"), "points": N_("3 Points"),
                  "ship": N_("Ship (2 goods)"), "sword": N_("Sword/Rose (1 coat of arms)")}
BOOK_ARMS_NAME = N_("coat of arms of {country}")
#: ... and short, where room is scarce (a picture's table): SRI as the scoring cards say
BOOK_TILE_SHORT = {"card": N_("Card"), "points": N_("3 Points"), "ship": N_("Ship"),
                   "sword": N_("Sword/Rose")}
BOOK_ARMS_SHORT = N_("arms {country}")
SHORT_COUNTRY = {"sri": "SRI"}
ACTION_WORD = {"trade": N_("trade"), "prince": N_("prince"), "princess": N_("princess"),
               "personality": N_("personality")}


def name(text: str) -> str:
    """A component's name (as the data files write it) in the reader's language."""
    return _(text) if text else text


def figure(key: str) -> str:
    """"Prince" or "Princess" (of ``prince``/``princess``)."""
    return _(FIGURE_NAME[key])


def symbol(key: str) -> str:
    """A city symbol's name (crown, points, anchor, book)."""
    return _(SYMBOL_NAME[key]) if key in SYMBOL_NAME else key


class Names(Protocol):
    """What an event needs of the data to name components (``data.Data``)."""

    @property
    def country_names(self) -> dict[str, str]: ...

    @property
    def scoring(self) -> Mapping[str, ScoringCard]: ...


def book_tile(key: str, country_names: Mapping[str, str], short: bool = False) -> str:
    """A book tile's name (of its id ``ship-1``, ``arms-sri``; ``country_names``: the
    data's country key -> English name); ``short``: without what it gives."""
    kind, _sep, rest = key.partition("-")
    if kind == "arms":
        country = name(country_names.get(rest, rest))
        if short:
            return _(BOOK_ARMS_SHORT).format(country=SHORT_COUNTRY.get(rest, country))
        return _(BOOK_ARMS_NAME).format(country=country)
    names = BOOK_TILE_SHORT if short else BOOK_TILE_NAME
    return _(names[kind]) if kind in names else key


def card_text(card: Any, cities: Mapping[str, Any]) -> str:
    """An action card's text (``data.ActionCard``): its basic actions and special action.
    In English exactly the data's ``describe()``."""
    if i18n.current() == i18n.ENGLISH:
        return str(card.describe())
    top = "+".join(_(ACTION_WORD[a]) for a in card.actions)
    s = card.special
    if s is None:
        return _("{actions} | joker (no special action)").format(actions=top)
    if isinstance(s, CitySpecial):
        spec = _("{city} for {gold}g").format(city=name(cities[s.city].name), gold=s.gold)
    elif isinstance(s, PassSpecial):
        spec = _("pass to the frontmost free space")
    elif isinstance(s, TradeTwiceSpecial):
        spec = _("trade twice for {gold}g").format(gold=s.gold)
    else:
        spec = _("gold-yellow personality for {gold}g").format(gold=s.gold)
    return _("{actions} | special: {special}").format(actions=top, special=spec)


# --- the public events (state.events): English in the state, translated when shown --------
# Each template is exactly the text the rules log (the fields in braces); the first that
# matches a whole event is used.
EVENTS = (
    N_("{player} divided ship {ship} into {first} / {second}"),
    N_("{player} chose {goods}; {other} took {group}"),
    N_("{player} took {goods} from the bag (if there)"),
    N_("{player} took {goods} from ship {ship}"),
    N_("{player} took {goods} from the bag"),
    N_("{player} divided the dowry: {single} / {pair}"),
    N_("{player} chose {faces}; {other} gets {group}"),
    N_("{player} kept 1 scoring card"),
    N_("{player} kept {faces}"),
    N_("{player} put the upgrader on {country}"),
    N_("{player} went to the free city {freecity}"),
    N_("{player} married a neutral figure in {city}; rolled {dice}"),
    N_("{player} made no second trade"),
    N_("{player} took no bonus action"),
    N_("the action deck was reshuffled from the discard pile"),
    N_("the yellow scoring deck was reshuffled from its discard pile"),
    N_("{player} took a book tile"),
    N_("no book tile was left for {player}"),
    N_("{player} scored {n} ({why})"),
    N_("{player} drew {n} goods from the bag"),
    N_("{player} put a family member on the Leonardo tile"),
    N_("{player} placed a child on the star of {city}"),
    N_("{player} took a coat of arms of {country}"),
    N_("{player} is the new starting player"),
    N_("everybody received {n} new action cards"),
    N_("round 1 begins; {player} (the Banker) starts"),
    N_("round {n} begins; {player} starts"),
    N_("final scoring done; the game is over"),
    N_("{player} took the bonus action {space}"),
    N_("{player} paid 1 pink to keep the figure in {city}"),
    N_("{player}'s figure in {city} went to the monastery"),
    N_("{player} trades twice"),
    N_("{player} used {personality} paying {goods}"),
    N_("{player} used {personality}"),
    N_("{player} sat out (discarded {card}, drew {n} good)"),
    N_("{player} passed to space {n} with a Pass card"),
    N_("{player} passed to space {n}"),
    N_("{player} passed to the long space with a Pass card"),
    N_("{player} passed to the long space"),
    N_("{player} placed a {figure} in {city} paying {goods}"),
    N_("{player} placed a {figure} in {city}"),
    N_("{player} drew {n} good (anchor)"),
    N_("marriage in {city}: {player} rolled {dice}"),
    N_("{player} stands on ship {ship}"),
    N_("{player} joins ship {ship}: trade"),
    N_("all players have passed: end of round {n}"),
)
# the reasons of "{player} scored {n} ({why})" that are fixed texts
WHY = (N_("points"), N_("child, but no star or figure free"),
       N_("coat of arms, but none left"), N_("free city"))
_WHY_PATTERNS = (N_("unmarried figures: {parts}"), N_("scoring card {card}"))


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    out = []
    for i, part in enumerate(parts):
        out.append(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)")
    return re.compile("".join(out) + r"\Z")


@cache
def _patterns(templates: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, _pattern(t)) for t in templates)


def _why(text: str) -> str:
    if text in WHY:
        return _(text)
    for template, pattern in _patterns(_WHY_PATTERNS):
        found = pattern.match(text)
        if found:
            values = found.groupdict()
            if "parts" in values:
                values["parts"] = ", ".join(_city_points(part)
                                            for part in values["parts"].split(", "))
            return _(template).format(**values)
    return name(text)  # a city's name (the points of a 2 Points city)


def _city_points(part: str) -> str:
    city, _sep, points = part.rpartition(" ")
    return f"{name(city)} {points}" if city else part


# the bonus spaces by key (bonus.json's texts), for "took the bonus action {space}"
BONUS_TEXT = {"points": "3 points", "cards": "draw 2 action cards",
              "scoring": "draw 2 yellow scoring cards, keep 1",
              "goods": "take 2 goods of your choice from the bag",
              "ships": "take 2 goods from the ships (the ships you took from are refilled)",
              "colours": "take 1 light-blue and 1 gold-yellow good from the bag"}


def _bonus(key: str) -> str:
    return _(BONUS_TEXT[key]) if key in BONUS_TEXT else key


_FIELDS = {"city": name, "country": name, "personality": name, "why": _why, "space": _bonus,
           "figure": lambda text: figure(text.lower()) if text.lower() in FIGURE_NAME else text}


_SCORED_CARD = re.compile(r"(?P<player>\S+) scored (?P<n>-?\d+) \(scoring card (?P<card>\w+)\)")
_REVEALED = re.compile(r"(?P<player>\S+) revealed book tile (?P<tile>[\w-]+)")
_DREW = re.compile(r"(?P<player>\S+) drew (?P<n>\d+) (?P<what>action|scoring) card\(s\)")


def _drew(found: re.Match[str]) -> str:
    n = int(found["n"])
    if found["what"] == "action":
        said = ngettext("{player} drew {n} action card", "{player} drew {n} action cards", n)
    else:
        said = ngettext("{player} drew {n} scoring card", "{player} drew {n} scoring cards", n)
    return said.format(player=found["player"], n=n)


def _scored_card(found: re.Match[str], data: Names) -> str:
    key = found["card"]
    card = f"{key}: {name(data.scoring[key].text)}" if key in data.scoring else key
    return _("{player} scored {n} ({why})").format(
        player=found["player"], n=found["n"], why=_("scoring card {card}").format(card=card))


def event(text: str, data: Names) -> str:
    """A public event of the state in the reader's language (unchanged in English, and
    for a text no template matches; a count of cards, stored as "card(s)", is told as one
    card or several in both, a revealed book tile by its name, a scoring card played by
    its id and its text)."""
    if drew := _DREW.fullmatch(text):
        return _drew(drew)
    if revealed := _REVEALED.fullmatch(text):
        return _("{player} revealed a book tile: {tile}").format(
            player=revealed["player"], tile=book_tile(revealed["tile"], data.country_names))
    if scored := _SCORED_CARD.fullmatch(text):
        return _scored_card(scored, data)
    if i18n.current() == i18n.ENGLISH:
        return text
    for template, pattern in _patterns(EVENTS):
        found = pattern.match(text)
        if found:
            values = {k: _FIELDS.get(k, str)(v) for k, v in found.groupdict().items()}
            return _(template).format(**values)
    return text


# --- German names in the notation (parse_move accepts them beside the English keys) -----
def _spellings(text: str) -> list[str]:
    """The ways a German name may be typed, as the parser sees it (lower case, umlauts
    plain or as ue/oe/ae, spaces as hyphens)."""
    base = re.sub(r"\s*\(.*\)\s*$", "", text).replace(" ", "-")
    return list(dict.fromkeys([i18n.fold(base, plain=True), i18n.fold(base)]))


def german_aliases(names: Mapping[str, str], keys: tuple[str, ...] | list[str]
                   ) -> dict[str, str]:
    """Spelling -> key for the German names of ``names`` (key -> English name) whose
    German name is not already the key (``wien`` -> ``vienna``). Only one-word names."""
    out: dict[str, str] = {}
    with i18n.language("de"):
        for key, english in names.items():
            german = _(english)
            for spelling in _spellings(german):
                if spelling != key and spelling not in keys and re.fullmatch(r"[a-z0-9\-]+",
                                                                           spelling):
                    out.setdefault(spelling, key)
    return out


# German goods letters: s schwarz (k), r rosa (p); w weiß, g gold, b hellblau are the same
GERMAN_GOODS = str.maketrans({"s": "k", "r": "p"})
