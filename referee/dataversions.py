"""Released data versions: every game replays with the component data it pinned.

A game file's header pins ``rules`` = ``<rules>+data.<digest>`` (e.g.
``staufer-2+data.581a799773eb``): the rules part names the code, the digest hashes the
play-relevant component values. Every data version ever released stays in the package as
a snapshot of the data files, ``referee/games/<game>/data/versions/<digest>.json``, so
that correcting an assumed value does not stop running games.

A game is played with the version in force (:func:`pinned_for`): the header's pin, or the
``data`` of the latest ``{"kind": "upgrade"}`` meta entry of the game master. An upgrade is
only written when every move of the log stays legal under the new data, and from then on
the whole log replays under it (so the state after the upgrade is the one the
``referee upgrade --dry-run`` report showed; that comparison, which replays the file, is
``referee.upgrades``: this module sits below the file format, which reads a file by the
game of its version).

For a version other than the current one the game package is loaded a second time under
another module name (``referee.games.staufer_data_<digest>``) with that version's files
(:func:`game_for`); each copy is complete and consistent, nothing is swapped at run time,
and copies are cached per version.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from referee.engine import Game, get_game
from referee.errors import GameFileError, RefereeError, UsageError
from referee.schema import GAME_MASTER

SEPARATOR = "+data."
DIGEST = re.compile(r"[0-9a-f]{12}")  # the data part of a pin
UPGRADE = "upgrade"  # the ``kind`` of the meta entry that moves a game to other data
# The module of each game package that loads the data files; it provides ``RAW`` (the
# files by name), ``play_data(raw)`` and ``data_digest(raw)``.
DATA_MODULES = {"staufer": "components", "dynasties": "data"}

_registered: dict[str, dict[str, dict[str, Any]]] = {}  # game -> digest -> files
_copies: dict[tuple[str, str], Game] = {}


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


def _data_module(name: str) -> ModuleType:
    if name not in DATA_MODULES:
        raise UsageError(f"{name} keeps no released data versions")
    return importlib.import_module(f"{_package(name).__name__}.{DATA_MODULES[name]}")


def versions_dir(name: str) -> Path:
    """Where the released versions of game ``name`` are kept."""
    return Path(_package(name).__file__ or "").parent / "data" / "versions"


# --- released versions ------------------------------------------------------------------


def released(name: str) -> list[str]:
    """Digests of every released data version of game ``name``, sorted; the current data
    and versions registered with :func:`register` included."""
    found = {p.stem for p in versions_dir(name).glob("*.json")}
    found |= set(_registered.get(name, {}))
    found.add(split_pin(current_pin(name))[1])
    return sorted(found)


def files_of(name: str, digest: str) -> dict[str, Any]:
    """The data files (by name) of version ``digest`` of game ``name``. Raises
    GameFileError naming the versions this referee has."""
    if digest == split_pin(current_pin(name))[1]:
        return _data_module(name).RAW  # type: ignore[no-any-return]
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


def digest_of(name: str, files: Mapping[str, Any]) -> str:
    """The data digest of the data files ``files`` of game ``name``."""
    return str(_data_module(name).data_digest(dict(files)))


def register(name: str, files: Mapping[str, Any]) -> str:
    """Make the data files ``files`` known as a released version of game ``name`` for this
    process (tools and tests; releases on disk come from :func:`release`). Returns its
    pin."""
    digest = digest_of(name, files)
    _registered.setdefault(name, {})[digest] = json.loads(json.dumps(files))
    return f"{split_pin(current_pin(name))[0]}{SEPARATOR}{digest}"


def unregister(name: str, digest: str) -> None:
    """Forget a version added with :func:`register` (and its loaded copy)."""
    _registered.get(name, {}).pop(digest, None)
    if _copies.pop((name, digest), None) is not None:
        _forget_modules(f"{_package(name).__name__}_data_{digest}")


def release(name: str) -> Path | None:
    """Keep the current data of game ``name`` as a released version (its snapshot in
    ``data/versions/``). Returns the file written, or None if it was already released."""
    module = _data_module(name)
    pin = current_pin(name)
    digest = split_pin(pin)[1]
    path = versions_dir(name) / f"{digest}.json"
    if path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"rules": pin, "files": module.RAW}
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def on_disk(name: str) -> list[str]:
    """Digests of the versions released in the package's ``data/versions/``."""
    return sorted(p.stem for p in versions_dir(name).glob("*.json"))


def listing(name: str) -> list[dict[str, Any]]:
    """The data versions game ``name`` can replay: ``{"pin", "current", "in_package"}``
    each (``in_package``: kept in ``data/versions/``). Empty for a game without them."""
    if name not in DATA_MODULES:
        return []
    rules, current = split_pin(current_pin(name))
    kept = set(on_disk(name))
    return [{"pin": f"{rules}{SEPARATOR}{d}", "current": d == current, "in_package": d in kept}
            for d in released(name)]


