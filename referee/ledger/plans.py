"""Plans: a player's conditional moves and standing answers (docs/plans.md).

A player writes a **plan**: up to :data:`~referee.ledger.fileformat.PLAN_LINES_MAX` lines, each

* ``MOVE``, a **standing answer**: played at the next decision of theirs that it fits (a
  decision whose legal moves include a move of the same kind: ``pick purple`` fits a
  bonus chest pick, ``done`` the purple exchange, ``choose kkp`` the choice of a group
  of goods). At a decision it fits but where it is not legal it is dropped; at a
  decision of another kind it waits.
* ``if PLAYER MOVE then MOVE``, a **conditional move**: when PLAYER next moves, the line
  is armed if that move is exactly the condition's, else dropped; an armed line is played
  at the writer's first decision after that move if it is legal there, else dropped.

A plan is a ``plan`` meta record by its player (the lines in an open game, sealed to the
referee recipient in a sealed one); a new one replaces the player's plan, one without
lines withdraws it. A plan answers only decisions that arise after it was written.

After every accepted move the write core's caller (referee/play/submit.py) plays the moves
that plans give, through the same checked path as any move, each entry marked
``"plan": N`` (N: the plan record). Every replay walks the plans with the log
(:class:`Book`): a planned move must directly follow the move that raised its decision,
come from a plan recorded before that decision arose, and be exactly the move that plan
gives there; anything else is refused as forged. What was dropped, and why, is the
book's too, so that the player is told it in their next mail and ``status``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from referee import engine
from referee.engine import Game, Match, Move
from referee.errors import MoveError, ReplayError, UsageError
from referee.i18n import domain
from referee.ledger import vouch
from referee.ledger.fileformat import GAME_MASTER, PLAN_LINE, PLAN_LINE_MAX, PLAN_LINES_MAX

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:
    from referee.ledger.gamefile import GameFile
    from referee.ledger.records import MetaFields

_IF = re.compile(r"^if\s+(\S+)\s+(.+?)\s+then\s+(.+)$", re.I)
_PRINTABLE = re.compile(rf"^(?:{PLAN_LINE})$")
MAX_PLANNED = 200  # planned moves one write may play: more than any chain of decisions


# --- lines ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One plan line: ``text`` as stored; ``then`` the move it plays; ``when`` the
    condition (the player and their move), None for a standing answer."""

    text: str
    then: str
    when: tuple[str, Move] | None = None


def parse_line(game: Game, players: Sequence[str], owner: str, text: str,
               sealed: bool = False) -> Line:
    """One plan line of ``owner``, checked: its notation (the game's own), its bound, and
    a condition that names another player and, in a sealed game, no hidden choice (its
    outcome would tell the owner the hidden part). Raises UsageError."""
    text = " ".join(text.split())
    if not text:
        raise UsageError(_("an empty plan line"))
    if len(text) > PLAN_LINE_MAX or not _PRINTABLE.match(text):
        raise UsageError(_("a plan line has at most {n} printable characters: "
                           "{text}...").format(n=PLAN_LINE_MAX, text=repr(text[:PLAN_LINE_MAX])))
    found = _IF.match(text)
    if found is None:
        if text.split()[0].lower() in ("if", "then"):
            raise UsageError(_("cannot read {text}: a conditional line is `if PLAYER MOVE "
                               "then MOVE`").format(text=repr(text)))
        _notation(game, text)
        return Line(text, text)
    who, cond, then = found.group(1).lower(), found.group(2), found.group(3)
    if who not in players:
        raise UsageError(_("{text}: {player} is not a player in this game").format(
            text=repr(text), player=repr(who)),
            hints=[_("players: {players}").format(players=", ".join(players))])
    if who == owner:
        raise UsageError(_("{text}: a condition is on another player's next move").format(
            text=repr(text)))
    move = _notation(game, cond)
    if sealed and engine.private_fields(game, move):
        raise UsageError(_("{text}: a condition may not name a hidden choice (its outcome "
                           "would tell you what was chosen)").format(text=repr(text)))
    _notation(game, then)
    return Line(text, then, (who, move))


