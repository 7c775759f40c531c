"""The game-file format (docs/file-format.md) as msgspec types, and the checks of a
file's shape.

One definition: the msgspec Structs below check every file on every read (fast, with
errors that name the JSON path), and the published JSON Schemas (2020-12) in ``schemas/``
are generated from the same Structs (:mod:`referee.ledger.schemagen`). Every field has a bound
(the named constants of :mod:`referee.ledger.fileformat`): no entry a player sends can make a
file too big to read. The rules a Struct cannot express (an rng has a seed or a
commitment; a log entry has exactly one kind; ``sealed`` and ``public`` come together,
in a move) are checked in :func:`check_shape` and added to the generated schemas. A
test checks that the committed schemas equal the generated ones and that example files
pass both validators. :func:`referee.ledger.strictjson.strict_json` reads the JSON in one pass.
"""

# (no `from __future__ import annotations`: msgspec reads these annotations at the first
# decode of a game file, and evaluating them from strings costs every command some ms)

import functools
import re
import typing
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import UNSET, Meta, UnsetType

from referee.engine import Game
from referee.ledger.fileformat import (
    ADDRESSES_MAX,
    BASE64,
    CHANNEL_SEALED_MAX,
    CLOCK_SECONDS_MAX,
    CLOCK_SECONDS_MIN,
    DEADLINE_HOURS_MAX,
    DIGEST_MAX,
    EMAIL,
    EMAIL_MAX,
    ENTRY_MAX,
    GAME_ID,
    GAME_NAME_MAX,
    GITHUB,
    GITHUB_MAX,
    GITHUB_TEXT,
    GITHUB_TEXT_MAX,
    ITERATIONS_MAX,
    MATRIX_EVENT,
    MATRIX_ID_MAX,
    MATRIX_USER,
    MSG_ID,
    MSG_ID_MAX,
    NAME_MAX,
    NONCE_MAX,
    OPTION_KEY,
    OPTION_KEY_MAX,
    OPTION_VALUE_MAX,
    OPTIONS_MAX,
    PATTERN_TEXT,
    PLAN_LINE,
    PLAN_LINE_MAX,
    PLAN_LINES_MAX,
    PLAN_SEALED_MAX,
    PLAYER_ID,
    PLAYERS_MAX,
    PUBLIC_MAX,
    RULES,
    RULES_MAX,
    SEALED_MAX,
    SEED_MAX,
    TIME_UTC,
    VACATION_DAYS_MAX,
    full,
)


def _text(max_length: int, min_length: int = 0, pattern: str | None = None) -> Meta:
    """The bounds of a string field: its length, and a pattern it must match whole."""
    return Meta(min_length=min_length, max_length=max_length,
                pattern=None if pattern is None else full(pattern))


PlayerId = Annotated[str, Meta(pattern=PLAYER_ID)]
NonEmpty = Annotated[str, Meta(min_length=1)]
Sha256Hex = Annotated[str, Meta(pattern=full("[0-9a-f]{64}"))]
Sha256Ref = Annotated[str, Meta(pattern=full("sha256:[0-9a-f]{64}"))]
UtcTime = Annotated[str, _text(40, pattern=TIME_UTC)]
Name = Annotated[str, _text(NAME_MAX)]
Email = Annotated[str, _text(EMAIL_MAX, pattern=EMAIL)]
MsgId = Annotated[str, _text(MSG_ID_MAX, pattern=MSG_ID)]
Rules = Annotated[str, _text(RULES_MAX, 1, RULES)]
Seed = Annotated[str, _text(SEED_MAX, 1)]
Nonce = Annotated[str, _text(NONCE_MAX, 1)]
EntryNo = Annotated[int, Meta(ge=1, le=ENTRY_MAX)]
Level = Literal["random", "greedy", "mcts"]
Iterations = Annotated[int, Meta(ge=1, le=ITERATIONS_MAX)]


