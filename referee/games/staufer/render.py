"""The board as text of at most a given width (80 columns for a terminal, 78 for a
mail, wider for `status --wide`), with a legend of its abbreviations.

Made from the view (views.view), so it shows exactly what the viewer may see. A wider
layout is the same board with fewer lines broken.
"""

from __future__ import annotations

from typing import Any

from referee.textlayout import WIDTH, fit_all, wrap_items

LEGEND = [
    "[9/7/5] points for 1st/2nd/3rd most figures",
    "7N! costs 7, Nobles only",
    "ann:E/ann:N ann's Envoy/Noble",
    "2E 1N 2 Envoys, 1 Noble",
    "vp3 3 points",
    "envoy2 2 Envoys",
    "#5 privilege 5",
    "x2 2 left",
    "- none",
]
CONDITION_SHORT = {"king": "King's Region", "fewest-chests": "fewest chests",
                   "most-seats": "most seats"}


def _names(items: list[str]) -> str:
    return ", ".join(items) or "-"


def _region(r: dict[str, Any]) -> list[str]:
    king = "  <KING>" if r["king"] else ""
    tile = "/".join(map(str, r["scoring_tile"]))
    lines = [f"{r['title']} [{tile}] bonus: {r['bonus']}{king}"]
    figs_width = max([len(_names(s["figures"])) for s in r["seats"]] + [5])
    for s in r["seats"]:
        mark = "N!" if s["noble_only"] else "  "
        figs = _names(s["figures"])
        lines.append(f"  seat {s['seat']} {s['cost']}{mark} {figs:<{figs_width}}  "
                     f"chests: {_names(s['chests'])}".rstrip())
    pay = "; ".join(f"{w} {c['envoys']}E {c['nobles']}N" for w, c in r["payment"].items())
    lines.append(f"  payment space: {pay or '-'}")
    return lines


def _player(who: str, pv: dict[str, Any], name_width: int, width: int) -> list[str]:
    court = pv["court"]
    privileges = ", ".join(f"#{n}" for n in pv["privileges"]) or "-"
    head = (f"{who:<{name_width}} {pv['score']:>3} pts  Court {court['envoys']}E "
            f"{court['nobles']}N  privileges: {privileges}")
    chests = f"chests: {_names(pv['chests'])}"
    if len(head) + 2 + len(chests) <= width:
        return [f"{head}  {chests}"]
    return [head, f"{'':<{name_width}} {chests}"]


def _tracks(v: dict[str, Any]) -> list[str]:
    t = v["tracks"]
    return [
        f"Seating (clockwise): {', '.join(v['seating'])}; start player {v['start_player']}",
        f"Turn order: {', '.join(t['turn_order']) or '-'}",
        f"Supply track (top first): {', '.join(t['supply_top_to_bottom']) or '-'}",
        f"Move/Deploy track (bottom first): {', '.join(t['move_deploy_bottom_to_top']) or '-'}",
    ]


def _displays(v: dict[str, Any], width: int) -> list[str]:
    e = v["evaluation"]
    lines = [f"Scoring this round: {e['a']}; {e['b_condition']}: {e['b_now']}"]
    rows = [f"{row['round']}: {row['a']} / {CONDITION_SHORT.get(row['b'], row['b'])} / "
            f"{row['c']}" for row in v["round_display"]]
    lines += wrap_items(rows, "Round display (round: A / B / King steps): ", "  ", width)
    priv = v["privilege_display"]
    vp = ", ".join(str(x) for x in reversed(priv["vp_stack_top_last"])) or "empty"
    lines.append(f"Privileges in play: {', '.join(f'#{n}' for n in priv['numbers'])}; "
                 f"VP stack (top first): {vp}")
    left = [f"#{n} x{k}" for n, k in priv["left"].items()]
    lines += wrap_items(left or ["none"], "Privileges left: ", "  ", width, sep=", ")
    lines.append(f"Chest stack: {v['chest_stack']}, discards: {v['discard_pile']}")
    return lines


def layout(v: dict[str, Any], width: int = WIDTH) -> str:
    """The view ``v`` as lines of at most ``width`` characters, the legend second."""
    lines = [f"The Staufer Dynasty - round {v['round']}",
             *wrap_items(LEGEND, "Legend: ", "  ", width, sep="; "), ""]
    for r in v["regions"]:
        lines += _region(r)
    lines.append("")
    board = [f"{s['space']}: {s['figures']} [{', '.join(s['chests']) or '-'}]"
             for s in v["supply_board"]]
    lines += wrap_items(board, "Supply Board (space: figures [chests]): ", "  ", width)
    lines += _tracks(v)
    lines.append("")
    name_width = max(len(who) for who in v["players"])
    for who, pv in v["players"].items():
        lines += _player(who, pv, name_width, width)
    lines.append("")
    lines += _displays(v, width)
    pending = v["pending"]
    if pending.get("revealed"):
        lines.append(f"Revealed chests: {', '.join(pending['revealed'])}")
    if v["events"]:
        lines += wrap_items(v["events"][-8:], "Recent: ", "  ", width)
    if "your_contracts" in v:
        lines.append("")
        lines.append("Your contracts:")
        lines += [f"  {c['text']}" for c in v["your_contracts"]]
    if v["finished"]:
        lines.append("Final scoring:")
        for player, parts in v["final_scoring"].items():
            items = ", ".join(f"{what} {points}" for what, points in parts.items())
            lines.append(f"  {player}: {items} = {sum(parts.values())}")
    return "\n".join(fit_all(lines, width))
