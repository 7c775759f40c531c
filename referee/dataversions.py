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
``referee upgrade --dry-run`` report showed).

For a version other than the current one the game package is loaded a second time under
another module name (``referee.games.staufer_data_<digest>``) with that version's files
(:func:`game_for`); each copy is complete and consistent, nothing is swapped at run time,
and copies are cached per version.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec

from referee import gamefile
from referee.engine import Game, Match, get_game
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


# --- moving a game to other data (``referee upgrade``) ---------------------------------


@dataclass
class MoveCheck:
    """One effective move of the log replayed under the pinned and the target data."""

    n: int  # the log entry number
    by: str
    move: str  # as other players may read it
    legal: bool  # still legal under the target data
    problem: str | None  # why not
    scores_pinned: dict[str, int]  # scores after the move under the pinned data
    scores_target: dict[str, int] | None  # ... under the target data (None: not legal)
    same_state: bool  # both data versions reach the same state after the move


@dataclass
class UpgradeReport:
    """What moving a game from its pinned data version to ``target`` would change."""

    game: str
    pinned: str
    target: str
    differences: list[dict[str, Any]]
    moves: list[MoveCheck] = field(default_factory=list)
    problem: str | None = None  # why the game cannot move to the target data

    @property
    def first_illegal(self) -> MoveCheck | None:
        return next((m for m in self.moves if not m.legal), None)

    @property
    def upgradable(self) -> bool:
        return self.problem is None and self.pinned != self.target

    def to_json(self) -> dict[str, Any]:
        last = self.moves[-1] if self.moves else None
        first = self.first_illegal
        return {
            "game": self.game, "pinned": self.pinned, "target": self.target,
            "differences": self.differences,
            "moves": [m.__dict__ for m in self.moves],
            "first_illegal": first.__dict__ if first else None,
            "scores": {"pinned": last.scores_pinned if last else None,
                       "target": last.scores_target if last else None},
            "upgradable": self.upgradable, "problem": self.problem,
        }


def effective_entries(gf: Any) -> list[int]:
    """Indexes of the log entries whose moves stand (undone and voided ones left out), in
    the order replay plays them."""
    struck = gamefile.voided(gf)
    out: list[int] = []
    for i, entry in enumerate(gf.log):
        kind = gamefile.entry_kind(entry)
        if kind == "undo" and out:
            out.pop()
        elif kind == "move" and (i + 1) not in struck:
            out.append(i)
    return out


def upgrade_entry(data: Mapping[str, Any], target: str) -> dict[str, Any]:
    """The log entry that moves the game ``data`` to the data version ``target``."""
    return {"n": len(data["log"]) + 1, "by": GAME_MASTER,
            "meta": {"kind": UPGRADE, "data": target}}


def compare(gf: Any, seed: str | None, target: str | None = None) -> UpgradeReport:
    """Replay ``gf`` under its pinned data and under ``target`` (default: the current
    data) move by move. Raises GameFileError, ReplayError, SealedError when the game does
    not replay under its own pinned data."""
    before = gamefile.replay(gf, seed)  # checks the whole file under its pinned data
    name, pinned = gf.data["game"], pinned_for(gf)
    target = target or current_pin(name)
    new_game = game_for(name, target)
    report = UpgradeReport(name, pinned, target, differences(name, pinned, target))
    if pinned == target:
        report.problem = f"the game already plays by {target}"
        return report
    key = gamefile.rng_key(gf, seed)
    old = Match.start(before.game, gf.players, gf.data["options"], key)
    new = Match.start(new_game, gf.players, gf.data["options"], key)
    entries = effective_entries(gf)
    if len(entries) != len(before.log):
        raise GameFileError(f"the log's undos and voids leave {len(entries)} moves, the replay "
                            f"{len(before.log)}: upgrade cannot pair them")
    for i, (by, move) in zip(entries, before.log, strict=True):
        old.play(by, move)
        check = _check_move(gf, i, by, move, old, new)
        report.moves.append(check)
        if not check.legal:
            report.problem = f"entry {i + 1} is not legal under {target}: {check.problem}"
            break
    if report.problem is None:
        report.problem = _replay_upgraded(gf, seed, target)
    return report


def _check_move(gf: Any, i: int, by: str, move: Any, old: Match, new: Match) -> MoveCheck:
    """Play ``move`` (already played in ``old``) in ``new`` if it is legal there."""
    text = old.game.public_text(move) if gf.sealed else old.game.format_move(move)
    problem = _illegal_under(new, by, move)
    scores = old.game.scores(old.state)
    if problem is not None:
        return MoveCheck(i + 1, by, text, False, problem, scores, None, False)
    new.play(by, msgspec.convert(msgspec.to_builtins(move), new.game.move_type))
    same = old.game.fingerprint(old.state) == new.game.fingerprint(new.state)
    return MoveCheck(i + 1, by, text, True, None, scores, new.game.scores(new.state), same)


def _illegal_under(match: Match, by: str, move: Any) -> str | None:
    """Why ``move`` of ``by`` is not legal in ``match`` (its own game's data), or None."""
    game = match.game
    try:
        moved = msgspec.convert(msgspec.to_builtins(move), game.move_type)
    except msgspec.ValidationError as exc:
        return f"it does not fit the data: {exc}"
    if game.finished(match.state):
        return "the game would already be over"
    if by not in game.to_move(match.state):
        return f"it would not be {by}'s turn ({game.prompt(match.state)})"
    if moved not in game.legal_moves(match.state, by):
        return game.why_illegal(match.state, by, moved)
    return None


def _replay_upgraded(gf: Any, seed: str | None, target: str) -> str | None:
    """Replay the file with the upgrade entry appended, as ``referee`` will read it from
    then on (undo refusals included); why that fails, or None."""
    trial = upgraded(gf.data, target, seed)
    try:
        gamefile.replay(gamefile.parse(gamefile.dumps(trial)), seed)
    except RefereeError as exc:
        return f"the upgraded game does not replay: {exc.message}"
    return None


def upgraded(data: Mapping[str, Any], target: str, seed: str | None) -> dict[str, Any]:
    """A copy of the game file ``data`` with the upgrade entry to ``target`` appended."""
    out = copy.deepcopy(dict(data))
    gamefile.append_raw(out, upgrade_entry(out, target), seed=seed)
    return out