class FileBot(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A bot seat (referee/ledger/seats.py): the bot's level and, for mcts, its fixed number of
    iterations per decision (so that its moves are reproducible)."""

    level: Level
    iterations: Iterations | UnsetType = UNSET


class FilePlayer(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A player: ``id`` is what moves and commands use; name and e-mail are optional;
    ``bot`` makes the seat a bot seat."""

    id: PlayerId
    name: Name | UnsetType = UNSET
    email: Email | UnsetType = UNSET
    # GitHub login: `check --since REV --by-github LOGIN` maps a pull request's author to
    # this player, and the GitHub door plays this login's issues for the seat
    github: Annotated[str, _text(GITHUB_MAX, 1, GITHUB)] | UnsetType = UNSET
    # Matrix user id: the judge's chat door plays this seat's messages (docs/chat.md)
    matrix: Annotated[str, _text(MATRIX_ID_MAX, 1, MATRIX_USER)] | UnsetType = UNSET
    bot: FileBot | UnsetType = UNSET


# --- time control (referee/clocks/clock.py, docs/clocks.md) -------------------------------------


class FileClock(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A game's time control: each seat's bank at the start, the time added each time it
    finishes its turn, the most a bank may hold (seconds), vacation days per player, an
    optional weekend pause, and what happens when a bank is empty (``bot`` or ``forfeit``:
    a bot of ``level`` plays; ``gm``: the game master is asked)."""

    bank: Annotated[int, Meta(ge=CLOCK_SECONDS_MIN, le=CLOCK_SECONDS_MAX)]
    increment: Annotated[int, Meta(ge=0, le=CLOCK_SECONDS_MAX)]
    cap: Annotated[int, Meta(ge=CLOCK_SECONDS_MIN, le=CLOCK_SECONDS_MAX)]
    vacation: Annotated[int, Meta(ge=0, le=VACATION_DAYS_MAX)]
    pause: Literal["weekends"] | UnsetType = UNSET
    timeout: Literal["bot", "gm", "forfeit"]
    level: Level | UnsetType = UNSET


class FileRng(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The generator: an open ``seed``, or a sealed ``commitment`` (sha256 of the seed),
    with optional ``nonces`` per player, committed to first in ``nonce_commitments``
    (docs/rng.md); a sealed game's ``recipient`` is the age key hidden choices are sealed
    to (referee/ledger/vouch.py)."""

    seed: Seed | UnsetType = UNSET
    commitment: Sha256Ref | UnsetType = UNSET
    nonces: Annotated[dict[PlayerId, Nonce], Meta(max_length=PLAYERS_MAX)] | UnsetType = UNSET
    nonce_commitments: Annotated[dict[PlayerId, Sha256Ref],
                                 Meta(max_length=PLAYERS_MAX)] | UnsetType = UNSET
    recipient: Annotated[str, Meta(pattern=full("age1[0-9a-z]{20,100}"))] | UnsetType = UNSET


# --- meta records: one Struct per kind (referee/judge/meta.py writes them) ---------------


class _MetaRecord(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, tag_field="kind"):
    """A game master's (or, for ``notify`` and ``bot``, a player's) record."""


class MetaReplace(_MetaRecord, tag="replace"):
    """A new person takes over a seat."""

    player: PlayerId
    email: Email
    name: Name | UnsetType = UNSET


class MetaAddress(_MetaRecord, tag="address"):
    """A player's accepted addresses; mail goes to the first."""

    player: PlayerId
    emails: Annotated[list[Email], Meta(min_length=1, max_length=ADDRESSES_MAX)]


class MetaDeadline(_MetaRecord, tag="deadline"):
    """The hours a player has for each decision, and the bot that plays a missed one."""

    hours: Annotated[int, Meta(ge=1, le=DEADLINE_HOURS_MAX)]
    bot: Level | UnsetType | None = UNSET


class MetaBot(_MetaRecord, tag="bot"):
    """A seat handed to a bot (``level`` null: back to a person)."""

    player: PlayerId
    level: Level | UnsetType | None = UNSET
    iterations: Iterations | UnsetType | None = UNSET


class MetaWatcher(_MetaRecord, tag="watcher"):
    """Someone who gets the public mails (``on`` false: no longer)."""

    email: Email
    on: bool | UnsetType = UNSET
    name: Name | UnsetType = UNSET  # how their mails address them (``watch NAME <ADDRESS>``)
    # one mail per round, or per N decisions (referee/judge/meta.py digest)
    digest: Literal["round"] | Annotated[int, Meta(ge=1, le=DIGEST_MAX)] | UnsetType = UNSET


class MetaNotify(_MetaRecord, tag="notify"):
    """How a player wants to be told."""

    player: PlayerId
    mode: Literal["turn", "every", "digest"]


class MetaGm(_MetaRecord, tag="gm"):
    """The game master's address."""

    email: Email


class MetaUpgrade(_MetaRecord, tag="upgrade"):
    """The game moves to another data version (referee/ledger/dataversions.py)."""

    data: Rules


class MetaPlan(_MetaRecord, tag="plan"):
    """A player's plan (referee/ledger/plans.py): its ``lines`` in an open game, or in a sealed
    game the same lines sealed to the referee recipient (``sealed``); exactly one. No
    line (``lines`` empty) withdraws the plan."""

    player: PlayerId
    lines: Annotated[list[Annotated[str, _text(PLAN_LINE_MAX, 1, PLAN_LINE)]],
                     Meta(max_length=PLAN_LINES_MAX)] | UnsetType = UNSET
    sealed: Annotated[str, _text(PLAN_SEALED_MAX, 1, BASE64)] | UnsetType = UNSET
# --- clock records (referee/clocks/clock.py): a new time control (the game master's), a stamp
# (the referee saw the log up to here at its MAC'd ``at``), a player's vacation, and a
# timeout (the referee's, when a bank ran out)


class MetaClock(_MetaRecord, tag="clock"):
    """The game master's new time control (null: no clock from here on)."""

    control: FileClock | None


class MetaStamp(_MetaRecord, tag="stamp"):
    """The referee saw every entry before this one at this entry's (MAC'd) ``at``."""


class MetaVacation(_MetaRecord, tag="vacation"):
    """A player takes vacation days: their clock stops for that long."""

    player: PlayerId
    days: Annotated[int, Meta(ge=1, le=VACATION_DAYS_MAX)]


class MetaTimeout(_MetaRecord, tag="timeout"):
    """The referee found the player's bank (and vacation) empty while they were awaited."""

    player: PlayerId


class MetaLang(_MetaRecord, tag="lang"):
    """The language a player reads the game in (referee/i18n.py: ``en``, ``de``)."""

    player: PlayerId
    lang: Literal["en", "de"]


class MetaChannel(_MetaRecord, tag="channel"):
    """A player's notification channel (referee/mail/notify.py): ``via`` ``also`` (besides
    the mail) or ``only`` (instead of it) with the channel URL sealed to the referee
    recipient (``sealed``: never in clear), or ``off`` without one."""

    player: PlayerId
    via: Literal["also", "only", "off"]
    sealed: Annotated[str, _text(CHANNEL_SEALED_MAX, 1, BASE64)] | UnsetType = UNSET


class MetaRematch(_MetaRecord, tag="rematch"):
    """A player agrees by mail to a rematch of the finished game (referee/play/rematch.py)."""

    player: PlayerId


MetaRecord = Union[  # noqa: UP007 - msgspec wants a plain Union of tagged Structs
    MetaReplace, MetaAddress, MetaDeadline, MetaBot, MetaWatcher, MetaNotify, MetaGm,
    MetaUpgrade, MetaPlan, MetaRematch, MetaLang, MetaChannel,
    MetaClock, MetaStamp, MetaVacation, MetaTimeout,
]
META_KINDS = tuple(t.__struct_config__.tag for t in typing.get_args(MetaRecord))



class LogEntry(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One log entry, of exactly one kind: a ``move`` (the game's move object), an
    ``undo`` of entry n (by its author), a ``void`` that strikes entry n (an unchecked move
    found illegal), or a ``meta`` record of the game master (an address change, a
    deadline, ...) that does not touch the game's state."""

    n: EntryNo
    by: Annotated[str, Meta(pattern=full(PLAYER_ID[1:-1]))]  # a player id, or "gm"
    move: dict[str, Any] | UnsetType = UNSET  # bounded by the game's move types
    undo: EntryNo | UnsetType = UNSET
    void: EntryNo | UnsetType = UNSET
    meta: MetaRecord | UnsetType = UNSET
    # a move's private fields, encrypted (sealed games)
    sealed: Annotated[str, _text(SEALED_MAX, 1, BASE64)] | UnsetType = UNSET
    prev: Sha256Hex
    at: UtcTime | UnsetType = UNSET
    mail: MsgId | UnsetType = UNSET  # Message-ID of the mail that made this move
    # the Matrix event (a chat message) that made this entry (docs/chat.md)
    matrix: Annotated[str, _text(MATRIX_ID_MAX, 1, MATRIX_EVENT)] | UnsetType = UNSET
    # the GitHub issue or comment that made this entry (docs/git-and-ci.md, moving
    # through issues)
    github: Annotated[str, _text(GITHUB_TEXT_MAX, 1, GITHUB_TEXT)] | UnsetType = UNSET
    bot: bool | UnsetType = UNSET  # the move was chosen by a bot
    public: Annotated[str, _text(PUBLIC_MAX)] | UnsetType = UNSET  # a sealed move, as read
    mac: Sha256Hex | UnsetType = UNSET  # the referee's MAC (sealed games; referee/ledger/vouch.py)
    # a planned move: the entry number of the plan record it was played from
    plan: EntryNo | UnsetType = UNSET


class FileRematchOf(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The game a rematch follows (referee/play/rematch.py): its id, if it had one, and the
    hash of its header (what its first entry's ``prev`` carries)."""

    id: Annotated[str, Meta(pattern=GAME_ID)] | UnsetType = UNSET
    header: Sha256Hex


class GameFileDoc(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A referee game file: a header and an append-only log."""

    format: Literal["referee/1"]
    game: Annotated[str, Meta(pattern=full("[a-z][a-z0-9-]*"), max_length=GAME_NAME_MAX)]
    id: Annotated[str, Meta(pattern=GAME_ID)] | UnsetType = UNSET
    rules: Rules
    created: UtcTime | UnsetType = UNSET
    players: Annotated[list[FilePlayer], Meta(min_length=1, max_length=PLAYERS_MAX)]
    options: Annotated[dict[Annotated[str, _text(OPTION_KEY_MAX, 1, OPTION_KEY)],
                            Annotated[str, _text(OPTION_VALUE_MAX)]],
                       Meta(max_length=OPTIONS_MAX)]
    rng: FileRng
    clock: FileClock | UnsetType = UNSET  # the time control (referee/clocks/clock.py)
    rematch_of: FileRematchOf | UnsetType = UNSET
    log: list[LogEntry]


def path_first(message: str, prefix: str = "$") -> str:
    """msgspec's "Expected `int`, got `str` - at `$.n`" as "$.n: expected `int`, ..."."""
    for pattern, meaning in PATTERN_TEXT.items():
        message = message.replace(f"`str` matching regex {pattern!r}", meaning)
    text, sep, path = message.rpartition(" - at `")
    if not sep:
        return f"{prefix}: {message[:1].lower()}{message[1:]}"
    path = prefix + path.rstrip("`")[1:]
    return f"{path}: {text[:1].lower()}{text[1:]}"


def check_shape(data: Any) -> str | None:
    """Why ``data`` is not a game file (JSON path first), or None if its shape is right."""
    doc = _checked(data)
    if isinstance(doc, str):
        return doc
    bad_id = _id_with_newline(doc)
    if bad_id:
        return f"{bad_id}: an id may not end with a line break"
    for i, player in enumerate(doc.players):
        bot = player.bot
        if bot is not UNSET and (bot.level == "mcts") == (bot.iterations is UNSET):
            return (f"$.players[{i}].bot: an mcts seat needs `iterations`, and only an "
                    "mcts seat takes them")
    if doc.rng.seed is UNSET and doc.rng.commitment is UNSET:
        return "$.rng: needs `seed` or `commitment`"
    clock_problem = _clock_shape(doc)
    if clock_problem:
        return clock_problem
    for i, entry in enumerate(doc.log):  # (plain tests: this runs for every entry)
        move = entry.move
        if ((move is not UNSET) + (entry.undo is not UNSET) + (entry.void is not UNSET)
                + (entry.meta is not UNSET)) != 1:
            return f"$.log[{i}]: needs exactly one of `move`, `undo`, `void` and `meta`"
        if move is not UNSET and type(move.get("type")) is not str:
            return f"$.log[{i}].move: needs a string `type`"
        if entry.plan is not UNSET and (move is UNSET or entry.bot is not UNSET):
            return (f"$.log[{i}]: `plan` marks a planned move: only in a move, and never "
                    "in a bot's")
        if type(entry.meta) is MetaPlan and (entry.meta.lines is UNSET) == (
                entry.meta.sealed is UNSET):
            return f"$.log[{i}].meta: a plan has exactly one of `lines` and `sealed`"
        if type(entry.meta) is MetaChannel and (entry.meta.via == "off") != (
                entry.meta.sealed is UNSET):
            return (f"$.log[{i}].meta: a channel has its sealed URL exactly when it is "
                    "not `off`")
        if (entry.sealed is UNSET) != (entry.public is UNSET) or (
                entry.sealed is not UNSET and move is UNSET):
            return (f"$.log[{i}]: `sealed` and `public` come together, and only in a move "
                    "(a sealed move's hidden part and the text others read)")
    return None


def _clock_shape(doc: GameFileDoc) -> str | None:
    """A time control's cap is at least its bank (the header's, and each ``clock``
    record's; referee/clocks/clock.py)."""
    controls = [("$.clock", doc.clock)] + [
        (f"$.log[{i}].meta.control", e.meta.control) for i, e in enumerate(doc.log)
        if isinstance(e.meta, MetaClock)]
    for path, control in controls:
        if isinstance(control, FileClock) and control.cap < control.bank:
            return f"{path}: the cap ({control.cap} s) is less than the bank ({control.bank} s)"
    return None


def _field(info: Any) -> tuple[Any, ...]:
    """A Struct field as msgspec.defstruct takes it."""
    if info.required:
        return (info.name, info.type)
    if info.default_factory is not msgspec.NODEFAULT:
        return (info.name, info.type, msgspec.field(default_factory=info.default_factory))
    return (info.name, info.type, info.default)


def _checked(data: Any) -> Any:
    """``data`` as a GameFileDoc, or why it is none (JSON path first).

    A pattern per string costs a regex call per value, and a log has hundreds: so once a
    process has read enough entries to pay for building them (:data:`QUICK_AFTER`), the
    log entries are first checked by :func:`_quick_checked`. Otherwise, and for a file
    that fails it, the full types check the file and name the path of what is wrong."""
    global _entries_read
    log = data.get("log") if isinstance(data, dict) else None
    _entries_read += len(log) if isinstance(log, list) else 0
    if _entries_read >= QUICK_AFTER:
        doc = _quick_checked(data)
        if doc is not None:
            return doc
    try:
        return msgspec.convert(data, GameFileDoc)
    except msgspec.ValidationError as exc:
        return path_first(str(exc))


# Entries read before the quick check pays: building its types costs about 1.5 ms once,
# and it saves about 1 us an entry. A command that reads one game of a few hundred
# entries never builds them; `check`, `pending` and the judge, reading many, do.
QUICK_AFTER = 2000
_entries_read = 0


def _quick_checked(data: Any) -> Any:
    """``data`` as a quick copy of GameFileDoc if it is a valid game file, else None: a
    copy of LogEntry that keeps every bound but the patterns checks the entries, and each
    pattern is then matched once over all the entries' values joined by line breaks (no
    pattern matches a line break)."""
    quick_doc, patterns = _quick_types()
    try:
        doc = msgspec.convert(data, quick_doc)
    except msgspec.ValidationError:
        return None
    return doc if _patterns_hold(data["log"], patterns) else None


@functools.cache
def _quick_types() -> tuple[Any, dict[str, re.Pattern[str]]]:
    """The quick copy of GameFileDoc and the patterns of its log entries' fields."""
    quick_entry, patterns = _without_patterns(LogEntry)
    quick_doc = msgspec.defstruct(
        "GameFileDocQuick",
        [(f.name, list[quick_entry] if f.name == "log" else f.type,  # type: ignore[valid-type]
          *_field(f)[2:]) for f in msgspec.structs.fields(GameFileDoc)],
        kw_only=True, forbid_unknown_fields=True)
    return quick_doc, patterns


def _without_patterns(cls: Any) -> tuple[Any, dict[str, re.Pattern[str]]]:
    """A copy of Struct ``cls`` whose strings keep their lengths but lose their patterns
    (``full(...)`` ones), and those patterns by field name, compiled to match values
    joined by line breaks."""
    fields, patterns = [], {}
    for info in msgspec.structs.fields(cls):
        args = getattr(info.type, "__args__", ()) if not hasattr(info.type, "__metadata__") \
            else (info.type,)
        bare = []
        for arg in args or (info.type,):
            meta = next(iter(getattr(arg, "__metadata__", ())), None)
            pattern = getattr(meta, "pattern", None)
            if meta is not None and pattern and pattern.startswith("^(?:") \
                    and pattern.endswith(_FULL_END):
                body = pattern[len("^(?:"):-len(_FULL_END)]
                patterns[info.name] = re.compile(f"(?:{body})(?:\n(?:{body}))*")
                arg = Annotated[str, Meta(min_length=meta.min_length,
                                          max_length=meta.max_length)]
            bare.append(arg)
        typ = bare[0] if len(bare) == 1 else Union[tuple(bare)]  # noqa: UP007
        fields.append((info.name, typ, *_field(info)[2:]))
    config = cls.__struct_config__
    quick = msgspec.defstruct(f"{cls.__name__}Quick", fields, kw_only=True,
                              forbid_unknown_fields=config.forbid_unknown_fields)
    return quick, patterns


def _patterns_hold(log: list[dict[str, Any]], patterns: dict[str, re.Pattern[str]]) -> bool:
    """Whether every log entry's values match their field's pattern (one match a field)."""
    for name, pattern in patterns.items():
        values = [entry[name] for entry in log if name in entry]
        if values:
            joined = "\n".join(values)
            if joined.count("\n") != len(values) - 1 or pattern.fullmatch(joined) is None:
                return False
    return True


_FULL_END = full("")[len("^(?:"):]  # ")$(?!\\n)"


def _id_with_newline(doc: GameFileDoc) -> str | None:
    """The path of an id that ends with "\\n" (a regex `$` lets one through)."""
    ids = [("$.id", doc.id if isinstance(doc.id, str) else "")]
    if isinstance(doc.rematch_of, FileRematchOf) and isinstance(doc.rematch_of.id, str):
        ids.append(("$.rematch_of.id", doc.rematch_of.id))
    ids += [(f"$.players[{i}].id", p.id) for i, p in enumerate(doc.players)]
    if isinstance(doc.rng.nonces, dict):
        ids += [("$.rng.nonces", k) for k in doc.rng.nonces]
    if isinstance(doc.rng.nonce_commitments, dict):
        ids += [("$.rng.nonce_commitments", k) for k in doc.rng.nonce_commitments]
    for path, value in ids:
        if value.endswith("\n"):
            return path
    return None


# --- sealed moves -----------------------------------------------------------------------


def sealed_fields(game: Game) -> dict[str, tuple[str, ...]]:
    """The move types that may hold a hidden choice, and the fields that may be sealed
    (a game's ``sealed_fields``; ``Game.private_fields`` says which are, move by move)."""
    return dict(getattr(game, "sealed_fields", {}))


_SEALED_TYPES: dict[int, tuple[Any, Any]] = {}


def sealed_move_type(game: Game) -> Any:
    """The union of the public parts of the game's moves that may be sealed (the move
    without its sealed fields, refusing unknown ones), or None if none may be."""
    cached = _SEALED_TYPES.get(id(game.move_type))
    if cached is not None and cached[0] is game.move_type:
        return cached[1]
    hidden = sealed_fields(game)
    parts = []
    for cls in getattr(game.move_type, "__args__", (game.move_type,)):
        tag = cls.__struct_config__.tag
        if tag in hidden:
            fields = [_field(f) for f in msgspec.structs.fields(cls)
                      if f.name not in hidden[tag]]
            parts.append(msgspec.defstruct(f"{cls.__name__}Public", fields, tag=tag,
                                           tag_field=cls.__struct_config__.tag_field,
                                           forbid_unknown_fields=True, frozen=True))
    found = None if not parts else parts[0] if len(parts) == 1 else Union[tuple(parts)]  # noqa: UP007
    _SEALED_TYPES[id(game.move_type)] = (game.move_type, found)
    return found


