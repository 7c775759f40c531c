"""The board as text of at most a given width (80 columns for a terminal, 78 for a
mail, wider for `status --wide`), with a legend of its abbreviations.

Made from the view (views.view), so it shows exactly what the viewer may see. A wider
layout is the same board with fewer lines broken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.engine.textlayout import WIDTH, fit_all, wrap_items

from .texts import N_, _, chest_text, final_part, region_word

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .viewtypes import PlayerView, RegionView, View

LEGEND = [
    N_("[9/7/5] points for 1st/2nd/3rd most figures"),
    N_("7N! costs 7, Nobles only"),
    N_("ann:E/ann:N ann's Envoy/Noble"),
    N_("2E 1N 2 Envoys, 1 Noble"),
    N_("vp3 3 points"),
    N_("envoy2 2 Envoys"),
    N_("#5 privilege 5"),
    N_("x2 2 left"),
    N_("- none"),
]
CONDITION_SHORT = {"king": N_("King's Region"), "fewest-chests": N_("fewest chests"),
                   "most-seats": N_("most seats")}


def _names(items: list[str]) -> str:
    return ", ".join(items) or "-"


def _chests(items: list[str]) -> str:
    return _names([chest_text(c) for c in items])


def _region(r: RegionView) -> list[str]:
    king = _("  <KING>") if r["king"] else ""
    tile = "/".join(map(str, r["scoring_tile"]))
    lines = [_("{region} [{tile}] bonus: {bonus}{king}").format(
        region=r["title"], tile=tile, bonus=r["bonus"], king=king)]
    figs_width = max([len(_names(s["figures"])) for s in r["seats"]] + [5])
    for s in r["seats"]:
        mark = "N!" if s["noble_only"] else "  "
        figs = _names(s["figures"])
        lines.append(_("  seat {seat} {cost}{mark} {figures}  chests: {chests}").format(
            seat=s["seat"], cost=s["cost"], mark=mark, figures=f"{figs:<{figs_width}}",
            chests=_chests(s["chests"])).rstrip())
    pay = "; ".join(f"{w} {c['envoys']}E {c['nobles']}N" for w, c in r["payment"].items())
    lines.append(_("  payment space: {payment}").format(payment=pay or "-"))
    return lines


def _player(who: str, pv: PlayerView, name_width: int, width: int) -> list[str]:
    court = pv["court"]
    privileges = ", ".join(f"#{n}" for n in pv["privileges"]) or "-"
    head = _("{player} {score} pts  Court {envoys}E {nobles}N  privileges: {privileges}"
             ).format(player=f"{who:<{name_width}}", score=f"{pv['score']:>3}",
                      envoys=court["envoys"], nobles=court["nobles"], privileges=privileges)
    chests = _("chests: {chests}").format(chests=_chests(pv["chests"]))
    if len(head) + 2 + len(chests) <= width:
        return [f"{head}  {chests}"]
    return [head, f"{'':<{name_width}} {chests}"]


def _tracks(v: View) -> list[str]:
    t = v["tracks"]
    return [
        _("Seating (clockwise): {players}; start player {player}").format(
            players=", ".join(v["seating"]), player=v["start_player"]),
        _("Turn order: {players}").format(players=", ".join(t["turn_order"]) or "-"),
        _("Supply track (top first): {players}").format(
            players=", ".join(t["supply_top_to_bottom"]) or "-"),
        _("Move/Deploy track (bottom first): {players}").format(
            players=", ".join(t["move_deploy_bottom_to_top"]) or "-"),
    ]


def _displays(v: View, width: int) -> list[str]:
    e = v["evaluation"]
    titles = {r["region"]: r["title"] for r in v["regions"]}
    lines = [_("Scoring this round: {a}; {condition}: {b}").format(
        a=region_word(titles, e["a"]), condition=e["b_condition"],
        b=region_word(titles, e["b_now"]))]
    rows = [f"{row['round']}: {region_word(titles, row['a'])} / "
            f"{_(CONDITION_SHORT[row['b']]) if row['b'] in CONDITION_SHORT else row['b']} / "
            f"{row['c']}" for row in v["round_display"]]
    lines += wrap_items(rows, _("Round display (round: A / B / King steps): "), "  ", width)
    priv = v["privilege_display"]
    vp = ", ".join(str(x) for x in reversed(priv["vp_stack_top_last"])) or _("empty")
    lines.append(_("Privileges in play: {numbers}; VP stack (top first): {stack}").format(
        numbers=", ".join(f"#{n}" for n in priv["numbers"]), stack=vp))
    left = [f"#{n} x{k}" for n, k in priv["left"].items()]
    lines += wrap_items(left or [_("none")], _("Privileges left: "), "  ", width, sep=", ")
    lines.append(_("Chest stack: {stack}, discards: {discards}").format(
        stack=v["chest_stack"], discards=v["discard_pile"]))
    return lines


def layout(v: View, width: int = WIDTH) -> str:
    """The view ``v`` as lines of at most ``width`` characters, the legend second."""
    lines = [_("The Staufer Dynasty - round {round}").format(round=v["round"]),
             *wrap_items([_(item) for item in LEGEND], _("Legend: "), "  ", width, sep="; "),
             ""]
    for r in v["regions"]:
        lines += _region(r)
    lines.append("")
    board = [f"{s['space']}: {s['figures']} [{', '.join(map(chest_text, s['chests'])) or '-'}]"
             for s in v["supply_board"]]
    lines += wrap_items(board, _("Supply Board (space: figures [chests]): "), "  ", width)
    lines += _tracks(v)
    lines.append("")
    name_width = max(len(who) for who in v["players"])
    for who, pv in v["players"].items():
        lines += _player(who, pv, name_width, width)
    lines.append("")
    lines += _displays(v, width)
    pending = v["pending"]
    if pending.get("revealed"):
        lines.append(_("Revealed chests: {chests}").format(
            chests=", ".join(chest_text(c, notation=True) for c in pending["revealed"])))
    if v["events"]:
        lines += wrap_items(v["events"][-8:], _("Recent: "), "  ", width)
    if "your_contracts" in v:
        lines.append("")
        lines.append(_("Your contracts:"))
        lines += [f"  {c['text']}" for c in v["your_contracts"]]
    if v["finished"]:
        lines += ["", _("Final scoring:")]
        for player, parts in v["final_scoring"].items():
            items = ", ".join(f"{final_part(what)} {points}" for what, points in parts.items())
            lines.append(f"  {player}: {items} = {sum(parts.values())}")
    return "\n".join(fit_all(lines, width))
