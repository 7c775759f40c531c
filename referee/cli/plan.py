"""plan: a player's conditional moves and standing answers (docs/plans.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.cli.common import PATH, command, emit_json, secret_option
from referee.errors import UsageError
from referee.i18n import domain
from referee.ledger import gamefile, plans, secret
from referee.play import plan_play, submit

if TYPE_CHECKING:  # (types only)
    from typing import TypedDict

    class PlanLine(TypedDict):
        line: str
        state: str  # what it waits for, in words

    class DroppedLine(TypedDict):
        line: str
        at: int  # the entry that dropped it
        why: str

    class PlanJson(TypedDict):
        """`plan --json`: the player's plan record, its lines in force, the lines dropped."""

        player: str
        record: int | None
        lines: list[PlanLine]
        dropped: list[DroppedLine]

_, N_, ngettext = domain("referee")


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", required=True, metavar="PLAYER", help="Whose plan.")
@click.argument("lines", nargs=-1, metavar="LINE...")
@click.option("--clear", is_flag=True, help="Withdraw your plan.")
@secret_option
def plan(path: Path, player: str, lines: Sequence[str], clear: bool,
         secret_path: Path | None, as_json: bool) -> None:
    """Set PLAYER's plan: moves the referee plays for them when their decision arises.

    Each LINE is a standing answer `MOVE` (played at your next decision it fits, e.g.
    "pick purple", "done", "choose kkp") or a conditional move `if PLAYER MOVE then
    MOVE` (played only if that player's next move is exactly that one). A new plan
    replaces your old one; --clear withdraws it; no LINE shows it. In a sealed game the
    plan is sealed to the referee; in an open game anyone holding the file can read it.
    """
    if clear and lines:
        raise UsageError(_("plan --clear takes no lines: it withdraws your whole plan"))
    if not lines and not clear:
        _show(path, player, secret_path, as_json)
        return
    entry, gf = submit.set_plan(path, player, [] if clear else list(lines),
                               secret_path=secret_path)
    note = plan_play.SEALED_NOTE if gf.sealed else plan_play.OPEN_NOTE
    if as_json:
        emit_json({"player": player, "n": entry["n"], "lines": [] if clear else
                   [" ".join(t.split()) for t in lines], "sealed": gf.sealed, "note": note})
        return
    if clear:
        click.echo(_("entry {n}: {player}'s plan withdrawn.").format(n=entry["n"],
                                                                      player=player))
        return
    click.echo(_("entry {n}: {player}'s plan, {count} line(s):").format(
        n=entry["n"], player=player, count=len(lines)))
    for k, text in enumerate(lines, 1):
        click.echo(f"  {k}. {' '.join(text.split())}")
    click.echo(_("note: {note}.").format(note=_(note)))
    click.echo(_("It answers decisions that arise from now on (one already waiting for you "
                 "is yours to make)."))


def _show(path: Path, player: str, secret_path: Path | None, as_json: bool) -> None:
    gf = gamefile.read(path)
    gf.player(player)
    seed = secret.find_seed(gf, secret_path, path)
    if gf.seed_hidden and seed is None:
        last = _last_record(gf, player)
        message = (_("{player}'s plan is sealed to the referee: only a referee with the "
                     "game's secret can read it").format(player=player)
                   + (_(" (last set in entry {n})").format(n=last) if last
                      else _(" (none written)")))
        if as_json:
            emit_json({"player": player, "sealed": True, "record": last, "lines": None})
        else:
            click.echo(message)
        return
    book = plan_play.replay(gf, seed)[1]
    since = plan_play.last_own_entry(gf, player)
    if as_json:
        emit_json(_json(book, player, since))
        return
    told = [*plan_play.played_lines(book, gf, player, since),
            *plan_play.owner_lines(book, player, since)]
    click.echo("\n".join(told) if told else _("{player} has no plan.").format(player=player))


def _json(book: plans.Book, player: str, since: int) -> PlanJson:
    return {"player": player, "record": book.record_of(player),
            "lines": [{"line": x.line.text, "state": plan_play.describe(x)}
                      for x in book.lines(player)],
            "dropped": [{"line": d.text, "at": d.at, "why": d.why}
                        for d in book.dropped(player, since)]}


def _last_record(gf: gamefile.GameFile, player: str) -> int | None:
    found = [e["n"] for e in gf.log if plans.is_record(e) and e["by"] == player]
    return found[-1] if found else None


def owner_text(gf: gamefile.GameFile, path: Path, player: str, secret_path: Path | None
               ) -> list[str]:
    """For `status --as PLAYER`: their plan, what it played and what was dropped since
    their last own entry (only to them; nothing if they never wrote a plan)."""
    if _last_record(gf, player) is None:
        return []
    seed = secret.find_seed(gf, secret_path, path)
    if gf.seed_hidden and seed is None:
        return []
    book = plan_play.replay(gf, seed)[1]
    since = plan_play.last_own_entry(gf, player)
    return [*plan_play.played_lines(book, gf, player, since), *plan_play.owner_lines(book, player,
                                                                             since)]
