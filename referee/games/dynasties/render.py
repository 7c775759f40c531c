"""The board as text of at most a given width (80 columns for a terminal, 78 for a
mail), with a legend of its abbreviations.

Made from the view (views.view), so it shows exactly what the viewer may see.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from referee import i18n
from referee.engine.textlayout import WIDTH, fit_all, wrap_items

from .words import N_, _, symbol

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .state import CountryScoring
    from .viewtypes import CityView, PersonalityView, View, YouView

LEGEND = [  # N_(): translated where used
    N_("goods k black, w white, g gold-yellow, b light blue, p pink"),
    N_("3k/1w Prince costs 3 black/Princess 1 white"),
    N_("large P*/W* the large space is the Prince's/Princess'"),
    N_("ship [ann/ben] ann on its large, ben on its small space"),
    N_("2b/1g costs 2 light blue/1 gold"),
    N_("1(3p):ann space 1 costs 3 pink, taken by ann"),
    N_("card 7 = a07"),
    N_("- none"),
]
# the players' table: its columns' labels and least widths
COLUMNS = ((N_("colour"), 7), (N_("score"), 5), (N_("supply"), 6), (N_("cards"), 5),
           (N_("scoring"), 7), (N_("books"), 5))


def _players(v: View) -> list[str]:
    width = max([len(p["id"]) for p in v["players"]] + [6])
    labels = [_(label) for label, _least in COLUMNS]
    w = [max(least, len(label)) for label, (_label, least) in zip(labels, COLUMNS, strict=True)]
    players, goods = _("Players"), _("goods")
    lines = [f"{players:<{width + 2}} {labels[0]:<{w[0]}} {labels[1]:>{w[1]}} "
             f"{labels[2]:>{w[2]}} {labels[3]:>{w[3]}} {labels[4]:>{w[4]}} "
             f"{labels[5]:>{w[5]}} {goods}"]
    for p in v["players"]:
        extra = []
        if p["book_tiles_open"]:
            extra.append(_("open books") + ": " + ", ".join(p["book_tiles_open_names"]))
        if p["coats_of_arms"]:
            extra.append(_("arms") + " "
                         + ",".join(f"{c}:{n}" for c, n in p["coats_of_arms"].items()))
        if p["passed"]:
            extra.append(_("(passed)"))
        colour = _(p["colour"])
        row = (f"  {p['id']:<{width}} {colour:<{w[0]}} {p['score']:>{w[1]}} "
               f"{p['supply']:>{w[2]}} {p['action_cards']:>{w[3]}} "
               f"{p['scoring_cards']:>{w[4]}} {p['book_tiles_face_down']:>{w[5]}} "
               f"{p['goods'] or '-'}")
        lines.append(row + ("  " + "  ".join(extra) if extra else ""))
    return lines


def _cities(v: View, country_names: dict[str, str]) -> list[str]:
    """The cities under their countries (each country once, in the order it first
    appears), with the country's tablet values."""
    countries: dict[str, list[CityView]] = {}
    for c in v["cities"]:
        countries.setdefault(c["country"], []).append(c)
    shown = {c["city"]: _city_word(c) for c in v["cities"]}
    width = max(len(word) for word in shown.values())
    holders = max(len(space["player"]) for c in v["cities"]
                  for space in (c["prince"], c["princess"]))
    holders = max(holders, 7)
    large = _("large")
    lines = [_("Cities (symbol, Prince cost/holder | Princess cost/holder | child):")]
    for country, cities in countries.items():
        tab = v["tablets"][country]
        lines.append(" " + _("{country}  [1st {first}, 2nd {second}, crown {crown}]").format(
            country=country_names[country], first=tab["first"], second=tab["second"],
            crown=tab["crown"]))
        for c in cities:
            big = {"prince": "P*", "princess": "W*"}[c["large"]]
            books = " " + _("books:{n}").format(n=c["book_tiles"]) if c["symbol"] == "book" \
                else ""
            lines.append(f"   {shown[c['city']]:<{width}} {symbol(c['symbol']):<6} "
                         f"{c['prince']['cost']} "
                         f"{c['prince']['player']:<{holders}} | {c['princess']['cost']} "
                         f"{c['princess']['player']:<{holders}} | {c['child']:<{holders}} "
                         f"{large} {big}{books}".rstrip())
    return lines


