"""What changed between two views: the paths of every differing value.

A picture highlights what the moves since move N touched by comparing the view after move
N with the view now. Both are views for the same viewer, so the comparison sees nothing
the picture itself could not show.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from referee import engine

#: parts of a view that change on every move and say nothing about the board
IGNORED = frozenset({"prompt", "events", "legal", "pending", "to_move"})


def changed_paths(old: Any, new: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths (tuples of keys and list indexes) of every leaf that differs."""
    if old == new:  # one fast comparison prunes every unchanged part of the view
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in new:
            if not path and key in IGNORED:
                continue
            if key not in old:
                yield (*path, key)
            elif old[key] != new[key]:
                yield from changed_paths(old[key], new[key], (*path, key))
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and all(
        isinstance(x, dict | list) for x in new
    ):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                yield from changed_paths(a, b, (*path, i))
        return
    yield path


class Marks:
    """Which parts of the picture to highlight. ``marks.hit("regions", 2, "seats")`` is
    true when anything at or below that path changed."""

    def __init__(self, paths: Iterable[tuple[Any, ...]] = ()) -> None:
        self._prefixes: set[str] = set()
        self.count = 0
        for path in paths:
            self.count += 1
            for i in range(1, len(path) + 1):
                self._prefixes.add("/".join(map(str, path[:i])))

    @classmethod
    def between(cls, old: dict[str, Any] | None, new: dict[str, Any]) -> Marks:
        return cls() if old is None else cls(changed_paths(old, new))

    def hit(self, *path: Any) -> bool:
        return "/".join(map(str, path)) in self._prefixes

    def under(self, *path: Any) -> list[str]:
        """Every changed path at or below ``path`` (for keys of cached pieces)."""
        top = "/".join(map(str, path))
        return sorted(p for p in self._prefixes if p == top or p.startswith(top + "/"))

    def __bool__(self) -> bool:
        return self.count > 0


NO_MARKS = Marks()


new_events = engine.new_events  # (the engine's: `log` reads a view's events too)
