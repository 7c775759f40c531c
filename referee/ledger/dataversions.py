"""Rules and data versions: every game replays with the rules code and component data it
pinned.

A game file's header pins ``rules`` = ``<rules>+data.<digest>`` (e.g.
``staufer-2+data.581a799773eb``): the rules part names a rules version of the game's code
(one of its package's ``RULES_VERSIONS``, oldest first, the last current), the digest
hashes the play-relevant component values. Every data version ever released stays in the
package as a snapshot of the data files, ``<package>/data/versions/<digest>.json``, so
that correcting an assumed value, or fixing a rule, does not stop running games.

A game is played with the version in force (:func:`pinned_for`): the header's pin, or the
``data`` (a full pin) of the latest ``{"kind": "upgrade"}`` meta entry of the game master.
An upgrade is only written when every move of the log stays legal under the new version,
and from then on the whole log replays under it (so the state after the upgrade is the one
the ``referee upgrade --dry-run`` report showed; that comparison, which replays the file,
is ``referee.play.upgrades``: this module sits below the file format, which reads a file by
the game of its version).

Loading a pinned version is a lookup (:func:`game_for`): the game package builds a game
object from the pinned data files and rules version, ``package.game(files, rules)``, and
the objects are cached per (game, rules, digest). The package provides
``current_files()``, ``data_digest(files)`` and ``play_data(files)`` (the contract in
docs/adding-a-game.md).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from referee.engine import Game, get_game
from referee.errors import GameFileError, UsageError
from referee.i18n import domain
from referee.ledger.fileformat import GAME_MASTER

if TYPE_CHECKING:  # (types only: no class to make when every command starts)
    from typing import TypedDict

    from referee.ledger.records import NewEntry

    class Version(TypedDict):
        """A data version a game can replay (``referee data``)."""

        pin: str
        current: bool
        in_package: bool  # kept in data/versions/

    class Difference(TypedDict):
        """A play value that differs between two data versions (None: absent there)."""

        path: str
        old: Any
        new: Any

SEPARATOR = "+data."
DIGEST = re.compile(r"[0-9a-f]{12}")  # the data part of a pin
UPGRADE = "upgrade"  # the ``kind`` of the meta entry that moves a game to other data

_, N_, ngettext = domain("referee")
# versions known to this process only, beside data/versions/: game -> digest -> files
# (tests/ledger/test_data_versions.py registers its variants of the data here)
_registered: dict[str, dict[str, dict[str, Any]]] = {}
_games: dict[tuple[str, str, str], Game] = {}  # (game, rules, digest) -> game object


# --- pins -------------------------------------------------------------------------------


def split_pin(pin: str) -> tuple[str, str]:
    """``"staufer-2+data.abc"`` -> ``("staufer-2", "abc")``. Raises GameFileError."""
    rules, sep, digest = pin.partition(SEPARATOR)
    if not sep or not rules or not digest:
        raise GameFileError(f"{pin!r} is not a rules/data pin (RULES{SEPARATOR}DIGEST)")
    return rules, digest


def current_pin(name: str) -> str:
    """The pin of the data in the data files of game ``name`` (what new games get)."""
    return get_game(name).data_version()


def _package(name: str) -> ModuleType:
    return sys.modules[type(get_game(name)).__module__]


class _DataApi:
    """The data functions of a game package that keeps versions (it has
    ``data_digest``, which its game object's ``data_version`` uses): ``current_files()``
    and ``play_data(files)``."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def current_files(self) -> dict[str, Any]:
        return dict(self.module.current_files())

    def play_data(self, files: Mapping[str, Any]) -> Any:
        return self.module.play_data(dict(files))


def keeps_versions(name: str) -> bool:
    """Whether game ``name`` keeps released data versions (its package has
    ``data_digest``)."""
    return hasattr(_package(name), "data_digest")


def _data(name: str) -> _DataApi:
    package = _package(name)
    if hasattr(package, "data_digest"):
        return _DataApi(package)
    raise UsageError(f"{name} keeps no released data versions")


def rules_versions(name: str) -> tuple[str, ...]:
    """The rules versions game ``name`` can play, oldest first (the last is current)."""
    found = getattr(_package(name), "RULES_VERSIONS", None)
    return tuple(found) if found else (rules_of(current_pin(name)),)


def versions_dir(name: str) -> Path:
    """Where the released versions of game ``name`` are kept."""
    return Path(_package(name).__file__ or "").parent / "data" / "versions"


# --- released versions ------------------------------------------------------------------


def released(name: str) -> list[str]:
    """Digests of every released data version of game ``name``, sorted; the current data
    and the versions known to this process only (``_registered``) included."""
    found = {p.stem for p in versions_dir(name).glob("*.json")}
    found |= set(_registered.get(name, {}))
    found.add(split_pin(current_pin(name))[1])
    return sorted(found)


def files_of(name: str, digest: str) -> dict[str, Any]:
    """The data files (by name) of version ``digest`` of game ``name``. Raises
    GameFileError naming the versions this referee has."""
    if digest == split_pin(current_pin(name))[1]:
        return _data(name).current_files()
    if digest in _registered.get(name, {}):
        return _registered[name][digest]
    path = versions_dir(name) / f"{digest}.json"
    if not path.is_file():
        raise GameFileError(
            f"this game was made with {name} data version {digest}, which this referee "
            f"does not have",
            hints=[f"data versions here: {', '.join(released(name))}",
                   "use a referee that has it (a newer one keeps every released version)"],
        )
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise GameFileError(f"the released {name} data version {digest} cannot be read "
                            f"({type(exc).__name__}): reinstall the referee") from None
    if not isinstance(files, dict):
        raise GameFileError(f"the released {name} data version {digest} holds no data files")
    return files


def release(name: str) -> Path | None:
    """Keep the current data of game ``name`` as a released version (its snapshot in
    ``data/versions/``). Returns the file written, or None if it was already released."""
    files = _data(name).current_files()
    pin = current_pin(name)
    digest = split_pin(pin)[1]
    path = versions_dir(name) / f"{digest}.json"
    if path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"rules": pin, "files": files}
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def on_disk(name: str) -> list[str]:
    """Digests of the versions released in the package's ``data/versions/``."""
    return sorted(p.stem for p in versions_dir(name).glob("*.json"))


