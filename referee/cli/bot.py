"""Bots: `bot` plays one move for a player; `simulate` plays bot-against-bot games."""

from __future__ import annotations

import time
from pathlib import Path

import click

from referee.bots import LEVELS, choose, make_bot
from referee.bots.simulate import Result, Simulated, TallyRow, simulate
from referee.cli.common import PATH, command, emit_json, secret_option
from referee.cli.play import bots_done
from referee.engine import get_game
from referee.engine.rng import Rng, new_seed
from referee.errors import UsageError
from referee.ledger import seats
from referee.ledger.fileformat import GAME_MASTER
from referee.play.statusview import load
from referee.play.submit import play_bots, set_seat, submit

LEVEL = click.Choice(LEVELS)


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", metavar="PLAYER",
              help="Who the bot plays (default: every bot seat that owes a decision).")
@click.option("--level", type=LEVEL, help="random, greedy (best immediate score "
                                          "difference) or mcts (default).")
@click.option("--think", type=click.FloatRange(min=0.01), metavar="SECONDS",
              help="mcts: time to think about the move (default 1).")
@click.option("--iterations", type=click.IntRange(min=1), metavar="N",
              help="mcts: stop after N iterations (reproducible with --seed).")
@click.option("--seed", help="The bot's own seed (default: a fresh random one).")
@secret_option
def bot(path: Path, player: str | None, level: str | None, think: float | None,
        iterations: int | None, seed: str | None, secret_path: Path | None,
        as_json: bool) -> None:
    """Let a bot choose PLAYER's move in FILE and play it like `move` (marked bot: true).

    The bot sees only what PLAYER may see: it re-deals everything hidden from PLAYER
    before it thinks, so it plays fair even with the game's secret at hand. Without
    --as, or for a bot seat, the bot seats play every decision they owe, each with the
    seat's own level and reproducible budget.
    """
    gf, match = load(path, secret_path)
    if player is None or player in seats.seats_at(gf.data).bots:
        if player is not None:
            gf.player(player)
        if any(x is not None for x in (level, think, iterations, seed)):
            raise UsageError("a bot seat plays with its own level and budget: leave out "
                             "--level, --think, --iterations and --seed",
                             hints=["change a seat's bot with `referee seat FILE PLAYER "
                                    "--bot LEVEL --as gm`"])
        _play_seats(path, secret_path, as_json)
        return
    gf.player(player)
    level = level or "mcts"
    budget = None if iterations is not None else (think or 1.0)
    chosen = choose(match.game, match.state, player, make_bot(level, budget, iterations),
                    Rng(seed or new_seed()))
    text = match.game.format_move(chosen)
    done = submit(path, player, [text], secret_path=secret_path, extra={"bot": True})
    accepted = done.accepted[-1]
    after = done.match
    played = bots_done(path, secret_path)
    if played:
        _, after = load(path, secret_path)
    if as_json:
        emit_json({"n": accepted.n, "player": player, "move": accepted.text, "level": level,
                   "bot_moves": played,
                   "prompt": after.game.prompt(after.state) if after else None})
        return
    click.echo(f"move {accepted.n}: {player}: {accepted.text} (bot, {level})")
    for b in played:
        click.echo(f"move {b.n}: {b.player}: {b.text} (bot, {b.level})")
    if after is not None:
        click.echo(after.game.prompt(after.state))


def _play_seats(path: Path, secret_path: Path | None, as_json: bool) -> None:
    played = play_bots(path, secret_path=secret_path)
    _, match = load(path, secret_path)
    if as_json:
        emit_json({"bot_moves": played,
                   "prompt": match.game.prompt(match.state)})
        return
    if not played:
        click.echo("no bot seat owes a decision now.")
    for b in played:
        click.echo(f"move {b.n}: {b.player}: {b.text} (bot, {b.level})")
    click.echo(match.game.prompt(match.state))


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.argument("player", metavar="PLAYER")
@click.option("--bot", "level", metavar="LEVEL",
              help="Hand the seat to a bot: random, greedy, mcts or mcts:ITERATIONS "
                   f"(mcts: {seats.DEFAULT_ITERATIONS} iterations a decision).")
@click.option("--human", is_flag=True, help="Give the seat back to a person.")
@click.option("--as", "by", metavar="PLAYER|gm", required=True,
              help="gm (the game master, any seat; needs the secret of a sealed game) or "
                   "PLAYER (their own seat only).")
@secret_option
def seat(path: Path, player: str, level: str | None, human: bool, by: str,
         secret_path: Path | None, as_json: bool) -> None:
    """Hand PLAYER's seat to a bot (--bot LEVEL) or back to a person (--human).

    Recorded as a log entry (the header never changes). While the seat is a bot's, its
    decisions are played at once by the bot, reproducibly, and nobody may move for it.
    """
    if (level is None) == (not human):
        raise UsageError("give exactly one of --bot LEVEL and --human")
    chosen = None if human else seats.parse_spec(level or "")
    entry = set_seat(path, by, player, chosen, secret_path=secret_path)
    played = bots_done(path, secret_path)
    if as_json:
        emit_json({"n": entry["n"], "player": player, "bot": chosen.record() if chosen
                   else None, "bot_moves": played})
        return
    who = "the game master" if by == GAME_MASTER else by
    click.echo(f"entry {entry['n']}: {who} handed {player}'s seat "
               + (f"to a bot ({chosen.describe()})" if chosen else "back to a person"))
    for b in played:
        click.echo(f"move {b.n}: {b.player}: {b.text} (bot, {b.level})")


@command("simulate")
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


def _rows(title: str, rows: dict[str, TallyRow]) -> list[str]:
    lines = [f"{title:<10} {'games':>6} {'wins':>7} {'win %':>6} {'mean score':>11}"]
    for name, r in rows.items():
        lines.append(f"{name:<10} {r['games']:>6} {r['wins']:>7} "
                     f"{100 * r['win_rate']:>5.1f}% {r['mean_score']:>11}")
    return lines


def table(out: Simulated, result: Result) -> list[str]:
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
