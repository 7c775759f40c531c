"""The board as text of at most a given width (80 columns for a terminal, 78 for a
mail), with a legend of its abbreviations.

Made from the view (views.view), so it shows exactly what the viewer may see.
"""

from __future__ import annotations

from typing import Any

from referee.textlayout import WIDTH, fit_all, wrap_items

LEGEND = [
    "goods k black, w white, g gold-yellow, b light blue, p pink",
    "3k/1w Prince costs 3 black/Princess 1 white",
    "large P*/W* the large space is the Prince's/Princess'",
    "ship [ann/ben] ann on its large, ben on its small space",
    "2b/1g costs 2 light blue/1 gold",
    "1(3p):ann space 1 costs 3 pink, taken by ann",
    "card 7 = a07",
    "- none",
]


def _players(v: dict[str, Any]) -> list[str]:
    width = max([len(p["id"]) for p in v["players"]] + [6])
    lines = [f"{'Players':<{width + 2}} colour  score supply cards scoring books goods"]
    for p in v["players"]:
        extra = []
        if p["book_tiles_open"]:
            extra.append("open books " + ",".join(p["book_tiles_open"]))
        if p["coats_of_arms"]:
            extra.append("arms " + ",".join(f"{c}:{n}" for c, n in p["coats_of_arms"].items()))
        if p["passed"]:
            extra.append("(passed)")
        row = (f"  {p['id']:<{width}} {p['colour']:<7} {p['score']:>5} {p['supply']:>6} "
               f"{p['action_cards']:>5} {p['scoring_cards']:>7} "
               f"{p['book_tiles_face_down']:>5} {p['goods'] or '-'}")
        lines.append(row + ("  " + "  ".join(extra) if extra else ""))
    return lines


def _cities(v: dict[str, Any], country_names: dict[str, str]) -> list[str]:
    """The cities under their countries (each country once, in the order it first
    appears), with the country's tablet values."""
    countries: dict[str, list[dict[str, Any]]] = {}
    for c in v["cities"]:
        countries.setdefault(c["country"], []).append(c)
    width = max(len(c["city"]) for c in v["cities"])
    holders = max(len(c[k]["player"]) for c in v["cities"] for k in ("prince", "princess"))
    holders = max(holders, 7)
    lines = ["Cities (symbol, Prince cost/holder | Princess cost/holder | child):"]
    for country, cities in countries.items():
        tab = v["tablets"][country]
        lines.append(f" {country_names[country]}  [1st {tab['first']}, 2nd "
                     f"{tab['second']}, crown {tab['crown']}]")
        for c in cities:
            big = {"prince": "P*", "princess": "W*"}[c["large"]]
            books = f" books:{c['book_tiles']}" if c["symbol"] == "book" else ""
            lines.append(f"   {c['city']:<{width}} {c['symbol']:<6} {c['prince']['cost']} "
                         f"{c['prince']['player']:<{holders}} | {c['princess']['cost']} "
                         f"{c['princess']['player']:<{holders}} | {c['child']:<{holders}} "
                         f"large {big}{books}".rstrip())
    return lines


def _tables(v: dict[str, Any], width: int) -> list[str]:
    lines = wrap_items([f"{s['ship']}: {s['goods'] or '-'} [{s['large']}/{s['small']}]"
                        for s in v["ships"]], "Ships: ", "  ", width, sep="   ")
    lines += wrap_items(
        [f"{p['space']}:{p['personality']}({p['cost'].split(' ')[0]}"
         f"{'b' if p['space'] <= 6 else 'g'}{', used' if p['used'] else ''})"
         for p in v["personalities"]], "Personalities: ", "  ", width, sep=", ")
    track = [f"{t['space']}({t['cost_pink']}p):{t['player']}" for t in v["passing_track"][:-1]]
    long = " ".join(v["passing_track"][-1]["players"]) or "-"
    lines += wrap_items([*track, f"long: {long}"], "Passing track: ", "  ", width, sep=", ")
    lines.append(f"Dice: {' '.join(v['dice']) or '-'}   bag {v['bag']}   action deck "
                 f"{v['action_deck']}   yellow deck {v['yellow_deck']}")
    lines.append(f"Leonardo: {v['leonardo']}")
    return lines


def _hand(you: dict[str, Any]) -> list[str]:
    lines = [f"Your hand ({you['player']}):"]
    lines += [f"  {c}" for c in you["hand"]] or ["  (none)"]
    lines.append("Your scoring cards: " + ("none" if not you["scoring_cards"] else ""))
    lines += [f"  {c}" for c in you["scoring_cards"]]
    if you["drawn_scoring_cards"]:
        lines.append("Drawn, keep one:")
        lines += [f"  {c}" for c in you["drawn_scoring_cards"]]
    lines.append("Your book tiles: " + (", ".join(you["book_tiles"]) or "none"))
    return lines


def render(v: dict[str, Any], final: dict[str, Any], country_names: dict[str, str],
           width: int = WIDTH) -> str:
    """The view ``v`` as lines of at most ``width`` characters, the legend second;
    ``final`` is the final scoring once the game is over, ``country_names`` the data's."""
    lines = [f"DYNASTIES - round {v['round']}",
             *wrap_items(LEGEND, "Legend: ", "  ", width, sep="; "), ""]
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
        lines += wrap_items(v["events"][-6:], "Recent: ", "  ", width)
    if final:
        lines.append("")
        lines.append("Final scoring:")
        lines += [f"  {c}: majority {d['majority']} crown {d['crown']}"
                  for c, d in final.items()]
    return "\n".join(line.rstrip() for line in fit_all(lines, width))