def listing(name: str) -> list[Version]:
    """The data versions game ``name`` can replay: ``{"pin", "current", "in_package"}``
    each (``in_package``: kept in ``data/versions/``). Empty for a game without them."""
    if not keeps_versions(name):
        return []
    rules, current = split_pin(current_pin(name))
    kept = set(on_disk(name))
    return [{"pin": f"{rules}{SEPARATOR}{d}", "current": d == current, "in_package": d in kept}
            for d in released(name)]


def listing_text(versions: list[Version]) -> str:
    """:func:`listing` for people."""
    if not versions:
        return _("This game keeps no released data versions: games replay with this data "
                 "only.")
    lines = [_("Released data versions ({n}); a game replays with the one it pinned:").format(
        n=len(versions))]
    for v in versions:
        notes = [_(n) for n, on in ((N_("current"), v["current"]),
                                    (N_("not yet released in data/versions"),
                                     not v["in_package"]))
                 if on]
        lines.append(f"  {v['pin']}" + (f" ({', '.join(notes)})" if notes else ""))
    return "\n".join(lines)


# --- the game of a version --------------------------------------------------------------


def game_for(name: str, pin: str) -> Game:
    """The game ``name`` playing by the rules/data version ``pin``: a lookup of the game
    object ``package.game(files, rules)``, built once per version. Raises GameFileError
    if the rules version is not one this referee plays or the data version is not in the
    package."""
    current = get_game(name)
    if pin == current.data_version():
        return current
    if not keeps_versions(name):
        raise GameFileError(
            f"this game was made with rules/data {pin}, but this referee has "
            f"{current.data_version()}",
            hints=[f"{name} keeps no released data versions: use the referee version the "
                   "game was made with"],
        )
    rules, digest = split_pin(pin)
    if not DIGEST.fullmatch(digest):
        raise GameFileError(f"{pin!r}: {digest!r} is not a data version (12 hex digits)")
    package = _package(name)
    versions = rules_versions(name)
    if rules not in versions:
        raise GameFileError(
            f"this game was made with rules {rules}, but this referee plays "
            f"{', '.join(versions)}",
            hints=["use the referee version it was made with"],
        )
    key = (name, rules, digest)
    if key not in _games:
        game: Game = package.game(files_of(name, digest), rules)
        if game.data_version() != pin:
            raise GameFileError(f"the released {name} data version {digest} is damaged: its "
                                f"files hash to {game.data_version()}")
        _games[key] = game
    return _games[key]


