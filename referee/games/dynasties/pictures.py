"""Dynasties as an SVG picture, drawn from ``view(state, viewer)`` only."""

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
from referee.pictures.tiles import PAD, Tile, tile

from .words import N_, _, figure, name, symbol

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .state import CountryScoring
    from .viewtypes import CityView, ShipView, TabletView, View, YouView

WIDTH = 1200
GAP = 14
TOP = 78
CITY_H = 62
GOOD_FILL = {"k": ("#1e1e1e", "#ffffff", N_("black")), "w": ("#ffffff", "#000000", N_("white")),
             "g": ("#e8c21a", "#000000", N_("gold")),
             "b": ("#8ecdf0", "#000000", N_("light blue")),
             "p": ("#f2a1c4", "#000000", N_("pink"))}
SYMBOL_MARK = {"crown": "♛", "points": "★", "anchor": "⚓", "book": "▤"}
PERSONALITY_H = 62  # a personality's box: name, cost in up to 2 lines, "used"
HEADS = ((N_("player"), 0), (N_("points"), 130), (N_("goods"), 190), (N_("figures left"), 400),
         (N_("cards"), 490), (N_("scoring"), 545), (N_("book tiles"), 610),
         (N_("coats of arms"), 790), (N_("track order"), 1090))


def country_names() -> dict[str, str]:
    """Display names of the countries in the reader's language (static component data,
    not game state)."""
    from referee.games.dynasties import GAME

    return {k: name(v) for k, v in GAME.data.country_names.items()}


def _symbol_text(key: str) -> str:
    return f"{SYMBOL_MARK[key]} {symbol(key)}" if key in SYMBOL_MARK else key


def draw(view: View, marks: Marks = NO_MARKS, since: int | None = None,
         pieces: Pieces | None = None) -> str:
    colour = {p["id"]: p["colour"] for p in view["players"]}
    countries = _by_country(view["cities"])
    rows = max(len(cities) for cities in countries.values())
    you = view.get("you")
    cities_h = 56 + rows * (CITY_H + 6)
    title = (_("Dynasties, round {n} as seen by {player}").format(n=view["round"],
                                                                    player=you["player"])
             if you else _("Dynasties, round {n} (public view)").format(n=view["round"]))
    c = Canvas(WIDTH, title, view["prompt"], pieces)
    _header(c, view, since, marks)
    _countries(c, TOP, view, countries, colour, marks)
    y = _middle(c, TOP + cities_h + 10, view, colour, marks)
    y = _players(c, y, view, marks)
    if you is not None:
        y = _you(c, y, you)
    if view.get("final_scoring"):
        y = _final(c, y, view["final_scoring"])
    return c.finish(y + 10)


def _by_country(cities: list[CityView]) -> dict[str, list[tuple[int, CityView]]]:
    out: dict[str, list[tuple[int, CityView]]] = {}
    for i, city in enumerate(cities):
        out.setdefault(city["country"], []).append((i, city))
    return out


def _header(c: Canvas, view: View, since: int | None, marks: Marks) -> None:
    state = _("final position") if view["phase"] == "over" else _("round {n}").format(
        n=view["round"])
    title_block(c, GAP, _("Dynasties — {state}").format(state=state), view["prompt"])
    lx = WIDTH - 400
    c.figure(lx + 8, 22, "black", "N", "", _("a Prince"))
    c.text(lx + 20, 26, figure("prince"), size=11)
    c.figure(lx + 82, 22, "black", "E", "", _("a Princess"))
    c.text(lx + 94, 26, figure("princess"), size=11)
    c.text(lx + 160, 26, _("★ child   letter = player's initial"), size=11, fill=MUTED)
    change_note(c, lx, since, bool(marks))


def _countries(c: Canvas, y: float, view: View,
               countries: dict[str, list[tuple[int, CityView]]],
               colour: dict[str, str], marks: Marks) -> None:
    col_w = (WIDTH - GAP * (len(countries) + 1)) / max(1, len(countries))
    for k, (country, cities) in enumerate(countries.items()):
        x = GAP + k * (col_w + GAP)
        tab = view["tablets"].get(country)
        arms = view["coats_of_arms_left"].get(country, 0)
        changed = [marks.under("tablets", country), marks.under("coats_of_arms_left", country),
                   [marks.under("cities", i) for i, _ in cities]]
        key = json.dumps(["country", x, y, col_w, country, cities, tab, arms,
                          colour, changed])
        c.piece(key, lambda g, x=x, country=country, cities=cities, tab=tab, arms=arms:  # type: ignore[misc]
                _country(c, g, x, y, col_w, country, cities, tab, arms, colour, marks))


