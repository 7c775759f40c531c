"""The picture of a game that has no drawing of its own: its view as a sheet of text.

Every value of ``view(state, viewer)`` is written on its own line under its path
(``players.ann.score: 3``), lists of plain values on one line, so a game found through an
entry point has a picture for ``referee show`` and the site from its first day; what the
moves since ``since`` changed is framed, as in the games' own pictures.
"""

from __future__ import annotations

import json
from typing import Any

from referee.pictures.changes import IGNORED, NO_MARKS, Marks
from referee.pictures.svg import MUTED, Canvas, Pieces, fit

WIDTH = 720
LINE = 18
TOP = 56
MAX_LINES = 400  # a view is bounded; a picture of it too


def lines_of(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """(path, text) of every leaf of ``node``; a list of plain values is one leaf."""
    if isinstance(node, dict):
        out: list[tuple[tuple[Any, ...], str]] = []
        for key, value in node.items():
            if not path and key in IGNORED:
                continue
            out += lines_of(value, (*path, key))
        return out
    if isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        return [line for i, item in enumerate(node) for line in lines_of(item, (*path, i))]
    label = ".".join(map(str, path)) or "view"
    shown = ", ".join(map(str, node)) if isinstance(node, list) else _plain(node)
    return [(path, f"{label}: {shown}")]


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def draw(view: dict[str, Any], marks: Marks = NO_MARKS, since: int | None = None,
         pieces: Pieces | None = None) -> str:
    title = str(view.get("title") or view.get("game") or "The board")
    prompt = str(view.get("prompt", ""))
    c = Canvas(WIDTH, title, prompt or title, pieces)
    c.text(16, 26, fit(title, WIDTH - 32, 18), size=18, bold=True)
    if prompt:
        c.text(16, 46, fit(prompt, WIDTH - 32), fill=MUTED)
    y: float = TOP
    found = lines_of(view)
    for path, text in found[:MAX_LINES]:
        y += LINE
        c.text(16, y, fit(text, WIDTH - 32))
        if marks.hit(*path):
            c.mark(10, y - 14, WIDTH - 20, LINE)
    if len(found) > MAX_LINES:
        y += LINE
        c.text(16, y, f"... {len(found) - MAX_LINES} more values", fill=MUTED)
    if since is not None and marks:
        y += LINE * 1.5
        c.text(16, y, f"Framed: changed since move {since}", fill=MUTED)
    return c.finish(y + 14)
