"""Ratings and a league from the game files alone (``referee ratings GAMES_DIR``).

Every ``*.json`` file directly in the folder (names starting with ``.`` are the judge's
own) is read and replayed as ``referee check`` replays it; a file that does not replay, a
sealed game whose secret is not at hand, an unfinished game and a game against oneself
are listed as skipped with their reasons and never counted. What is rated
(docs/league.md):

* **Games between people** only, by default: a game in which a bot played any seat at
  any point, or any decision (a deadline's bot move too), is left out and counted as
  such; ``--with-bots`` rates those games apart, in tables of their own, and never
  mixes them into the people's tables.
* **Each game once**: files of one game (the same moves, header, commitment or id) count
  once if they agree on who played and how it ended, and not at all if they do not
  (referee/reports/ratings/copies.py).
* **Order**: by the time of the game's last entry (``at``; in a sealed game vouched by
  the referee's MAC when the whole log is), then by the hash of its moves, then by
  header hash. A game whose last entry carries no time comes first.
* **Identity** and bots: referee/reports/ratings/results.py.
* **Cache**: each file's result, or why it is skipped, is kept between runs, found by
  the file's bytes, path, language and secret (referee/reports/ratings/cache.py): a run
  over a folder already seen reads and hashes its files and replays only the changed ones.

The games are rated with openskill's Plackett-Luce model, one table per game (Staufer,
Dynasties): each player is a team of one, and players who share a place share its rank.
The same folder gives the same table on any machine, whatever the order of its files on
disk. openskill is an optional extra (``pip install 'referee[ratings]'``), imported only
here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, UsageError
from referee.reports.ratings import cache
from referee.reports.ratings import copies as copiesmod
from referee.reports.ratings.results import BOT_PREFIX, Result

PROVISIONAL_GAMES = 5  # fewer rated games than this: the rating is provisional
MODEL = "openskill PlackettLuce (mu 25, sigma 25/3); rating = ordinal mu - 3 sigma"
ORDER = "last entry's time, then the hash of its moves, then header hash"
__all__ = ["BOT_PREFIX", "PROVISIONAL_GAMES", "League", "Result", "league", "table_lines"]


@dataclass
class Row:
    player: str  # the identity: compared, never printed
    mu: float
    sigma: float
    games: int = 0
    bot: bool = False

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self, labels: dict[str, str]) -> dict[str, Any]:
        return {"player": labels[self.player], "rating": round(self.ordinal, 2),
                "mu": round(self.mu, 2), "sigma": round(self.sigma, 2), "games": self.games,
                "provisional": self.games < PROVISIONAL_GAMES, "bot": self.bot}


@dataclass
class League:
    """The people's tables by game name and their games (in order); with bots rated,
    the tables and games with bots apart; the games with bots left out, the copies
    counted once and the files skipped."""

    tables: dict[str, list[Row]] = field(default_factory=dict)
    games: list[Result] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # games with bots: not in `tables`
    copies: list[copiesmod.Copy] = field(default_factory=list)
    with_bots: bool = False  # whether the games with bots were rated apart
    bot_tables: dict[str, list[Row]] = field(default_factory=dict)
    bot_games: list[Result] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)  # identity -> what is printed
    bot_labels: dict[str, str] = field(default_factory=dict)

    def counted(self) -> dict[str, Any]:
        return {"people": len(self.games), "with_bots": len(self.left_out),
                "bots_rated_apart": self.with_bots, "copies": len(self.copies),
                "skipped": len(self.skipped)}

    def to_json(self, games: bool = True) -> dict[str, Any]:
        """The league as JSON; ``games=False`` leaves out the lists of rated games (the
        site's league page does not show them, and a big archive has thousands)."""
        def tables(found: dict[str, list[Row]], labels: dict[str, str]) -> dict[str, Any]:
            return {name: [r.to_json(labels) for r in rows] for name, rows in found.items()}

        return {
            "model": MODEL, "order": ORDER, "provisional_under": PROVISIONAL_GAMES,
            "counted": self.counted(), "summary": summary(self),
            "tables": tables(self.tables, self.labels),
            "games": [g.to_json(self.labels) for g in self.games] if games else [],
            "bot_tables": tables(self.bot_tables, self.bot_labels),
            "bot_games": ([g.to_json(self.bot_labels) for g in self.bot_games]
                          if games else []),
            "left_out": self.left_out,
            "copies": [c.to_json() for c in self.copies],
            "skipped": [{"file": f, "reason": why} for f, why in self.skipped],
        }


def game_names(games_dir: Path, hidden: bool = False) -> list[str]:
    """The names of the ``*.json`` files directly in ``games_dir``, sorted, but those
    that start with ``.`` (the judge's own) unless ``hidden``. Raises UsageError if it
    is no folder."""
    try:
        names = os.listdir(games_dir)
    except OSError:
        names = None
    if names is None or not games_dir.is_dir():
        raise UsageError(f"{games_dir} is not a folder of game files")
    return sorted(n for n in names
                  if n.endswith(".json") and (hidden or not n.startswith(".")))


def read_all(games_dir: Path
             ) -> tuple[list[Result], list[copiesmod.Copy], list[tuple[str, str]]]:
    """The finished games that replay, each once, in rating order; the copies counted
    once; the files skipped with their reasons. Only files that replay are compared for
    copies, so that a broken file cannot push a good one out."""
    found: list[Result] = []
    skipped: list[tuple[str, str]] = []
    with cache.session() as index:  # the cache: opened once, written back once
        for name in game_names(games_dir):
            try:
                found.append(cache.result_of(index, games_dir / name, name))
            except cache.NoGameFile:
                continue
            except RefereeError as exc:
                skipped.append((name, exc.message))
            except Exception as exc:  # a bug on this file: skipped with its kind, no crash
                skipped.append((name, f"internal error while replaying it "
                                      f"({type(exc).__name__}); please report it with the file"))
    kept, copies, disputed = copiesmod.dedupe(found)
    return kept, copies, sorted(skipped + disputed)


def rate(games: Sequence[Result]) -> dict[str, list[Row]]:
    """One table per game, rows best first (rating, then player)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    tables: dict[str, dict[str, Row]] = {}
    for result in games:
        rows = tables.setdefault(result.game, {})
        order = [(player, rank) for rank, place in enumerate(result.places, 1)
                 for player in place]
        for player, _ in order:
            if player not in rows:
                start = model.rating()
                rows[player] = Row(player, start.mu, start.sigma,
                                   bot=player.startswith(BOT_PREFIX))
        teams = [[model.rating(mu=rows[p].mu, sigma=rows[p].sigma)] for p, _ in order]
        rated = model.rate(teams, ranks=[float(rank) for _, rank in order])
        for (player, _), (rating,) in zip(order, rated, strict=True):
            row = rows[player]
            row.mu, row.sigma, row.games = rating.mu, rating.sigma, row.games + 1
    return {game: sorted(rows.values(), key=lambda r: (-round(r.ordinal, 9), r.player))
            for game, rows in sorted(tables.items())}


def league(games_dir: Path, *, with_bots: bool = False) -> League:
    """The league of the folder: the people's tables, with ``with_bots`` the tables of
    the games with bots apart, and what was left out, counted once or skipped.
    Raises UsageError (no folder, or openskill missing)."""
    try:
        import openskill  # noqa: F401
    except ImportError:
        raise UsageError("ratings need openskill",
                         hints=["pip install 'referee[ratings]'"]) from None
    kept, copies, skipped = read_all(games_dir)
    return league_of(kept, copies, skipped, with_bots=with_bots)


def league_of(kept: Sequence[Result], copies: list[copiesmod.Copy],
              skipped: list[tuple[str, str]], *, with_bots: bool = False) -> League:
    """The league of games already read and counted once (``read_all``'s result, or the
    site's from its kept results): the people's tables, the bot games apart."""
    out = League(skipped=skipped, copies=copies, with_bots=with_bots)
    out.games = [r for r in kept if not r.with_bots]
    out.left_out = [r.file for r in kept if r.with_bots]
    out.tables, out.labels = rate(out.games), labels(out.games)
    if with_bots:
        out.bot_games = [r for r in kept if r.with_bots]
        out.bot_tables, out.bot_labels = rate(out.bot_games), labels(out.bot_games)
    return out


def labels(games: Sequence[Result]) -> dict[str, str]:
    """Identity -> the name printed: the player's name in the last game rated with them;
    a name that two identities share gets ``#`` and 6 hex digits of each one's hash."""
    import hashlib

    names: dict[str, str] = {}
    for result in games:
        names.update(result.names)
    count: dict[str, int] = {}
    for name in names.values():
        count[name] = count.get(name, 0) + 1
    return {who: name if count[name] == 1 else
            f"{name}#{hashlib.sha256(who.encode()).hexdigest()[:6]}"
            for who, name in names.items()}


def _games(n: int) -> str:
    return f"{n} game{'s' if n != 1 else ''}"


def summary(found: League) -> str:
    """What the tables count, in one line: "N games between people; M games with bots
    left out; K copies counted once; S files skipped"."""
    bots = "rated apart" if found.with_bots else "left out (--with-bots rates them apart)"
    copies = len(found.copies)
    parts = [f"{_games(len(found.games))} between people",
             f"{_games(len(found.left_out))} with bots {bots}",
             f"{copies} cop{'ies' if copies != 1 else 'y'} counted once"]
    if found.skipped:
        parts.append(f"{len(found.skipped)} file{'s' if len(found.skipped) != 1 else ''} "
                     "skipped")
    return "counted: " + "; ".join(parts)


def _table_lines(tables: dict[str, list[Row]], games: Sequence[Result],
                 labels: dict[str, str], heading: str) -> list[str]:
    lines: list[str] = []
    for name, rows in tables.items():
        count = sum(1 for g in games if g.game == name)
        lines += [f"{name}{heading}: {_games(count)} rated", _HEAD]
        lines += [_row_line(place, row, labels[row.player]) for place, row in
                  enumerate(rows, 1)]
        lines.append("")
    return lines


def table_lines(found: League) -> list[str]:
    """The league as text: what it counts, a table per game (the people's; then, when
    rated, those with bots), then what was left out, counted once and skipped."""
    lines = [summary(found), ""]
    lines += _table_lines(found.tables, found.games, found.labels, "")
    if not found.tables:
        lines += ["no finished game to rate between people", ""]
    lines += _table_lines(found.bot_tables, found.bot_games, found.bot_labels,
                          " (games with bots, rated apart)")
    lines += [f"* provisional: fewer than {PROVISIONAL_GAMES} games. rating = mu - 3 sigma "
              "(openskill PL);",
              f"  games in order of the {ORDER}."]
    lines += [f"{'rated apart' if found.with_bots else 'left out'} (bots): {name}"
              for name in found.left_out]
    lines += [f"counted once: {c.file} is a copy of {c.of} ({c.why})" for c in found.copies]
    lines += [f"skipped: {name}: {why}" for name, why in found.skipped]
    return lines


_HEAD = f"  {'#':>3}  {'player':<32} {'rating':>7} {'mu':>6} {'sigma':>6} {'games':>5}"


def _row_line(place: int, row: Row, label: str) -> str:
    mark = " *" if row.games < PROVISIONAL_GAMES else ""
    bot = " (bot)" if row.bot else ""
    who = label if len(label) <= 32 else label[:31] + "…"
    return (f"  {place:>3}  {who:<32} {row.ordinal:>7.2f} {row.mu:>6.2f} {row.sigma:>6.2f} "
            f"{row.games:>5}{mark}{bot}")
