"""The result of one finished game file, as the ratings count it (referee/reports/ratings/).

* **Identity**: a seat's player is the person at that seat when the game ended: their
  e-mail address (lower-cased; after a ``replace``, the successor's) if the file has
  one, else their GitHub login (``github:LOGIN``, lower-cased; a successor does not
  inherit it), else the seat id. A seat that a bot plays at the end is the bot itself
  (``bot:greedy``, ``bot:mcts-100``); one bot at several seats of one game (three random
  bots) is told apart by its seat (``bot:random#ann``).
* **One person, one seat**: a game in which one e-mail address or GitHub login sits at
  more than one seat is a game against oneself and is not rated (it raises, naming the
  seats, never the address).
* **Bots**: the seats a bot played at any point (a header bot seat, a ``bot`` record, an
  entry marked ``bot: true``, such as a deadline's bot move) make it a game with bots.
* **Content**: a hash of the deal (the generator's key, from the seed and the nonces)
  and the moves as played (undone and struck ones left out), each by the number of its
  mover's seat, with the game's name and number of seats: what a copier cannot change
  without playing another game (in both games another seed deals other cards, and the
  moves stop replaying within a few entries). Never printed (it covers the seed of a
  sealed game and its hidden choices).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, ReplayError, SealedError
from referee.ledger import gamefile, replay, seats

NOT_FINISHED = "not finished"  # why a game still in play is not rated

BOT_PREFIX = "bot:"
GITHUB_PREFIX = "github:"


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
    content: str = ""  # the hash of the moves as played (never printed)
    keys: dict[str, str] = field(default_factory=dict)  # what makes two files one game

    @property
    def with_bots(self) -> bool:
        return bool(self.bot_seats or self.bot_moves)

    def key(self) -> tuple[str, str, str, str]:
        """The rating order: the finish time, then the content (not the id: a copier
        chooses the id), the header hash, the file name (only identical files tie)."""
        return (self.finish, self.content, self.header, self.file)

    def outcome(self) -> tuple[str, list[list[str]], bool]:
        """What copies of one game must agree on to count once."""
        return (self.game, self.places, self.with_bots)

    def to_json(self, labels: dict[str, str]) -> dict[str, Any]:
        return {"file": self.file, "game": self.game, "id": self.game_id,
                "finish": self.finish or None,
                "places": [[labels[p] for p in place] for place in self.places],
                "bot_seats": self.bot_seats, "bot_moves": self.bot_moves}


def seat_github(data: dict[str, Any], generation: dict[str, int]) -> dict[str, str]:
    """Seat -> GitHub login (lower-cased) of the person there now: the header's, unless
    the seat was handed to a successor."""
    return {p["id"]: str(p["github"]).lower() for p in data["players"]
            if p.get("github") and not generation.get(p["id"])}


def seat_identity(seat: str, emails: dict[str, list[str]], logins: dict[str, str],
                  bots: dict[str, seats.SeatBot]) -> str:
    bot = bots.get(seat)
    if bot is not None:
        tail = f"-{bot.iterations}" if bot.iterations is not None else ""
        return f"{BOT_PREFIX}{bot.level}{tail}"
    found = emails.get(seat)
    if found:
        return found[0].lower()
    return GITHUB_PREFIX + logins[seat] if seat in logins else seat


def identities(data: dict[str, Any], emails: dict[str, list[str]], logins: dict[str, str],
               bots: dict[str, seats.SeatBot]) -> dict[str, str]:
    """Seat -> identity; a bot found at more than one seat of the game (three random
    bots) is told apart by its seat: ``bot:random#ann``."""
    found = {p["id"]: seat_identity(p["id"], emails, logins, bots) for p in data["players"]}
    counts: dict[str, int] = {}
    for name in found.values():
        counts[name] = counts.get(name, 0) + 1
    return {seat: f"{name}#{seat}" if counts[name] > 1 else name
            for seat, name in found.items()}


def shared_seats(players: list[str], emails: dict[str, list[str]],
                 logins: dict[str, str]) -> tuple[str, str, str] | None:
    """Two seats held by one person (an address or login, compared without case) and
    what they share ("e-mail address", "GitHub login"), or None."""
    owner: dict[tuple[str, str], str] = {}
    for seat in players:
        marks = [("e-mail address", a.lower()) for a in emails.get(seat, [])]
        marks += [("GitHub login", logins[seat])] if seat in logins else []
        for mark in marks:
            other = owner.setdefault(mark, seat)
            if other != seat:
                return other, seat, mark[0]
    return None


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


def content_of(gf: gamefile.GameFile, seed: str, played: list[tuple[str, Any]]) -> str:
    """The hash of the deal and the moves as played, each by its mover's seat number."""
    import msgspec

    seat = {p: i for i, p in enumerate(gf.players)}
    moves = [[seat[by], msgspec.to_builtins(move)] for by, move in played]
    deal = hashlib.sha256(b"referee/ratings-deal\0" + gamefile.rng_key(gf, seed)).hexdigest()
    body = {"game": gf.game.name, "seats": len(gf.players), "deal": deal, "moves": moves}
    return hashlib.sha256(gamefile.canonical(body)).hexdigest()


def result_of(path: Path, name: str) -> Result:
    """The result of the finished game at ``path``, replayed as ``check`` replays it.
    Raises RefereeError saying why it cannot count."""
    from referee.ledger import fileio

    return result_from(fileio.read_bytes(path), path, name)


def result_from(raw: bytes, path: Path, name: str) -> Result:
    """:func:`result_of` for the game file at ``path`` whose bytes are ``raw``: it
    depends on nothing else but the secret found for it (FILE.secret or the
    environment), which is why `ratings` may cache it (referee/reports/ratings/cache.py)."""
    from referee.ledger import identity, roster, secret

    gf = gamefile.parse(raw, str(path))
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
        raise RefereeError(NOT_FINISHED)
    now = roster.settings(gf.data)
    logins = seat_github(gf.data, now.generation)
    shared = shared_seats(gf.players, now.emails, logins)
    if shared is not None:
        raise RefereeError(f"one person at two seats: {shared[0]} and {shared[1]} have the "
                           f"same {shared[2]}; a game against oneself is not rated")
    who = identities(gf.data, now.emails, logins, seats.seats_at(gf.data).bots)
    places = [sorted(who[s] for s in place) for place in game.ranking(match.state)]
    names = {who[s]: who[s] if who[s].startswith(BOT_PREFIX) else now.names.get(s, s)
             for s in gf.players}
    content = content_of(gf, seed, match.log)
    return Result(name, gf.game.name, gf.game_id, finish_time(gf),
                  gamefile.header_hash(gf.data), places, names, bot_seats(gf.data),
                  sum(1 for e in gf.log if e.get("bot") is True), content,
                  {**identity.keys(gf), "content": content})
