"""The drawing toolkit: pictures of a position (SVG, PNG), drawn from views only.

A game's pictures module builds on it (``svg``: the canvas, ``tiles``: one tile a part of
the board, ``changes``: what a move changed, ``generic``: the picture of a game without
one of its own); pages and the site are :mod:`referee.pages`. May import:
:mod:`referee.engine`, :mod:`referee.errors`, :mod:`referee.i18n` only.

Everything here starts from ``game.view(state, viewer)`` — the same view that
``referee status --json`` prints — and never from the state itself, so a
picture cannot show what the text view would not. Import cost matters: the command line
imports this package only for ``show`` and ``site``; Jinja2 and the PNG library are
imported only when a page or a PNG is made.
"""

from __future__ import annotations

from typing import Any

from referee.errors import UsageError
from referee.pictures.changes import NO_MARKS, Marks
from referee.pictures.svg import Pieces


def drawer(view: dict[str, Any], game: Any = None) -> Any:
    """The drawing of the game ``view`` is of (``game``, else the game its ``game`` field
    names): the game's ``pictures`` capability, else :mod:`referee.pictures.generic`."""
    from referee import engine

    if game is None and isinstance(view.get("game"), str):
        try:
            game = engine.get_game(view["game"])
        except UsageError:
            game = None
    found = engine.pictures(game) if game is not None else None
    if found is None:
        from referee.pictures import generic as found
    return found


def draw_svg(view: dict[str, Any], marks: Marks = NO_MARKS, since: int | None = None,
             pieces: Pieces | None = None, game: Any = None) -> str:
    """The SVG picture of ``view``; what ``marks`` hits is framed as changed since move
    ``since``. ``pieces`` (one per game) lets a series of pictures of one game reuse the
    parts that did not change; the result is the same text. ``game``: the game the view
    is of (default: the one its ``game`` field names)."""
    return str(drawer(view, game).draw(view, marks, since, pieces))


def svg_to_png(svg: str) -> bytes:
    """Render SVG text to PNG bytes (resvg, with the system's fonts)."""
    try:
        import resvg_py
    except ImportError:
        raise UsageError("PNG output needs the resvg-py package",
                         hints=["pip install 'referee[pictures]'"]) from None
    return bytes(resvg_py.svg_to_bytes(svg_string=svg))


def available() -> bool:
    """Whether PNG pictures and HTML pages can be made here (the pictures extra)."""
    try:
        import jinja2  # noqa: F401  (the HTML parts need it as well)
        import resvg_py  # noqa: F401
    except ImportError:
        return False
    return True


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


__all__ = ["Marks", "Pieces", "available", "draw_svg", "drawer", "png_size", "svg_to_png"]
