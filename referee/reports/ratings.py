"""Ratings and a league from the game files alone (``referee ratings GAMES_DIR``).

Every ``*.json`` file directly in the folder (names starting with ``.`` are the judge's
own) is read and replayed as ``referee check`` replays it; a file that does not replay, a
sealed game whose secret is not at hand, an unfinished game, and both files of a game
found twice (a copy) are listed as skipped with their reasons and never counted. The
finished games are rated in a fixed order with openskill's Plackett-Luce model, one table per game
(Staufer, Dynasties): each player is a team of one, and players who share a place share
its rank. The same folder gives the same table on any machine, whatever the order of its
files on disk.

* **Order**: by the time of the game's last entry (``at``; in a sealed game vouched by
  the referee's MAC when the whole log is), then by game id, then by header hash. A game
  whose last entry carries no time comes first.
* **Identity**: a seat's player is the person at that seat when the game ended: their
  e-mail address (lower-cased; after a ``replace``, the successor's) if the file has one,
  else the seat id. Addresses are only compared, never printed (the table may go to a
  public site): a row shows the player's name in the last game rated with them, with
  ``#`` and 6 hex digits of a hash of the identity when two players share a name. A
  seat that a bot plays at the end is the bot itself
  (``bot:greedy``, ``bot:mcts-100``) and marked as a bot. An identity at more than one
  seat of one game (three random bots) is told apart by its seat (``bot:random#ann``).
* **Bots**: a game in which any seat was a bot, or any decision was a bot's
  (``bot: true``), is marked; ``--no-bots`` leaves such games out.

openskill is an optional extra (``pip install 'referee[ratings]'``), imported only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, ReplayError, SealedError, UsageError
from referee.ledger import gamefile, replay, seats

PROVISIONAL_GAMES = 5  # fewer rated games than this: the rating is provisional
MODEL = "openskill PlackettLuce (mu 25, sigma 25/3); rating = ordinal mu - 3 sigma"
ORDER = "last entry's time, then game id, then header hash"
BOT_PREFIX = "bot:"


@dataclass(frozen=True)
class Result:
    """One finished game that replayed: its places, best first, by identity."""

    file: str
    game: str
    game_id: str
    finish: str
    header: str
    places: list[list[str]]  # identities
    names: dict[str, str]  # identity -> the name this game gives
    bot_seats: list[str]  # the seats a bot played at some point
    bot_moves: int  # entries marked ``bot: true``

    @property
    def with_bots(self) -> bool:
        return bool(self.bot_seats or self.bot_moves)

    def key(self) -> tuple[str, str, str]:
        return (self.finish, self.game_id, self.header)

    def to_json(self, labels: dict[str, str]) -> dict[str, Any]:
        return {"file": self.file, "game": self.game, "id": self.game_id,
                "finish": self.finish or None,
                "places": [[labels[p] for p in place] for place in self.places],
                "bot_seats": self.bot_seats, "bot_moves": self.bot_moves}


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
    """Tables by game name, the games rated (in order) and the files skipped."""

    tables: dict[str, list[Row]] = field(default_factory=dict)
    games: list[Result] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # games with bots, under --no-bots
    labels: dict[str, str] = field(default_factory=dict)  # identity -> what is printed

    def to_json(self) -> dict[str, Any]:
        labels = self.labels
        return {
            "model": MODEL, "order": ORDER, "provisional_under": PROVISIONAL_GAMES,
            "tables": {name: [r.to_json(labels) for r in rows]
                       for name, rows in self.tables.items()},
            "games": [g.to_json(labels) for g in self.games],
            "left_out": self.left_out,
            "skipped": [{"file": f, "reason": why} for f, why in self.skipped],
        }


def game_files(games_dir: Path) -> list[Path]:
    if not games_dir.is_dir():
        raise UsageError(f"{games_dir} is not a folder of game files")
    return sorted(p for p in games_dir.glob("*.json") if not p.name.startswith("."))


def seat_identity(data: dict[str, Any], seat: str, emails: dict[str, list[str]],
                  bots: dict[str, seats.SeatBot]) -> str:
    bot = bots.get(seat)
    if bot is not None:
        tail = f"-{bot.iterations}" if bot.iterations is not None else ""
        return f"{BOT_PREFIX}{bot.level}{tail}"
    found = emails.get(seat)
    return found[0].lower() if found else seat


def identities(data: dict[str, Any], emails: dict[str, list[str]],
               bots: dict[str, seats.SeatBot]) -> dict[str, str]:
    """Seat -> identity; an identity found at more than one seat of the game (three
    random bots, one address at two seats) is told apart by its seat: ``bot:random#ann``."""
    found = {p["id"]: seat_identity(data, p["id"], emails, bots) for p in data["players"]}
    counts: dict[str, int] = {}
    for name in found.values():
        counts[name] = counts.get(name, 0) + 1
    return {seat: f"{name}#{seat}" if counts[name] > 1 else name
            for seat, name in found.items()}


def bot_seats(data: dict[str, Any]) -> list[str]:
    """Seats that a bot played at some point: from the header or a ``bot`` record."""
    found = set(seats.header_seats(data))
    for entry in data["log"]:
        meta = entry.get("meta")
        if isinstance(meta, dict) and meta.get("kind") == "bot" and meta.get("level"):
            found.add(meta["player"])
        if entry.get("bot") is True:
            found.add(entry["by"])
    return [p["id"] for p in data["players"] if p["id"] in found]


