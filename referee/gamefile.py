"""Read, validate, replay and write game files (DESIGN §3).

A game file is a header and an append-only log; nothing derived is stored. Every read
validates the JSON Schema, the rules pin, the hash chain and every move's legality by
replaying the whole log. Every write is atomic (temporary file, fsync, rename) and done
under an exclusive lock on the file, so a failed or concurrent command leaves the file
byte for byte as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from referee import fileio, vouch
from referee import rng as rngmod
from referee.engine import BUILTIN_GAMES, Game, Match, Move, full_options, get_game
from referee.errors import (
    GameFileError,
    ReplayError,
    SealedError,
    UsageError,
)
from referee.schema import (
    ENTRY_KINDS,
    FORMAT,
    GAME_ID,
    GAME_MASTER,
    PLAYER_ID,
    JsonProblem,
    check_shape,
    path_first,
    schema_text,
    strict_json,
)


@dataclass
class GameFile:
    """A parsed, schema-valid game file: header fields and the raw log entries."""

    data: dict[str, Any]
    game: Game

    @property
    def players(self) -> list[str]:
        return [p["id"] for p in self.data["players"]]

    @property
    def log(self) -> list[dict[str, Any]]:
        return self.data["log"]

    @property
    def game_id(self) -> str:
        return self.data.get("id", "game")

    @property
    def sealed(self) -> bool:
        return "commitment" in self.data["rng"]

    def player(self, pid: str) -> dict[str, Any]:
        for p in self.data["players"]:
            if p["id"] == pid:
                return p
        raise UsageError(
            f"{pid!r} is not a player in this game",
            hints=[f"players: {', '.join(self.players)}"],
        )


# --- canonical JSON and the hash chain -------------------------------------------------


_ENCODER = msgspec.json.Encoder(order="sorted")


def canonical(obj: Any) -> bytes:
    """Compact JSON with sorted keys, non-ASCII as UTF-8: byte for byte what
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` gives
    for anything a game file can hold (no floats: they are refused on read), but made by
    msgspec (tests/test_robust_files.py proves the equality for every code point, the
    integer range and every example file)."""
    return _ENCODER.encode(obj)


def header_hash(data: Mapping[str, Any]) -> str:
    """The hash the first log entry's ``prev`` carries: the header without the log (and
    without a revealed seed, so that ``reveal`` does not break the chain)."""
    header = {k: v for k, v in data.items() if k != "log"}
    rng = dict(header["rng"])
    if "commitment" in rng:
        rng.pop("seed", None)
    header["rng"] = rng
    return hashlib.sha256(canonical(header)).hexdigest()


def entry_hash(entry: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(entry)).hexdigest()


def next_prev(data: Mapping[str, Any]) -> str:
    """The ``prev`` value for the next entry appended to ``data``'s log."""
    log = data["log"]
    return entry_hash(log[-1]) if log else header_hash(data)


# --- reading and validation ------------------------------------------------------------


def validate(data: Any, where: str = "game file") -> Game:
    """Check ``data`` against the file format and the game's move types; return the game.

    Raises GameFileError naming the JSON path and what was expected.
    """
    problem = check_shape(data)
    if problem:
        raise GameFileError(f"{where} breaks the schema: {problem}")
    try:
        get_game(data["game"])
    except UsageError as exc:
        raise GameFileError(f"{where}: $.game: {exc.message}", hints=exc.hints) from None
    from referee import dataversions  # moves decode by the data version in force

    game = dataversions.game_of(data)
    for i, entry in enumerate(data["log"]):
        if "move" in entry and "sealed" not in entry:  # a sealed move: decoded at replay
            decode_move(game, entry["move"], f"$.log[{i}].move", where)
    return game


def validate_strict(data: Any, where: str = "game file") -> None:
    """Validate with jsonschema against the published JSON Schema (``check --strict``).
    Raises GameFileError naming the JSON path."""
    import jsonschema

    name = data.get("game") if isinstance(data, dict) else None
    schema = json.loads(schema_text(name if name in BUILTIN_GAMES else "file"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        raise GameFileError(
            f"{where} breaks the published schema at {_schema_error(errors[0])}",
            hints=[_schema_error(e) for e in errors[1:4]],
        )


def _schema_error(error: Any) -> str:
    if error.validator in ("anyOf", "oneOf") and error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return f"{deepest.json_path}: {deepest.message}"
    return f"{error.json_path}: {error.message}"


def parse(text: bytes | str, where: str = "game file") -> GameFile:
    """Parse and validate file contents. Raises GameFileError."""
    try:
        raw = text.encode() if isinstance(text, str) else text
    except UnicodeEncodeError:
        raise GameFileError(f"{where} is not UTF-8 text") from None
    if len(raw) > fileio.MAX_GAME_FILE_BYTES:
        raise GameFileError(f"{where} is larger than "
                            f"{fileio.MAX_GAME_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        data = strict_json(raw)
    except JsonProblem as exc:
        if exc.path is not None:
            raise GameFileError(f"{where} breaks the schema: {exc.path}: {exc}") from None
        raise GameFileError(
            f"{where} is not valid JSON: {exc}",
            hints=["a truncated or hand-edited file? restore it from git or a backup"],
        ) from None
    game = validate(data, where)
    ids = [p["id"] for p in data["players"]]
    dupes = sorted({p for p in ids if ids.count(p) > 1})
    if dupes:
        raise GameFileError(f"{where}: player listed twice: {', '.join(dupes)}")
    return GameFile(data, game)


def read(path: Path) -> GameFile:
    """Read and validate the game file at ``path``. Raises GameFileError."""
    return parse(fileio.read_bytes(path), str(path))


# --- replay ---------------------------------------------------------------------------


_MOVE_DECODERS: dict[int, tuple[Any, msgspec.json.Decoder[Any]]] = {}


def _move_decoder(move_type: Any) -> msgspec.json.Decoder[Any]:
    """One Decoder per move type, keyed by identity (hashing a Union is slow)."""
    cached = _MOVE_DECODERS.get(id(move_type))
    if cached is None or cached[0] is not move_type:
        cached = _MOVE_DECODERS[id(move_type)] = (move_type, msgspec.json.Decoder(move_type))
    return cached[1]


def decode_move(game: Game, obj: Any, path: str, where: str = "game file") -> Move:
    """The move object at JSON ``path`` as the game's move. Raises GameFileError."""
    try:  # (one cached Decoder: msgspec.convert re-analyses a Union type on every call)
        return _move_decoder(game.move_type).decode(canonical(obj))
    except msgspec.ValidationError as exc:
        raise GameFileError(
            f"{where} breaks the {game.name} schema: {path_first(str(exc), path)}"
        ) from None


def rng_key(gf: GameFile, seed: str | None = None) -> bytes:
    """The generator key of the game. Raises SealedError when the seed is needed but
    unknown, GameFileError when a given or revealed seed does not match the commitment."""
    rng = gf.data["rng"]
    nonces = [rng.get("nonces", {})[p] for p in gf.players if p in rng.get("nonces", {})]
    seed = seed or rng.get("seed")
    if seed is None:
        raise SealedError(
            "this game is sealed: its seed is secret, so the state cannot be rebuilt",
            hints=["give the game's secret with --secret FILE (or REFEREE_SECRET)"],
        )
    if "commitment" in rng and rngmod.commitment(seed) != rng["commitment"]:
        raise GameFileError("the seed does not match the game's commitment")
    return rngmod.combine_key(seed, nonces)


def start_state(gf: GameFile, seed: str | None = None) -> Match:
    """The match before the first move (header checks included)."""
    check_header(gf)
    return Match.start(gf.game, gf.players, gf.data["options"], rng_key(gf, seed))


def check_header(gf: GameFile) -> None:
    """The rules pin, the player count and the options. Raises GameFileError.

    The pin in force (the header's ``rules``, or the latest upgrade entry's ``data``) must
    name this referee's rules and a data version released in the package; ``gf.game``
    becomes the game playing by that data version (referee.dataversions)."""
    from referee import dataversions  # a module of its own, which needs this one

    gf.game = game = dataversions.game_of(gf)
    n = len(gf.players)
    if not game.min_players <= n <= game.max_players:
        raise GameFileError(
            f"{game.title} is for {game.min_players} to {game.max_players} players, "
            f"this file has {n}"
        )
    try:
        full_options(game, gf.data["options"])
    except UsageError as exc:
        raise GameFileError(f"$.options: {exc.message}", hints=exc.hints) from None
    from referee import nonces  # a module of its own, which needs this one

    nonces.check(gf)


def nonce_prompt(gf: GameFile) -> str:
    """Who still owes a nonce (or its commitment), as the prompt before the first move."""
    missing = missing_nonces(gf)
    if nonce_phase(gf) == "commit":
        return (f"waiting for nonce commitments from {', '.join(missing)} before the first "
                "move (`referee nonce FILE --as PLAYER`)")
    return (f"waiting for nonces from {', '.join(missing)} before the first move "
            "(`referee nonce FILE --as PLAYER`)")


def nonce_phase(gf: GameFile) -> str | None:
    """"commit" while players still commit to nonces, "reveal" while they reveal them
    (docs/rng.md: commit first, so that nobody chooses a nonce knowing the others'),
    None when all are in (or the game has no nonces)."""
    rng = gf.data["rng"]
    if "nonces" not in rng:
        return None
    commits = rng.get("nonce_commitments")
    if commits is not None and any(p not in commits for p in gf.players):
        return "commit"
    if any(p not in rng["nonces"] for p in gf.players):
        return "reveal"
    return None


def missing_nonces(gf: GameFile) -> list[str]:
    """Players who still owe a nonce commitment or a nonce (games made with nonces)."""
    phase = nonce_phase(gf)
    if phase is None:
        return []
    rng = gf.data["rng"]
    have = rng["nonce_commitments"] if phase == "commit" else rng["nonces"]
    return [p for p in gf.players if p not in have]


def waiting(gf: GameFile, match: Match) -> list[str]:
    """Who the game waits for: players owing a nonce, else those owing a decision."""
    if match.game.finished(match.state):
        return []
    return missing_nonces(gf) or match.game.to_move(match.state)


def entry_kind(entry: Mapping[str, Any]) -> str:
    """"move", "undo", "void" or "meta" (the schema guarantees exactly one)."""
    return next(k for k in ENTRY_KINDS if k in entry)


def _where(i: int) -> str:
    return f"$.log[{i}] (entry {i + 1})"


def _check_chain(gf: GameFile, i: int, entry: Mapping[str, Any], prev: str) -> str:
    """Check numbering, hash chain and authorship of entry ``i``; return its hash."""
    where = _where(i)
    if entry["n"] != i + 1:
        raise ReplayError(f"{where}: numbered {entry['n']}, expected {i + 1}")
    if entry["prev"] != prev:
        raise ReplayError(
            f"{where}: the hash chain is broken: history before this entry was edited",
            hints=["a game file is append-only; restore the original log"],
        )
    kind = entry_kind(entry)
    by = entry["by"]
    if by not in gf.players and not (by == GAME_MASTER and kind in ("void", "meta")):
        raise ReplayError(f"{where}: {by!r} is not a player in this game")
    if i == 0 and missing_nonces(gf):
        raise ReplayError(
            f"{where}: moves began before every player gave a nonce "
            f"(missing: {', '.join(missing_nonces(gf))})"
        )
    if kind == "undo":
        _check_undo(gf, i, entry)
    elif kind == "void":
        _check_void(gf, i, entry)
    elif kind == "meta" and by != GAME_MASTER:
        _check_player_meta(i, entry)
    return entry_hash(entry)


# The only record a player may write about the game: how they want to be notified. All
# else (addresses, replacements, deadlines, watchers, data upgrades) is the game master's.
PLAYER_META_KINDS = ("notify",)


def _check_player_meta(i: int, entry: Mapping[str, Any]) -> None:
    meta = entry["meta"]
    if meta["kind"] not in PLAYER_META_KINDS or meta.get("player") != entry["by"]:
        raise ReplayError(f"{_where(i)}: a {meta['kind']!r} record by {entry['by']}: only the "
                          "game master may write it (a player may only set their own "
                          "notification)")


def _check_undo(gf: GameFile, i: int, entry: Mapping[str, Any]) -> None:
    target = entry["undo"]
    undone = gf.log[target - 1] if 0 < target <= i else None
    if target != i or undone is None or "move" not in undone or target in voided(gf):
        raise ReplayError(
            f"{_where(i)}: undo of move {target} refused: only the move just before "
            "may be undone, and only once"
        )
    if undone["by"] != entry["by"]:
        raise ReplayError(
            f"{_where(i)}: undo of move {target} refused: only its author "
            f"{undone['by']} may undo it"
        )


def _check_void(gf: GameFile, i: int, entry: Mapping[str, Any]) -> None:
    target = entry["void"]
    struck = gf.log[target - 1] if 0 < target <= i else None
    if struck is None or "move" not in struck:
        raise ReplayError(f"{_where(i)}: void of entry {target} refused: only an earlier "
                          "move can be struck")
    if entry["by"] not in (struck["by"], GAME_MASTER):
        raise ReplayError(f"{_where(i)}: void of move {target} refused: only its author "
                          f"{struck['by']} or the game master may strike it")
    if [e["void"] for e in gf.log[:i] if "void" in e].count(target):
        raise ReplayError(f"{_where(i)}: move {target} was already struck")


def voided(gf: GameFile) -> dict[int, int]:
    """Struck moves: entry number -> number of the void entry that strikes it."""
    return {e["void"]: e["n"] for e in gf.log if "void" in e}


def _check_mac(gf: GameFile, i: int, entry: Mapping[str, Any], seed: str | None) -> None:
    """In a sealed game, with the secret: an entry's MAC must be the referee's, and the
    game master's entries must carry one (only the referee holds the key)."""
    if not gf.sealed or seed is None or "seed" in gf.data["rng"]:
        return
    if "mac" in entry:
        if not vouch.mac_ok(seed, entry):
            raise ReplayError(
                f"{_where(i)}: the referee's MAC does not match: this entry was edited or "
                "forged (a recomputed hash chain does not make it the referee's)"
            )
    elif entry["by"] == GAME_MASTER:
        raise ReplayError(f"{_where(i)}: a game master's entry without the referee's MAC")


def unvouched(gf: GameFile) -> list[int]:
    """Entries of a sealed game that the referee has not vouched for yet: those after the
    last entry with a MAC (a MAC covers everything before it through ``prev``)."""
    if not gf.sealed:
        return []
    last = max((e["n"] for e in gf.log if "mac" in e), default=0)
    return [e["n"] for e in gf.log if e["n"] > last]


def check_structure(gf: GameFile) -> None:
    """What can be verified without the seed: numbering, hash chain, authorship, undo
    and void shape, move decoding (sealed moves: their public part). Raises ReplayError
    or GameFileError."""
    check_header(gf)
    prev = header_hash(gf.data)
    for i, entry in enumerate(gf.log):
        prev = _check_chain(gf, i, entry, prev)
        if "move" in entry and "sealed" not in entry:
            decode_move(gf.game, entry["move"], f"$.log[{i}].move")


def entry_move(gf: GameFile, i: int, seed: str | None) -> Move:
    """The move of log entry ``i``, with its sealed private fields opened (needs the
    seed). Raises GameFileError, SealedError."""
    entry = gf.log[i]
    path = f"$.log[{i}].move"
    if "sealed" not in entry:
        return decode_move(gf.game, entry["move"], path)
    if seed is None:
        raise SealedError(f"$.log[{i}] holds a sealed choice; it needs the game's secret")
    private = vouch.unseal(seed, entry["sealed"], f"$.log[{i}]")
    clash = sorted(set(private) & set(entry["move"]))
    if clash:
        raise GameFileError(f"{path}: {', '.join(clash)} both sealed and in clear")
    move = decode_move(gf.game, {**entry["move"], **private}, path)
    if sorted(private) != sorted(gf.game.private_fields(move)):
        raise GameFileError(f"$.log[{i}].sealed: holds {sorted(private)}, not the move's "
                            "private fields")
    if entry.get("public") != gf.game.public_text(move):
        raise GameFileError(f"$.log[{i}].public does not describe the sealed move")
    return move


def entry_text(gf: GameFile, i: int, seed: str | None = None, viewer: str | None = None
               ) -> str:
    """Entry ``i`` as people read it. A sealed move is shown by its public text, except
    to its author (``viewer``) when the seed is given. Never needs the seed otherwise."""
    entry = gf.log[i]
    kind = entry_kind(entry)
    if kind == "undo":
        return f"undo {entry['undo']}"
    if kind == "void":
        return f"void {entry['void']} (struck: it was not legal)"
    if kind == "meta":
        details = ", ".join(f"{k} {v}" for k, v in entry["meta"].items() if k != "kind")
        return f"[{entry['meta']['kind']}] {details}".rstrip()
    if "sealed" in entry:
        if seed is not None and viewer == entry["by"]:
            return gf.game.format_move(entry_move(gf, i, seed))
        return str(entry.get("public", f"{entry['move'].get('type')} (hidden choice)"))
    return gf.game.format_move(decode_move(gf.game, entry["move"], f"$.log[{i}].move"))


def undo_refusal(match: Match, before: Match) -> str | None:
    """Why the last move of ``match`` may not be undone (None if it may): a move that
    drew from a shuffled stack, rolled a die or showed a hidden card revealed something
    (README: undo). ``before`` is the state without that move."""
    game = match.game
    if match.rng.counters != before.rng.counters:
        return "it used the random generator (a draw, shuffle or roll revealed something)"
    if game.hidden_tokens(match.state) != game.hidden_tokens(before.state):
        return "it changed hidden information (a card or tile was drawn or shown)"
    return None


def _replay_effective(gf: GameFile, moves: list[tuple[str, Move]], seed: str | None) -> Match:
    match = start_state(gf, seed)
    for by, move in moves:
        match.play(by, move)
    return match


def replay(gf: GameFile, seed: str | None = None, upto: int | None = None,
           on_entry: Callable[[int, Match], None] | None = None) -> Match:
    """Rebuild the state by replaying the log, checking the hash chain, the referee's
    MACs (sealed games), and that every entry was a legal move of a player who owed a
    decision, an allowed undo, or a void of a move that was not legal.
    Raises GameFileError, ReplayError, SealedError."""
    match = start_state(gf, seed)
    prev = header_hash(gf.data)
    struck = voided(gf)
    for i, entry in enumerate(gf.log[:upto]):
        if "void" in entry:  # who may strike what, before the struck move is replayed
            _check_void(gf, i, entry)
    for i, entry in enumerate(gf.log[:upto]):
        prev = _check_chain(gf, i, entry, prev)
        _check_mac(gf, i, entry, seed)
        kind = entry_kind(entry)
        if kind == "undo":
            before = _replay_effective(gf, match.log[:-1], seed)
            refusal = undo_refusal(match, before)
            if refusal:
                raise ReplayError(f"{_where(i)}: undo of move {entry['undo']} refused: {refusal}")
            match = before
        elif kind == "move":
            void_n = struck.get(i + 1)
            try:
                move = entry_move(gf, i, seed)
            except GameFileError:
                if void_n is None:
                    raise
                continue  # a struck move whose sealed part cannot even be opened
            _replay_move(gf, match, i, move, void_n)
        if on_entry is not None:
            on_entry(i, match)
    return match


def _replay_move(gf: GameFile, match: Match, i: int, move: Move, void_n: int | None) -> None:
    """Play entry ``i`` if it is legal; skip it if a later void strikes it (and then it
    must indeed be illegal: a void is no covert undo)."""
    by = gf.log[i]["by"]
    problem = _illegal(gf, match, i, move)
    if void_n is not None:
        if problem is None:
            raise ReplayError(f"$.log[{void_n - 1}] (entry {void_n}): void of move {i + 1} "
                              "refused: that move was legal (use undo, or play on)")
        return
    if problem is not None:
        raise ReplayError(
            problem,
            hints=[f"if this move was appended unchecked, strike it with `referee void FILE "
                   f"{i + 1} --as {by}` and play on"],
        )
    match.play(by, move)


