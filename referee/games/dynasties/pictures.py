"""Dynasties as an SVG picture, drawn from ``view(state, viewer)`` only."""

from __future__ import annotations

import json
from typing import Any

from referee.pictures.changes import NO_MARKS, Marks
from referee.pictures.svg import (
    MUTED,
    Canvas,
    Pieces,
    change_note,
    fit,
    player_fill,
    title_block,
)
from referee.pictures.tiles import PAD, Tile, tile

WIDTH = 1200
GAP = 14
TOP = 78
CITY_H = 62
GOOD_FILL = {"k": ("#1e1e1e", "#ffffff", "black"), "w": ("#ffffff", "#000000", "white"),
             "g": ("#e8c21a", "#000000", "gold"), "b": ("#8ecdf0", "#000000", "light blue"),
             "p": ("#f2a1c4", "#000000", "pink")}
SYMBOL_TEXT = {"crown": "♛ crown", "points": "★ points", "anchor": "⚓ anchor",
               "book": "▤ book"}


def country_names() -> dict[str, str]:
    """Display names of the countries (static component data, not game state)."""
    from referee.games.dynasties import GAME

    return dict(GAME.data.country_names)


def draw(view: dict[str, Any], marks: Marks = NO_MARKS, since: int | None = None,
         pieces: Pieces | None = None) -> str:
    colour = {p["id"]: p["colour"] for p in view["players"]}
    countries = _by_country(view["cities"])
    rows = max(len(cities) for cities in countries.values())
    you = view.get("you")
    cities_h = 56 + rows * (CITY_H + 6)
    who = f" as seen by {you['player']}" if you else " (public view)"
    c = Canvas(WIDTH, f"Dynasties, round {view['round']}{who}", view["prompt"],
               pieces)
    _header(c, view, since, marks)
    _countries(c, TOP, view, countries, colour, marks)
    y = _middle(c, TOP + cities_h + 10, view, colour, marks)
    y = _players(c, y, view, marks)
    if you is not None:
        y = _you(c, y, you)
    if view.get("final_scoring"):
        y = _final(c, y, view["final_scoring"])
    return c.finish(y + 10)


def _by_country(cities: list[dict[str, Any]]) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    out: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for i, city in enumerate(cities):
        out.setdefault(city["country"], []).append((i, city))
    return out


def _header(c: Canvas, view: dict[str, Any], since: int | None, marks: Marks) -> None:
    state = "final position" if view["phase"] == "over" else f"round {view['round']}"
    title_block(c, GAP, f"Dynasties — {state}", view["prompt"])
    lx = WIDTH - 400
    c.figure(lx + 8, 22, "black", "N", "", "a Prince")
    c.text(lx + 20, 26, "Prince", size=11)
    c.figure(lx + 82, 22, "black", "E", "", "a Princess")
    c.text(lx + 94, 26, "Princess", size=11)
    c.text(lx + 160, 26, "★ child   letter = player's initial", size=11, fill=MUTED)
    change_note(c, lx, since, bool(marks))


def _countries(c: Canvas, y: float, view: dict[str, Any],
               countries: dict[str, list[tuple[int, dict[str, Any]]]],
               colour: dict[str, str], marks: Marks) -> None:
    col_w = (WIDTH - GAP * (len(countries) + 1)) / max(1, len(countries))
    for k, (country, cities) in enumerate(countries.items()):
        x = GAP + k * (col_w + GAP)
        tab = view["tablets"].get(country, {})
        arms = view["coats_of_arms_left"].get(country, 0)
        changed = [marks.under("tablets", country), marks.under("coats_of_arms_left", country),
                   [marks.under("cities", i) for i, _ in cities]]
        key = json.dumps(["country", x, y, col_w, country, cities, tab, arms, colour, changed])
        c.piece(key, lambda g, x=x, country=country, cities=cities, tab=tab, arms=arms:  # type: ignore[misc]
                _country(c, g, x, y, col_w, country, cities, tab, arms, colour, marks))


def _country(c: Canvas, parent: Any, x: float, y: float, col_w: float, country: str,
             cities: list[tuple[int, dict[str, Any]]], tab: dict[str, Any], arms: int,
             colour: dict[str, str], marks: Marks) -> None:
    country_header(c, parent, x, y, col_w, country, tab, arms, marks)
    for row, (i, city) in enumerate(cities):
        _city(c, parent, x, y + 56 + row * (CITY_H + 6), col_w, i, city, colour, marks)


