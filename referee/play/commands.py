"""The library side of the commands that are more than one call: start a game (`new`),
list the games (`games`), a game's log in notation (`log`) and move a game to this
referee's data (`upgrade`). Each returns what happened; the command line (referee/cli/)
only parses its arguments, calls these and prints. Writes go through the write core.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from referee import engine
from referee.engine import Match, game_names, get_game
from referee.errors import UsageError
from referee.i18n import domain
from referee.ledger import dataversions, gamefile, replay, secret
from referee.play import upgrades

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:  # the writes import what they use: `log` and `games` start faster
    from referee.ledger.records import Header, PlayerRecord, RngRecord  # (types only)
    from referee.play.submit import BotMove

# --- games ----------------------------------------------------------------------------


class OptionRow(TypedDict):
    name: str
    default: str
    choices: list[str]
    help: str


class GameRow(TypedDict):
    """A game as `referee games` lists it."""

    name: str
    title: str
    players: list[int]  # the least and the most
    rules: str  # the data version
    assumed_values: int
    options: list[OptionRow]


def game_rows() -> list[GameRow]:
    """Every game known: name, title, player counts, data version, how many values are
    assumed, and its options (what `referee games` lists)."""
    rows: list[GameRow] = []
    for name in game_names():
        game = get_game(name)
        rows.append({
            "name": game.name,
            "title": game.title,
            "players": [game.min_players, game.max_players],
            "rules": game.data_version(),
            "assumed_values": len(engine.assumptions(game)),
            "options": [
                {"name": o.name, "default": o.default, "choices": list(o.choices),
                 "help": o.help}
                for o in game.options
            ],
        })
    return rows


# --- new ------------------------------------------------------------------------------


@dataclass
class NewGame:
    """The outcome of :func:`new_game`: the game as written (and after the bot seats
    played what they owed), and where its secret went."""

    path: Path
    gf: gamefile.GameFile
    match: Match
    secret_path: Path | None  # the secret file written (a sealed game with its own seed)
    derived: bool  # sealed with a seed derived from the repository secret
    played: list[BotMove] = field(default_factory=list)
    bot_problem: str | None = None  # why the bot seats could not play all they owed


@dataclass
class NewGameRequest:
    """What `referee new` is asked for (its options, parsed)."""

    game_name: str
    players: str  # "ann,ben,cat" (see gamefile.parse_players)
    seed: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    game_id: str | None = None
    sealed: bool = False
    secret_out: Path | None = None
    nonces: bool = False
    logins: str | None = None  # "ann=octocat,ben=bencat"
    insecure_seed: bool = False
    pace: str | None = None  # --clock BANK[+INCREMENT][/CAP] (docs/clocks.md)
    vacation_days: int = 0
    pause: str | None = None  # "weekends"
    on_timeout: str = "gm"  # bot:LEVEL | gm | forfeit
    matrix: str | None = None  # "ann=@ann:example.org,ben=@ben:example.org" (sealed)


def new_game(path: Path, request: NewGameRequest) -> NewGame:
    """Start a new game in ``path``: the header checked, its setup replayed before
    anything is written, the file (and a sealed game's secret file: both or neither)
    created, then the bot seats' first decisions played. Raises UsageError,
    GameFileError and the errors of a replay."""
    from referee.play import newgame
    from referee.play.submit import bots_after

    game = get_game(request.game_name)
    player_list = gamefile.parse_players(request.players)
    add_logins(player_list, request.logins)
    add_pairs(player_list, request.matrix, "matrix", "--matrix", "PLAYER=@USER:SERVER",
              _matrix_id)
    game_id = request.game_id or f"{game.name}-{secrets.token_hex(3)}"
    filled: RngRecord = {"nonce_commitments": {}, "nonces": {}} if request.nonces else {}
    data = gamefile.new_data(game, player_list, dict(request.options), filled, game_id)
    add_clock(data, request)
    data["rng"] = filled
    sealed = request.sealed or bool(request.matrix)  # a chat game is sealed, as by mail
    started = newgame.start(path, data, seed=request.seed, sealed=sealed,
                            insecure=request.insecure_seed, secret_out=request.secret_out)
    gf, match, derived = started.gf, started.match, started.derived
    kept = started.secret_path
    played, problem = bots_after(path, kept)
    if played:
        gf = gamefile.read(path)
        match = replay.replay(gf, secret.find_seed(gf, kept, path))
    return NewGame(path, gf, match, kept, derived, played, problem)


def add_clock(data: Header, request: NewGameRequest) -> None:
    """``--clock`` and its options into the new header (referee/clocks/clock.py). Raises
    UsageError."""
    if request.pace is None:
        if request.vacation_days or request.pause or request.on_timeout != "gm":
            raise UsageError(_("--vacation, --pause and --timeout go with --clock"))
        return
    if not request.sealed:
        raise UsageError(_("--clock needs --sealed: only the referee's MACs vouch for time, "
                           "and an open game has no secret to make them"))
    from referee.clocks import clock

    data["clock"] = clock.control(request.pace, request.vacation_days, request.pause,
                                  request.on_timeout)


def add_logins(players: list[PlayerRecord], logins: str | None) -> None:
    """``--github ann=octocat,ben=bencat`` into the players. Raises UsageError."""
    add_pairs(players, logins, "github", "--github", "PLAYER=LOGIN", _github_login)


def add_pairs(players: list[PlayerRecord], spec: str | None, key: Literal["github", "matrix"],
              option: str, form: str, check: Callable[[str], str]) -> None:
    """``ann=X,ben=Y`` into each named player's ``key``; ``check`` returns the value as
    kept or raises UsageError. Raises UsageError for a pair that names no player."""
    by_id = {p["id"]: p for p in players}
    seen: dict[str, str] = {}
    for pair in (spec or "").split(","):
        if not pair.strip():
            continue
        pid, sep, value = (x.strip() for x in pair.partition("="))
        if not sep or pid not in by_id or not value:
            raise UsageError(_("{option} takes {form} for players of this game, got "
                               "{pair}").format(option=option, form=form,
                                                pair=repr(pair.strip())))
        kept = check(value)
        fold = str.lower if key == "github" else str  # (GitHub compares logins without case)
        if key in ("matrix", "github") and fold(kept) in map(fold, seen.values()):
            raise UsageError(_("{option}: {value} is given for two seats").format(
                option=option, value=kept))
        seen[pid] = by_id[pid][key] = kept  # (a login or a Matrix id: both strings)


def _github_login(value: str) -> str:
    """A GitHub login as the file keeps it, or UsageError: 1-39 letters, digits and
    single hyphens inside (the format's pattern and bound: referee/ledger/fileformat.py)."""
    import re

    from referee.ledger.fileformat import GITHUB, GITHUB_MAX, full

    if len(value) > GITHUB_MAX or not re.match(full(GITHUB), value):
        raise UsageError(_("--github: {value} is not a GitHub login (1-39 letters, digits "
                           "and single hyphens inside, like octo-cat)").format(
                               value=repr(value[:80])))
    return value


def _matrix_id(value: str) -> str:
    """A Matrix user id as the file keeps it, or UsageError (the format's pattern and
    bound: referee/ledger/fileformat.py)."""
    import re

    from referee.ledger.fileformat import MATRIX_ID_MAX, MATRIX_USER, full

    if len(value) > MATRIX_ID_MAX or not re.match(full(MATRIX_USER), value):
        raise UsageError(_("--matrix: {value} is not a Matrix user id like "
                           "@ann:example.org (lower-case localpart)").format(
                               value=repr(value[:80])))
    return value


# --- log ------------------------------------------------------------------------------


class LogRow(TypedDict):
    """An entry of `referee log`: its number and author, the move in notation, its time,
    whether a bot played it; with the replay the round it was played in and what it made
    happen; a planned move's plan record."""

    n: int
    by: str
    move: str
    at: str | None
    bot: bool
    round: NotRequired[int]
    events: NotRequired[list[str]]
    planned: NotRequired[int]


@dataclass
class GameLog:
    """A game's log in notation, as ``viewer`` may read it; ``match`` is None for a
    sealed game without its secret (only its structure was checked)."""

    gf: gamefile.GameFile
    match: Match | None
    rows: list[LogRow]


def game_log(path: Path, viewer: str | None, secret_path: Path | None = None) -> GameLog:
    """Every entry: number, author, the move in notation (a sealed hidden choice only to
    its author with the secret), time and whether a bot played it. Raises the errors of
    reading and replaying the file, UsageError for an unknown viewer."""
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if viewer is not None:
        gf.player(viewer)
    rows: list[LogRow] = [
        {"n": e["n"], "by": e["by"], "move": replay.entry_text(gf, i, seed, viewer),
         "at": e.get("at"), "bot": e.get("bot") is True} for i, e in enumerate(gf.entries)]
    match = _replayed_rows(gf, seed, rows) if seed is not None else None
    if match is None:
        replay.check_structure(gf)
    if replay.has_plans(gf.log):
        _plan_rows(gf, rows, seed, viewer, match)
    return GameLog(gf, match, rows)


def _replayed_rows(gf: gamefile.GameFile, seed: str, rows: list[LogRow]) -> Match:
    """Replay the game, marking each row with what the public view shows around its
    entry: ``round`` (the round it was played in, for a game whose views name rounds)
    and ``events`` (the game's own account of what the entry made happen: scoring, a
    round's end). An undo's events are none (it takes back the last move's)."""
    game = gf.game
    before = game.view(replay.start_state(gf, seed).state, None)

    def record(i: int, match: Match) -> None:
        nonlocal before
        after = game.view(match.state, None)
        row = rows[i]
        played_in = engine.view_round(before)
        if played_in is not None:
            row["round"] = played_in
        row["events"] = [] if "undo" in gf.log[i] else engine.new_events(
            engine.view_events(before), engine.view_events(after))
        before = after

    return replay.replay(gf, seed, on_entry=record)


def _plan_rows(gf: gamefile.GameFile, rows: list[LogRow], seed: str | None,
               viewer: str | None, match: Match | None) -> None:
    """Plans in the log (docs/plans.md): a planned move is marked; a plan record shows
    its lines to its player, and to everyone after the game."""
    from referee.ledger import plans
    from referee.play import plan_play

    finished = match is not None and match.game.finished(match.state)
    for i, entry in enumerate(gf.entries):
        if "plan" in entry:
            rows[i]["planned"] = entry["plan"]
        elif plans.is_record(entry):
            shown = plan_play.record_text(gf, i, seed, viewer, finished)
            if shown is not None:
                rows[i]["move"] = shown


# --- upgrade --------------------------------------------------------------------------


def upgrade_game(path: Path, *, dry_run: bool, secret_path: Path | None = None,
                 target: str | None = None) -> tuple[upgrades.UpgradeReport, int | None]:
    """Replay the game under this referee's rules and data (or the pin ``target``) and
    compare; unless ``dry_run``, and only if every move stays legal, append the game
    master's upgrade entry. Returns the report and the number of the entry written
    (None: nothing written)."""
    from referee.play import writecore

    if target is not None:
        dataversions.split_pin(target)  # a clear error for what is not a pin
    with writecore.transaction(path, secret_path=secret_path, replayed=False) as tx:
        report = upgrades.compare(tx.gf, tx.seed, target)
        entry: int | None = None
        if not dry_run and report.upgradable:
            entry = tx.record(dataversions.upgrade_entry(report.target))["n"]
    return report, entry
