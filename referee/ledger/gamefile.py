"""The game file format and its hash chain (docs/file-format.md): read, validate, write.

A game file is a header and an append-only log; nothing derived is stored. Reading checks
the JSON Schema and decodes every logged move by the game of the data version in force;
the replay that checks the chain, the MACs and every move's legality is
``referee.ledger.replay``, which builds on this module (as do ``referee.ledger.nonces`` and
the write core), never the other way round (docs/architecture.md#layers). Every write is atomic
(temporary file, fsync, rename) and done under an exclusive lock on the file, so a failed
or concurrent command leaves the file byte for byte as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

from referee import engine
from referee.engine import Game, Match, Move, full_options, get_game
from referee.engine import rng as rngmod
from referee.errors import (
    GameFileError,
    SealedError,
    UsageError,
)
from referee.i18n import domain
from referee.ledger import dataversions, fileio, seats, vouch
from referee.ledger.fileformat import (
    EMAIL,
    EMAIL_MAX,
    FORMAT,
    GAME_ID,
    GAME_MASTER,
    NAME_MAX,
    PLAYER_ID,
)
from referee.ledger.schema import check_shape, path_first, sealed_move_type
from referee.ledger.strictjson import JsonProblem, strict_json

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import Entry, Header, PlayerRecord, RngRecord

_, N_, ngettext = domain("referee")


class GameFile(msgspec.Struct):
    """A parsed, schema-valid game file: header fields and the raw log entries.

    ``data`` is the file's JSON as read (what is hashed and written back); ``doc`` and
    ``entries`` are the same objects as the typed records of referee/ledger/records.py.
    (``data`` and ``log`` stay plain JSON for the packages that read them as such.)"""

    data: dict[str, Any]
    game: Game

    @classmethod
    def of(cls, doc: Header, game: Game) -> GameFile:
        """The GameFile of a header just built (its ``data`` is ``doc`` itself)."""
        return cls(cast(dict[str, Any], doc), game)

    @property
    def doc(self) -> Header:
        return cast("Header", self.data)

    @property
    def entries(self) -> list[Entry]:
        return cast("list[Entry]", self.data["log"])

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

    @property
    def seed_hidden(self) -> bool:
        """Sealed, and its seed not revealed in the file: only the secret's holder can
        replay it whole (an open or revealed game, anyone)."""
        return self.sealed and "seed" not in self.data["rng"]

    def player(self, pid: str) -> PlayerRecord:
        for p in self.doc["players"]:
            if p["id"] == pid:
                return p
        raise UsageError(
            _("{player} is not a player in this game").format(player=repr(pid)),
            hints=[_("players: {players}").format(players=", ".join(self.players))],
        )


# --- canonical JSON and the hash chain -------------------------------------------------


_ENCODER = msgspec.json.Encoder(order="sorted")


def canonical(obj: Any) -> bytes:
    """Compact JSON with sorted keys, non-ASCII as UTF-8: byte for byte what
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` gives
    for anything a game file can hold (no floats: they are refused on read), but made by
    msgspec (tests/ledger/test_odd_paths.py proves the equality for every code point, the
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
    game = dataversions.game_of(data)  # moves decode by the data version in force
    log = data["log"]
    clear = [i for i, entry in enumerate(log) if "move" in entry and "sealed" not in entry]
    _decode_all(game, [log[i]["move"] for i in clear], clear, where)
    sealed = [i for i, entry in enumerate(log) if "sealed" in entry]
    for i in sealed:  # their public part here; the whole move at replay
        decode_sealed_move(game, log[i]["move"], f"$.log[{i}].move", where)
    return game


def _decode_all(game: Game, objs: list[Any], index: list[int], where: str) -> None:
    """Check the move objects ``objs`` of log entries ``index`` in one decode (a decoder
    call per move costs three times as much). Raises GameFileError naming the entry."""
    try:
        _list_decoder(game.move_type).decode(canonical(objs))
    except msgspec.ValidationError as exc:
        message = str(exc)
        at = message.rpartition(" - at `$[")[2]
        k, _, rest = at.partition("]")
        path = f"$.log[{index[int(k)]}].move" if k.isdigit() else "$.log"
        text = message.rpartition(" - at `")[0] + (f" - at `${rest}" if k.isdigit() else "")
        raise GameFileError(
            f"{where} breaks the {game.name} schema: {path_first(text, path)}"
        ) from None


def validate_strict(data: Any, where: str = "game file") -> None:
    """Validate with jsonschema against the published JSON Schema (``check --strict``).
    Raises GameFileError naming the JSON path."""
    import jsonschema

    from referee.ledger.schemagen import schema_text

    name = data.get("game") if isinstance(data, dict) else None
    schema = json.loads(schema_text(name if engine.game_module(str(name)) else "file"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        raise GameFileError(
            f"{where} breaks the published schema at {_schema_error(errors[0])}",
            hints=[_schema_error(e) for e in errors[1:4]],
        )


def _schema_error(error: Any) -> str:
    if error.validator in ("anyOf", "oneOf") and error.context:
        # of a union of tagged objects (moves by ``type``, meta records by ``kind``), the
        # branch of the object's own tag tells what is wrong, not the others
        branches: dict[Any, list[Any]] = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0], []).append(e)
        own = [errs for errs in branches.values() if not any(
            e.validator in ("enum", "const") and e.path and e.path[-1] in ("type", "kind")
            for e in errs)]
        if len(own) == 1:
            deepest = max(own[0], key=lambda e: len(e.absolute_path))
            return f"{deepest.json_path}: {deepest.message}"
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
    if GAME_MASTER in ids:
        raise GameFileError(f"{where}: a player may not be called {GAME_MASTER!r}: it names "
                            "the game master")
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


_LIST_DECODERS: dict[int, tuple[Any, msgspec.json.Decoder[Any]]] = {}


def _list_decoder(move_type: Any) -> msgspec.json.Decoder[Any]:
    """One Decoder of a list of ``move_type`` per move type, keyed by identity."""
    cached = _LIST_DECODERS.get(id(move_type))
    if cached is None or cached[0] is not move_type:
        decoder = msgspec.json.Decoder(list[move_type])  # type: ignore[valid-type]
        cached = _LIST_DECODERS[id(move_type)] = (move_type, decoder)
    return cached[1]


def decode_move(game: Game, obj: Any, path: str, where: str = "game file") -> Move:
    """The move object at JSON ``path`` as the game's move. Raises GameFileError."""
    try:  # (one cached Decoder: msgspec.convert re-analyses a Union type on every call)
        return _move_decoder(game.move_type).decode(canonical(obj))
    except msgspec.ValidationError as exc:
        raise GameFileError(
            f"{where} breaks the {game.name} schema: {path_first(str(exc), path)}"
        ) from None


def decode_sealed_move(game: Game, obj: Any, path: str, where: str = "game file") -> Any:
    """The public part of a sealed move (the move without its sealed fields) at JSON
    ``path``, checked like a move. Raises GameFileError."""
    public = sealed_move_type(game)
    if public is None:
        raise GameFileError(f"{where} breaks the {game.name} schema: {path}: "
                            f"{game.title} has no hidden choice to seal")
    try:
        return _move_decoder(public).decode(canonical(obj))
    except msgspec.ValidationError as exc:
        raise GameFileError(
            f"{where} breaks the {game.name} schema: {path_first(str(exc), path)} (the "
            "public part of a sealed move)"
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


def nonce_prompt(gf: GameFile) -> str:
    """Who still owes a nonce (or its commitment), as the prompt before the first move."""
    missing = missing_nonces(gf)
    if nonce_phase(gf) == "commit":
        return _("waiting for nonce commitments from {players} before the first move "
                 "(`referee nonce FILE --as PLAYER`)").format(players=", ".join(missing))
    return _("waiting for nonces from {players} before the first move (`referee nonce FILE "
             "--as PLAYER`)").format(players=", ".join(missing))


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


def move_entry(data: Mapping[str, Any], player: str, move: Move) -> Entry:
    """The log entry for ``move`` by ``player``, to be appended to ``data``'s log (``n``,
    ``by`` and the move; ``prev``, ``at`` and the MAC are the write core's). In a sealed
    game the move's private fields are sealed to the referee recipient and the entry
    carries the public text."""
    game = dataversions.game_of(data)  # the game of the data version in force
    body = msgspec.to_builtins(move)
    entry: Entry = {"n": len(data["log"]) + 1, "by": player}
    private = engine.private_fields(game, move) if "commitment" in data["rng"] else ()
    if private:
        entry["move"] = {k: v for k, v in body.items() if k not in private}
        entry["sealed"] = vouch.seal(sealed_recipient(data), {k: body[k] for k in private})
        entry["public"] = engine.public_text(game, move)
    else:
        entry["move"] = body
    return entry


def append_entry(data: Header, player: str, move: Move, *, seed: str | None = None,
                 extra: Entry | None = None) -> Entry:
    """Append the entry for ``move`` to ``data`` in memory (a trial or a test; files are
    written by referee/play/writecore.py). With the ``seed`` the entry carries the MAC."""
    return append_raw(data, move_entry(data, player, move), seed=seed, extra=extra)


def append_raw(data: Header, entry: Entry, *, seed: str | None = None,
               extra: Entry | None = None) -> Entry:
    """Append ``entry`` (n, by and its kind's fields) to ``data`` in memory with ``extra``,
    ``prev``, ``at`` and, in a sealed game whose seed is given, the referee's MAC: for a
    trial replay (``upgrade --dry-run``) and tests. Files are written only by the write
    core (referee/play/writecore.py), which MACs nothing it has not replayed."""
    entry.update(extra or {})  # type: ignore[typeddict-item]  # (n and by: the entry's)
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


def parse_players(spec: str) -> list[PlayerRecord]:
    """``ann,ben`` or ``ann=Ann Smith <ann@example.org>,ben`` (a name with a comma in double
    quotes: ``ann="Smith, Ann" <ann@example.org>``); ``bot:cat`` or
    ``bot:cat=greedy`` (``random``, ``greedy``, ``mcts`` or ``mcts:ITERATIONS``) for a bot
    seat (referee/ledger/seats.py). Raises UsageError.

    Ids are NFC-normalised and must be lower-case; names and addresses may not hold
    control characters."""
    import re
    import unicodedata

    from referee.ledger.roster import split_list, unquote

    players: list[PlayerRecord] = []
    for part in (s.strip() for s in split_list(spec)):
        if not part:
            raise UsageError(f"empty player name in --players {spec!r}")
        part, bot = seats.split_player(part)
        pid, _, rest = (part, "", "") if bot else part.partition("=")
        pid = unicodedata.normalize("NFC", pid.strip())
        if not re.fullmatch(PLAYER_ID.rstrip("$"), pid):
            hint = (f"ids are lower-case: use {pid.lower()!r}"
                    if re.fullmatch(PLAYER_ID.rstrip("$"), pid.lower()) else
                    "ids are 1-24 lower-case letters, digits, '-' or '_', starting with "
                    "a letter, e.g. ann")
            raise UsageError(f"bad player id {pid!r}", hints=[hint])
        if pid == GAME_MASTER:
            raise UsageError(f"bad player id {pid!r}: it names the game master",
                             hints=["choose another id for this player"])
        player: PlayerRecord = {"id": pid, "name": pid}
        if bot:
            player["bot"] = bot.record()
        rest = rest.strip()
        m = re.match(r"^(.*?)\s*<([^<>\s]+@[^<>\s]+)>$", rest)
        if m:
            player["name"] = unquote(m.group(1)) or pid
            player["email"] = m.group(2)
        elif rest:
            player["name"] = unquote(rest)
        if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in rest):
            raise UsageError(f"player {pid}: control characters in the name or address")
        _check_name_and_address(pid, player)
        players.append(player)
    ids = [p["id"] for p in players]
    dupes = sorted({p for p in ids if ids.count(p) > 1})
    if dupes:
        raise UsageError(f"player listed twice: {', '.join(dupes)}")
    return players


def _check_name_and_address(pid: str, player: PlayerRecord) -> None:
    """The bounds a file's reader holds names and addresses to. Raises UsageError."""
    import re

    name = player.get("name", "")
    if len(name) > NAME_MAX:
        raise UsageError(f"player {pid}: a name has at most {NAME_MAX} characters, not "
                         f"{len(name)}")
    email = player.get("email")
    if email is not None and (len(email) > EMAIL_MAX or not re.fullmatch(EMAIL, email)):
        raise UsageError(f"player {pid}: {email[:EMAIL_MAX]!r} is not an e-mail address "
                         f"(local@domain, at most {EMAIL_MAX} characters)")


def new_data(
    game: Game,
    players: Sequence[PlayerRecord],
    options: Mapping[str, str],
    rng: RngRecord,
    game_id: str,
) -> Header:
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
    data: Header = {
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
    return data


def check_new(data: Mapping[str, Any]) -> None:
    """What every read will check of a new game's header, before the file exists (its
    rng complete). Raises UsageError: the command's own arguments break a bound."""
    problem = check_shape(data)
    if problem:
        raise UsageError(f"the new game would break the file format: {problem}")


def play_number(log: Iterable[Mapping[str, Any]]) -> int:
    """The play number: log entries that change the game (all but ``meta`` entries). A
    reply must answer a referee message written at the current number."""
    return sum(1 for e in log if "meta" not in e)