def finish_time(gf: gamefile.GameFile) -> str:
    """The last entry's time; in a sealed game only when the referee vouched for it."""
    if not gf.log or (gf.sealed and replay.unvouched(gf)):
        return ""
    return str(gf.log[-1].get("at", ""))


def result_of(path: Path, name: str) -> Result:
    """The result of the finished game at ``path``, replayed as ``check`` replays it.
    Raises RefereeError (or UsageError: not finished) saying why it cannot count."""
    from referee.ledger import roster, secret

    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    if seed is None:
        raise SealedError("a sealed game without its secret: its result cannot be checked "
                         "(give REFEREE_SECRET, or `referee reveal` it)")
    match = replay.replay(gf, seed)
    game = match.game
    check = getattr(game, "invariants", None)  # optional for a game
    broken = list(check(match.state)) if check else []
    if broken:
        raise ReplayError("invariant broken: " + "; ".join(broken))
    if not game.finished(match.state):
        raise RefereeError("not finished")
    now = roster.settings(gf.data)
    bots = seats.seats_at(gf.data).bots
    who = identities(gf.data, now.emails, bots)
    places = [sorted(who[s] for s in place) for place in game.ranking(match.state)]
    names = {who[s]: who[s] if who[s].startswith(BOT_PREFIX) else now.names.get(s, s)
             for s in gf.players}
    return Result(name, gf.game.name, gf.game_id, finish_time(gf),
                  gamefile.header_hash(gf.data), places, names, bot_seats(gf.data),
                  sum(1 for e in gf.log if e.get("bot") is True))


def read_all(games_dir: Path) -> tuple[list[Result], list[tuple[str, str]]]:
    """The finished games that replay, in rating order, and the files skipped with
    their reasons. Two files of one game (a copy) are both skipped, as the site skips
    them; only files that replay are compared, so that a broken file cannot push a good
    one out."""
    from referee.ledger import identity

    results: list[Result] = []
    skipped: list[tuple[str, str]] = []
    read: list[tuple[str, Any]] = []
    for path in game_files(games_dir):
        name = path.relative_to(games_dir).as_posix()
        try:
            result = result_of(path, name)
        except RefereeError as exc:
            skipped.append((name, exc.message))
            continue
        except Exception as exc:  # a bug on this file: skipped with its kind, never a crash
            skipped.append((name, f"internal error while replaying it ({type(exc).__name__});"
                                  " please report it with the file"))
            continue
        results.append(result)
        read.append((name, gamefile.read(path)))
    copies = identity.duplicated_files(identity.duplicates(read))
    skipped += [(name, dup.message) for name, dup in copies.items()]
    kept = sorted((r for r in results if r.file not in copies), key=Result.key)
    return kept, sorted(skipped)


def rate(results: Sequence[Result]) -> dict[str, list[Row]]:
    """One table per game, rows best first (rating, then player)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    tables: dict[str, dict[str, Row]] = {}
    for result in results:
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


def league(games_dir: Path, *, no_bots: bool = False) -> League:
    """The league of the folder: tables, games rated, games left out and files skipped.
    Raises UsageError (no folder, or openskill missing)."""
    try:
        import openskill  # noqa: F401
    except ImportError:
        raise UsageError("ratings need openskill",
                         hints=["pip install 'referee[ratings]'"]) from None
    results, skipped = read_all(games_dir)
    out = League(skipped=skipped)
    for result in results:
        if no_bots and result.with_bots:
            out.left_out.append(result.file)
        else:
            out.games.append(result)
    out.tables = rate(out.games)
    out.labels = labels(out.games)
    return out


def labels(results: Sequence[Result]) -> dict[str, str]:
    """Identity -> the name printed: the player's name in the last game rated with them;
    a name that two identities share gets ``#`` and 6 hex digits of each one's hash."""
    import hashlib

    names: dict[str, str] = {}
    for result in results:
        names.update(result.names)
    count: dict[str, int] = {}
    for name in names.values():
        count[name] = count.get(name, 0) + 1
    return {who: name if count[name] == 1 else
            f"{name}#{hashlib.sha256(who.encode()).hexdigest()[:6]}"
            for who, name in names.items()}


def table_lines(found: League) -> list[str]:
    """The league as text: a table per game, then what was left out and skipped."""
    lines: list[str] = []
    for name, rows in found.tables.items():
        count = sum(1 for g in found.games if g.game == name)
        lines += [f"{name}: {count} game{'s' if count != 1 else ''} rated", _HEAD]
        for place, row in enumerate(rows, 1):
            lines.append(_row_line(place, row, found.labels[row.player]))
        lines.append("")
    if not found.tables:
        lines += ["no finished game to rate", ""]
    lines += [f"* provisional: fewer than {PROVISIONAL_GAMES} games. rating = mu - 3 sigma "
              "(openskill PL);",
              f"  games in order of the {ORDER}."]
    for name in found.left_out:
        lines.append(f"left out (bots): {name}")
    for name, why in found.skipped:
        lines.append(f"skipped: {name}: {why}")
    return lines


_HEAD = f"  {'#':>3}  {'player':<32} {'rating':>7} {'mu':>6} {'sigma':>6} {'games':>5}"


def _row_line(place: int, row: Row, label: str) -> str:
    mark = " *" if row.games < PROVISIONAL_GAMES else ""
    bot = " (bot)" if row.bot else ""
    who = label if len(label) <= 32 else label[:31] + "…"
    return (f"  {place:>3}  {who:<32} {row.ordinal:>7.2f} {row.mu:>6.2f} {row.sigma:>6.2f} "
            f"{row.games:>5}{mark}{bot}")