def listing_text(versions: list[dict[str, Any]]) -> str:
    """:func:`listing` for people."""
    if not versions:
        return "This game keeps no released data versions: games replay with this data only."
    lines = [f"Released data versions ({len(versions)}); a game replays with the one it "
             "pinned:"]
    for v in versions:
        notes = [n for n, on in (("current", v["current"]),
                                 ("not yet released in data/versions", not v["in_package"]))
                 if on]
        lines.append(f"  {v['pin']}" + (f" ({', '.join(notes)})" if notes else ""))
    return "\n".join(lines)


# --- the game of a version --------------------------------------------------------------


def game_for(name: str, pin: str) -> Game:
    """The game ``name`` playing by the data version ``pin``. Raises GameFileError if
    the rules part is not this referee's or the data version is not in the package."""
    current = get_game(name)
    if pin == current.data_version():
        return current
    if name not in DATA_MODULES:
        raise GameFileError(
            f"this game was made with rules/data {pin}, but this referee has "
            f"{current.data_version()}",
            hints=[f"{name} keeps no released data versions: use the referee version the "
                   "game was made with"],
        )
    rules, digest = split_pin(pin)
    own_rules, own_digest = split_pin(current.data_version())
    if not DIGEST.fullmatch(digest):
        raise GameFileError(f"{pin!r}: {digest!r} is not a data version (12 hex digits)")
    if rules != own_rules:
        raise GameFileError(
            f"this game was made with rules {rules}, but this referee plays {own_rules}",
            hints=["the rules code changed since the game began; use the referee version "
                   "it was made with"],
        )
    if digest == own_digest:
        return current
    if (name, digest) not in _copies:
        _copies[(name, digest)] = _load_copy(name, digest, files_of(name, digest))
    return _copies[(name, digest)]


def _load_copy(name: str, digest: str, files: dict[str, Any]) -> Game:
    """Load the game package once more, as its own modules, reading ``files``."""
    package = _package(name)
    alias = f"{package.__name__}_data_{digest}"
    spec = importlib.util.spec_from_file_location(
        alias, package.__file__, submodule_search_locations=list(package.__path__))
    if spec is None or spec.loader is None:
        raise GameFileError(f"cannot load {name} for data version {digest}")
    _forget_modules(alias)  # a copy loaded before (of a version since unregistered)
    module = importlib.util.module_from_spec(spec)
    module.RELEASED_FILES = files  # type: ignore[attr-defined]  # read by the data module
    sys.modules[alias] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        _forget_modules(alias)
        raise
    game: Game = module.GAME
    if split_pin(game.data_version())[1] != digest:
        _forget_modules(alias)
        raise GameFileError(f"the released {name} data version {digest} is damaged: its "
                            f"files hash to {game.data_version()}")
    return game


def _forget_modules(alias: str) -> None:
    for key in [k for k in sys.modules if k == alias or k.startswith(alias + ".")]:
        del sys.modules[key]


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


def differences(name: str, old_pin: str, new_pin: str) -> list[dict[str, Any]]:
    """The play-relevant values that differ between two data versions of game ``name``:
    ``{"path", "old", "new"}`` (a value absent from one version is None there)."""
    module = _data_module(name)
    old = flatten(module.play_data(files_of(name, split_pin(old_pin)[1])))
    new = flatten(module.play_data(files_of(name, split_pin(new_pin)[1])))
    return [{"path": path, "old": old.get(path), "new": new.get(path)}
            for path in sorted(set(old) | set(new)) if old.get(path) != new.get(path)]


# --- the upgrade record ------------------------------------------------------------


def upgrade_entry(data: Mapping[str, Any], target: str) -> dict[str, Any]:
    """The log entry that moves the game ``data`` to the data version ``target``."""
    return {"n": len(data["log"]) + 1, "by": GAME_MASTER,
            "meta": {"kind": UPGRADE, "data": target}}


def main(argv: list[str] | None = None) -> int:
    """``python -m referee.dataversions release GAME...``: keep the current data of each
    GAME as a released version (run it after editing a data file, and commit the file)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2 or args[0] != "release":
        print("usage: python -m referee.dataversions release GAME...", file=sys.stderr)
        return 2
    for name in args[1:]:
        try:
            path = release(name)
        except RefereeError as exc:
            print(f"error: {exc.message}", file=sys.stderr)
            return 2
        pin = current_pin(name)
        print(f"{name}: released {pin} in {path}" if path else f"{name}: {pin} was released")
    return 0


if __name__ == "__main__":
    sys.exit(main())
