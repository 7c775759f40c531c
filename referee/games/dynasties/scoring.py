"""Round scoring (unmarried figures, scoring cards) and final scoring (majorities, crowns)."""

from __future__ import annotations

from collections.abc import Callable

from .records import ArmsTile, BookTile, EachCard
from .state import CountryScoring, State


def figures(state: State, p: int) -> list[tuple[str, str]]:
    """(city, role) of p's Princes, Princesses and children on board cities."""
    out = []
    for key, c in state.cities.items():
        if c.prince == p:
            out.append((key, "prince"))
        if c.princess == p:
            out.append((key, "princess"))
        if c.star == p:
            out.append((key, "child"))
    return out


def is_married(state: State, city: str) -> bool:
    c = state.cities[city]
    return c.prince is not None and c.princess is not None


def unmarried(state: State, p: int) -> list[tuple[str, str]]:
    """p's Princes/Princesses standing where the other space is still empty."""
    out = []
    for key, c in state.cities.items():
        if c.prince == p and c.princess is None:
            out.append((key, "prince"))
        elif c.princess == p and c.prince is None:
            out.append((key, "princess"))
    return out


def unmarried_points(state: State, p: int, rnd: int) -> tuple[int, list[str]]:
    """Round scoring 1: large/small space points from the figure-scoring tile."""
    cities = state.data.cities
    large, small = state.data.figure_scoring[rnd]
    total, parts = 0, []
    for city, role in unmarried(state, p):
        pts = large if cities[city].large == role else small
        total += pts
        parts.append(f"{cities[city].name} {pts}")
    return total, parts


def _per_country(state: State, p: int, pred: Callable[[str, str], bool] | None = None
                 ) -> dict[str, int]:
    cities = state.data.cities
    counts = dict.fromkeys(state.data.countries, 0)
    for city, role in figures(state, p):
        if pred is None or pred(city, role):
            counts[cities[city].country] += 1
    return counts


def measure(state: State, p: int, name: str, arg: str | None) -> int:
    """The quantity a scoring card looks at (data: scoring_cards.json ``measure``)."""
    pl = state.players[p]
    d = state.data
    cities = d.cities
    figs = figures(state, p)
    if name == "countries_with_figures":
        return sum(1 for v in _per_country(state, p).values() if v)
    if name == "figures_symbol":
        return sum(1 for city, _ in figs if cities[city].symbol == arg)
    if name == "figures_country":
        return sum(1 for city, _ in figs if cities[city].country == arg)
    if name == "crown_countries":
        crown = _per_country(state, p, lambda c, r: cities[c].symbol == "crown")
        return sum(1 for v in crown.values() if v)
    if name == "married_figures":
        return sum(1 for city, r in figs if r != "child" and is_married(state, city))
    if name == "married_countries":
        married = _per_country(state, p, lambda c, r: r != "child" and is_married(state, c))
        return sum(1 for v in married.values() if v)
    if name == "children":
        return sum(1 for _, r in figs if r == "child")
    if name == "arms_total":
        return sum(pl.arms) + sum(1 for t in pl.books_open if d.book_tiles[t].kind == "arms")
    if name == "goods_pairs":
        return sum(pl.goods) // 2
    if name == "min_prince_princess":
        return min(sum(1 for _, r in figs if r == "prince"),
                   sum(1 for _, r in figs if r == "princess"))
    if name == "unmarried_figures":
        return len(unmarried(state, p))
    if name == "countries_strict_most":
        mine = _per_country(state, p)
        others = [_per_country(state, q) for q in range(state.n) if q != p]
        return sum(1 for c in d.countries
                   if mine[c] > 0 and all(mine[c] > o[c] for o in others))
    if name == "book_tiles":
        return len(pl.books) + len(pl.books_open)
    if name == "distinct_cities":
        return len({city for city, _ in figs})
    if name == "max_goods_colour":
        return max(pl.goods)
    raise ValueError(f"unknown scoring-card measure {name!r}")


def card_points(state: State, p: int, key: str) -> int:
    card = state.data.scoring[key]
    value = measure(state, p, card.measure, card.arg)
    if isinstance(card, EachCard):
        return min(value * card.per, card.max)
    return card.points if value >= card.at_least else 0


# --- final scoring ------------------------------------------------------------------------------
def tablet_values(state: State, country: str) -> tuple[int, int, int]:
    t = state.data.tablets[state.tablets[country]]
    bonus = state.data.upgrade_amount if country in state.upgraded else 0
    return t.first + bonus, t.second + bonus, t.crown + bonus


def country_strength(state: State, p: int, country: str,
                     figs: list[tuple[str, str]] | None = None) -> int:
    """Princes + Princesses + children + coats of arms (tokens, tiles, wild Sword/Rose).
    ``figs``: p's :func:`figures`, when the caller has them already."""
    pl = state.players[p]
    d = state.data
    ci = d.countries.index(country)
    figs = figures(state, p) if figs is None else figs
    n = sum(1 for city, _ in figs if d.cities[city].country == country)
    n += pl.arms[ci]
    n += sum(1 for t in pl.books_open if _arms_of(d.book_tiles[t]) == country)
    n += sum(1 for c in pl.wild.values() if c == country)
    return n


def _arms_of(tile: BookTile) -> str | None:
    """The country of a coat-of-arms book tile (None for any other tile)."""
    effect = tile.effects[0] if tile.kind == "arms" else None
    return effect.country if isinstance(effect, ArmsTile) else None


def majorities(strength: dict[int, int], first: int, second: int) -> dict[int, int]:
    """Final scoring 1: ties for 1st all get 1st and no 2nd; ties for 2nd all get 2nd.
    A player with nothing in the country places nowhere (ASSUMPTION)."""
    values = sorted({v for v in strength.values() if v > 0}, reverse=True)
    out: dict[int, int] = {}
    if not values:
        return out
    top = [p for p, v in strength.items() if v == values[0]]
    for p in top:
        out[p] = first
    if len(top) == 1 and len(values) > 1:
        for p, v in strength.items():
            if v == values[1]:
                out[p] = second
    return out


def crown_winners(state: State, country: str) -> list[int]:
    """Final scoring 2: players with a Prince or Princess in every crown city of the country."""
    cities = state.data.cities
    crowns = [k for k in state.cities if cities[k].country == country
              and cities[k].symbol == "crown"]
    if not crowns:
        return []
    return [p for p in range(state.n)
            if all(p in (state.cities[k].prince, state.cities[k].princess) for k in crowns)]


def final_scoring(state: State) -> dict[str, CountryScoring]:
    """Score the 4 countries in turn; returns the breakdown (also kept in the state)."""
    breakdown: dict[str, CountryScoring] = {}
    figs = [figures(state, p) for p in range(state.n)]  # scoring moves no figure
    for country in state.data.countries:
        first, second, crown = tablet_values(state, country)
        strength = {p: country_strength(state, p, country, figs[p]) for p in range(state.n)}
        places = majorities(strength, first, second)
        crowned = crown_winners(state, country)
        for p, pts in places.items():
            state.players[p].score += pts
        for p in crowned:
            state.players[p].score += crown
        breakdown[country] = {
            "strength": {state.players[p].id: v for p, v in strength.items()},
            "majority": {state.players[p].id: v for p, v in places.items()},
            "crown": {state.players[p].id: crown for p in crowned},
        }
    return breakdown
