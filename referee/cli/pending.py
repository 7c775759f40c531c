"""For game masters: `pending` (referee/reports/pending.py). A module of its own, so that a run
whose rows all come from the cache imports neither `check`'s git history nor the game
file's reading."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from referee.cli.common import PATH, command, emit_json
from referee.reports.pending import pending_rows


@command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE_OR_DIR...",
                type=PATH)
def pending(targets: Sequence[Path], as_json: bool) -> None:
    """For a game master: which games wait on whom, and since when.

    Sealed games are read with FILE.secret beside them (or REFEREE_SECRET_FILE, or
    the repository secret in REFEREE_SECRET). A copy of a game (cp game.json
    backup.json: the same header, its log the game's or a part of it) is named beside
    the game, which is listed once; any other two files of one game (the same rng
    commitment or game id, logs that went apart) are both reported, not shown. Under a
    folder, a .json file that is no game file (the views' index, a clock view) is passed
    over.
    """
    rows = pending_rows(targets)
    if as_json:
        emit_json(rows)
        return
    lines: list[str] = []  # written at once: one write for thousands of rows
    for row in rows:
        lines += row_lines(row)
    if lines:
        click.echo("\n".join(lines))
    if any("error" in row for row in rows):
        sys.exit(1)


def _error_line(row: dict[str, Any]) -> str:
    """Why a file has no state to show: a sealed game without its secret, a second file
    of one game (not listed), or a file that cannot be read."""
    if row.get("sealed"):
        return (f"{row['file']}: sealed, and its secret is not at hand: `referee status "
                f"{row['file']}` shows the public view its referee signed")
    what = "not listed" if row.get("not_listed") else "cannot read"
    return f"{row['file']}: {what}: {row['error']}"


def row_lines(row: dict[str, Any]) -> list[str]:
    """One file's lines: a copy has none (its game's row names it)."""
    if "copy_of" in row:
        return []
    if "error" in row:
        lines = [_error_line(row)]
    elif row["finished"]:
        lines = [f"{row['file']}: finished"]
    else:
        bots = row.get("bots", [])
        who = ", ".join(f"{p} (bot)" if p in bots else p for p in row["waiting"])
        lines = [f"{row['file']}: waiting for {who} since {row['since']}: {row['prompt']}"]
        for pid, when in row.get("times_out", {}).items():
            lines.append(f"       clock: {pid} times out {when}")
        if bots:
            lines.append(f"       a bot seat owes a decision: `referee bot {row['file']}` "
                         "(with the game's secret) plays it")
    return lines + [f"       {copy['message']}" for copy in row.get("copies", [])]