def _country(c: Canvas, parent: Any, x: float, y: float, col_w: float, country: str,
             cities: list[tuple[int, CityView]], tab: TabletView | None, arms: int,
             colour: dict[str, str], marks: Marks) -> None:
    country_header(c, parent, x, y, col_w, country, tab, arms, marks)
    for row, (i, city) in enumerate(cities):
        _city(c, parent, x, y + 56 + row * (CITY_H + 6), col_w, i, city, colour, marks)


def country_header(c: Canvas, parent: Any, x: float, y: float, col_w: float, country: str,
                   tab: TabletView | None, arms: int, marks: Marks) -> None:
    """A country's name, majority tablet and coats of arms left (52 px high)."""
    name = country_names().get(country, country.capitalize())
    g = c.group(parent, title=_("country {name}").format(name=name))
    fitted(c, x, y + 16, name, col_w, g, size=15, bold=True)
    values = ("?", "?", "?") if tab is None else (tab["first"], tab["second"], tab["crown"])
    fitted(c, x, y + 34, _("majority 1st {first} · 2nd {second} · crown {crown}").format(
        first=values[0], second=values[1], crown=values[2]), col_w, g, size=11, fill=MUTED)
    fitted(c, x, y + 48, _("coats of arms left: {n}").format(n=arms), col_w, g, size=11,
           fill=MUTED)
    if marks.hit("tablets", country) or marks.hit("coats_of_arms_left", country):
        c.mark(x, y + 22, col_w, 30, g)


def city(c: Canvas, x: float, y: float, w: float, city: CityView,
         colour: dict[str, str]) -> None:
    """One city with its Prince's and Princess's spaces and child (a mail's tile)."""
    _city(c, c.root, x, y, w, 0, city, colour, NO_MARKS)


def _city(c: Canvas, parent: Any, x: float, y: float, w: float, i: int,
          city: CityView, colour: dict[str, str], marks: Marks) -> None:
    g = c.group(parent, title=f"{city['name']} ({city['symbol']})", id=f"city-{city['city']}")
    c.rect(x, y, w, CITY_H, g, fill="#ffffff", stroke="#9a9a9a", rx=5)
    mark = _symbol_text(city["symbol"])
    c.text(x + w - 6, y + 16, mark, g, size=11, anchor="end", fill=MUTED)
    fitted(c, x + 6, y + 16, city["name"], w - 24 - len(mark) * 11 * 0.56, g, size=13,
           bold=True)
    spaces = (("prince", "N", city["prince"]), ("princess", "E", city["princess"]))
    for k, (role, kind, slot) in enumerate(spaces):
        sx = x + 6 + k * (w / 2 - 10)
        large = city["large"] == role
        label = f"{figure(role)} {slot['cost']}" + (_(" (large)") if large else "")
        fitted(c, sx, y + 38, label, w / 2 - 14, g, size=10.5, bold=large)
        holder = slot["player"]
        if holder != "-":
            c.figure(sx + 10, y + 50, colour.get(holder, ""), kind, holder[:1].upper(),
                     _("{player}'s {figure} in {city}").format(
                         player=holder, figure=figure(role), city=city["name"]), g)
            c.text(sx + 22, y + 54, fit(holder, w / 2 - 60, 10), g, size=10)
        if marks.hit("cities", i, role):
            c.mark(sx - 2, y + 26, w / 2 - 14, 34, g)
    if city["child"] != "-":
        fill, ink = player_fill(colour.get(city["child"], ""))
        star = c.group(g, title=_("{player}'s child in {city}").format(player=city["child"],
                                                                        city=city["name"]))
        cx, cy = x + w - 16, y + 46
        pts = [(cx + r * dx, cy + r * dy)
               for (dx, dy), r in zip(_STAR, (10, 4.5) * 5, strict=True)]
        c.polygon(pts, star, fill=fill, stroke="#000000")
        c.text(cx, cy + 3.5, city["child"][:1].upper(), star, size=8, bold=True,
               anchor="middle", fill=ink)
    if marks.hit("cities", i, "child"):
        c.mark(x + w - 30, y + 34, 26, 24, g)
    if city["symbol"] == "book":
        c.text(x + w - 32, y + 54, _("{n} tiles").format(n=city["book_tiles"]), g, size=9,
               anchor="end", fill=MUTED)


