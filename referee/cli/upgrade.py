"""`referee upgrade`: move a running game to this referee's rules and component data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from referee.cli.common import PATH, command, emit_json, secret_option
from referee.errors import GameFileError
from referee.play import upgrades
from referee.play.commands import upgrade_game


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--dry-run", is_flag=True, help="Only report; change nothing.")
@click.option("--to", "target", metavar="PIN",
              help="The version to move to, RULES+data.DIGEST (default: this referee's "
                   "current rules and data).")
@secret_option
def upgrade(path: Path, dry_run: bool, target: str | None, secret_path: Path | None,
            as_json: bool) -> None:
    """Replay FILE under this referee's rules and component data and report, move by
    move, what changes: the rules version and data values that differ, the first move
    that would become illegal, and the scores before and after. Without --dry-run, and
    only if every move stays legal, the game moves to the new version: the game master's
    log entry {"kind": "upgrade", "data": PIN} is appended, and from then on the whole
    log replays under it."""
    report, entry = upgrade_game(path, dry_run=dry_run, secret_path=secret_path,
                                 target=target)
    if as_json:
        emit_json({**report.to_json(), "file": str(path), "dry_run": dry_run,
                   "upgraded": entry is not None, "entry": entry})
    else:
        click.echo(report_text(report, str(path)))
        click.echo(outcome(report, dry_run, entry))
    if not dry_run and entry is None and report.pinned != report.target:
        raise_refusal(report, as_json)


def raise_refusal(report: upgrades.UpgradeReport, as_json: bool) -> None:
    """Exit 1: the game could not move to the new data (the report says why)."""
    if as_json:
        raise SystemExit(1)
    raise GameFileError(f"not upgraded: {report.problem}",
                        hints=["the game goes on under its pinned data "
                               f"{report.pinned}"])


def outcome(report: upgrades.UpgradeReport, dry_run: bool, entry: int | None) -> str:
    if report.pinned == report.target:
        return f"nothing to do: the game already plays by {report.target}."
    if entry is not None:
        return (f"upgraded: the game now plays by {report.target} (log entry {entry}: "
                "[upgrade] by gm).")
    if dry_run:
        verdict = "can be upgraded" if report.upgradable else "cannot be upgraded"
        return f"dry run: nothing written; the game {verdict}."
    return "not upgraded."


def _value(value: Any) -> str:
    return "(absent)" if value is None else json.dumps(value, ensure_ascii=False)


def _scores(scores: dict[str, int] | None) -> str:
    return "-" if scores is None else ", ".join(f"{p} {s}" for p, s in scores.items())


def _gap(m: upgrades.MoveCheck) -> dict[str, int]:
    """How far each score under the new data is from the pinned one (0s left out)."""
    target = m.scores_target or {}
    return {p: target[p] - s for p, s in m.scores_pinned.items() if target.get(p, s) != s}


def scores_now(report: upgrades.UpgradeReport) -> str:
    """The scores of the whole game under the pinned version and under the target (the
    target's only when every move stays legal there)."""
    line = f"scores now: {_scores(report.scores_pinned)} -> {_scores(report.scores_target)}"
    first = report.first_illegal
    if first is not None:
        line += f" (the game cannot go past entry {first.n} under {report.target})"
    return line


def report_text(report: upgrades.UpgradeReport, name: str) -> str:
    lines = [f"{name}: {report.game} data {report.pinned} (pinned) -> {report.target} "
             "(this referee's)"]
    rules = report.rules
    if rules["pinned"] != rules["target"]:
        lines.append(f"rules: {rules['pinned']} (pinned) -> {rules['target']}: the rules code "
                     "changed; the moves below are replayed under both")
    lines.append(f"data values that differ ({len(report.differences)}):")
    lines += [f"  {d['path']}: {_value(d['old'])} -> {_value(d['new'])}"
              for d in report.differences]
    moves = report.moves
    same = sum(m.same_state for m in moves)
    lines.append(f"moves replayed: {len(moves)}; {same} reach the same state under both, "
                 f"{len(moves) - same} a different one")
    if any(m.scores_target not in (None, m.scores_pinned) for m in moves):
        lines.append("moves after which the scores change (pinned -> this referee's data):")
    gap: dict[str, int] = {}
    for m in moves:
        if not m.legal:
            lines.append(f"  entry {m.n} {m.by} {m.move!r}: NOT LEGAL under {report.target}: "
                         f"{m.problem}")
        elif _gap(m) != gap:
            gap = _gap(m)
            lines.append(f"  entry {m.n} {m.by} {m.move!r}: scores "
                         f"{_scores(m.scores_pinned)} -> {_scores(m.scores_target)}")
    first = report.first_illegal
    lines.append(f"first move that becomes illegal: entry {first.n}" if first
                 else "every move stays legal")
    lines.append(scores_now(report))
    if report.problem and first is None and report.pinned != report.target:
        lines.append(report.problem)
    return "\n".join(lines)
