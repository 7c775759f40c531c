"""The board cut into tiles for mails, each a standalone SVG drawn by the game's own
drawing code (its pictures module's ``tiles(view)``, built with :func:`tile`): Staufer's
regions and Supply Board; Dynasties' country headers, cities and ships.

A mail shows the board as a row of tiles that wraps (two or three to a line in a wide
window, one under the other on a phone, each at its own size, so its writing stays
readable), and the rest of the position in words beside them. A tile depends only on the
part of the view it shows, so consecutive positions of a game share most tiles: with
:class:`referee.pages.cache.PictureCache` a judge renders only the tiles a move
changed. Like every picture, tiles are drawn from ``game.view(state, viewer)`` only.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee import i18n
from referee.errors import UsageError
from referee.pictures.svg import Canvas

PAD = 6  # around a tile's drawing
_DRAWN: OrderedDict[str, Tile] = OrderedDict()  # tiles by what they show (see tile)
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
    row: str = ""  # tiles of one row name (Dynasties' ships) begin a line of their own
    words: tuple[Words, ...] = ()  # a tile without a picture (svg ""): (fill, text) each


def tiles(view: dict[str, Any], game: Any = None) -> list[Tile]:
    """The tiles of ``view``'s board, in reading order: the ``tiles(view)`` of the game's
    pictures capability. Raises UsageError for a game without tiles (its mails stay plain
    text)."""
    from referee.pictures import drawer

    cut = getattr(drawer(view, game), "tiles", None)
    if cut is None:
        raise UsageError(f"no board tiles for the game {view.get('game')!r}",
                         hints=["a game's pictures module may define tiles(view)"])
    return list(cut(view))


def colours(view: dict[str, Any]) -> list[tuple[str, str]]:
    """(player, fill colour) in seating order: the key to the figures' colours."""
    from referee.pictures.svg import player_fill

    players = view.get("players")
    if isinstance(players, dict):
        return [(p, player_fill(pv["colour"])[0]) for p, pv in players.items()]
    if isinstance(players, list):
        return [(p["id"], player_fill(p["colour"])[0]) for p in players]
    return []


def tile(name: str, title: str, width: float, height: float,
          draw: Callable[[Canvas], None], shows: Any, below: bool = False,
          row: str = "") -> Tile:
    """The tile drawn by ``draw``; ``shows`` holds everything it shows (JSON), so that a
    tile already drawn in this process (in the same language) is not drawn again.
    ``below``: the tile goes right under the one before it (no gap: together they are
    one board). ``row``: tiles of the same row name sit side by side on a line of their
    own (they wrap on a narrow screen), not after the tiles before them."""
    # the same position draws other words in another language: the language is in the key
    key = hashlib.sha256(json.dumps([i18n.current(), name, title, width, height, shows, below, row],
                                    sort_keys=True).encode()).hexdigest()
    found = _DRAWN.get(key)
    if found is None:
        w, h = int(width + 2 * PAD + 0.5), int(height + 2 * PAD + 0.5)
        c = Canvas(w, title, title)
        draw(c)
        svg = c.finish(h).replace("<style>", f"<style>{CRISP}", 1)
        found = _DRAWN[key] = Tile(name, title, svg, w, h, below, row)
        while len(_DRAWN) > _KEEP:
            _DRAWN.popitem(last=False)
    return found