_STAR = [(0.0, -1.0), (0.588, -0.809), (0.951, -0.309), (0.951, 0.309), (0.588, 0.809),
         (0.0, 1.0), (-0.588, 0.809), (-0.951, 0.309), (-0.951, -0.309), (-0.588, -0.809)]


def _goods(c: Canvas, x: float, y: float, letters: str, parent: Any = None,
           size: float = 16, gap: float = 2) -> float:
    """Goods as coloured squares with their letter, in a group whose title counts them
    in words; returns the x after the last one."""
    counts = [f"{letters.count(k)} {_(GOOD_FILL[k][2])}" for k in GOOD_FILL if k in letters]
    g = c.group(parent, title=_("goods: {goods}").format(goods=", ".join(counts) or _("none")))
    for k, letter in enumerate(letters):
        fill, ink, _word = GOOD_FILL.get(letter, ("#cccccc", "#000000", letter))
        c.chip(x + k * (size + gap), y, size, size, fill, letter, ink=ink, parent=g,
               size=size * 0.62)
    return x + len(letters) * (size + gap)


def _goods_row(c: Canvas, x: float, y: float, letters: str, parent: Any) -> None:
    """A player's goods in 200 px: one square each, or with more than 11 one square per
    colour and its count."""
    if len(letters) <= 11:
        _goods(c, x, y, letters, parent, size=16, gap=1.5)
        return
    counts = [(k, letters.count(k)) for k in GOOD_FILL if k in letters]
    g = c.group(parent, title=_("goods: {goods}").format(
        goods=", ".join(f"{n} {_(GOOD_FILL[k][2])}" for k, n in counts)))
    for i, (k, n) in enumerate(counts):
        fill, ink, _word = GOOD_FILL[k]
        c.chip(x + 41 * i, y, 16, 16, fill, k, ink=ink, parent=g, size=9.9)
        c.text(x + 41 * i + 18, y + 12, f"×{n}", g, size=11)


def _middle(c: Canvas, y: float, view: View, colour: dict[str, str],
            marks: Marks) -> float:
    ships(c, GAP, y, view, marks)
    py = y + 110
    c.text(GAP, py, _("Personalities"), size=14, bold=True)
    pw = (WIDTH - 2 * GAP) / max(1, len(view["personalities"]))
    for k, p in enumerate(view["personalities"]):
        px = GAP + k * pw
        g = c.group(title=f"{p['name']}: {p['cost']}" + (_(", used") if p["used"] else ""))
        c.rect(px, py + 8, pw - 6, PERSONALITY_H, g,
               fill="#e5e5e5" if p["used"] else "#fff8e8", stroke="#9a9a9a", rx=4)
        fitted(c, px + 5, py + 24, p["name"], pw - 16, g, size=11, bold=True)
        fitted(c, px + 5, py + 38, p["cost"], pw - 16, g, size=10, lines=2, fill=MUTED)
        if p["used"]:
            c.text(px + 5, py + 62, _("used"), g, size=10, bold=True)
        if marks.hit("personalities", k):
            c.mark(px, py + 8, pw - 6, PERSONALITY_H, g)
    leo = view["leonardo"]
    ty = py + PERSONALITY_H + 34
    c.text(GAP, ty, _("Passing track"), size=14, bold=True)
    tx = GAP + 120
    for k, space in enumerate(view["passing_track"]):
        if space["space"] == "long":
            who = ", ".join(space["players"]) or "-"
            fitted(c, tx, ty, _("long space: {players}").format(players=who), WIDTH - GAP - tx)
        else:
            who = space["player"]
            label = _("{space} ({n} pink)").format(space=space["space"], n=space["cost_pink"])
            fill, ink = player_fill(colour.get(who, "")) if who != "-" else ("#ffffff", "#000")
            c.chip(tx, ty - 14, 120, 20, fill, f"{label}: {who}", ink=ink, size=10.5)
            tx += 126
        if marks.hit("passing_track", k):
            c.mark(tx - 126 if space["space"] != "long" else tx, ty - 14, 120, 20)
    by = ty + 28
    bonus = "; ".join(f"{k}: {', '.join(v) or '-'}" for k, v in view["bonus_spaces"].items())
    fitted(c, GAP, by, _("Bonus actions — {spaces}").format(spaces=bonus), WIDTH - 2 * GAP)
    if marks.hit("bonus_spaces"):
        c.mark(GAP, by - 13, WIDTH - 2 * GAP, 18)
    free = ", ".join(f"{k}: {v}" for k, v in view["free_cities"].items())
    dice = " ".join(view["dice"]) or "-"
    fitted(c, GAP, by + 22, _(
        "Free cities — {free}   ·   Leonardo: {leonardo}   ·   dice: {dice}   ·   "
        "neutral figures left: {neutral}").format(
            free=free, leonardo=leo, dice=dice, neutral=view["neutral_figures_left"]),
        WIDTH - 2 * GAP)
    fitted(c, GAP, by + 44, _(
        "Action deck: {deck}   ·   discards: {discards}   ·   yellow scoring deck: "
        "{yellow}   ·   bag: {bag} goods   ·   free book tiles: {books}   ·   starting "
        "player: {start}").format(
            deck=view["action_deck"], discards=len(view["action_discard"]),
            yellow=view["yellow_deck"], bag=view["bag"], books=view["free_book_city_tiles"],
            start=view["starting_player"]), WIDTH - 2 * GAP)
    return by + 72


