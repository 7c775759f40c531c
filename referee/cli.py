"""The command line: parse arguments, call the library, print, map errors to exit codes.

Exit codes (DESIGN §7): 0 success; 1 rejected move or invalid game file; 2 usage error.
"""

from __future__ import annotations

import functools
import json
import secrets
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from referee import __version__, gamefile
from referee import rng as rngmod
from referee.engine import Game, Match, game_names, get_game, resolve_move
from referee.errors import RefereeError, UsageError
from referee.schema import schema_names, schema_text

F = TypeVar("F", bound=Callable[..., Any])


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def handles_errors(func: F) -> F:
    """Turn library errors into a message on stderr (or JSON on stdout) and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RefereeError as exc:
            if kwargs.get("as_json"):
                emit_json(exc.to_json())
            else:
                click.echo(f"error: {exc.message}", err=True)
                for hint in exc.hints:
                    click.echo(f"  {hint}", err=True)
                legal = getattr(exc, "legal", None)
                if legal:
                    click.echo("closest legal moves:", err=True)
                    for text in legal:
                        click.echo(f"  {text}", err=True)
            sys.exit(exc.exit_code)

    return wrapper  # type: ignore[return-value]


def wrap_list(items: Sequence[str], indent: str = "  ") -> str:
    return textwrap.fill(
        " | ".join(items), width=88, initial_indent=indent, subsequent_indent=indent,
        break_on_hyphens=False,
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """A referee for board games played by e-mail or through git.

    One game is one JSON file: a header and an append-only move log. Every command
    replays the whole log and checks every move against the rules.
    """


# --- games ----------------------------------------------------------------------------


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def games(as_json: bool) -> None:
    """List the games, their player counts and options."""
    rows = []
    for name in game_names():
        game = get_game(name)
        rows.append({
            "name": game.name,
            "title": game.title,
            "players": [game.min_players, game.max_players],
            "rules": game.data_version(),
            "assumed_values": len(game.assumptions()),
            "options": [
                {"name": o.name, "default": o.default, "choices": list(o.choices),
                 "help": o.help}
                for o in game.options
            ],
        })
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        lo, hi = row["players"]
        click.echo(f"{row['name']:<10} {row['title']} ({lo}-{hi} players), rules {row['rules']}")
        for o in row["options"]:
            choices = f" [{', '.join(o['choices'])}]" if o["choices"] else ""
            click.echo(f"    --option {o['name']}=... default {o['default']}{choices}")
            click.echo(f"        {o['help']}")


# --- new ------------------------------------------------------------------------------


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


@main.command()
@click.argument("game_name", metavar="GAME")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--players", required=True,
              help="Comma-separated ids in seating order, e.g. ann,ben,cat "
                   "(optionally id=Name <email>). The first player starts.")
@click.option("--seed", help="Seed of the random generator (default: a strong random one).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A game option (see `referee games`); repeatable.")
@click.option("--id", "game_id", help="Game id used in mail subjects (default: random).")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def new(game_name: str, path: Path, players: str, seed: str | None,
        options: Sequence[str], game_id: str | None, as_json: bool) -> None:
    """Start a new game of GAME in FILE."""
    game = get_game(game_name)
    player_list = gamefile.parse_players(players)
    data = gamefile.new_data(
        game,
        player_list,
        parse_option_pairs(options),
        {"seed": seed or rngmod.new_seed()},
        game_id or f"{game.name}-{secrets.token_hex(3)}",
    )
    gf = gamefile.GameFile(data, game)
    match = gamefile.replay(gf)  # proves the setup works before anything is written
    gamefile.create(path, data)
    assumed = game.assumptions()
    if as_json:
        out = status_json(gf, match, None)
        out["file"] = str(path)
        out["assumed_values"] = len(assumed)
        emit_json(out)
        return
    click.echo(f"created {path}: {game.title}, players {', '.join(gf.players)}")
    if assumed:
        click.echo(
            f"note: this game uses {len(assumed)} assumed component values that the rulebook "
            f"does not give; see `referee data {game.name}`"
        )
    click.echo(game.prompt(match.state))


# --- status ---------------------------------------------------------------------------


def status_json(gf: gamefile.GameFile, match: Match, viewer: str | None) -> dict[str, Any]:
    game = match.game
    state = match.state
    finished = game.finished(state)
    out: dict[str, Any] = {
        "game": game.name,
        "id": gf.game_id,
        "rules": gf.data["rules"],
        "players": gf.players,
        "moves": len(gf.log),
        "to_move": [] if finished else game.to_move(state),
        "prompt": game.prompt(state),
        "finished": finished,
        "scores": game.scores(state),
        "ranking": game.ranking(state) if finished else None,
        "as": viewer,
        "view": game.view(state, viewer),
    }
    if viewer is not None:
        out["legal"] = [game.format_move(m) for m in game.legal_moves(state, viewer)]
    return out


def load(path: Path) -> tuple[gamefile.GameFile, Match]:
    gf = gamefile.read(path)
    return gf, gamefile.replay(gf)


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "viewer", metavar="PLAYER",
              help="Show this player's private view and legal moves.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def status(path: Path, viewer: str | None, as_json: bool) -> None:
    """Show the board, whose turn it is and what is being decided."""
    gf, match = load(path)
    if viewer is not None:
        gf.player(viewer)
    if as_json:
        emit_json(status_json(gf, match, viewer))
        return
    game = match.game
    title = f"{game.title}: {path} (move {len(gf.log)})"
    click.echo(title)
    click.echo("=" * len(title))
    click.echo(game.render(match.state, viewer))
    click.echo("")
    click.echo(game.prompt(match.state))
    if viewer is not None and not game.finished(match.state):
        legal = [game.format_move(m) for m in game.legal_moves(match.state, viewer)]
        if legal:
            click.echo(f"legal moves for {viewer} ({len(legal)}):")
            click.echo(wrap_list(legal))
        else:
            click.echo(f"{viewer} has nothing to decide now.")


# --- move -----------------------------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "player", required=True, metavar="PLAYER", help="Who is moving.")
@click.argument("words", nargs=-1, required=True, metavar="MOVE...")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def move(path: Path, player: str, words: Sequence[str], as_json: bool) -> None:
    """Check a move against the rules and append it to FILE."""
    text = " ".join(words)
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        gf.player(player)
        match = gamefile.replay(gf)
        chosen = resolve_move(match.game, match.state, player, text)
        match.play(player, chosen)
        entry = gamefile.append_entry(gf.data, player, chosen)
        gamefile.replace(path, old, gf.data)
    game = match.game
    canonical = game.format_move(chosen)
    if as_json:
        out = status_json(gf, match, player)
        out["accepted"] = canonical
        out["n"] = entry["n"]
        emit_json(out)
        return
    click.echo(f"move {entry['n']}: {player}: {canonical}")
    click.echo(game.prompt(match.state))
    if not game.finished(match.state) and player in game.to_move(match.state):
        legal = [game.format_move(m) for m in game.legal_moves(match.state, player)]
        click.echo(f"legal moves for {player} ({len(legal)}):")
        click.echo(wrap_list(legal))


# --- check ----------------------------------------------------------------------------


def check_one(path: Path) -> dict[str, Any]:
    try:
        gf, match = load(path)
    except RefereeError as exc:
        return {"file": str(path), "ok": False, "error": exc.message, "hints": exc.hints}
    game = match.game
    broken = game.invariants(match.state)
    if broken:
        return {"file": str(path), "ok": False, "error": "invariant broken: " + "; ".join(broken),
                "hints": []}
    finished = game.finished(match.state)
    return {
        "file": str(path), "ok": True, "game": game.name, "players": len(gf.players),
        "moves": len(gf.log), "finished": finished, "scores": game.scores(match.state),
        "to_move": [] if finished else game.to_move(match.state),
    }


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def check(paths: Sequence[Path], as_json: bool) -> None:
    """Validate and replay game files; exit 0 only if every one is a legal game."""
    results = [check_one(p) for p in paths]
    if as_json:
        emit_json(results)
    else:
        for r in results:
            if r["ok"]:
                state = "finished" if r["finished"] else f"waiting for {', '.join(r['to_move'])}"
                scores = ", ".join(f"{p} {s}" for p, s in r["scores"].items())
                click.echo(f"ok   {r['file']}: {r['game']}, {r['players']} players, "
                           f"{r['moves']} moves, {state}; scores {scores}")
            else:
                click.echo(f"FAIL {r['file']}: {r['error']}")
                for hint in r["hints"]:
                    click.echo(f"       {hint}")
    if not all(r["ok"] for r in results):
        sys.exit(1)


# --- log ------------------------------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def log(path: Path, as_json: bool) -> None:
    """List the moves in notation."""
    gf, match = load(path)
    game = match.game
    rows = [
        {"n": e["n"], "by": e["by"],
         "move": game.format_move(gamefile.decode_move(game, e["move"], f"$.log[{i}]")),
         "at": e.get("at")}
        for i, e in enumerate(gf.log)
    ]
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        click.echo(f"{r['n']:>4}. {r['by']}: {r['move']}")
    click.echo(game.prompt(match.state))


# --- schema and data ------------------------------------------------------------------


@main.command()
@click.argument("name", required=False, default="file")
@handles_errors
def schema(name: str) -> None:
    """Print a JSON Schema: `file` (any game, the default) or a game's full file schema."""
    if name not in schema_names():
        raise UsageError(f"no schema {name!r}", hints=[f"schemas: {', '.join(schema_names())}"])
    click.echo(schema_text(name), nl=False)


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="Output JSON (all component data).")
@handles_errors
def data(game_name: str, as_json: bool) -> None:
    """Show GAME's component data and every value assumed rather than printed."""
    game: Game = get_game(game_name)
    assumed = game.assumptions()
    if as_json:
        emit_json({
            "game": game.name,
            "rules": game.data_version(),
            "assumptions": [a.__dict__ for a in assumed],
            "data": game.data(),
        })
        return
    click.echo(f"{game.title}: component data {game.data_version()}")
    click.echo(f"{len(assumed)} values are ASSUMED (the rulebook we hold does not print them).")
    click.echo("If you own the printed game, check these and report corrections:")
    for a in assumed:
        click.echo(f"  [{a.key}] {a.what}: {a.value}")
        click.echo(f"        source: {a.source}")
    click.echo("All component data with sources: `referee data " + game.name + " --json`.")