def _city_word(c: CityView) -> str:
    """How the board names a city: its notation key, or in another language its name
    there when that is one word (the notation accepts it: ``Wien``)."""
    if i18n.current() != i18n.ENGLISH and re.fullmatch(r"\w+", c["name"]):
        return str(c["name"])
    return str(c["city"])


def _personality_word(p: PersonalityView) -> str:
    """How the board names a personality: its notation key, or in another language its
    name there when that is one word (the notation accepts it: ``Heiratsvermittler``)."""
    word = re.sub(r"\s*\(.*\)\s*$", "", str(p["name"]))
    if i18n.current() != i18n.ENGLISH and re.fullmatch(r"[\w-]+", word):
        return word
    return str(p["personality"])


def _tables(v: View, width: int) -> list[str]:
    used = _(", used")
    lines = wrap_items([f"{s['ship']}: {s['goods'] or '-'} [{s['large']}/{s['small']}]"
                        for s in v["ships"]], _("Ships: "), "  ", width, sep="   ")
    lines += wrap_items(
        [f"{p['space']}:{_personality_word(p)}({p['cost'].split(' ')[0]}"
         f"{'b' if p['space'] <= 6 else 'g'}{used if p['used'] else ''})"
         for p in v["personalities"]], _("Personalities: "), "  ", width, sep=", ")
    track = [f"{t['space']}({t['cost_pink']}p):{t['player']}" for t in v["passing_track"]
             if "player" in t]
    long = " ".join(p for t in v["passing_track"] if "players" in t for p in t["players"]) or "-"
    lines += wrap_items([*track, _("long: {players}").format(players=long)],
                        _("Passing track: "), "  ", width, sep=", ")
    lines.append(_("Dice: {dice}   bag {bag}   action deck {deck}   yellow deck {yellow}"
                   ).format(dice=" ".join(v["dice"]) or "-", bag=v["bag"],
                            deck=v["action_deck"], yellow=v["yellow_deck"]))
    lines.append(_("Leonardo: {player}").format(player=v["leonardo"]))
    return lines


def _hand(you: YouView) -> list[str]:
    lines = [_("Your hand ({player}):").format(player=you["player"])]
    lines += [f"  {c}" for c in you["hand"]] or ["  " + _("(none)")]
    lines.append(_("Your scoring cards: ") + (_("none") if not you["scoring_cards"] else ""))
    lines += [f"  {c}" for c in you["scoring_cards"]]
    if you["drawn_scoring_cards"]:
        lines.append(_("Drawn, keep one:"))
        lines += [f"  {c}" for c in you["drawn_scoring_cards"]]
    lines.append(_("Your book tiles: ") + (", ".join(you["book_tiles"]) or _("none")))
    return lines


def render(v: View, final: dict[str, CountryScoring], country_names: dict[str, str],
           width: int = WIDTH) -> str:
    """The view ``v`` as lines of at most ``width`` characters, the legend second;
    ``final`` is the final scoring once the game is over, ``country_names`` the data's."""
    lines = [_("DYNASTIES - round {n}").format(n=v["round"]),
             *wrap_items([_(item) for item in LEGEND], _("Legend: "), "  ", width, sep="; "),
             ""]
    lines += _players(v)
    lines.append("")
    lines += _cities(v, country_names)
    lines.append("")
    lines += _tables(v, width)
    if "you" in v:
        lines.append("")
        lines += _hand(v["you"])
    if v["events"]:
        lines.append("")
        lines += wrap_items(v["events"][-6:], _("Recent: "), "  ", width)
    if final:
        lines.append("")
        lines.append(_("Final scoring:"))
        lines += ["  " + _("{country}: majority {majority} crown {crown}").format(
            country=c, majority=d["majority"], crown=d["crown"]) for c, d in final.items()]
    return "\n".join(line.rstrip() for line in fit_all(lines, width))