def country_header(c: Canvas, parent: Any, x: float, y: float, col_w: float, country: str,
                   tab: dict[str, Any], arms: int, marks: Marks) -> None:
    """A country's name, majority tablet and coats of arms left (52 px high)."""
    name = country_names().get(country, country.capitalize())
    g = c.group(parent, title=f"country {name}")
    c.text(x, y + 16, fit(name, col_w, 15), g, size=15, bold=True)
    c.text(x, y + 34, f"majority 1st {tab.get('first', '?')} · 2nd {tab.get('second', '?')}"
           f" · crown {tab.get('crown', '?')}", g, size=11, fill=MUTED)
    c.text(x, y + 48, f"coats of arms left: {arms}", g, size=11, fill=MUTED)
    if marks.hit("tablets", country) or marks.hit("coats_of_arms_left", country):
        c.mark(x, y + 22, col_w, 30, g)


def city(c: Canvas, x: float, y: float, w: float, city: dict[str, Any],
         colour: dict[str, str]) -> None:
    """One city with its Prince's and Princess's spaces and child (a mail's tile)."""
    _city(c, c.root, x, y, w, 0, city, colour, NO_MARKS)


def _city(c: Canvas, parent: Any, x: float, y: float, w: float, i: int,
          city: dict[str, Any], colour: dict[str, str], marks: Marks) -> None:
    g = c.group(parent, title=f"{city['name']} ({city['symbol']})", id=f"city-{city['city']}")
    c.rect(x, y, w, CITY_H, g, fill="#ffffff", stroke="#9a9a9a", rx=5)
    c.text(x + 6, y + 16, city["name"], g, size=13, bold=True)
    c.text(x + w - 6, y + 16, SYMBOL_TEXT.get(city["symbol"], city["symbol"]), g, size=11,
           anchor="end", fill=MUTED)
    for k, (role, kind) in enumerate((("prince", "N"), ("princess", "E"))):
        sx = x + 6 + k * (w / 2 - 10)
        slot = city[role]
        large = city["large"] == role
        label = f"{'Prince' if role == 'prince' else 'Princess'} {slot['cost']}"
        c.text(sx, y + 38, label + (" (large)" if large else ""), g, size=10.5,
               bold=large)
        holder = slot["player"]
        if holder != "-":
            c.figure(sx + 10, y + 50, colour.get(holder, ""), kind, holder[:1].upper(),
                     f"{holder}'s {role.capitalize()} in {city['name']}", g)
            c.text(sx + 22, y + 54, fit(holder, w / 2 - 60, 10), g, size=10)
        if marks.hit("cities", i, role):
            c.mark(sx - 2, y + 26, w / 2 - 14, 34, g)
    if city["child"] != "-":
        fill, ink = player_fill(colour.get(city["child"], ""))
        star = c.group(g, title=f"{city['child']}'s child in {city['name']}")
        cx, cy = x + w - 16, y + 46
        pts = [(cx + r * dx, cy + r * dy)
               for (dx, dy), r in zip(_STAR, (10, 4.5) * 5, strict=True)]
        c.polygon(pts, star, fill=fill, stroke="#000000")
        c.text(cx, cy + 3.5, city["child"][:1].upper(), star, size=8, bold=True,
               anchor="middle", fill=ink)
    if marks.hit("cities", i, "child"):
        c.mark(x + w - 30, y + 34, 26, 24, g)
    if city["symbol"] == "book":
        c.text(x + w - 32, y + 54, f"{city['book_tiles']} tiles", g, size=9, anchor="end",
               fill=MUTED)


_STAR = [(0.0, -1.0), (0.588, -0.809), (0.951, -0.309), (0.951, 0.309), (0.588, 0.809),
         (0.0, 1.0), (-0.588, 0.809), (-0.951, 0.309), (-0.951, -0.309), (-0.588, -0.809)]


def _goods(c: Canvas, x: float, y: float, letters: str, parent: Any = None,
           size: float = 16, gap: float = 2) -> float:
    """Goods as coloured squares with their letter, in a group whose title counts them
    in words; returns the x after the last one."""
    counts = [f"{letters.count(k)} {GOOD_FILL[k][2]}" for k in GOOD_FILL if k in letters]
    g = c.group(parent, title="goods: " + (", ".join(counts) or "none"))
    for k, letter in enumerate(letters):
        fill, ink, _ = GOOD_FILL.get(letter, ("#cccccc", "#000000", letter))
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
    g = c.group(parent, title="goods: " + ", ".join(f"{n} {GOOD_FILL[k][2]}"
                                                   for k, n in counts))
    for i, (k, n) in enumerate(counts):
        fill, ink, _ = GOOD_FILL[k]
        c.chip(x + 41 * i, y, 16, 16, fill, k, ink=ink, parent=g, size=9.9)
        c.text(x + 41 * i + 18, y + 12, f"×{n}", g, size=11)


