"""Which Dynasties components a finished game used or scored (for ``referee simulate``):
usage keys ``kind:name`` read from the move log and the final state, and the assumption
key prefixes they exercise (:mod:`referee.bots.usage`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

# assumption key prefix -> usage key prefix (the longest matching assumption prefix wins)
PREFIXES = {
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


def _values(move: Any) -> list[Any]:
    return [getattr(move, f) for f in move.__struct_fields__]


def extract(moves: Iterable[Any], state: Any) -> Counter[str]:
    """The game's own usage keys of one finished game (the moves by kind are counted
    by :func:`referee.bots.usage.game_usage`)."""
    used: Counter[str] = Counter()
    for move in moves:
        kind = type(move).__name__
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
            text = " ".join(str(v) for v in _values(move))
            for face in state.data.faces:
                used[f"die:{face}"] += text.count(face)
    for pl in state.players:
        for tile in pl.books + pl.books_open:
            used[f"book:{tile}"] += 1
    for tablet in state.tablets.values():
        used[f"tablet:{tablet}"] += 1
    return used


def in_play(assumption_key: str, players: int) -> bool:
    """A city of a larger map is not on the table with fewer players."""
    if assumption_key.startswith("cities.cities."):
        from referee.games.dynasties import GAME  # the board is the same in every version

        return assumption_key.rsplit(".", 1)[-1] in GAME.data.cities_in_play(players)
    return True