def _illegal(gf: GameFile, match: Match, i: int, move: Move) -> str | None:
    """Why entry ``i``'s move is not legal now, or None. The text names the move as other
    players may read it (``public_text``) and never another player's hidden state."""
    game, by = match.game, gf.log[i]["by"]
    where = _where(i)
    if game.finished(match.state):
        return f"{where}: the game was already over"
    if by not in game.to_move(match.state):
        return f"{where}: it was not {by}'s turn ({game.prompt(match.state)})"
    if move not in game.legal_moves(match.state, by):
        shown = game.public_text(move) if gf.sealed else game.format_move(move)
        return f"{where}: {shown!r} by {by} is not legal: {game.why_illegal(match.state, by, move)}"
    return None


# --- writing --------------------------------------------------------------------------


def dumps(data: Mapping[str, Any]) -> str:
    """The file text: header keys one per line, one log entry per line.

    Log entries after the first start with ", " so that appending a move adds exactly one
    line and changes none (a git diff of a move is one added line).
    """
    lines = ["{"]
    for key, value in data.items():
        if key == "log":
            continue
        if key == "players":
            body = "\n    , ".join(json.dumps(p, ensure_ascii=False) for p in value)
            lines.append(f'  "players": [\n      {body}\n  ],')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines.append('  "log": [')
    for i, entry in enumerate(data["log"]):
        lead = "    " if i == 0 else "  , "
        lines.append(lead + json.dumps(entry, ensure_ascii=False))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def create(path: Path, data: Mapping[str, Any]) -> None:
    """Write a new game file; refuses to overwrite. Raises UsageError if it exists."""
    fileio.create(path, dumps(data))