def _middle(c: Canvas, y: float, view: dict[str, Any], colour: dict[str, str],
            marks: Marks) -> float:
    ships(c, GAP, y, view, marks)
    py = y + 110
    c.text(GAP, py, "Personalities", size=14, bold=True)
    pw = (WIDTH - 2 * GAP) / max(1, len(view["personalities"]))
    for k, p in enumerate(view["personalities"]):
        px = GAP + k * pw
        g = c.group(title=f"{p['name']}: {p['cost']}" + (", used" if p["used"] else ""))
        c.rect(px, py + 8, pw - 6, 46, g, fill="#e5e5e5" if p["used"] else "#fff8e8",
               stroke="#9a9a9a", rx=4)
        c.text(px + 5, py + 24, fit(p["name"], pw - 14, 11), g, size=11, bold=True)
        c.text(px + 5, py + 38, fit(p["cost"], pw - 14, 10), g, size=10, fill=MUTED)
        if p["used"]:
            c.text(px + 5, py + 50, "used", g, size=10, bold=True)
        if marks.hit("personalities", k):
            c.mark(px, py + 8, pw - 6, 46, g)
    leo = view["leonardo"]
    ty = py + 80
    c.text(GAP, ty, "Passing track", size=14, bold=True)
    tx = GAP + 120
    for k, space in enumerate(view["passing_track"]):
        if space["space"] == "long":
            who = ", ".join(space["players"]) or "-"
            c.text(tx, ty, fit(f"long space: {who}", 300, 12), size=12)
        else:
            who = space["player"]
            label = f"{space['space']} ({space['cost_pink']} pink)"
            fill, ink = player_fill(colour.get(who, "")) if who != "-" else ("#ffffff", "#000")
            c.chip(tx, ty - 14, 120, 20, fill, f"{label}: {who}", ink=ink, size=10.5)
            tx += 126
        if marks.hit("passing_track", k):
            c.mark(tx - 126 if space["space"] != "long" else tx, ty - 14, 120, 20)
    by = ty + 28
    bonus = "; ".join(f"{k}: {', '.join(v) or '-'}" for k, v in view["bonus_spaces"].items())
    c.text(GAP, by, fit(f"Bonus actions — {bonus}", WIDTH - 2 * GAP, 12), size=12)
    if marks.hit("bonus_spaces"):
        c.mark(GAP, by - 13, WIDTH - 2 * GAP, 18)
    free = ", ".join(f"{k}: {v}" for k, v in view["free_cities"].items())
    dice = " ".join(view["dice"]) or "-"
    c.text(GAP, by + 22, fit(
        f"Free cities — {free}   ·   Leonardo: {leo}   ·   dice: {dice}   ·   "
        f"neutral figures left: {view['neutral_figures_left']}", WIDTH - 2 * GAP, 12), size=12)
    c.text(GAP, by + 44, f"Action deck: {view['action_deck']}   ·   discards: "
           f"{len(view['action_discard'])}   ·   yellow scoring deck: {view['yellow_deck']}   ·"
           f"   bag: {view['bag']} goods   ·   free book tiles: "
           f"{view['free_book_city_tiles']}   ·   starting player: {view['starting_player']}",
           size=12)
    return by + 72


def ships(c: Canvas, x: float, y: float, view: dict[str, Any], marks: Marks) -> None:
    """The ships with their goods and taken spaces, 230 px a ship, 88 px high."""
    c.text(x, y + 14, "Ships", size=14, bold=True)
    for s, ship in enumerate(view["ships"]):
        sx = x + s * 230
        g = c.group(title=f"ship {ship['ship']}")
        c.rect(sx, y + 22, 220, 66, g, fill="#eef5fb", stroke="#6d8ba3", rx=6)
        c.text(sx + 8, y + 40, f"Ship {ship['ship']}", g, size=13, bold=True)
        _goods(c, sx + 70, y + 27, ship["goods"] or "", g)
        if not ship["goods"]:
            c.text(sx + 70, y + 40, "no goods", g, size=11, fill=MUTED)
        spaces = f"large space: {ship['large']}   small: {ship['small']}"
        c.text(sx + 8, y + 76, fit(spaces, 204, 11), g, size=11)
        if marks.hit("ships", s):
            c.mark(sx, y + 22, 220, 66, g)


