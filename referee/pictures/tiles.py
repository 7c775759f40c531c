"""The board cut into tiles for mails, each a standalone SVG drawn by the game's own
drawing code: Staufer's regions (their seats; each region's payment space is a tile of
words, without a picture) and Supply Board; Dynasties' country headers, cities and ships.

A mail shows the board as a row of tiles that wraps (two or three to a line in a wide
window, one under the other on a phone, each at its own size, so its writing stays
readable), and the rest of the position in words beside them. A tile depends only on the
part of the view it shows, so consecutive positions of a game share most tiles: with
:class:`referee.pictures.cache.PictureCache` a judge renders only the tiles a move
changed. Like every picture, tiles are drawn from ``game.view(state, viewer)`` only.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.errors import UsageError
from referee.pictures.changes import NO_MARKS
from referee.pictures.svg import Canvas

PAD = 6  # around a tile's drawing
_DRAWN: OrderedDict[str, Tile] = OrderedDict()  # tiles by what they show (see _tile)
_KEEP = 4096  # a long-running judge of 50 games keeps every game's current tiles
#: rectangles without anti-aliased edges: a fifth lighter PNG, and the figures (discs,
#: shields, stars) and the writing stay smooth
CRISP = "rect{shape-rendering:crispEdges}.chip{shape-rendering:geometricPrecision}"


Words = tuple[str, str]  # (a player's fill colour or "", text)


@dataclass(frozen=True)
class Tile:
    """One picture of a part of the board: ``name`` (for file names), ``title`` (its
    words, for ``alt``) and the SVG text; ``width`` and ``height`` in px."""

    name: str
    title: str
    svg: str
    width: int
    height: int
    below: bool = False  # drawn right under the tile before it
    words: tuple[Words, ...] = ()  # a tile without a picture (svg ""): (fill, text) each


def tiles(view: dict[str, Any]) -> list[Tile]:
    """The tiles of ``view``'s board, in reading order. Raises UsageError for a game
    without pictures."""
    name = view.get("game")
    if name == "staufer":
        return _staufer(view)
    if name == "dynasties":
        return _dynasties(view)
    raise UsageError(f"no pictures for the game {name!r}",
                     hints=["pictures exist for staufer and dynasties"])


def colours(view: dict[str, Any]) -> list[tuple[str, str]]:
    """(player, fill colour) in seating order: the key to the figures' colours."""
    from referee.pictures.svg import player_fill

    players = view.get("players")
    if isinstance(players, dict):
        return [(p, player_fill(pv["colour"])[0]) for p, pv in players.items()]
    if isinstance(players, list):
        return [(p["id"], player_fill(p["colour"])[0]) for p in players]
    return []


def _tile(name: str, title: str, width: float, height: float,
          draw: Callable[[Canvas], None], shows: Any, below: bool = False) -> Tile:
    """The tile drawn by ``draw``; ``shows`` holds everything it shows (JSON), so that a
    tile already drawn in this process is not drawn again. ``below``: the tile goes
    right under the one before it (no gap: together they are one board)."""
    key = hashlib.sha256(json.dumps([name, title, width, height, shows, below],
                                    sort_keys=True).encode()).hexdigest()
    found = _DRAWN.get(key)
    if found is None:
        w, h = int(width + 2 * PAD + 0.5), int(height + 2 * PAD + 0.5)
        c = Canvas(w, title, title)
        draw(c)
        svg = c.finish(h).replace("<style>", f"<style>{CRISP}", 1)
        found = _DRAWN[key] = Tile(name, title, svg, w, h, below)
        while len(_DRAWN) > _KEEP:
            _DRAWN.popitem(last=False)
    return found


def _staufer(view: dict[str, Any]) -> list[Tile]:
    from referee.pictures import staufer as s

    colour = {p: pv["colour"] for p, pv in view["players"].items()}
    out = []
    for pos, region in enumerate(view["regions"]):

        def draw(c: Canvas, pos: int = pos, region: dict[str, Any] = region) -> None:
            s._region(c, c.root, PAD, PAD, pos, region, colour, NO_MARKS, None, compact=True)

        title = f"Region {region['title']}" + (" (the King is here)" if region["king"] else "")
        shown = {k: v for k, v in region.items()
                 if k not in ("distance_from_king", "bonus", "payment")}
        out.append(_tile(f"region-{region['region']}", title, s.PANEL_W, s.COMPACT_H, draw,
                         [pos, shown, colour]))
        out.append(Tile(f"payment-{region['region']}", f"{region['title']}: payment space",
                        "", 0, 0, below=True, words=_payment_words(region, view)))
    out.append(_tile("supply", "The Supply Board", 5 * 78 - 6, 114,
                     lambda c: s.supply(c, PAD, PAD, view, NO_MARKS), view["supply_board"]))
    return out


def _payment_words(region: dict[str, Any], view: dict[str, Any]) -> tuple[Words, ...]:
    """A region's payment space in words: each player's figures there, with the fill
    of their colour (a tile without a picture: it changes with most seats taken)."""
    fills = dict(colours(view))
    found = tuple((fills.get(who, "#888888"), f"{who} {n['envoys']} E, {n['nobles']} N")
                  for who, n in region["payment"].items() if n["envoys"] or n["nobles"])
    return found or (("", "empty"),)


def _dynasties(view: dict[str, Any]) -> list[Tile]:
    from referee.pictures import dynasties as d

    colour = {p["id"]: p["colour"] for p in view["players"]}
    col_w = 282.0
    out = []
    for country, cities in d._by_country(view["cities"]).items():
        tab = view["tablets"].get(country, {})
        arms = view["coats_of_arms_left"].get(country, 0)

        def head(c: Canvas, country: str = country, tab: dict[str, Any] = tab,
                 arms: int = arms) -> None:
            d.country_header(c, c.root, PAD, PAD, col_w, country, tab, arms, NO_MARKS)

        name = d.country_names().get(country, country.capitalize())
        out.append(_tile(f"country-{country}", f"Country {name}", col_w, 46, head,
                         [country, tab, arms]))
        for _, place in cities:

            def draw(c: Canvas, place: dict[str, Any] = place) -> None:
                d.city(c, PAD, PAD, col_w, place, colour)

            out.append(_tile(f"city-{place['city']}", f"{place['name']} ({name})", col_w,
                             d.CITY_H - 4, draw, [place, colour], below=True))
    ships = len(view["ships"])
    out.append(_tile("ships", "The ships", ships * 230 - 10, 88,
                     lambda c: d.ships(c, PAD, PAD, view, NO_MARKS), view["ships"]))
    return out