SHIP_W, SHIP_H = 220, 66  # one ship's box


def ships(c: Canvas, x: float, y: float, view: View, marks: Marks) -> None:
    """The ships with their goods and taken spaces, 230 px a ship, 88 px high."""
    c.text(x, y + 14, _("Ships"), size=14, bold=True)
    for s, place in enumerate(view["ships"]):
        ship(c, x + s * 230, y + 22, place, marks.hit("ships", s))


def ship(c: Canvas, x: float, y: float, place: ShipView, marked: bool = False) -> None:
    """One ship's box (SHIP_W by SHIP_H from (x, y)): its goods and taken spaces."""
    g = c.group(title=_("ship {n}").format(n=place["ship"]))
    c.rect(x, y, SHIP_W, SHIP_H, g, fill="#eef5fb", stroke="#6d8ba3", rx=6)
    fitted(c, x + 8, y + 18, _("Ship {n}").format(n=place["ship"]), 58, g, size=13,
           bold=True)
    _goods(c, x + 70, y + 5, place["goods"] or "", g)
    if not place["goods"]:
        c.text(x + 70, y + 18, _("no goods"), g, size=11, fill=MUTED)
    spaces = _("large space: {large}   small: {small}").format(large=place["large"],
                                                               small=place["small"])
    fitted(c, x + 8, y + 54, spaces, 204, g, size=11)
    if marked:
        c.mark(x, y, SHIP_W, SHIP_H, g)


def _players(c: Canvas, y: float, view: View, marks: Marks) -> float:
    for k, (label, dx) in enumerate(HEADS):
        end = HEADS[k + 1][1] if k + 1 < len(HEADS) else WIDTH - 2 * GAP
        fitted(c, GAP + dx, y, _(label), end - dx - 6, bold=True)
    c.line(GAP, y + 6, WIDTH - GAP, y + 6, stroke="#9a9a9a")
    names = country_names()
    waiting = view.get("pending")
    pending = waiting["player"] if waiting else None
    for i, p in enumerate(view["players"]):
        ry = y + 28 + 32 * i
        who = p["id"]
        g = c.group(title=_("{player}: {n} points").format(player=who, n=p["score"]),
                    id=f"player-{who}")
        fill, _ink = player_fill(p["colour"])
        c.rect(GAP, ry - 15, 20, 20, g, fill=fill, stroke="#000000", rx=3)
        mark = _(" ◀ to move") if who == pending else (_(" (passed)") if p["passed"] else "")
        fitted(c, GAP + 26, ry, who + mark, 100, g, bold=who == pending)
        c.text(GAP + 130, ry, str(p["score"]), g, size=13, bold=True)
        _goods_row(c, GAP + 190, ry - 14, p["goods"], g)
        c.text(GAP + 400, ry, str(p["supply"]), g, size=12)
        c.text(GAP + 490, ry, str(p["action_cards"]), g, size=12)
        c.text(GAP + 545, ry, str(p["scoring_cards"]), g, size=12)
        opened = ", ".join(p["book_tiles_open_names"])
        books = _("{n} hidden").format(n=p["book_tiles_face_down"]) + (
            _(", open: {tiles}").format(tiles=opened) if opened else "")
        fitted(c, GAP + 610, ry, books, 174, g, size=11, lines=2, centre=True)
        arms = ", ".join(f"{names.get(k, k)} {n}" for k, n in p["coats_of_arms"].items())
        fitted(c, GAP + 790, ry, arms or "-", 294, g, size=11, lines=2, centre=True)
        pos = p["track_position"]
        c.text(GAP + 1090, ry, "-" if pos is None else f"{pos}.", g, size=12)
        for key, dx, w in (("score", 128, 50), ("goods", 188, 206), ("coats_of_arms", 788, 298),
                           ("book_tiles_open", 608, 178)):
            if marks.hit("players", i, key):
                c.mark(GAP + dx, ry - 16, w, 22, g)
    return y + 28 + 32 * len(view["players"]) + 6


