"""The game's words in the reader's language (English or German).

The German words are the German play guide's (Die Staufer): Region, Amtssitz, Gesandter,
Adeliger, Hof, Provinz, Bezahlbereich, Nachschub-Tableau, Nachschub-Leiste,
Einsetz-Leiste, Reihenfolge-Leiste, Truhe, Privileg, Auftragskarte, Punkte-Plättchen,
Runden-Plättchen, Regionenwertung, Aufräumphase, Schlusswertung, Königsregion. The
cities have their German names (Mailand, Nimwegen, Straßburg).

What is stored stays English: the events of the state (they are part of its
fingerprint) are English lines, translated here when they are shown (the judge's mails
too, through the game's ``event_text``); the chest labels
of a view ("turquoise supplies") are English and translated where they are drawn or
written; the notation (region keys, chest types) is never translated.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from referee.i18n import ENGLISH, current, domain

_, N_, ngettext = domain("staufer", __file__)

#: English title -> the message of its name (the catalog gives the German city names)
REGION_NAMES = {
    "Aachen": N_("Aachen"),
    "Augsburg": N_("Augsburg"),
    "Milano": N_("Milano"),
    "Nijmegen": N_("Nijmegen"),
    "Palermo": N_("Palermo"),
    "Strasbourg": N_("Strasbourg"),
}
COLOUR_NAMES = {
    "orange": N_("orange"),
    "turquoise": N_("turquoise"),
    "brown": N_("brown"),
    "purple": N_("purple"),
}
#: chest type -> its name on a board ("turquoise supplies"); the notation keeps the type
CHEST_TYPE_NAMES = {
    "vp2": N_("vp2"), "vp3": N_("vp3"), "vp4": N_("vp4"), "vp5": N_("vp5"),
    "envoy1": N_("envoy1"), "envoy2": N_("envoy2"), "envoy3": N_("envoy3"),
    "noble": N_("noble"), "first": N_("first"), "supplies": N_("supplies"),
    "free-move": N_("free-move"), "free-pay": N_("free-pay"), "keep": N_("keep"),
}
#: a blue or red contract card's id -> its name (the card's condition in words)
CONTRACT_NAMES = {
    "2-adjacent": N_("2 adjacent regions"), "2-gap": N_("2 regions with 1 between"),
    "2-opposite": N_("2 opposite regions"), "3-adjacent": N_("3 adjacent regions"),
    "3-alternating": N_("3 alternating regions"), "4-adjacent": N_("4 adjacent regions"),
    "cost3": N_("payment cost 3"), "cost4": N_("payment cost 4"),
    "cost5": N_("payment cost 5"), "all-seats": N_("all your seats"),
    "pairs": N_("pairs of equal cost"), "series": N_("series 3-4-5"),
}
#: Final Scoring parts that are not a contract card
FINAL_PARTS = {"brown": N_("brown"), "turquoise+purple": N_("turquoise+purple")}
FIGURE_NAMES = {"Envoy": N_("Envoy"), "Noble": N_("Noble")}


def english() -> bool:
    """True when text is produced in English (the source language: nothing to do)."""
    return current() == ENGLISH


def region_title(title: str) -> str:
    """A region's title (the data's English one) in the reader's language."""
    name = REGION_NAMES.get(title)
    return title if name is None else _(name)


def region_word(titles: Mapping[str, str], key: str) -> str:
    """How a board names the region ``key`` where English prints the key itself
    (the round display): the key in English, the region's title otherwise."""
    if english() or key not in titles:
        return key
    return region_title(titles[key])


def chest_text(label: str, notation: bool = False) -> str:
    """A view's chest label ("orange vp3", "brown") in the reader's language; with
    ``notation`` (a chest to pick) a translated label is followed by the type a move
    names ("orange 3 Punkte [vp3]")."""
    if english():
        return label
    colour, _sep, ctype = label.partition(" ")
    word = _(COLOUR_NAMES[colour]) if colour in COLOUR_NAMES else colour
    if not ctype:
        return f"{word} [{colour}]" if notation else word
    text = _("{colour} {type}").format(
        colour=word, type=_(CHEST_TYPE_NAMES[ctype]) if ctype in CHEST_TYPE_NAMES else ctype)
    return f"{text} [{ctype}]" if notation else text


_CONTRACT = re.compile(r"contract:(?P<back>region|blue|red)-(?P<id>[a-z0-9-]+)")


def final_part(what: str) -> str:
    """A Final Scoring part's name: a contract card by its words (its id
    ``contract:region-milano`` read as "Region Milano contract", ``contract:blue-2-gap``
    as "pattern: 2 regions with 1 between", ``contract:red-pairs`` as "office seats: pairs of
    equal cost", as the card lines name them), or a chest group's words."""
    if m := _CONTRACT.fullmatch(what):
        if m["back"] == "region":
            return _("Region {region} contract").format(region=region_title(m["id"].title()))
        if m["back"] == "blue":
            return _("pattern: {name}").format(name=contract_name(m["id"]))
        return _("office seats: {name}").format(name=contract_name(m["id"]))
    return _(FINAL_PARTS[what]) if what in FINAL_PARTS else what


def contract_name(card_id: str) -> str:
    """A blue or red contract card's name (of its id ``2-opposite``, ``pairs``)."""
    return _(CONTRACT_NAMES[card_id]) if card_id in CONTRACT_NAMES else card_id


def figure_name(name: str) -> str:
    return _(FIGURE_NAMES[name]) if name in FIGURE_NAMES else name


# --- the events of the state, stored in English (basics.add_points, rounds) ------------------

@functools.cache
def _patterns() -> dict[str, re.Pattern[str]]:
    """The shapes of the English event lines (compiled when an event line is first
    written: a command that writes none never compiles them)."""
    return {"points": re.compile(r"(?P<who>\S+) \+(?P<n>\d+) \((?P<why>.*)\)"),
            "scoring": re.compile(r"Round (?P<round>\d+) scoring: (?P<names>.*)"),
            "king": re.compile(r"The King travels to (?P<title>.*)"),
            "place": re.compile(r"(?P<title>.+) place (?P<place>\d)"),
            "bonus": re.compile(r"(?P<title>.+) bonus"),
            "privilege": re.compile(r"privilege (?P<number>\d+)")}


def _why(why: str) -> str:
    """The reason of a score line: "Milano place 1", "orange chest", "privilege 9",
    "Palermo bonus", a Final Scoring part."""
    if (m := _patterns()["place"].fullmatch(why)) and m["title"] in REGION_NAMES:
        return _("{region} place {place}").format(region=region_title(m["title"]),
                                                  place=m["place"])
    if (m := _patterns()["bonus"].fullmatch(why)) and m["title"] in REGION_NAMES:
        return _("{region} bonus").format(region=region_title(m["title"]))
    if m := _patterns()["privilege"].fullmatch(why):
        return _("privilege {number}").format(number=m["number"])
    if why == "orange chest":
        return _("orange chest")
    return final_part(why)


def event_text(event: str) -> str:
    """One event line of the state in the reader's language (in English too, a contract
    card is named by its words, not its id: :func:`final_part`)."""
    if m := _patterns()["points"].fullmatch(event):
        return _("{player} +{points} ({why})").format(player=m["who"], points=m["n"],
                                                      why=_why(m["why"]))
    if m := _patterns()["scoring"].fullmatch(event):
        names = ", ".join(region_title(t) for t in m["names"].split(", "))
        return _("Round {round} scoring: {regions}").format(round=m["round"], regions=names)
    if m := _patterns()["king"].fullmatch(event):
        return _("The King travels to {region}").format(region=region_title(m["title"]))
    return event