# --- the version in force ---------------------------------------------------------------


def upgrade_entries(data: Mapping[str, Any], upto: int | None = None) -> list[int]:
    """Indexes of the upgrade meta entries in ``data``'s log (before ``upto``). Raises
    GameFileError for one not made by the game master or without a data pin."""
    out: list[int] = []
    for i, entry in enumerate(data["log"][:upto]):
        meta = entry.get("meta")
        if not isinstance(meta, dict) or meta.get("kind") != UPGRADE:
            continue
        if entry.get("by") != GAME_MASTER:
            raise GameFileError(f"$.log[{i}]: only the game master ({GAME_MASTER}) upgrades "
                                "the data of a game")
        if not isinstance(meta.get("data"), str):
            raise GameFileError(f"$.log[{i}].meta.data: the upgrade names no data version")
        split_pin(meta["data"])
        out.append(i)
    return out


def pinned_for(data: Mapping[str, Any] | Any, upto: int | None = None) -> str:
    """The rules/data pin in force for the game file ``data`` (a GameFile or its data)
    replayed up to log entry ``upto`` (all by default): the ``data`` of the latest upgrade
    entry, else the header's ``rules``."""
    data = getattr(data, "data", data)
    found = upgrade_entries(data, upto)
    return str(data["log"][found[-1]]["meta"]["data"]) if found else str(data["rules"])


def game_of(data: Mapping[str, Any] | Any, upto: int | None = None) -> Game:
    """The game playing by the version in force for ``data`` (see :func:`pinned_for`)."""
    data = getattr(data, "data", data)
    return game_for(str(data["game"]), pinned_for(data, upto))


# --- differences between versions -------------------------------------------------------


def flatten(node: Any, path: str = "") -> dict[str, Any]:
    """Leaves of ``node`` by dotted path; list items by their ``key`` when they have one."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key in sorted(node):
            out.update(flatten(node[key], f"{path}.{key}" if path else str(key)))
        return out
    if isinstance(node, list) and node and all(isinstance(v, (dict, list)) for v in node):
        out = {}
        for i, item in enumerate(node):
            label = item["key"] if isinstance(item, dict) and "key" in item else str(i)
            out.update(flatten(item, f"{path}[{label}]"))
        return out
    return {path: node}


def differences(name: str, old_pin: str, new_pin: str) -> list[Difference]:
    """The play-relevant values that differ between two data versions of game ``name``:
    ``{"path", "old", "new"}`` (a value absent from one version is None there)."""
    if not keeps_versions(name):
        return []
    data = _data(name)
    old = flatten(data.play_data(files_of(name, split_pin(old_pin)[1])))
    new = flatten(data.play_data(files_of(name, split_pin(new_pin)[1])))
    return [{"path": path, "old": old.get(path), "new": new.get(path)}
            for path in sorted(set(old) | set(new)) if old.get(path) != new.get(path)]


def rules_of(pin: str) -> str:
    return pin.partition(SEPARATOR)[0]


def upgrade_entry(target: str) -> NewEntry:
    """The log entry that moves a game to the data version ``target``."""
    return {"by": GAME_MASTER, "meta": {"kind": UPGRADE, "data": target}}


