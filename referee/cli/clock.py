"""Clocks: clock (show or set a time control), vacation, tick (docs/clocks.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict

import click

from referee.cli.common import PATH, command, emit_json, secret_option
from referee.clocks import clock, clockview
from referee.errors import RefereeError, SealedError, UsageError
from referee.i18n import domain
from referee.ledger import fileio, gamefile, replay, secret
from referee.ledger.fileformat import GAME_MASTER

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:
    from referee.clocks.clockview import ClockReport
    from referee.git.vouching import History
    from referee.ledger.identity import Duplicate
    from referee.play.submit import BotMove, TimedOut


class VacationDone(TypedDict):
    """`referee vacation --json`: the record written, and the clocks when checked."""

    n: int
    player: str
    days: int
    checked: bool
    clock: NotRequired[ClockReport]


class Ticked(TypedDict, total=False):
    """A game `referee tick` looked at: what it wrote (the timeouts, the bots' moves, the
    stamp's entry) and the clocks after, or why it could not."""

    file: str
    history: bool
    timeouts: list[TimedOut]
    bot_moves: list[BotMove]
    stamp: int | None
    clock: ClockReport
    error: str


def clock_report(path: Path, secret_path: Path | None, settled: bool = False
                 ) -> ClockReport:
    """The clocks of the game at ``path`` now (:func:`referee.clocks.clockview.report`), or with
    ``settled`` as of the last time the referee vouched for (what a published view
    shows: it changes only with the file). Raises SealedError without the secret, and
    the errors of a replay."""
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        raise SealedError(_("the clocks need the game's secret (who is awaited is part of "
                            "the state)"), hints=[_("give --secret FILE; in a git game the "
                                                    "workflow's clock job writes "
                                                    "views/GAME.clock.txt")])
    tl = clock.timeline(gf, seed)
    last = clock.verify(gf, tl).at
    return clockview.report(tl, last if settled else clock.now())


@command("clock", lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@secret_option
@click.option("--set", "pace", metavar="BANK[+INCREMENT][/CAP]",
              help="As game master (with --as gm and the secret): a new time control from "
                   "now on; each bank carries on within the new cap.")
@click.option("--off", is_flag=True, help="As game master: no clock from now on.")
@click.option("--vacation", "vacation_days", type=int, default=0, metavar="DAYS",
              help="With --set: vacation days per player for the game.")
@click.option("--pause", type=click.Choice(("weekends",)), help="With --set: weekends.")
@click.option("--timeout", "on_timeout", default="gm", metavar="bot:LEVEL|gm|forfeit",
              help="With --set: what happens when a bank is empty.")
@click.option("--as", "by", metavar="gm", help="With --set or --off: gm.")
def clock_command(path: Path, secret_path: Path | None, pace: str | None, off: bool,
                  vacation_days: int, pause: str | None, on_timeout: str, by: str | None,
                  as_json: bool) -> None:
    """Show each seat's time bank, vacation left and when the awaited seat times out.

    The clocks are computed from the log's vouched times (the referee's MAC'd entries);
    the game master changes the time control with --set (or --off).
    """
    from referee.play.submit import set_clock

    if pace is not None or off:
        if by != GAME_MASTER:
            raise UsageError(_("only the game master changes the time control: add --as gm"))
        if pace is not None and off:
            raise UsageError(_("--set or --off, not both"))
        ctl = None if off else clock.control(pace or "", vacation_days, pause, on_timeout)
        set_clock(path, ctl, secret_path=secret_path)
    rep = clock_report(path, secret_path)
    if as_json:
        emit_json(rep)
        return
    for text in clockview.lines(rep):
        click.echo(text)


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.argument("days", type=click.IntRange(1, 365))
@click.option("--as", "player", required=True, metavar="PLAYER", help="Who takes vacation.")
@secret_option
def vacation(path: Path, days: int, player: str, secret_path: Path | None,
             as_json: bool) -> None:
    """Take DAYS vacation days: your clock stops for that long, from when the referee
    sees the record (within your allowance)."""
    from referee.play.submit import vacation as take

    entry = take(path, player, days, secret_path=secret_path)
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if as_json:
        out: VacationDone = {"n": entry["n"], "player": player, "days": days,
                             "checked": seed is not None}
        if seed is not None:
            out["clock"] = clock_report(path, secret_path)
        emit_json(out)
        return
    click.echo(_("entry {n}: {player} takes {days} vacation day(s)").format(
        n=entry["n"], player=player, days=days)
               + ("" if seed is not None else _("; appended UNCHECKED: the referee counts "
                                                "the days from when it sees the record")))
    if seed is not None:
        for text in clockview.lines(clock_report(path, secret_path)):
            click.echo(text)


@command()
@click.argument("games_dir", metavar="GAMES_DIR",
                type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False),
              metavar="DIR", help="Also write each game's clocks to DIR/GAME.clock.txt and "
                                  "DIR/GAME.clock.json (for players without the secret).")
def tick(games_dir: Path, out_dir: Path | None, as_json: bool) -> None:
    """For a scheduled CI job with the secret: in every clocked game of GAMES_DIR, time
    out the seats whose bank ran out (a bot plays, the game master is asked, or the seat
    forfeits), and stamp the new entries with the referee's time (a MAC'd record).

    A game is ticked only if its log extends what the referee vouched for (in the git
    history) and its entries after the last MAC pass the checks `check` makes with the
    secret; otherwise nothing is written to it and the reason is printed.

    Exit 1 if a game could not be handled (the others are)."""
    from referee.git import vouching

    paths = sorted(games_dir.glob("[!.]*.json"))
    past = vouching.read_history(games_dir)
    copies = _copies(paths)
    found = [tick_one(path, out_dir, past, copies) for path in paths]
    rows = [r for r in found if r is not None]
    if as_json:
        emit_json(rows)
    else:
        if past is None and rows:
            click.echo(f"note: {games_dir} is not in a git repository: tick cannot see "
                       "whether an entry the referee vouched for was rewritten since",
                       err=True)
        for r in rows:
            click.echo(tick_line(r))
    if any("error" in r for r in rows):
        raise click.exceptions.Exit(1)


def _copies(paths: list[Path]) -> dict[str, Duplicate]:
    """The files of the folder that are the same game as another one
    (referee/ledger/identity.py), each with the duplicate that names it."""
    from referee.errors import GameFileError
    from referee.ledger import identity

    games = []
    for path in paths:
        try:
            games.append((str(path), gamefile.read(path)))
        except GameFileError:
            continue  # (its own row says why)
    return identity.duplicated_files(identity.duplicates(games))


def tick_one(path: Path, out_dir: Path | None, past: History | None = None,
             copies: Mapping[str, Duplicate] | None = None) -> Ticked | None:
    """Timeouts, the bots' moves after them and a stamp for one game (None: no clock),
    once :func:`referee.git.vouching.check` holds (``past``: the folder's git history,
    None outside git; ``copies``: the folder's duplicated files)."""
    from referee.git import vouching
    from referee.play import submit

    out: Ticked = {"file": str(path), "history": past is not None}
    try:
        gf = gamefile.read(path)
        if not replay.has_time_control(gf.data):
            return None
        seed = secret.find_seed(gf, None, path)
        if seed is None:
            raise SealedError(_("no secret for this game (set REFEREE_SECRET or "
                                "REFEREE_SECRET_FILE)"))
        vouching.check(path, gf, seed, past, copies or {})
        done = submit.timeouts(path)
        played = submit.play_timed_out(path, done)
        stamped = submit.stamp(path)
        out["timeouts"], out["bot_moves"] = done, played
        out["stamp"] = stamped["n"] if stamped else None
        out["clock"] = clock_report(path, None)
        if out_dir is not None:
            write_clock_files(out_dir, path, clock_report(path, None, settled=True))
    except RefereeError as exc:
        out["error"] = exc.message
    return out


def write_clock_files(out_dir: Path, path: Path, rep: ClockReport) -> None:
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    text = "\n".join([_("{game}: clocks as the referee last saw the game ({now})").format(
        game=path.stem, now=rep["now"]), *clockview.lines(rep)]) + "\n"
    fileio.write_atomic(out_dir / f"{path.stem}.clock.txt", text.encode(), what="clock view")
    fileio.write_atomic(out_dir / f"{path.stem}.clock.json",
                        (json.dumps(rep, indent=2, sort_keys=True) + "\n").encode(),
                        what="clock view")


def tick_line(r: Ticked) -> str:
    if "error" in r:
        return f"{r['file']}: ERROR {r['error']}"
    parts = [f"timeout {t.player} ({t.then})" for t in r["timeouts"]]
    parts += [f"bot move {b.n} for {b.player}" for b in r["bot_moves"]]
    if r["stamp"]:
        parts.append(f"stamped at entry {r['stamp']}")
    return f"{r['file']}: " + (", ".join(parts) or "nothing due")
