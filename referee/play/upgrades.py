"""Moving a running game to other data (``referee upgrade``, docs/data.md).

:func:`compare` replays a game under its pinned data version and under the target one,
move by move, and reports the data values that differ, the first move that would become
illegal and the scores before and after; :func:`upgraded` is the file with the game
master's upgrade entry appended. The versions themselves (pins, released versions, the
game of a version) are ``referee.ledger.dataversions``, below the file format; this module
replays files, so it sits above ``referee.ledger.replay`` (docs/architecture.md#layers).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from referee import engine
from referee.engine import Match
from referee.errors import GameFileError, RefereeError, UsageError
from referee.ledger import dataversions, gamefile, replay

if TYPE_CHECKING:  # (types only)
    from typing import TypedDict

    from referee.ledger.dataversions import Difference
    from referee.ledger.records import Header

    class Scores(TypedDict):
        pinned: dict[str, int] | None
        target: dict[str, int] | None

    class UpgradeJson(TypedDict):
        """`upgrade --json`: what moving the game to ``target`` would change."""

        game: str
        pinned: str
        target: str
        rules: dict[str, str]
        differences: list[Difference]
        moves: list[MoveCheck]  # (dataclasses: msgspec writes them as JSON)
        first_illegal: MoveCheck | None
        scores: Scores
        upgradable: bool
        problem: str | None


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
    """What moving a game from its pinned rules/data version to ``target`` would change."""

    game: str
    pinned: str
    target: str
    differences: list[Difference]
    moves: list[MoveCheck] = field(default_factory=list)
    problem: str | None = None  # why the game cannot move to the target version
    scores_pinned: dict[str, int] | None = None  # now, under the pinned version
    scores_target: dict[str, int] | None = None  # now, under the target (None: not legal)

    @property
    def first_illegal(self) -> MoveCheck | None:
        return next((m for m in self.moves if not m.legal), None)

    @property
    def upgradable(self) -> bool:
        return self.problem is None and self.pinned != self.target

    @property
    def rules(self) -> dict[str, str]:
        """The rules version pinned and targeted (equal when only the data changes)."""
        return {"pinned": dataversions.rules_of(self.pinned),
                "target": dataversions.rules_of(self.target)}

    def to_json(self) -> UpgradeJson:
        first = self.first_illegal
        return {
            "game": self.game, "pinned": self.pinned, "target": self.target,
            "rules": self.rules, "differences": self.differences,
            "moves": self.moves, "first_illegal": first,
            "scores": {"pinned": self.scores_pinned, "target": self.scores_target},
            "upgradable": self.upgradable, "problem": self.problem,
        }


def effective_entries(gf: Any) -> list[int]:
    """Indexes of the log entries whose moves stand (undone and voided ones left out), in
    the order replay plays them."""
    struck = replay.voided(gf)
    out: list[int] = []
    for i, entry in enumerate(gf.log):
        kind = replay.entry_kind(entry)
        if kind == "undo" and out:
            out.pop()
        elif kind == "move" and (i + 1) not in struck:
            out.append(i)
    return out


def compare(gf: Any, seed: str | None, target: str | None = None) -> UpgradeReport:
    """Replay ``gf`` under its pinned version and under ``target`` (default: the current
    rules and data) move by move. Raises GameFileError, ReplayError, SealedError when the
    game does not replay under its own pinned version, or for a target that is not a
    version this referee has or an older rules version than the pinned one."""
    before = replay.replay(gf, seed)  # checks the whole file under its pinned version
    name, pinned = gf.data["game"], dataversions.pinned_for(gf)
    target = target or dataversions.current_pin(name)
    new_game = dataversions.game_for(name, target)
    _refuse_older_rules(name, pinned, target)
    report = UpgradeReport(name, pinned, target, dataversions.differences(name, pinned, target),
                           scores_pinned=dict(before.game.scores(before.state)))
    if pinned == target:
        report.problem = f"the game already plays by {target}"
        report.scores_target = report.scores_pinned
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
        report.scores_target = dict(new.game.scores(new.state))
        report.problem = _replay_upgraded(gf, seed, target)
    return report


def _refuse_older_rules(name: str, pinned: str, target: str) -> None:
    """A game moves to a newer rules version (or stays on its own), never back."""
    versions = dataversions.rules_versions(name)
    old, new = dataversions.rules_of(pinned), dataversions.rules_of(target)
    if old in versions and new in versions and versions.index(new) < versions.index(old):
        raise UsageError(f"{target}: rules {new} are older than the pinned {old}",
                         hints=[f"rules versions, oldest first: {', '.join(versions)}"])


def _check_move(gf: Any, i: int, by: str, move: Any, old: Match, new: Match) -> MoveCheck:
    """Play ``move`` (already played in ``old``) in ``new`` if it is legal there."""
    text = engine.public_text(old.game, move) if gf.sealed else old.game.format_move(move)
    problem = _illegal_under(new, by, move)
    scores = old.game.scores(old.state)
    if problem is not None:
        return MoveCheck(i + 1, by, text, False, problem, scores, None, False)
    new.play(by, msgspec.convert(msgspec.to_builtins(move), new.game.move_type))
    same = engine.fingerprint(old.game, old.state) == engine.fingerprint(new.game, new.state)
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
        return engine.why_illegal(game, match.state, by, moved)
    return None


def _replay_upgraded(gf: Any, seed: str | None, target: str) -> str | None:
    """Replay the file with the upgrade entry appended, as ``referee`` will read it from
    then on (undo refusals included); why that fails, or None."""
    trial = upgraded(gf.doc, target, seed)
    try:
        replay.replay(gamefile.parse(gamefile.dumps(trial)), seed)
    except RefereeError as exc:
        return f"the upgraded game does not replay: {exc.message}"
    return None


def upgraded(data: Header, target: str, seed: str | None) -> Header:
    """A copy of the game file ``data`` with the upgrade entry to ``target`` appended."""
    out = copy.deepcopy(data)
    gamefile.append_raw(out, {"n": len(out["log"]) + 1, **dataversions.upgrade_entry(target)},
                        seed=seed)
    return out
