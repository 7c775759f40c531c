"""Which components a finished game used or scored, read from its move log and final state
(the same facts every player saw), and which assumed component values that covers.

Usage keys are ``kind:name`` strings (``privilege:7``, ``personality:drake``); an
assumption (``game.assumptions()``) is matched to the usage keys that exercise it by a
key prefix, so that ``simulate`` can flag assumed values that (almost) never come up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from referee.engine import Game, Move, State

Extractor = Callable[[Iterable[Move], State], Counter[str]]


def _staufer(moves: Iterable[Move], state: State) -> Counter[str]:
    from referee.games.staufer import components as C

    used: Counter[str] = Counter()
    chest_colour = {ctype: colour for colour, ctype in C.CHEST_KIND.values()}
    for move in moves:
        kind = type(move).__name__
        used[f"move:{kind}"] += 1
        if kind == "Privilege":
            used[f"privilege:{move.number}"] += 1
        elif kind == "Pick":
            used[f"chest:{chest_colour.get(move.chest, move.chest)}:{move.chest}"] += 1
        elif kind == "First":
            used["chest:turquoise:first"] += 1
        elif kind == "Deploy":
            used[f"seat:{move.region}:{move.seat}"] += 1
            for flag in ("free-move", "free-pay"):
                if getattr(move, flag.replace("-", "_")):
                    used[f"chest:turquoise:{flag}"] += 1
        elif kind == "Keep" and move.region:
            used["chest:turquoise:keep"] += 1
        elif kind == "Supply":
            used[f"supply-space:{move.space}"] += 1
    for held in state.held:
        for cid in held:
            colour, ctype = C.CHEST_KIND[cid]
            used[f"chest:{colour}:{ctype}"] += 1
    for parts in state.final.values():
        for what, points in parts.items():
            if what.startswith("contract:") and points > 0:
                used[f"contract-scored:{what.removeprefix('contract:')}"] += 1
    return used


def _dynasties(moves: Iterable[Move], state: State) -> Counter[str]:
    used: Counter[str] = Counter()
    for move in moves:
        kind = type(move).__name__
        used[f"move:{kind}"] += 1
        card = getattr(move, "card", None)
        if kind in ("Place", "Use", "Trade", "TradeTwice", "SitOut") and card is not None:
            used[f"card:a{card:02d}"] += 1
            if getattr(move, "special", False):
                used[f"card-special:a{card:02d}"] += 1
        if kind == "Place":
            used[f"city:{move.city}"] += 1
        elif kind == "Use":
            used[f"personality:{move.personality}"] += 1
        elif kind == "Score":
            used[f"scoring:{move.card}"] += 1
        elif kind == "Bonus":
            used[f"bonus:{move.space}"] += 1
        elif kind == "Pass" and move.space:
            used[f"track:{move.space}"] += 1
        elif kind == "Envoy":
            used["free-city:" + str(move.city)] += 1
        elif kind == "Country" and move.purpose == "upgrade":
            used["upgrader:" + move.country] += 1
        elif kind in ("ChooseDice", "DivideDice"):
            text = " ".join(str(v) for v in msgspec_values(move))
            for face in state.data.faces:
                used[f"die:{face}"] += text.count(face)
    for pl in state.players:
        for tile in pl.books + pl.books_open:
            used[f"book:{tile}"] += 1
    for tablet in state.tablets.values():
        used[f"tablet:{tablet}"] += 1
    return used


def msgspec_values(move: Move) -> list[Any]:
    return [getattr(move, f) for f in move.__struct_fields__]


EXTRACTORS: dict[str, Extractor] = {"staufer": _staufer, "dynasties": _dynasties}

# assumption key prefix -> usage key prefix (the longest matching assumption prefix wins)
_STAUFER_PREFIX = {
    "chests.mix.": "chest:",  # + colour
    "contracts.blue": "contract-scored:blue-",
    "contracts.red": "contract-scored:red-",
    "privileges.vp_values": "privilege:1",
    "privileges.decks": "privilege:",
    "supply_board.spaces": "supply-space:",
    "regions.regions.": "seat:",  # + region
}
_DYNASTIES_PREFIX = {
    "action_cards.action_cards.": "card:",  # + card id
    "bonus.passing_track": "track:",
    "bonus.bonus_spaces.": "bonus:",
    "book_tiles.book_tiles.": "book:",
    "cities.cities.": "city:",
    "components.free_cities": "free-city:",
    "components.upgraders": "upgrader:",
    "dice.faces.": "die:",
    "personalities.spaces": "personality:",
    "personalities.personalities.": "personality:",
    "scoring_cards.scoring_cards.": "scoring:",
    "tablets.tablets.": "tablet:",
}
PREFIXES = {"staufer": _STAUFER_PREFIX, "dynasties": _DYNASTIES_PREFIX}


def usage_prefix(game: str, assumption_key: str) -> str | None:
    """The usage key (or key prefix, ending in ":" or "-") that exercises
    ``assumption_key``; None when the log does not show it (the board layout, the figure
    colours: every game uses them)."""
    table = PREFIXES.get(game, {})
    for prefix in sorted(table, key=len, reverse=True):
        if assumption_key.startswith(prefix):
            rest = assumption_key[len(prefix):]
            if prefix.endswith(".") and rest:
                return table[prefix] + rest.split(".", 1)[0]
            return table[prefix]
    return None


def matches(usage_key: str, target: str) -> bool:
    """Whether ``usage_key`` exercises ``target`` (an exact key, its ``target:...``
    refinements, or every key under a prefix ending in ":" or "-")."""
    if target.endswith((":", "-")):
        return usage_key.startswith(target)
    return usage_key == target or usage_key.startswith(target + ":")


def in_play(game: str, assumption_key: str, players: int) -> bool:
    """Whether the assumed value is on the table at all with ``players`` players (a
    region's seat row for another player count, a city of a larger map, is not)."""
    if game == "staufer" and assumption_key.startswith("regions.regions."):
        side = assumption_key.rsplit(".", 1)[-1]
        return (side == "2") == (players == 2)
    if game == "dynasties" and assumption_key.startswith("cities.cities."):
        from referee.games.dynasties import GAME

        return assumption_key.rsplit(".", 1)[-1] in GAME.data.cities_in_play(players)
    return True


def game_usage(game: Game, moves: Iterable[Move], state: State) -> Counter[str]:
    """Usage keys of one finished game (empty for a game without an extractor)."""
    extract = EXTRACTORS.get(game.name)
    return extract(moves, state) if extract else Counter()