def _notation(game: Game, text: str) -> Move:
    try:
        return game.parse_move(text, [])
    except MoveError as exc:
        raise UsageError(_("not a {game} move: {problem}").format(
            game=game.title, problem=exc.message), hints=exc.hints
            or [_("the moves are written as in `referee status --as PLAYER`")]) from None


def parse_lines(game: Game, players: Sequence[str], owner: str, texts: Sequence[str],
                sealed: bool = False) -> list[Line]:
    """A whole plan (at most :data:`PLAN_LINES_MAX` lines). Raises UsageError."""
    if len(texts) > PLAN_LINES_MAX:
        raise UsageError(_("a plan has at most {n} lines, not {given}").format(
            n=PLAN_LINES_MAX, given=len(texts)))
    return [parse_line(game, players, owner, t, sealed) for t in texts]


# --- records --------------------------------------------------------------------------


def is_record(entry: Mapping[str, Any]) -> bool:
    meta = entry.get("meta")
    return isinstance(meta, dict) and meta.get("kind") == "plan"


def in_log(log: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a log holds a plan record or a planned move (only then is a replay's
    :class:`Book` kept)."""
    return any("plan" in e or is_record(e) for e in log)


def record(data: Mapping[str, Any], player: str, texts: Sequence[str]) -> MetaFields:
    """The meta object of ``player``'s plan of ``texts``: in clear in an open game, sealed
    to the referee recipient in a sealed one."""
    lines = [" ".join(t.split()) for t in texts]
    if "commitment" not in data["rng"]:
        return {"kind": "plan", "player": player, "lines": lines}
    from referee.ledger.gamefile import sealed_recipient

    return {"kind": "plan", "player": player,
            "sealed": vouch.seal(sealed_recipient(data), {"lines": lines})}


def record_lines(gf: GameFile, i: int, seed: str | None) -> list[str]:
    """The lines of the plan record at log index ``i`` (a sealed one opened with the
    seed). Raises ReplayError."""
    meta = gf.log[i]["meta"]
    if "lines" in meta:
        return list(meta["lines"])
    seed = seed or gf.data["rng"].get("seed")
    if seed is None:
        raise ReplayError(f"{_where(i)}: a sealed plan: it needs the game's secret")
    try:
        opened = vouch.unseal(seed, meta["sealed"], f"$.log[{i}].meta")
    except Exception as exc:  # GameFileError, or a missing age library
        raise ReplayError(getattr(exc, "message", str(exc))) from None
    lines = opened.get("lines")
    if not isinstance(lines, list) or not all(isinstance(t, str) for t in lines):
        raise ReplayError(f"{_where(i)}: the sealed plan holds no lines")
    return lines


def check_entry(gf: GameFile, i: int, entry: Mapping[str, Any]) -> None:
    """What a reader checks of a plan record or a planned move without the state (and
    without the seed): who wrote it, its form, and what a planned move refers to.
    Raises ReplayError."""
    if is_record(entry):
        meta = entry["meta"]
        if entry["by"] == GAME_MASTER:
            raise ReplayError(f"{_where(i)}: a plan by the game master: only a player "
                              "writes their own plan")
        if gf.sealed and "sealed" not in meta:
            raise ReplayError(f"{_where(i)}: a plan in clear in a sealed game: it must be "
                              "sealed to the referee, or every player could read it")
        if not gf.sealed and "sealed" in meta:
            raise ReplayError(f"{_where(i)}: a sealed plan in an open game")
    if "plan" not in entry:
        return
    target, n = entry["plan"], entry["n"]
    source = gf.log[target - 1] if 0 < target < n else None
    if source is None or not is_record(source) or source["by"] != entry["by"]:
        raise ReplayError(f"{_where(i)}: a planned move of {entry['by']} that names no "
                          f"earlier plan of theirs (entry {target}): forged")
    before = gf.log[i - 1] if i else None
    if before is None or "move" not in before or target >= n - 1:
        raise ReplayError(f"{_where(i)}: a planned move must directly follow the move that "
                          "raised its decision, and its plan must be older than that move")


def _where(i: int) -> str:
    return f"$.log[{i}] (entry {i + 1})"


# --- the book: plans walked with the log -----------------------------------------------


@dataclass(frozen=True)
class Live:
    """A line in force: its plan record's entry number, its place in that plan, the
    line, and (a conditional line) the entry whose move armed it."""

    record: int
    index: int
    line: Line
    armed: int | None = None


@dataclass(frozen=True)
class Dropped:
    """A line dropped at entry ``at`` (told to its player), and why."""

    player: str
    record: int
    index: int
    text: str
    at: int
    why: str


@dataclass
class _Pages:
    """The book's state, copied whole for an undo to return to."""

    lines: dict[str, list[Live]] = field(default_factory=dict)
    records: dict[str, int] = field(default_factory=dict)  # player -> latest plan record
    dropped: list[Dropped] = field(default_factory=list)
    played: dict[int, tuple[int, int]] = field(default_factory=dict)  # n -> record, line
    since: dict[str, int] = field(default_factory=dict)  # player -> entry: decision arose

    def copy(self) -> _Pages:
        return _Pages({p: list(v) for p, v in self.lines.items()}, dict(self.records),
                      list(self.dropped), dict(self.played), dict(self.since))


class Book:
    """The plans of a game as its log is replayed (:func:`referee.ledger.replay.replay` steps
    it): which lines stand, which were played or dropped, and which moves are due now."""

    def __init__(self, gf: GameFile, seed: str | None) -> None:
        self.gf = gf
        self.seed = seed
        self.pages = _Pages({p: [] for p in gf.players})
        self.due: dict[str, tuple[Live, Move]] = {}  # at the point after entry ``point``
        self.point: int | None = None
        self._before: list[str] = []
        self._now: list[str] = []
        self._kept: tuple[int, _Pages] | None = None

    # --- stepping (called by the replay) ----------------------------------------------

    def before(self, i: int, entry: Mapping[str, Any], match: Match, undone_next: bool
               ) -> None:
        if "move" not in entry:
            return
        game = match.game
        self._before = [] if game.finished(match.state) else list(game.to_move(match.state))
        if undone_next:
            self._kept = (i, self.pages.copy())

    def after(self, i: int, entry: Mapping[str, Any], match: Match, moved: bool,
              bots: Mapping[str, Any]) -> None:
        n = entry["n"]
        if moved:
            by, move = entry["by"], match.log[-1][1]
            if "plan" in entry:
                self._verify(i, entry, by, move)
            self._conditions(n, by, move, match)
            self._arise(n, by, match)
            self._evaluate(n, match, bots)
            return
        self.due, self.point = {}, None
        if "undo" in entry:
            self._undo(i, entry)
        elif is_record(entry):
            self._record(i, entry, match)

    def _record(self, i: int, entry: Mapping[str, Any], match: Match) -> None:
        by, n = entry["by"], entry["n"]
        try:
            lines = parse_lines(match.game, self.gf.players, by,
                                record_lines(self.gf, i, self.seed), self.gf.sealed)
        except UsageError as exc:
            raise ReplayError(f"{_where(i)}: {by}'s plan does not read: {exc.message}"
                              ) from None
        self.pages.lines[by] = [Live(n, k, line) for k, line in enumerate(lines)]
        self.pages.records[by] = n

    def _undo(self, i: int, entry: Mapping[str, Any]) -> None:
        """An undo returns the book to where it was before the undone move; if that move
        was a planned one, the line that played it is withdrawn (told): it was not
        wanted."""
        kept, self._kept = self._kept, None
        if kept is None or kept[0] != i - 1:
            return
        undone = self.gf.log[i - 1]
        source = self.pages.played.get(undone["n"])
        self.pages = kept[1]
        if source is None:
            return
        by = undone["by"]
        for live in self.lines(by):
            if (live.record, live.index) == source:
                self._drop(by, live, entry["n"], "you took its move back (undo)")

    def _verify(self, i: int, entry: Mapping[str, Any], by: str, move: Move) -> None:
        """A planned move must be the one ``by``'s plan gives right after the move before
        it; then its line is used up. Raises ReplayError (never naming the plan)."""
        due = self.due.get(by) if self.point == entry["n"] - 1 else None
        if due is None or due[0].record != entry["plan"] or due[1] != move:
            raise ReplayError(
                f"{_where(i)}: a planned move of {by} that their plan (entry "
                f"{entry['plan']}) does not give here: a forged planned move, or a plan "
                "written after its decision arose")
        live = due[0]
        self.pages.lines[by] = [x for x in self.pages.lines[by] if x != live]
        self.pages.played[entry["n"]] = (live.record, live.index)

    def _conditions(self, n: int, by: str, move: Move, match: Match) -> None:
        """``by`` moved: arm or drop every other player's line that waits on ``by``'s next
        move."""
        game = match.game
        for owner, lines in self.pages.lines.items():
            for live in [x for x in lines if owner != by and x.armed is None]:
                when = live.line.when
                if when is None or when[0] != by or live.record >= n:
                    continue
                if when[1] == move:
                    lines[lines.index(live)] = replace(live, armed=n)
                    continue
                shown = engine.public_text(game, move) if self.gf.sealed else game.format_move(move)
                self._drop(owner, live, n, f"{by} played {shown}, not "
                           f"{game.format_move(when[1])}")

    def _arise(self, n: int, by: str, match: Match) -> None:
        """Whose decisions arose with entry ``n``: those now awaited who were not before,
        and its author (their next decision is a new one). Those awaited since the start
        have theirs from entry 0."""
        game = match.game
        now = [] if game.finished(match.state) else list(game.to_move(match.state))
        since = self.pages.since
        for player in list(since):
            if player not in now:
                del since[player]
        for player in now:
            if player not in self._before or player == by:
                since[player] = n
            elif player not in since:
                since[player] = 0
        self._now = now

    def _evaluate(self, n: int, match: Match, bots: Mapping[str, Any]) -> None:
        self.due, self.point = {}, n
        for player in self._now:
            if player in bots or not self.pages.lines.get(player):
                continue
            found = self._try(player, match, n)
            if found is not None:
                self.due[player] = found

    def _try(self, player: str, match: Match, n: int) -> tuple[Live, Move] | None:
        """The move ``player``'s plan gives at their decision now (armed conditional lines
        first, then standing answers, each in their order), dropping the lines that do
        not fit where they should."""
        game, state = match.game, match.state
        since = self.pages.since[player]
        legal = game.legal_moves(state, player)
        kinds = {type(m) for m in legal}
        lines = self.pages.lines[player]
        armed = [x for x in lines if x.line.when is not None and x.armed is not None]
        standing = [x for x in lines if x.line.when is None]
        for live in [*armed, *standing]:
            if live.record >= since or (live.armed is not None and live.armed > since):
                continue  # written, or armed, after this decision arose
            try:
                move = game.parse_move(live.line.then, legal)
            except MoveError as exc:
                self._drop(player, live, n, f"it does not read here: {exc.message}")
                continue
            if move in legal:
                return live, move
            if live.armed is not None or type(move) in kinds:
                why = engine.why_illegal(game, state, player, move)
                self._drop(player, live, n, f"not legal at that decision: {why}")
        return None

    def _drop(self, player: str, live: Live, at: int, why: str) -> None:
        lines = self.pages.lines[player]
        if live in lines:
            lines.remove(live)
        self.pages.dropped.append(Dropped(player, live.record, live.index, live.line.text,
                                          at, why))

    # --- what the callers read ------------------------------------------------------

    def due_now(self, log_length: int) -> list[tuple[str, Move, int]]:
        """The planned moves due after the last entry (player, move, plan record), in
        the order the players are awaited; [] unless the last entry is a move."""
        if self.point != log_length:
            return []
        return [(p, move, live.record) for p, (live, move) in self.due.items()]

    def lines(self, player: str) -> list[Live]:
        return list(self.pages.lines.get(player, []))

    def dropped(self, player: str, since: int = 0) -> list[Dropped]:
        """``player``'s lines dropped at entry ``since`` or later."""
        return [d for d in self.pages.dropped if d.player == player and d.at >= since]

    def planned(self) -> dict[int, tuple[int, int]]:
        """Planned moves: entry number -> (plan record, line)."""
        return dict(self.pages.played)

    def record_of(self, player: str) -> int | None:
        return self.pages.records.get(player)
