"""Bot-against-bot games: wins and scores by seat and by bot, game length, component use.

Bots rotate round the seats from game to game (game g gives seat s the bot
``bots[(s + g) % N]``), so that a bot's figures are not a seat's. A win is a share of
first place (a shared first place splits it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import mean
from typing import NotRequired, TypedDict

from referee import engine
from referee.bots.players import Bot, choose, make_bot
from referee.bots.usage import game_usage, in_play, matches, usage_prefix
from referee.engine import Game, Match
from referee.engine.rng import Rng
from referee.errors import UsageError

RARE = 0.05  # an assumed component used in fewer than 5 % of the games is flagged
MAX_MOVES = 5000  # a game that is not over by then is a bug in the rules


class TallyRow(TypedDict):
    """A group's results: its games, wins (a shared first place split), win rate and
    mean score; a bot's also its decisions and, for mcts, mean iterations."""

    games: int
    wins: float
    win_rate: float
    mean_score: float
    decisions: NotRequired[int]
    mean_iterations: NotRequired[float]


class Length(TypedDict):
    mean: float
    min: int
    max: int


class Uses(TypedDict):
    uses: int  # in all games
    games: int  # games with a use


class AssumptionRow(TypedDict):
    """An assumed value: the component usage that exercises it, in how many games, and a
    flag (not measured, not in play, rarely used)."""

    key: str
    usage: str | None
    games: int | None
    flag: str


class Simulated(TypedDict):
    """`referee simulate --json`."""

    game: str
    players: int
    games: int
    bots: list[str]
    by_seat: dict[str, TallyRow]
    by_bot: dict[str, TallyRow]
    length: Length
    components: dict[str, Uses]
    assumptions: list[AssumptionRow]


@dataclass
class Tally:
    """Results of one group (a seat or a bot)."""

    games: int = 0
    wins: float = 0.0
    scores: list[int] = field(default_factory=list)

    def row(self) -> TallyRow:
        return {"games": self.games, "wins": round(self.wins, 2),
                "win_rate": round(self.wins / self.games, 3) if self.games else 0.0,
                "mean_score": round(mean(self.scores), 2) if self.scores else 0.0}


@dataclass
class Result:
    game: str
    players: int
    bots: list[str]
    by_seat: dict[str, Tally] = field(default_factory=dict)
    by_bot: dict[str, Tally] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    usage: Counter[str] = field(default_factory=Counter)  # total uses
    games_using: Counter[str] = field(default_factory=Counter)  # games with >= 1 use
    decisions: Counter[str] = field(default_factory=Counter)  # per bot level
    iterations: Counter[str] = field(default_factory=Counter)  # mcts iterations per level

    def to_json(self, game: Game) -> Simulated:
        return {
            "game": self.game, "players": self.players, "games": len(self.lengths),
            "bots": self.bots,
            "by_seat": {k: v.row() for k, v in self.by_seat.items()},
            "by_bot": {k: self.thinking(k, v.row()) for k, v in self.by_bot.items()},
            "length": {"mean": round(mean(self.lengths), 1) if self.lengths else 0,
                       "min": min(self.lengths, default=0),
                       "max": max(self.lengths, default=0)},
            "components": {k: {"uses": self.usage[k], "games": self.games_using[k]}
                           for k in sorted(self.usage)},
            "assumptions": self.assumption_rows(game),
        }

    def thinking(self, level: str, row: TallyRow) -> TallyRow:
        """``row`` with the decisions taken by ``level`` and, for mcts, mean iterations
        per decision with a choice (a single legal move is played without thinking)."""
        row["decisions"] = self.decisions[level]
        if level == "mcts":
            row["mean_iterations"] = round(self.iterations[level] / max(
                self.decisions[level + "-thought"], 1), 1)
        return row

    def assumption_rows(self, game: Game) -> list[AssumptionRow]:
        """Every assumed value, the games that exercised it, and a flag if (almost) none."""
        rows: list[AssumptionRow] = []
        total = len(self.lengths)
        for a in engine.assumptions(game):
            target = usage_prefix(game, a.key)
            if target is None:
                rows.append({"key": a.key, "usage": None, "games": None,
                             "flag": "not measured (board: in every game)"})
                continue
            if not in_play(game, a.key, self.players):
                rows.append({"key": a.key, "usage": target, "games": None,
                             "flag": f"not in play with {self.players} players"})
                continue
            keys = [k for k in self.games_using if matches(k, target)]
            games = max((self.games_using[k] for k in keys), default=0)
            flag = "RARELY USED" if total and games < max(1.0, RARE * total) else ""
            rows.append({"key": a.key, "usage": target, "games": games, "flag": flag})
        return rows


