"""Bots: `bot` plays one move for a player; `simulate` plays bot-against-bot games."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from referee.bots import LEVELS, choose, make_bot
from referee.bots.simulate import Result, simulate
from referee.cli import main
from referee.cli.common import emit_json, handles_errors, load, secret_option
from referee.engine import get_game
from referee.rng import Rng, new_seed
from referee.submit import submit

LEVEL = click.Choice(LEVELS)


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "player", metavar="PLAYER", required=True, help="Who the bot plays.")
@click.option("--level", type=LEVEL, default="mcts", show_default=True,
              help="random, greedy (best immediate score difference) or mcts.")
@click.option("--think", type=click.FloatRange(min=0.01), metavar="SECONDS", default=1.0,
              show_default=True, help="mcts: time to think about the move.")
@click.option("--iterations", type=click.IntRange(min=1), metavar="N",
              help="mcts: stop after N iterations (reproducible with --seed).")
@click.option("--seed", help="The bot's own seed (default: a fresh random one).")
@secret_option
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def bot(path: Path, player: str, level: str, think: float, iterations: int | None,
        seed: str | None, secret_path: Path | None, as_json: bool) -> None:
    """Let a bot choose PLAYER's move in FILE and play it like `move` (marked bot: true).

    The bot sees only what PLAYER may see: it re-deals everything hidden from PLAYER
    before it thinks, so it plays fair even with the game's secret at hand.
    """
    gf, match = load(path, secret_path)
    gf.player(player)
    budget = None if iterations is not None else think
    chosen = choose(match.game, match.state, player, make_bot(level, budget, iterations),
                    Rng(seed or new_seed()))
    text = match.game.format_move(chosen)
    done = submit(path, player, [text], secret_path=secret_path, extra={"bot": True})
    accepted = done.accepted[-1]
    after = done.match
    if as_json:
        emit_json({"n": accepted.n, "player": player, "move": accepted.text, "level": level,
                   "prompt": after.game.prompt(after.state) if after else None})
        return
    click.echo(f"move {accepted.n}: {player}: {accepted.text} (bot, {level})")
    if after is not None:
        click.echo(after.game.prompt(after.state))


@main.command(name="simulate")
@click.argument("game_name", metavar="GAME")
@click.option("--players", type=click.IntRange(min=1), required=True, help="Seats.")
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True,
              help="Games to play.")
@click.option("--bots", "bot_list", default="mcts,random", show_default=True,
              metavar="LEVEL,...", help="Bot levels, cycled over the seats and rotated "
                                        "from game to game.")
@click.option("--think", type=click.FloatRange(min=0.01), metavar="SECONDS", default=1.0,
              show_default=True, help="mcts: time per move.")
@click.option("--iterations", type=click.IntRange(min=1), metavar="N",
              help="mcts: N iterations per move instead of a time budget (reproducible).")
@click.option("--seed", default="0", show_default=True, help="Seed of the games and bots.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def simulate_command(game_name: str, players: int, games: int, bot_list: str,
                     think: float, iterations: int | None, seed: str, as_json: bool) -> None:
    """Play GAMES games of GAME between bots; print wins and mean score by seat and by
    bot, game length, how often each component was used or scored, and the assumed
    component values that (almost) never came up."""
    game = get_game(game_name)
    levels = [b.strip() for b in bot_list.split(",") if b.strip()]
    started = time.monotonic()
    last = [started]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 2 or (done == total and now - started >= 2):
            last[0] = now
            click.echo(f"simulate: {done}/{total} games, {now - started:.0f} s", err=True)

    result = simulate(game, players, games, levels, think=None if iterations else think,
                      iterations=iterations, seed=seed, progress=progress)
    out = result.to_json(game)
    if as_json:
        emit_json(out)
        return
    for line in table(out, result):
        click.echo(line)


def _rows(title: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"{title:<10} {'games':>6} {'wins':>7} {'win %':>6} {'mean score':>11}"]
    for name, r in rows.items():
        lines.append(f"{name:<10} {r['games']:>6} {r['wins']:>7} "
                     f"{100 * r['win_rate']:>5.1f}% {r['mean_score']:>11}")
    return lines


def table(out: dict[str, Any], result: Result) -> list[str]:
    """The simulation as text tables."""
    length = out["length"]
    lines = [f"{out['game']}: {out['games']} games, {out['players']} players, bots "
             f"{', '.join(out['bots'])} (rotated over the seats)", ""]
    lines += [*_rows("bot", out["by_bot"]), "", *_rows("seat", out["by_seat"]), ""]
    lines.append(f"game length (moves): mean {length['mean']}, min {length['min']}, "
                 f"max {length['max']}")
    if "mcts" in out["by_bot"]:
        lines.append(f"mcts: {out['by_bot']['mcts']['mean_iterations']} iterations per "
                     "decision with a choice (mean)")
    lines.append("")
    lines.append("components (uses / games with a use):")
    kinds: dict[str, list[str]] = {}
    for key, c in out["components"].items():
        kind, _, name = key.partition(":")
        kinds.setdefault(kind, []).append(f"{name} {c['uses']}/{c['games']}")
    for kind, items in kinds.items():
        lines.append(f"  {kind}: " + ", ".join(items))
    rare = [a for a in out["assumptions"] if a["flag"] == "RARELY USED"]
    lines.append("")
    lines.append(f"assumed values (almost) never used (< {100 * 0.05:.0f} % of games): "
                 + (", ".join(f"{a['key']} ({a['games']} games)" for a in rare) or "none"))
    return lines
