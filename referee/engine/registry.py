"""Finding games: the games this package ships, those registered in the process and
those installed packages declare as entry points; :func:`get_game` loads one by name.

Re-exported by :mod:`referee.engine` (``engine.get_game``): this module is internal, its
public names are imported from there. May import what the engine's own module may:
:mod:`referee.errors` and :mod:`referee.i18n` (and ``import_module``).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from typing import Any

from referee import import_module
from referee.errors import UsageError
from referee.i18n import domain

Game = Any  # (the protocol is referee.engine.Game; not imported: no cycle)

_, N_, ngettext = domain("referee")

# A game is found through the entry points of the group ``referee.games`` (the name is the
# game's name, the value its package module, which defines ``GAME``); the two games of this
# package declare theirs in pyproject.toml. Reading the installed distributions' metadata
# costs about a tenth of a second, so a game under ``referee/games/<name>/`` is imported
# by its name first, and the entry points are read only for another name or for a listing.

ENTRY_POINTS = "referee.games"
#: digits of a number in move notation, in every game ("number too long")
NUMBER_DIGITS_MAX = 6
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
_registered: dict[str, str] = {}  # register(): name -> module (tests, tools)
_loaded: dict[str, Game] = {}


def register(name: str, module: str) -> None:
    """Make the game in ``module`` (which defines ``GAME``; ``module:attr`` names the game
    object) known as ``name`` in this process (tests and tools)."""
    _registered[name] = module
    _loaded.pop(name, None)


def _entry_points() -> dict[str, str]:
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINTS)}


def packaged_games() -> list[str]:
    """The games of this package, ``referee/games/<name>/`` (their schemas are published)."""
    import pkgutil
    from pathlib import Path

    # the folder, not an import of referee.games: the engine stays below the games
    folder = Path(__file__).parent.parent / "games"
    return [m.name for m in pkgutil.iter_modules([str(folder)]) if m.ispkg]


def game_names() -> list[str]:
    """Every known game: registered, this package's own and those installed packages
    declare, each once, sorted (registered ones last)."""
    found = sorted({*packaged_games(), *_entry_points()})
    return found + [n for n in _registered if n not in found]


def game_module(name: str) -> str | None:
    """The module that defines game ``name`` (``module:attr`` for an object), or None."""
    if name in _registered:
        return _registered[name]
    if not _NAME.fullmatch(name):
        return None
    if importlib.util.find_spec(f"referee.games.{name}") is not None:
        return f"referee.games.{name}"
    return _entry_points().get(name)


def _load(name: str, where: str) -> Game:
    module_name, _, attr = where.partition(":")
    module = import_module(module_name)  # (the collector off: referee/__init__.py)
    game = getattr(module, attr) if attr else getattr(module, "GAME", None)
    if game is None or getattr(game, "name", None) != name:
        raise UsageError(f"{where} does not define the game {name!r}",
                         hints=["a game package defines GAME, a game object named as its "
                                "entry point"])
    return game  # type: ignore[no-any-return]


def get_game(name: str) -> Game:
    """The game called ``name`` (its current data and rules). Raises UsageError for an
    unknown name."""
    found = _loaded.get(name)
    if found is not None:
        return found
    where = game_module(name)
    if where is None:
        raise UsageError(_("unknown game {name}").format(name=repr(name)),
                         hints=[_("known games: {names}").format(
                             names=", ".join(game_names()))])
    _loaded[name] = _load(name, where)
    return _loaded[name]
