"""Reference: schema and data; for maintainers, the release of a game's data."""

from __future__ import annotations

import click

from referee import engine
from referee.cli.common import (
    command,
    emit_json,
)
from referee.engine import Game, get_game
from referee.errors import UsageError
from referee.i18n import domain
from referee.ledger import dataversions
from referee.ledger.schemagen import schema_names, schema_text

_, N_, ngettext = domain("referee")

# --- schema and data ------------------------------------------------------------------


@command(json_help=None)
@click.argument("name", required=False, default="file")
def schema(name: str) -> None:
    """Print a JSON Schema: `file` (any game, the default) or a game's full file schema."""
    if name not in schema_names():
        raise UsageError(f"no schema {name!r}", hints=[f"schemas: {', '.join(schema_names())}"])
    click.echo(schema_text(name), nl=False)


@command(json_help="Output JSON (all component data).", lang=True)
@click.argument("game_name", metavar="GAME")
@click.option("--reference", is_flag=True,
              help="Print the research note the component data and its sources come from.")
def data(game_name: str, reference: bool, as_json: bool) -> None:
    """Show GAME's component data, its released data versions and every value assumed
    rather than printed."""
    game: Game = get_game(game_name)
    if reference:
        click.echo(reference_note(game), nl=False)
        return
    assumed = engine.assumptions(game)
    readings = engine.interpretations(game)
    versions = dataversions.listing(game.name)
    if as_json:
        emit_json({
            "game": game.name,
            "rules": game.data_version(),
            "versions": versions,
            "assumptions": list(assumed),
            "interpretations": list(readings),
            "data": engine.data_files(game),
        })
        return
    click.echo(_("{title}: component data {version}").format(title=game.title,
                                                             version=game.data_version()))
    click.echo(dataversions.listing_text(versions))
    click.echo(ngettext("{n} value is ASSUMED (the rulebook we hold does not print it).",
                        "{n} values are ASSUMED (the rulebook we hold does not print them).",
                        len(assumed)).format(n=len(assumed)))
    click.echo(_("If you own the printed game, check these and report corrections:"))
    for a in assumed:
        click.echo(f"  [{a.key}] {a.what}: {a.value}")
        click.echo("        " + _("source: {source}").format(source=a.source))
    if readings:
        click.echo("")
        click.echo(ngettext("{n} READING where the rulebook is silent or unclear (what the "
                            "referee does):",
                            "{n} READINGS where the rulebook is silent or unclear (what the "
                            "referee does):", len(readings)).format(n=len(readings)))
        for r in readings:
            click.echo(f"  [{r.key}] {r.topic}: {r.reading}")
            click.echo("        " + _("rule: {rule}").format(rule=r.rule))
    click.echo(_("All component data with sources: `referee data {game} --json`; the research "
                 "note they cite: `referee data {game} --reference`.").format(game=game.name))


def reference_note(game: Game) -> str:
    """The research note shipped with the game's data (its sources and confidence)."""
    from importlib import resources

    try:
        note = resources.files(type(game).__module__) / "data" / "reference.md"
        return note.read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, TypeError):
        raise UsageError(f"{game.name} ships no reference note") from None


@command("release-data")
@click.argument("game_names", nargs=-1, required=True, metavar="GAME...")
def release_data(game_names: tuple[str, ...], as_json: bool) -> None:
    """For maintainers: keep the current component data of each GAME as a released data
    version.

    Run it after editing a game's data file, and commit the file it writes under the
    game's data/versions/ (docs/data.md). A version already released is left as it is.
    """
    done = []
    for name in game_names:
        path = dataversions.release(name)
        done.append({"game": name, "pin": dataversions.current_pin(name),
                     "file": None if path is None else str(path), "released": path is not None})
        if not as_json:
            row = done[-1]
            click.echo(f"{name}: released {row['pin']} in {path}" if path
                       else f"{name}: {row['pin']} was released")
    if as_json:
        emit_json(done)