def replace(path: Path, old: bytes, data: Mapping[str, Any]) -> None:
    """Atomically replace the (locked) file whose current bytes are ``old``."""
    fileio.replace(path, old, dumps(data))


locked = fileio.locked


def append_entry(data: dict[str, Any], player: str, move: Move, *, seed: str | None = None,
                 extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Append a log entry for ``move`` (already applied or known legal) to ``data``.

    ``extra`` adds optional entry fields (e.g. ``mail``: the accepted mail's Message-ID).
    In a sealed game the move's private fields are sealed to the referee recipient and
    the entry carries the public text; with the ``seed`` the referee adds its MAC.
    """
    from referee import dataversions  # the game of the data version in force

    game = dataversions.game_of(data)
    body = msgspec.to_builtins(move)
    entry: dict[str, Any] = {"n": len(data["log"]) + 1, "by": player}
    private = game.private_fields(move) if "commitment" in data["rng"] else ()
    if private:
        entry["move"] = {k: v for k, v in body.items() if k not in private}
        entry["sealed"] = vouch.seal(sealed_recipient(data), {k: body[k] for k in private})
        entry["public"] = game.public_text(move)
    else:
        entry["move"] = body
    return append_raw(data, entry, seed=seed, extra=extra)


def append_raw(data: dict[str, Any], entry: dict[str, Any], *, seed: str | None = None,
               extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Append ``entry`` (n, by and its kind's fields) with ``extra``, ``prev``, ``at`` and,
    in a sealed game whose seed is given, the referee's MAC."""
    entry.update(extra or {})
    entry["prev"] = next_prev(data)
    entry["at"] = now()
    if seed is not None and "commitment" in data["rng"] and "seed" not in data["rng"]:
        entry["mac"] = vouch.entry_mac(seed, entry)
    data["log"].append(entry)
    return entry


def sealed_recipient(data: Mapping[str, Any]) -> str:
    """The age recipient that sealed moves are encrypted to. Raises GameFileError."""
    found = data["rng"].get("recipient")
    if not found:
        raise GameFileError("this sealed game has no referee recipient ($.rng.recipient), so "
                            "a hidden choice cannot be sealed; start it with a newer referee")
    return str(found)


def now() -> str:
    """UTC time for the file (REFEREE_NOW overrides it, for reproducible tests)."""
    fixed = os.environ.get("REFEREE_NOW")
    if fixed:
        return fixed
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --- building new games ---------------------------------------------------------------


def parse_players(spec: str) -> list[dict[str, str]]:
    """``ann,ben`` or ``ann=Ann Smith <ann@example.org>,ben``. Raises UsageError.

    Ids are NFC-normalised and must be lower-case; names and addresses may not hold
    control characters."""
    import re
    import unicodedata

    players: list[dict[str, str]] = []
    for part in (s.strip() for s in spec.split(",")):
        if not part:
            raise UsageError(f"empty player name in --players {spec!r}")
        pid, _, rest = part.partition("=")
        pid = unicodedata.normalize("NFC", pid.strip())
        if not re.fullmatch(PLAYER_ID.rstrip("$"), pid):
            hint = (f"ids are lower-case: use {pid.lower()!r}"
                    if re.fullmatch(PLAYER_ID.rstrip("$"), pid.lower()) else
                    "ids are 1-24 lower-case letters, digits, '-' or '_', starting with "
                    "a letter, e.g. ann")
            raise UsageError(f"bad player id {pid!r}", hints=[hint])
        player = {"id": pid, "name": pid}
        rest = rest.strip()
        m = re.match(r"^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$", rest)
        if m:
            player["name"] = m.group(1) or pid
            player["email"] = m.group(2)
        elif rest:
            player["name"] = rest
        if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in rest):
            raise UsageError(f"player {pid}: control characters in the name or address")
        players.append(player)
    ids = [p["id"] for p in players]
    dupes = sorted({p for p in ids if ids.count(p) > 1})
    if dupes:
        raise UsageError(f"player listed twice: {', '.join(dupes)}")
    return players


def new_data(
    game: Game,
    players: Sequence[dict[str, str]],
    options: Mapping[str, str],
    rng: dict[str, Any],
    game_id: str,
) -> dict[str, Any]:
    import re

    if not re.fullmatch(GAME_ID.rstrip("$"), game_id):
        raise UsageError(
            f"bad game id {game_id!r}",
            hints=["a game id is 1-64 letters, digits, '-', '_' or '.', not starting "
                   "with '.'"],
        )
    n = len(players)
    if not game.min_players <= n <= game.max_players:
        raise UsageError(
            f"{game.title} is for {game.min_players} to {game.max_players} players, not {n}"
        )
    return {
        "format": FORMAT,
        "game": game.name,
        "id": game_id,
        "rules": game.data_version(),
        "created": now(),
        "players": list(players),
        "options": full_options(game, options),
        "rng": rng,
        "log": [],
    }