def _players(c: Canvas, y: float, view: dict[str, Any], marks: Marks) -> float:
    heads = [("player", 0), ("points", 130), ("goods", 190), ("figures left", 400),
             ("cards", 490), ("scoring", 545), ("book tiles", 610), ("coats of arms", 790),
             ("track order", 1090)]
    for label, dx in heads:
        c.text(GAP + dx, y, label, size=12, bold=True)
    c.line(GAP, y + 6, WIDTH - GAP, y + 6, stroke="#9a9a9a")
    names = country_names()
    pending = (view.get("pending") or {}).get("player")
    for i, p in enumerate(view["players"]):
        ry = y + 28 + 32 * i
        who = p["id"]
        g = c.group(title=f"{who}: {p['score']} points", id=f"player-{who}")
        fill, _ = player_fill(p["colour"])
        c.rect(GAP, ry - 15, 20, 20, g, fill=fill, stroke="#000000", rx=3)
        mark = " ◀ to move" if who == pending else (" (passed)" if p["passed"] else "")
        c.text(GAP + 26, ry, fit(who + mark, 104, 12), g, size=12, bold=who == pending)
        c.text(GAP + 130, ry, str(p["score"]), g, size=13, bold=True)
        _goods_row(c, GAP + 190, ry - 14, p["goods"], g)
        c.text(GAP + 400, ry, str(p["supply"]), g, size=12)
        c.text(GAP + 490, ry, str(p["action_cards"]), g, size=12)
        c.text(GAP + 545, ry, str(p["scoring_cards"]), g, size=12)
        opened = ", ".join(p["book_tiles_open"])
        books = f"{p['book_tiles_face_down']} hidden" + (f", open: {opened}" if opened else "")
        c.text(GAP + 610, ry, fit(books, 176, 11), g, size=11)
        arms = ", ".join(f"{names.get(k, k)} {n}" for k, n in p["coats_of_arms"].items())
        c.text(GAP + 790, ry, fit(arms or "-", 296, 11), g, size=11)
        pos = p["track_position"]
        c.text(GAP + 1090, ry, "-" if pos is None else f"{pos}.", g, size=12)
        for key, dx, w in (("score", 128, 50), ("goods", 188, 206), ("coats_of_arms", 788, 298),
                           ("book_tiles_open", 608, 178)):
            if marks.hit("players", i, key):
                c.mark(GAP + dx, ry - 16, w, 22, g)
    return y + 28 + 32 * len(view["players"]) + 6


def _you(c: Canvas, y: float, you: dict[str, Any]) -> float:
    c.text(GAP, y + 14, f"{you['player']}'s hand and secret cards", size=14, bold=True)
    ly = y + 36
    sections = [("Action cards", you["hand"]), ("Scoring cards", you["scoring_cards"]),
                ("Drawn, keep one", you["drawn_scoring_cards"])]
    for label, items in sections:
        if not items and label.startswith("Drawn"):
            continue
        c.text(GAP, ly, label + ":", size=12, bold=True)
        if not items:
            c.text(GAP + 130, ly, "none", size=12, fill=MUTED)
            ly += 18
        for item in items:
            c.text(GAP + 130, ly, fit(item.strip(), WIDTH - 160, 12), size=12)
            ly += 18
    c.text(GAP, ly, "Book tiles:", size=12, bold=True)
    c.text(GAP + 130, ly, ", ".join(you["book_tiles"]) or "none", size=12)
    return ly + 24


def _final(c: Canvas, y: float, final: dict[str, Any]) -> float:
    names = country_names()
    c.text(GAP, y + 14, "Final scoring (majorities per country)", size=14, bold=True)
    for i, (country, parts) in enumerate(final.items()):
        majority = ", ".join(f"{p} {v}" for p, v in parts.get("majority", {}).items()) or "-"
        crown = ", ".join(f"{p} {v}" for p, v in parts.get("crown", {}).items()) or "-"
        c.text(GAP + 10, y + 36 + 22 * i, fit(
            f"{names.get(country, country)}: majority {majority}; crown {crown}",
            WIDTH - 40, 12), size=12)
    return y + 44 + 22 * len(final)


# --- the board cut into tiles for mails (referee.pictures.tiles) ----------------------------


def tiles(view: dict[str, Any]) -> list[Tile]:
    """The tiles of a mail's board: each country's header with its cities under
    it, and the ships."""
    colour = {p["id"]: p["colour"] for p in view["players"]}
    col_w = 282.0
    out = []
    for country, cities in _by_country(view["cities"]).items():
        tab = view["tablets"].get(country, {})
        arms = view["coats_of_arms_left"].get(country, 0)

        def head(c: Canvas, country: str = country, tab: dict[str, Any] = tab,
                 arms: int = arms) -> None:
            country_header(c, c.root, PAD, PAD, col_w, country, tab, arms, NO_MARKS)

        name = country_names().get(country, country.capitalize())
        out.append(tile(f"country-{country}", f"Country {name}", col_w, 46, head,
                        [country, tab, arms]))
        for _, place in cities:

            def draw(c: Canvas, place: dict[str, Any] = place) -> None:
                city(c, PAD, PAD, col_w, place, colour)

            out.append(tile(f"city-{place['city']}", f"{place['name']} ({name})", col_w,
                            CITY_H - 4, draw, [place, colour], below=True))
    count = len(view["ships"])
    out.append(tile("ships", "The ships", count * 230 - 10, 88,
                    lambda c: ships(c, PAD, PAD, view, NO_MARKS), view["ships"]))
    return out
