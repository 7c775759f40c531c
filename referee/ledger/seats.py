"""Bot seats: seats that a bot plays, from the start or handed over later.

A seat is a bot seat from the header (``players[i].bot``, made by
``referee new ... --players ann,bot:cat=greedy``) or from a ``bot`` meta entry
(``{"kind": "bot", "player": "cat", "level": "mcts", "iterations": 100}``; ``level: null``
gives the seat back to a person). The game master may write that entry for any seat; a
player only for their own seat, and may take back only a seat they handed over
themselves (a seat made a bot by the header or by the game master is the game master's).

A bot seat's moves must be reproducible, so that anybody holding the file (and, in a
sealed game, the secret) can check that a move marked as the bot's is the bot's: the
bot thinks for a fixed number of iterations (never for a wall time) and its generator is
keyed from the game's generator key and the number of the entry it writes
(:func:`seat_rng`). The same file gives the same bot move anywhere.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from referee.errors import UsageError
from referee.i18n import domain
from referee.ledger.fileformat import GAME_MASTER, ITERATIONS_MAX

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import BotRecord, MetaFields

_, N_, ngettext = domain("referee")

LEVELS = ("random", "greedy", "mcts")  # referee.bots.LEVELS, without importing the bots
DEFAULT_LEVEL = "mcts"
DEFAULT_ITERATIONS = 100  # mcts seats: iterations per decision (about 0.25 s of CPU)
# The cap of a bot seat's iterations a decision: every bot move, and every `check --since`
# that replays it, pays it. Measured on a busy 2-core machine (another process spinning):
# a 5-player Dynasties game at its first decision, the dearest position, costs about 11 s
# of CPU (21 s wall) at 1,000 iterations, so 1,000 keeps a decision within 15 s of CPU.
MAX_ITERATIONS = 1_000
# Earlier releases allowed 5,000: files that record such a seat stay readable (the
# schema and the replay accept the record), but the seat no longer plays or is replayed
# by `check --since` above the cap (refused, naming `referee seat` to lower it); only
# `check --bots`, asked for explicitly, replays such old moves at their recorded level.
RECORDED_MAX_ITERATIONS = ITERATIONS_MAX  # 5,000: what a file may record
BOT_PREFIX = "bot:"


class SeatBot(msgspec.Struct, frozen=True):
    """How a bot seat plays: the level and, for mcts, the fixed iteration budget."""

    level: str
    iterations: int | None = None

    def record(self) -> BotRecord:
        """The seat as a file records it (a player's ``bot``)."""
        out: BotRecord = {"level": self.level}
        if self.iterations is not None:
            out["iterations"] = self.iterations
        return out

    def describe(self) -> str:
        return self.level if self.iterations is None else f"{self.level}, {self.iterations} it."


def make_seat(level: Any, iterations: Any = None, what: str = "bot",
              limit: int = MAX_ITERATIONS) -> SeatBot:
    """A checked SeatBot. mcts gets DEFAULT_ITERATIONS unless told (at most ``limit``);
    the other levels take no iterations. Raises UsageError."""
    if level not in LEVELS:
        raise UsageError(_("{what}: unknown bot level {level}").format(
            what=what, level=repr(level)),
            hints=[_("levels: {levels}").format(levels=", ".join(LEVELS))])
    if level != "mcts":
        if iterations is not None:
            raise UsageError(_("{what}: only mcts takes a number of iterations").format(
                what=what))
        return SeatBot(level)
    if iterations is None:
        return SeatBot(level, DEFAULT_ITERATIONS)
    if (not isinstance(iterations, int) or isinstance(iterations, bool)
            or not 1 <= iterations <= limit):
        raise UsageError(_("{what}: iterations must be a whole number 1-{limit}, not "
                           "{given}").format(what=what, limit=limit, given=repr(iterations)))
    return SeatBot(level, iterations)


def parse_spec(spec: str) -> SeatBot:
    """``mcts``, ``mcts:200``, ``greedy``, ``random`` (empty: mcts). Raises UsageError."""
    level, sep, count = spec.strip().partition(":")
    level = level.strip().lower() or DEFAULT_LEVEL
    iterations: int | None = None
    if sep:
        if not count.strip().isdigit():
            raise UsageError(_("bad bot level {spec}: mcts:N takes a whole number N").format(
                spec=repr(spec)), hints=[_("e.g. bot:cat=mcts:200")])
        iterations = int(count)
    return make_seat(level, iterations, _("bot level {spec}").format(spec=repr(spec)))


def split_player(part: str) -> tuple[str, SeatBot | None]:
    """``bot:cat=greedy`` -> ("cat", SeatBot); ``ann=Ann <a@b>`` -> (part, None).
    Raises UsageError for ``bot:`` without an id."""
    if not part.lower().startswith(BOT_PREFIX):
        return part, None
    rest = part[len(BOT_PREFIX):]
    pid, _, spec = rest.partition("=")
    if not pid.strip():
        raise UsageError(f"{part!r}: a bot seat needs an id, e.g. bot:cat or bot:cat=greedy")
    return pid.strip(), parse_spec(spec)


def header_seats(data: Mapping[str, Any]) -> dict[str, SeatBot]:
    """The bot seats the header sets up."""
    found: dict[str, SeatBot] = {}
    for p in data["players"]:
        bot = p.get("bot")
        if isinstance(bot, dict):
            found[p["id"]] = SeatBot(bot["level"], bot.get("iterations"))
    return found


class Seats(msgspec.Struct):
    """Who plays which seat at one point of the log: the bot seats, and who made each
    one a bot ("header", "gm" or the player)."""

    bots: dict[str, SeatBot]
    set_by: dict[str, str]

    def apply(self, by: str, meta: Mapping[str, Any]) -> None:
        player = meta["player"]
        if meta.get("level") is None:
            self.bots.pop(player, None)
            self.set_by.pop(player, None)
        else:
            self.bots[player] = SeatBot(meta["level"], meta.get("iterations"))
            self.set_by[player] = by


def seats_at(data: Mapping[str, Any], upto: int | None = None) -> Seats:
    """The seats before log entry index ``upto`` (None: after the whole log). A ``bot``
    record that is not valid is skipped here (the replay refuses the file)."""
    found = header_seats(data)
    seats = Seats(found, {p: "header" for p in found})
    players = [p["id"] for p in data["players"]]
    for entry in data["log"][:upto]:
        meta = entry.get("meta")
        if isinstance(meta, dict) and meta.get("kind") == "bot":
            try:
                checked = validate_meta(meta, players)
            except UsageError:
                continue
            seats.apply(entry["by"], checked)
    return seats


def validate_meta(meta: Mapping[str, Any], players: Sequence[str],
                  limit: int = RECORDED_MAX_ITERATIONS) -> dict[str, Any]:
    """A ``bot`` meta object checked and normalised; as read from a file, a seat of up to
    RECORDED_MAX_ITERATIONS is valid (``limit``: a new one must be within the cap).
    Raises UsageError."""
    pid = meta.get("player")
    if pid not in players:
        raise UsageError(f"bot: {pid!r} is not a player in this game",
                         hints=[f"players: {', '.join(players)}"])
    unknown = sorted(set(meta) - {"kind", "player", "level", "iterations"})
    if unknown:
        raise UsageError(f"bot: unknown field {unknown[0]!r}")
    if meta.get("level") is None:
        if meta.get("iterations") is not None:
            raise UsageError("bot: a seat given back to a person takes no iterations")
        return dict(bot_entry(str(pid), None))
    seat = make_seat(meta["level"], meta.get("iterations"), "bot", limit)
    return dict(bot_entry(str(pid), seat))


def bot_entry(player: str, seat: SeatBot | None) -> MetaFields:
    """The ``bot`` meta record that hands ``player``'s seat to ``seat``, or back to a
    person (None)."""
    out: MetaFields = {"kind": "bot", "player": player, "level": None}
    if seat is not None:
        out["level"] = seat.level
        if seat.iterations is not None:
            out["iterations"] = seat.iterations
    return out


def meta_text(meta: Mapping[str, Any]) -> str:
    """A ``bot`` record as people read it: ``[bot] ben: greedy``, ``[bot] ben: a person``."""
    level = meta.get("level")
    if level is None:
        return f"[bot] {meta.get('player')}: back to a person"
    iterations = meta.get("iterations")
    return f"[bot] {meta.get('player')}: " + (f"{level}, {iterations} it." if iterations
                                              else str(level))


def meta_refusal(seats: Seats, by: str, meta: Mapping[str, Any]) -> str | None:
    """Why ``by`` may not write this (valid) ``bot`` meta entry now, or None."""
    player = meta["player"]
    if by == GAME_MASTER:
        return None
    if by != player:
        return _("{by} may not hand {player}'s seat to a bot or back: only {player} or the "
                 "game master may").format(by=by, player=player)
    owner = seats.set_by.get(player)
    if owner is not None and owner != player:
        made = _("the header") if owner == "header" else _("the game master")
        return _("{player}'s seat was made a bot seat by {made}: only the game master may "
                 "change it").format(player=player, made=made)
    return None


def seat_rng_key(game_key: bytes, n: int) -> bytes:
    """The key of the generator a bot seat uses for log entry ``n``: HMAC-SHA256 of the
    entry number under the game's generator key (secret in a sealed game)."""
    import hmac  # only for a bot seat

    return hmac.new(game_key, f"referee/bot-seat/1|{n}".encode(), hashlib.sha256).digest()
