"""Rematches and the league: rematch, ratings (docs/league.md)."""

from __future__ import annotations

from pathlib import Path

import click

from referee.cli.common import PATH, command, emit_json, secret_option

# --- rematch --------------------------------------------------------------------------


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.argument("new_path", metavar="NEW", type=PATH)
@click.option("--id", "game_id", help="The new game's id (default: random).")
@secret_option
@click.option("--secret-out", type=PATH, metavar="SECRET",
              help="Where a sealed rematch writes its secret (default NEW.secret).")
@click.option("--force", is_flag=True, help="Start a rematch of a game that is not finished.")
def rematch(path: Path, new_path: Path, game_id: str | None, secret_path: Path | None,
            secret_out: Path | None, force: bool, as_json: bool) -> None:
    """Start NEW: a rematch of the finished game FILE, seats rotated by one.

    The same game, players (names, e-mails, bot seats), options and time control; the
    first player moves to the last seat; a fresh seed, sealed if FILE was sealed; the new
    header's `rematch_of` names FILE's game id and header hash.
    """
    from referee.cli.play import bot_move_lines, bots_done, players_text
    from referee.play import rematch as rematchmod
    from referee.play.statusview import load, prompt_line

    made = rematchmod.rematch(path, new_path, secret_path=secret_path, secret_out=secret_out,
                              game_id=game_id, force=force)
    started = made.started
    played = bots_done(new_path, started.secret_path)
    gf, match = started.gf, started.match
    if played:
        gf, match = load(new_path, started.secret_path)
    if as_json:
        out = {"file": str(new_path), "id": gf.game_id, "rematch_of": gf.data["rematch_of"],
               "players": made.seats, "moved_to_last": made.moved, "copied": made.copied,
               "sealed": gf.sealed, "bot_moves": played}
        if started.secret_path is not None:
            out["secret"] = str(started.secret_path)
        emit_json(out)
        return
    old_id = gf.data["rematch_of"].get("id", str(path))
    click.echo(f"created {new_path}: a rematch of {old_id}, players {players_text(gf)}")
    click.echo(f"seats rotated by one: {made.moved} moved from the first seat to the last; "
               f"{made.seats[0]} starts")
    if made.copied:
        click.echo(f"copied from the old header: {', '.join(made.copied)}")
    if started.derived:
        click.echo("sealed: the seed is derived from the repository secret in REFEREE_SECRET "
                   "and this game's header; no secret file was written.")
    elif started.secret_path is not None:
        click.echo(f"sealed: the seed is in {started.secret_path} (owner-only). Keep it secret "
                   "and out of git; reveal it after the game with `referee reveal`.")
    for line in bot_move_lines(played):
        click.echo(line)
    click.echo(prompt_line(gf, match))


# --- ratings --------------------------------------------------------------------------


@command()
@click.argument("games_dir", metavar="GAMES_DIR", type=PATH)
@click.option("--with-bots", is_flag=True,
              help="Also rate the games in which a bot played a seat or a decision, in "
                   "tables of their own (never mixed into the people's).")
@click.option("--no-bots", is_flag=True, hidden=True)  # the default now; kept for old scripts
def ratings(games_dir: Path, with_bots: bool, no_bots: bool, as_json: bool) -> None:
    """Rate the players of the finished games in GAMES_DIR (openskill), one table per game.

    Only games between people count, each once however often it was copied: a game in
    which a bot played is left out (rated apart with --with-bots), and files of one game
    count once, or not at all if they disagree. Only games that replay as `referee
    check` replays them count; every other file is listed as skipped with its reason.
    The same folder gives the same table anywhere.
    """
    from referee.reports import ratings as ratingsmod

    found = ratingsmod.league(games_dir, with_bots=with_bots and not no_bots)
    if as_json:
        emit_json(found.to_json())
        return
    click.echo("\n".join(ratingsmod.table_lines(found)))  # one write for thousands of lines