def seat_bots(bots: Sequence[str], players: int) -> list[str]:
    """The bot list stretched to one bot per seat (cycled)."""
    if not bots:
        raise UsageError("--bots needs at least one level, e.g. mcts,random")
    return [bots[i % len(bots)] for i in range(players)]


def play_one(game: Game, bots: dict[str, Bot], seed: str,
             thinking: tuple[Counter[str], Counter[str]] | None = None) -> Match:
    """One game between ``bots`` (player id -> bot); returns the finished match.
    ``thinking`` (decisions, iterations) counts each level's decisions and mcts work."""
    match = Match.start(game, list(bots), {}, f"simulate-{seed}")
    rngs = {p: Rng(f"bot-{seed}-{p}") for p in bots}
    for _ in range(MAX_MOVES):
        if game.finished(match.state):
            return match
        player = game.to_move(match.state)[0]
        bot = bots[player]
        match.play(player, choose(game, match.state, player, bot, rngs[player]))
        if thinking is not None:
            thinking[0][bot.level] += 1
            done = getattr(bot, "last_iterations", 0)
            if done:
                thinking[0][bot.level + "-thought"] += 1
                thinking[1][bot.level] += done
    raise AssertionError(f"{game.name}: no end after {MAX_MOVES} moves (seed {seed})")


def simulate(game: Game, players: int, games: int, levels: Sequence[str], *,
             think: float | None = None, iterations: int | None = None, seed: str = "0",
             progress: Callable[[int, int], None] | None = None) -> Result:
    """Play ``games`` games of ``players`` seats with the bot ``levels`` (rotated)."""
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.title} is for {game.min_players} to {game.max_players} "
                         f"players, not {players}")
    if games < 1:
        raise UsageError("--games must be at least 1")
    lineup = seat_bots(levels, players)
    for level in dict.fromkeys(lineup):
        make_bot(level)  # an unknown level is a usage error before any game is played
    result = Result(game.name, players, list(lineup))
    ids = [f"p{i + 1}" for i in range(players)]
    for g in range(games):
        seated = {ids[s]: lineup[(s + g) % players] for s in range(players)}
        bots = {p: make_bot(level, think=think, iterations=iterations)
                for p, level in seated.items()}
        match = play_one(game, bots, f"{seed}-{g}", (result.decisions, result.iterations))
        _record(result, game, match, seated)
        if progress is not None:
            progress(g + 1, games)
    return result


def _record(result: Result, game: Game, match: Match, seated: dict[str, str]) -> None:
    scores = game.scores(match.state)
    first = game.ranking(match.state)[0]
    for seat, (player, level) in enumerate(seated.items(), start=1):
        win = 1 / len(first) if player in first else 0.0
        for tally in (result.by_seat.setdefault(f"seat {seat}", Tally()),
                      result.by_bot.setdefault(level, Tally())):
            tally.games += 1
            tally.wins += win
            tally.scores.append(scores[player])
    result.lengths.append(len(match.log))
    used = game_usage(game, [m for _, m in match.log], match.state)
    result.usage.update(used)
    result.games_using.update(used.keys())
