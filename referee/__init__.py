"""referee: a command-line referee for board games played by e-mail or through git.

The package root holds the version and the one helper every command runs before its
imports: imports without the garbage collector's passes over them.

What a library user may import from here is :data:`__all__`: the version and the four
public modules (``engine``, the game SDK with its own ``__all__``; ``errors``; ``i18n``;
``pictures``, the drawing toolkit). Everything else of the package, the helpers below
included, is internal and may change in any release (docs/api.md).

An import allocates many objects (functions, classes, their dicts and annotations) and
hardly any cycle worth collecting, yet CPython's collector runs every 700 allocations
and walks every young object again and again, and once more at exit: over a command's
imports (click, the command's module with the game file's reading, a game's package)
that is about 10 ms of CPU of a start-up of about 90 ms. :func:`collector_off` turns the
collector off for a block of imports; after it, everything alive is frozen
(``gc.freeze``: no later pass walks it; freed as usual when nothing refers to it, only a
cycle among those objects is never collected) and the collector is on again, unless it
was off already. So a long-running command (the judge, the bots) collects what it makes
as it runs; a game loaded later freezes what is alive then, once per game.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
from collections.abc import Iterator
from types import ModuleType

__all__ = ["__version__", "engine", "errors", "i18n", "pictures"]

__version__ = "0.5.0"


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The garbage collector off for the block (imports), as it was after it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.freeze()  # what the imports made is kept for good: no pass walks it again
            gc.enable()


def import_module(name: str) -> ModuleType:
    """:func:`importlib.import_module` with the collector off while it runs."""
    with collector_off():
        return importlib.import_module(name)