def _you(c: Canvas, y: float, you: YouView) -> float:
    c.text(GAP, y + 14, _("{player}'s hand and secret cards").format(player=you["player"]),
           size=14, bold=True)
    ly = y + 36
    sections = [(_("Action cards"), you["hand"], True),
                (_("Scoring cards"), you["scoring_cards"], True),
                (_("Drawn, keep one"), you["drawn_scoring_cards"], False)]
    for label, items, always in sections:
        if not items and not always:
            continue
        fitted(c, GAP, ly, label + ":", 124, bold=True)
        if not items:
            c.text(GAP + 130, ly, _("none"), size=12, fill=MUTED)
            ly += 18
        for item in items:
            ly += 15 * fitted(c, GAP + 130, ly, item.strip(), WIDTH - 160, lines=2) + 3
    fitted(c, GAP, ly, _("Book tiles:"), 124, bold=True)
    fitted(c, GAP + 130, ly, ", ".join(you["book_tiles"]) or _("none"), WIDTH - 160)
    return ly + 24


def _final(c: Canvas, y: float, final: dict[str, CountryScoring]) -> float:
    names = country_names()
    c.text(GAP, y + 14, _("Final scoring (majorities per country)"), size=14, bold=True)
    for i, (country, parts) in enumerate(final.items()):
        majority = ", ".join(f"{p} {v}" for p, v in parts.get("majority", {}).items()) or "-"
        crown = ", ".join(f"{p} {v}" for p, v in parts.get("crown", {}).items()) or "-"
        fitted(c, GAP + 10, y + 36 + 22 * i, _("{country}: majority {majority}; crown {crown}"
                                             ).format(country=names.get(country, country),
                                                      majority=majority, crown=crown),
               WIDTH - 40)
    return y + 44 + 22 * len(final)


# --- the board cut into tiles for mails (referee.pictures.tiles) ----------------------------


def tiles(view: View) -> list[Tile]:
    """The tiles of a mail's board: each country's header with its cities under
    it, and the ships."""
    colour = {p["id"]: p["colour"] for p in view["players"]}
    col_w = 282.0
    out = []
    for country, cities in _by_country(view["cities"]).items():
        tab = view["tablets"].get(country)
        arms = view["coats_of_arms_left"].get(country, 0)

        def head(c: Canvas, country: str = country, tab: TabletView | None = tab,
                 arms: int = arms) -> None:
            country_header(c, c.root, PAD, PAD, col_w, country, tab, arms, NO_MARKS)

        name = country_names().get(country, country.capitalize())
        out.append(tile(f"country-{country}", _("Country {name}").format(name=name), col_w, 46,
                        head,
                        [country, tab, arms]))
        for _i, place in cities:

            def draw(c: Canvas, place: CityView = place) -> None:
                city(c, PAD, PAD, col_w, place, colour)

            out.append(tile(f"city-{place['city']}", f"{place['name']} ({name})", col_w,
                            CITY_H - 4, draw, [place, colour], below=True))
    # one tile a ship, so they wrap on a phone's screen ("ships-N": "ship-N" names a
    # book tile, which may be hidden)
    for on_board in view["ships"]:

        def boat(c: Canvas, place: ShipView = on_board) -> None:
            ship(c, PAD, PAD, place)

        out.append(tile(f"ships-{on_board['ship']}", _("Ship {n}").format(n=on_board["ship"]),
                        SHIP_W, SHIP_H, boat, on_board, row="ships"))
    return out
