"""The Staufer Dynasty as an SVG picture, drawn from ``view(state, viewer)`` only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from referee.pictures.changes import NO_MARKS, Marks
from referee.pictures.svg import (
    MUTED,
    Canvas,
    Pieces,
    change_note,
    fit,
    fitted,
    player_fill,
    title_block,
)
from referee.pictures.tiles import PAD, Tile, Words, tile

from .render import CONDITION_SHORT
from .texts import N_, _, chest_text, english, figure_name, final_part

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .viewtypes import Figures, PendingView, RegionView, SeatView, View

WIDTH = 1200
PANEL_W, PANEL_H = 384, 236
COMPACT_H = 192  # a region board without its payment space (a mail's tile)
GAP = 14
TOP = 78
CHEST_FILL = {
    "orange": ("#f39c35", "#000000"),
    "turquoise": ("#3cc6c0", "#000000"),
    "brown": ("#8b5a2b", "#ffffff"),
    "purple": ("#7d3c98", "#ffffff"),
}
CHEST_SHORT = {"supplies": N_("suppl"), "free-move": N_("move"), "free-pay": N_("pay"),
               "first": N_("1st"), "envoy1": N_("env 1"), "envoy2": N_("env 2"),
               "envoy3": N_("env 3"), "vp2": N_("vp2"), "vp3": N_("vp3"), "vp4": N_("vp4"),
               "vp5": N_("vp5"), "noble": N_("noble"), "keep": N_("keep")}
KIND_NAME = {"E": "Envoy", "N": "Noble"}
#: ring position -> (column, row): the ring runs clockwise, top row left to right
RING_CELL = [(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)]


def draw(view: View, marks: Marks = NO_MARKS, since: int | None = None,
         pieces: Pieces | None = None) -> str:
    players = view["players"]
    colour = {p: pv["colour"] for p, pv in players.items()}
    final = view.get("final_scoring") or {}
    title = _("The Staufer Dynasty, round {round}").format(round=view["round"])
    who = (_(" as seen by {player}").format(player=view["you"]) if "you" in view
           else _(" (public view)"))
    c = Canvas(WIDTH, title + who, view["prompt"], pieces)
    _header(c, view, since, marks)
    for pos, region in enumerate(view["regions"]):
        col, row = RING_CELL[pos]
        x = GAP + col * (PANEL_W + GAP)
        y: float = TOP + row * (PANEL_H + GAP)
        pending = view.get("pending") or {}
        target = pending.get("seat") if pending.get("region") == region["region"] else None
        key = json.dumps(["region", pos, x, y, region, colour, marks.under("regions", pos),
                          marks.hit("king"), target])
        c.piece(key, lambda g, x=x, y=y, pos=pos, region=region, target=target:  # type: ignore[misc]
                _region(c, g, x, y, pos, region, colour, marks, target))
    _ring_arrows(c)
    y = TOP + 2 * (PANEL_H + GAP) + 6
    y = _middle(c, y, view, colour, marks)
    y = _players(c, y, view, marks)
    if "your_contracts" in view:
        y = _contracts(c, y, view)
    if final:
        y = _final(c, y, final)
    return c.finish(y + 10)


def _header(c: Canvas, view: View, since: int | None, marks: Marks) -> None:
    state = (_("final position") if view["finished"]
             else _("round {round} of 5").format(round=view["round"]))
    title_block(c, GAP, _("The Staufer Dynasty — {state}").format(state=state), view["prompt"])
    lx = WIDTH - 390
    envoy, noble = figure_name("Envoy"), figure_name("Noble")
    nx = 78 if english() else 34 + len(envoy) * 7  # after the Envoy's word
    c.figure(lx + 8, 22, "black", "E", "", _("an Envoy"))
    c.text(lx + 20, 26, envoy, size=11)
    c.figure(lx + nx, 22, "black", "N", "", _("a Noble"))
    c.text(lx + nx + 12, 26, noble, size=11)
    c.text(lx + 140 if english() else lx + nx + 26 + len(noble) * 7, 26,
           _("letter = player's initial"), size=11, fill=MUTED)
    change_note(c, lx, since, bool(marks))


def _region(c: Canvas, parent: Any, x: float, y: float, pos: int, r: RegionView,
            colour: dict[str, str], marks: Marks, target: int | None,
            compact: bool = False) -> None:
    """One region board; ``target`` is the seat a Move/Deploy action is filling now.
    ``compact`` (a mail's tile): without the bonus text, the King's distance and the
    payment space (the mail gives those in words)."""
    g = c.group(parent, title=_("Region {region}").format(region=r["title"]),
                id=f"region-{r['region']}")
    king = r["king"]
    panel(c, g, x, y, king, COMPACT_H if compact else PANEL_H)
    if marks.hit("regions", pos, "king") or marks.hit("king"):
        c.mark(x, y, PANEL_W, PANEL_H, g)
    c.text(x + 10, y + 22, r["title"], g, size=17, bold=True)
    tile = "/".join(str(v) for v in r["scoring_tile"])
    c.chip(x + 150, y + 8, 62, 20, "#e9e1c8", tile,
           title=_("scoring tile {tile} points").format(tile=tile), parent=g, size=12)
    if marks.hit("regions", pos, "scoring_tile"):
        c.mark(x + 150, y + 8, 62, 20, g)
    if king:
        _crown(c, x + PANEL_W - 70, y + 10, g)
        if english():
            c.text(x + PANEL_W - 40, y + 24, "King", g, size=13, bold=True)
        else:
            c.text(x + PANEL_W - 8, y + 24, _("King"), g, size=13, bold=True, anchor="end")
    elif not compact:
        c.text(x + PANEL_W - 10, y + 24,
               _("King +{steps}").format(steps=r["distance_from_king"]), g, size=11,
               anchor="end", fill=MUTED)
    if not compact:
        c.text(x + 10, y + 42, fit(_("Bonus: {bonus}").format(bonus=r["bonus"]),
                                   PANEL_W - 20, 11), g, size=11, fill=MUTED)
    seat_w = (PANEL_W - 20) / max(1, len(r["seats"]))
    for i, seat in enumerate(r["seats"]):
        _seat(c, x + 10 + i * seat_w, y + 50, seat_w - 6, pos, i, seat, colour, marks, g)
    if target is not None:
        tx = x + 10 + (target - 1) * seat_w
        c.rect(tx - 3, y + 47, seat_w, 142, g, fill="none", stroke="#1f5fbf", rx=5,
               **{"stroke-width": 2.5, "stroke-dasharray": "6 3"})
        c.text(tx + seat_w / 2 - 3, y + 200, fit(_("deploying here"), seat_w + 40, 10), g,
               size=10, bold=True, anchor="middle", fill="#1f5fbf")
    if not compact:
        _payment(c, x + 10, y + PANEL_H - 40, pos, r["payment"], colour, marks, g)


def panel(c: Canvas, parent: Any, x: float, y: float, king: bool,
          height: float = PANEL_H) -> None:
    """A region board's panel (gold while the King is there)."""
    c.rect(x, y, PANEL_W, height, parent, fill="#fffdf7" if not king else "#fff4cc",
           stroke="#b08d3c" if king else "#9a9a9a", rx=8,
           **{"stroke-width": 3 if king else 1.2})


def _crown(c: Canvas, x: float, y: float, parent: Any) -> None:
    c.polygon([(x, y + 16), (x, y + 2), (x + 6, y + 9), (x + 12, y), (x + 18, y + 9),
               (x + 24, y + 2), (x + 24, y + 16)], parent, fill="#e0b000", stroke="#6b5200")


def _seat(c: Canvas, x: float, y: float, w: float, pos: int, i: int, seat: SeatView,
          colour: dict[str, str], marks: Marks, parent: Any) -> None:
    h = 136
    noble = seat["noble_only"]
    g = parent
    c.rect(x, y, w, h, g, fill="#f1ead6" if noble else "#ffffff", stroke="#8c8c8c", rx=4)
    c.text(x + w / 2, y + 15, fit(_("cost {cost}").format(cost=seat["cost"]), w - 4, 11), g,
           size=11, bold=True, anchor="middle")
    c.text(x + w / 2, y + h - 5, fit(_("seat {seat}").format(seat=seat["seat"]), w - 4, 9), g,
           size=9, anchor="middle", fill=MUTED)
    if noble:
        c.text(x + w / 2, y + 29, fit(_("Noble only"), w - 4, 9), g, size=9, anchor="middle",
               fill="#7a5b00")
    for k, fig in enumerate(seat["figures"]):
        who, _sep, kind = fig.partition(":")
        c.figure(x + 14 + 20 * k, y + 46, colour.get(who, ""), kind, who[:1].upper(),
                 _("{player}'s {figure}").format(
                     player=who, figure=figure_name(KIND_NAME.get(kind, kind))), g)
    if marks.hit("regions", pos, "seats", i, "figures"):
        c.mark(x + 3, y + 34, w - 6, 24, g)
    for k, chest in enumerate(seat["chests"][:4]):
        _chest(c, x + 3, y + 64 + 17 * k, w - 6, chest, g)
    if marks.hit("regions", pos, "seats", i, "chests"):
        c.mark(x + 3, y + 64, w - 6, max(15, 17 * len(seat["chests"]) - 2), g)


def _chest(c: Canvas, x: float, y: float, w: float, chest: str, parent: Any) -> None:
    colour, _sep, kind = chest.partition(" ")
    fill, ink = CHEST_FILL.get(colour, ("#cccccc", "#000000"))
    label = (_(CHEST_SHORT[kind]) if kind in CHEST_SHORT else kind) if kind \
        else chest_text(colour)
    c.chip(x, y, w, 15, fill, fit(label, w - 2, 9.5), ink=ink,
           title=_("{chest} chest").format(chest=chest_text(chest)), parent=parent, size=9.5)


def _payment(c: Canvas, x: float, y: float, pos: int, payment: dict[str, Figures],
             colour: dict[str, str], marks: Marks, parent: Any) -> None:
    c.text(x, y + 20, _("Payment:"), parent, size=11, fill=MUTED)
    if marks.hit("regions", pos, "payment"):
        c.mark(x, y + 4, PANEL_W - 20, 24, parent)
    px = x + 64 if english() else x + 94
    if not payment:
        c.text(px, y + 20, _("empty"), parent, size=11, fill=MUTED)
    groups = [(who, kind, count) for who, counts in payment.items()
              for kind, count in (("E", counts["envoys"]), ("N", counts["nobles"])) if count]
    # 44 px a group (a figure and its count); two rows when one does not hold them all
    per_row = max(1, int((x + PANEL_W - 20 - px) // 44))
    rows = 1 if len(groups) <= per_row else 2
    per_row = max(per_row, -(-len(groups) // rows))
    for k, (who, kind, count) in enumerate(groups):
        gx = px + 44 * (k % per_row)
        gy = y if rows == 1 else y - 9 + 21 * (k // per_row)
        c.figure(gx + 8, gy + 16, colour.get(who, ""), kind, who[:1].upper(),
                 _("{count} {figure}(s) of {player} on the payment space").format(
                     count=count, figure=figure_name(KIND_NAME[kind]), player=who), parent)
        c.text(gx + 19, gy + 21, f"×{count}", parent, size=11)


def _ring_arrows(c: Canvas) -> None:
    """Small arrows between the panels: the ring order in which the King travels."""
    for pos in range(6):
        (c1, r1), (c2, r2) = RING_CELL[pos], RING_CELL[(pos + 1) % 6]
        x1 = GAP + c1 * (PANEL_W + GAP) + PANEL_W / 2
        y1 = TOP + r1 * (PANEL_H + GAP) + PANEL_H / 2
        x2 = GAP + c2 * (PANEL_W + GAP) + PANEL_W / 2
        y2 = TOP + r2 * (PANEL_H + GAP) + PANEL_H / 2
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        arrow = "→" if x2 > x1 else "←" if x2 < x1 else "↓" if y2 > y1 else "↑"
        c.text(mx, my + 6, arrow, size=18, bold=True, anchor="middle", fill="#b08d3c")


def _middle(c: Canvas, y: float, view: View, colour: dict[str, str],
            marks: Marks) -> float:
    """Supply Board, tracks, round display, privileges and stacks."""
    x = GAP
    supply(c, x, y, view, marks)
    tx = x + 5 * 78 + 20
    c.text(tx, y + 14, _("Tracks"), size=14, bold=True)
    tracks = view["tracks"]
    rows = [(_("Turns to come (next first)"), "turn_order", tracks["turn_order"]),
            (_("Supply track (top first)"), "supply_top_to_bottom",
             tracks["supply_top_to_bottom"]),
            (_("Move/Deploy (bottom first)"), "move_deploy_bottom_to_top",
             tracks["move_deploy_bottom_to_top"])]
    room = WIDTH - 310 - (tx + 165)
    for k, (label, key, who_list) in enumerate(rows):
        ry = y + 38 + 26 * k
        c.text(tx, ry, fit(label, 165, 11), size=11, fill=MUTED)
        step = min(44.0, room / max(1, len(who_list)))
        for j, who in enumerate(who_list):
            fill, ink = player_fill(colour.get(who, ""))
            c.chip(tx + 165 + step * j, ry - 13, step - 4, 18, fill,
                   fit(who, step - 6, 10), ink=ink, title=f"{label}: {j + 1}. {who}",
                   size=10)
        if not who_list:
            c.text(tx + 165, ry, _("empty"), size=11, fill=MUTED)
        if marks.hit("tracks", key):
            c.mark(tx + 163, ry - 15, step * max(1, len(who_list)), 22)
    ev = view["evaluation"]
    c.text(tx, y + 124, fit(_("Scored this round: {a} and {condition} (now {b})").format(
        a=_title(view, ev["a"]), condition=ev["b_condition"], b=_title(view, ev["b_now"])),
        760, 12), size=12)
    rx = WIDTH - 300
    c.text(rx, y + 14, _("Round display"), size=14, bold=True)
    for k, row in enumerate(view["round_display"]):
        b = row["b"].replace("-", " ") if english() else (
            _(CONDITION_SHORT[row["b"]]) if row["b"] in CONDITION_SHORT else row["b"])
        text = _("round {round}: {a}, {b}, {c}").format(round=row["round"],
                                                        a=_title(view, row["a"]), b=b,
                                                        c=row["c"])
        now = row["round"] == view["round"]
        fitted(c, rx, y + 34 + 16 * k, text, 262 if now else 290, size=11.0,
               bold=now)  # smaller before cut
    priv = view["privilege_display"]
    left = ", ".join(f"#{num} ×{k}" for num, k in priv["left"].items()) or _("none")
    vp = ", ".join(str(v) for v in reversed(priv["vp_stack_top_last"])) or _("empty")
    py = y + 146
    c.text(x, py, fit(_("Privileges in play: {numbers}   ·   left: {left}   ·   VP privileges "
                        "(top first): {stack}").format(
        numbers=", ".join(f"#{num}" for num in priv["numbers"]), left=left, stack=vp),
        WIDTH - 2 * GAP, 12), size=12)
    if marks.hit("privilege_display"):
        c.mark(x, py - 13, WIDTH - 2 * GAP, 18)
    c.text(x, py + 22, _("Chest stack: {stack}   ·   discard pile: {discards}").format(
        stack=view["chest_stack"], discards=view["discard_pile"]), size=12)
    return _revealed(c, py + 44, view.get("pending") or {})


def supply(c: Canvas, x: float, y: float, view: View, marks: Marks) -> None:
    """The Supply Board: five spaces with their figures and chests, 384 x 114 px."""
    c.text(x, y + 14, _("Supply Board"), size=14, bold=True)
    for i, space in enumerate(view["supply_board"]):
        sx = x + i * 78
        g = c.group(title=_("Supply Board space {space}: {figures}").format(
            space=space["space"], figures=space["figures"]))
        c.rect(sx, y + 22, 72, 92, g, fill="#ffffff", stroke="#8c8c8c", rx=4)
        c.text(sx + 5, y + 37, f"{space['space']}: {space['figures']}", g, size=12, bold=True)
        for k, chest in enumerate(space["chests"][:4]):
            _chest(c, sx + 4, y + 44 + 17 * k, 64, chest, g)
        if marks.hit("supply_board", i):
            c.mark(sx, y + 22, 72, 92, g)


def _revealed(c: Canvas, y: float, pending: PendingView) -> float:
    """The chests revealed for a region's bonus, while players pick from them."""
    revealed = pending.get("revealed") or []
    if not revealed:
        return y
    pickers = ", ".join(pending.get("pickers", [])) or "-"
    c.text(GAP, y + 4, fit(_("Revealed chests (picking in this order: {players}):").format(
        players=pickers), 390, 12), size=12, bold=True)
    for k, chest in enumerate(revealed[:12]):
        _chest(c, GAP + 400 + 78 * k, y - 8, 72, chest, None)
    return y + 34


def _title(view: View, key: str) -> str:
    for r in view["regions"]:
        if r["region"] == key:
            return str(r["title"])
    return key.capitalize()


def _players(c: Canvas, y: float, view: View, marks: Marks) -> float:
    heads = [(N_("player"), 0, 128), (N_("points"), 130, 68), (N_("Court"), 200, 88),
             (N_("Province"), 290, 98), (N_("privileges"), 390, 128),
             (N_("contracts"), 520, 78), (N_("chests"), 600, 200)]
    for label, dx, room in heads:
        c.text(GAP + dx, y, fit(_(label), room, 12), size=12, bold=True)
    c.line(GAP, y + 6, WIDTH - GAP, y + 6, stroke="#9a9a9a")
    to_move = set(view.get("to_move", []))
    for i, (who, pv) in enumerate(view["players"].items()):
        ry = y + 28 + 30 * i
        g = c.group(title=_("{player}: {points} points").format(player=who,
                                                                 points=pv["score"]),
                    id=f"player-{who}")
        fill, _ink = player_fill(pv["colour"])
        c.rect(GAP, ry - 15, 20, 20, g, fill=fill, stroke="#000000", rx=3)
        name = who + (_(" ◀ to move") if who in to_move else "")
        c.text(GAP + 26, ry, fit(name, 104, 12), g, size=12, bold=who in to_move)
        c.text(GAP + 130, ry, str(pv["score"]), g, size=13, bold=True)
        court, prov = pv["court"], pv["province"]
        c.text(GAP + 200, ry, f"{court['envoys']} E, {court['nobles']} N", g, size=12)
        c.text(GAP + 290, ry, f"{prov['envoys']} E, {prov['nobles']} N", g, size=12)
        privs = ", ".join(f"#{p}" for p in pv["privileges"]) or "-"
        if pv.get("vp_privilege"):
            privs += _(" (VP {points})").format(points=pv["vp_privilege"])
        c.text(GAP + 390, ry, fit(privs, 125, 12), g, size=12)
        c.text(GAP + 520, ry, str(pv["contracts"]), g, size=12)
        for k, chest in enumerate(pv["chests"][:11]):
            _chest(c, GAP + 600 + 52 * k, ry - 13, 48, chest, g)
        if len(pv["chests"]) > 11:
            c.text(WIDTH - GAP, ry, f"+{len(pv['chests']) - 11}", g, size=11, anchor="end")
        for key, dx, w in (("score", 128, 50), ("court", 198, 80), ("province", 288, 90),
                           ("privileges", 388, 125), ("chests", 598, WIDTH - 600 - 2 * GAP)):
            if marks.hit("players", who, key):
                c.mark(GAP + dx, ry - 15, w, 20, g)
    return y + 28 + 30 * len(view["players"]) + 8


def _contracts(c: Canvas, y: float, view: View) -> float:
    c.text(GAP, y + 12, _("{player}'s contracts (secret)").format(player=view["you"]),
           size=14, bold=True)
    for i, contract in enumerate(view["your_contracts"]):
        c.text(GAP + 10, y + 36 + 26 * i, fit(f"{contract['text']}   ({contract['id']})",
                                              WIDTH - 40, 12), size=12)
    return y + 40 + 26 * len(view["your_contracts"])


def _final(c: Canvas, y: float, final: dict[str, dict[str, int]]) -> float:
    c.text(GAP, y + 14, _("Final scoring"), size=14, bold=True)
    for i, (who, parts) in enumerate(final.items()):
        items = ", ".join(f"{final_part(what)} {points}" for what, points in parts.items())
        c.text(GAP + 10, y + 38 + 24 * i, fit(f"{who}: {items} = {sum(parts.values())}",
                                              WIDTH - 40, 12), size=12)
    return y + 44 + 24 * len(final)


# --- the board cut into tiles for mails (referee.pictures.tiles) ----------------------------


def tiles(view: View) -> list[Tile]:
    """The tiles of a mail's board: each region (its payment space a tile of words
    under it) and the Supply Board."""
    colour = {p: pv["colour"] for p, pv in view["players"].items()}
    out = []
    for pos, region in enumerate(view["regions"]):

        def draw(c: Canvas, pos: int = pos, region: RegionView = region) -> None:
            _region(c, c.root, PAD, PAD, pos, region, colour, NO_MARKS, None, compact=True)

        title = _("Region {region}").format(region=region["title"]) + (
            _(" (the King is here)") if region["king"] else "")
        shown = {k: v for k, v in region.items()
                 if k not in ("distance_from_king", "bonus", "payment")}
        out.append(tile(f"region-{region['region']}", title, PANEL_W, COMPACT_H, draw,
                        [pos, shown, colour]))
        out.append(Tile(f"payment-{region['region']}",
                        _("{region}: payment space").format(region=region["title"]),
                        "", 0, 0, below=True, words=_payment_words(region, view)))
    out.append(tile("supply", _("The Supply Board"), 5 * 78 - 6, 114,
                    lambda c: supply(c, PAD, PAD, view, NO_MARKS),
                    [view["supply_board"]]))
    return out


def _payment_words(region: RegionView, view: View) -> tuple[Words, ...]:
    """A region's payment space in words: each player's figures there, with the fill
    of their colour (a tile without a picture: it changes with most seats taken)."""
    fills = {p: player_fill(pv["colour"])[0] for p, pv in view["players"].items()}
    found = tuple((fills.get(who, "#888888"), f"{who} {n['envoys']} E, {n['nobles']} N")
                  for who, n in region["payment"].items() if n["envoys"] or n["nobles"])
    return found or (("", _("empty")),)
