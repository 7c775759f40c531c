"""A rematch: a new game with the same game, people, options and time control, the seats
rotated by one (the first player moves to the end), a fresh seed (sealed if the old game
was sealed), and a link to the game it follows (``rematch_of``: the old game's id and
header hash).

The new header is built here from the old file; :func:`referee.play.newgame.start` seeds,
checks and writes it exactly as ``referee new`` does.
"""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from referee.errors import RefereeError, SealedError, UsageError
from referee.ledger import gamefile, replay, seats
from referee.play import newgame

if TYPE_CHECKING:  # (the file's records: types only)
    from referee.ledger.records import Header, PlayerRecord, RematchOf, RngRecord

# Header fields a new game gets of its own; every other header field (a time control,
# and whatever a later release adds to the header) is copied as it stands.
OWN_FIELDS = ("format", "game", "id", "rules", "created", "players", "options", "rng",
              "log", "rematch_of")


@dataclass(frozen=True)
class Rematch:
    """The new game and what changed."""

    started: newgame.Started
    seats: list[str]  # the new seating order, first to move first
    moved: str  # the player who moved from the first seat to the last
    copied: list[str]  # the header fields copied as they stood (e.g. "clock")


def finished(match: Any) -> bool:
    return bool(match.game.finished(match.state))


def people(data: Header) -> list[PlayerRecord]:
    """The players as they stand at the end of the log, in seating order: a replaced
    player's successor with their name and first address, every seat's bot as it is now
    (a seat handed to a bot stays a bot seat; one given back to a person does not)."""
    from referee.ledger import roster

    now = roster.settings(data)
    bots = seats.seats_at(data).bots
    out: list[PlayerRecord] = []
    for player in data["players"]:
        pid = player["id"]
        person: PlayerRecord = {"id": pid}
        name = now.names.get(pid, pid)
        if name != pid or "name" in player:
            person["name"] = name
        if now.emails.get(pid):
            person["email"] = now.emails[pid][0]
        if "github" in player and now.generation.get(pid, 0) == 0:  # not a successor's
            person["github"] = player["github"]
        if pid in bots:
            person["bot"] = bots[pid].record()
        out.append(person)
    return out


def rotated(players: list[PlayerRecord]) -> list[PlayerRecord]:
    """The first player moves to the end."""
    return players[1:] + players[:1]


def link(data: Header) -> RematchOf:
    """``rematch_of``: the old game's id (if it has one) and its header hash."""
    out: RematchOf = {"header": gamefile.header_hash(data)}
    if "id" in data:
        out["id"] = data["id"]
    return out


def new_header(old: gamefile.GameFile, game_id: str | None) -> tuple[Header, list[str]]:
    """The rematch's header, its ``rng`` holding only the nonce fields so far, and the
    names of the header fields copied as they stood. Raises UsageError."""
    data = old.doc
    game = old.game
    nonces = "nonce_commitments" in data["rng"]
    filled: RngRecord = {"nonce_commitments": {}, "nonces": {}} if nonces else {}
    new_id = game_id or f"{game.name}-{secrets.token_hex(3)}"
    if new_id == data.get("id"):
        raise UsageError(f"the rematch needs an id of its own, not the old game's {new_id!r}")
    header = gamefile.new_data(game, rotated(people(data)), data["options"], filled, new_id)
    copied = [key for key in old.data if key not in OWN_FIELDS]
    plain = cast(dict[str, Any], header)  # (every field there is, as the JSON it is)
    for key in copied:
        plain[key] = copy.deepcopy(old.data[key])
    header["rematch_of"] = link(data)
    plain["log"] = plain.pop("log")  # the file's usual order: the log last
    return header, copied


def rematch(old_path: Path, new_path: Path, *, secret_path: Path | None = None,
            secret_out: Path | None = None, game_id: str | None = None,
            force: bool = False) -> Rematch:
    """Make the rematch of the game at ``old_path`` in ``new_path``. The old game is
    replayed whenever its seed is at hand (a file that does not replay is refused, even
    with ``force``); an unfinished game, or a sealed one whose end cannot be seen without
    its secret, is refused unless ``force``. Raises RefereeError (UsageError, SealedError,
    the errors of a read, a replay or a write); on any error nothing is written."""
    from referee.ledger import secret

    old = gamefile.read(old_path)
    seed = secret.find_seed(old, secret_path, old_path)
    if seed is None and not force:
        raise SealedError(f"{old_path}: a sealed game without its secret: cannot tell "
                          "whether it is finished",
                          hints=["give the secret with --secret, or add --force"])
    if seed is not None and not finished(replay.replay(old, seed)) and not force:
        raise RefereeError(f"{old_path}: the game is not finished; a rematch follows a "
                           "finished game", hints=["add --force to start it anyway"])
    header, copied = new_header(old, game_id)
    started = newgame.start(new_path, header, sealed=old.sealed, secret_out=secret_out)
    order = [p["id"] for p in header["players"]]
    return Rematch(started, order, order[-1], copied)


# --- through the judge: every human player agrees (referee/judge/commands.py) ---------


def humans(data: dict[str, Any]) -> list[str]:
    """The seats a person plays at the end of the log, in seating order."""
    bots = seats.seats_at(data).bots
    return [p["id"] for p in data["players"] if p["id"] not in bots]


def waiting_for(data: dict[str, Any], agreed: list[str]) -> list[str]:
    """The human players who have not agreed to the rematch yet."""
    return [p for p in humans(data) if p not in agreed]


def next_path(path: Path) -> Path:
    """Where the judge writes the rematch of the game at ``path``: ``g.json`` ->
    ``g-r2.json`` -> ``g-r3.json``."""
    import re

    found = re.fullmatch(r"(.*)-r([0-9]{1,6})", path.stem)
    if found:
        return path.with_name(f"{found.group(1)}-r{int(found.group(2)) + 1}.json")
    return path.with_name(f"{path.stem}-r2.json")
