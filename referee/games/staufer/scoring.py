"""Majorities, Region Scoring values, the Final Scoring (contracts and chests), the
scores and the ranking."""

from __future__ import annotations

from functools import lru_cache

from .components import AllSeats, CostSeats, Pairs, RedContract
from .state import State


def majority(state: State, pos: int) -> list[int]:
    """Players present in the region at ``pos``, best first.

    Region Scoring 1: Nobles count double; a tie goes to the player on the seat further
    left (of two figures on one seat, the one placed first stands further left).
    """
    total: dict[int, int] = {}
    left: dict[int, int] = {}
    for i, occ in enumerate(state.seats[pos]):
        for slot, (p, kind) in enumerate(occ):
            total[p] = total.get(p, 0) + (2 if kind == "N" else 1)
            left.setdefault(p, 2 * i + slot)
    return sorted(total, key=lambda p: (-total[p], left[p]))


def seat_figures(state: State, player: int) -> list[tuple[int, int]]:
    """(position, cost) for each of ``player``'s figures on an office seat; a seat with
    two figures counts as two seats (Supplement: Contract Cards)."""
    out = []
    for pos in range(6):
        for i, occ in enumerate(state.seats[pos]):
            for p, _ in occ:
                if p == player:
                    out.append((pos, state.seat_cost[pos][i]))
    return out


def brown_points(count: int, values: list[int]) -> int:
    """Brown chests score per tally of five (``values``: 2/5/9/14/20), then a new tally
    starts."""
    full, rest = divmod(count, 5)
    return full * values[-1] + (values[rest - 1] if rest else 0)


@lru_cache(maxsize=4096)
def _max_disjoint(counts: tuple[int, ...], rots: tuple[tuple[int, ...], ...], idx: int) -> int:
    if idx == len(rots):
        return 0
    best = _max_disjoint(counts, rots, idx + 1)
    rot = rots[idx]
    if all(counts[g] > 0 for g in rot):
        reduced = list(counts)
        for g in rot:
            reduced[g] -= 1
        best = max(best, 1 + _max_disjoint(tuple(reduced), rots, idx))
    return best


def pattern_fulfilments(counts: list[int], offsets: list[int]) -> int:
    """Most disjoint fulfilments of a ring pattern (each figure used at most once)."""
    rots: list[tuple[int, ...]] = []
    for r in range(6):
        rot = tuple(sorted((r + o) % 6 for o in offsets))
        if rot not in rots:
            rots.append(rot)
    return _max_disjoint(tuple(counts), tuple(rots), 0)


def cumulative(values: list[int], beyond: int, n: int) -> int:
    if n <= 0:
        return 0
    if n <= len(values):
        return values[n - 1]
    return values[-1] + beyond * (n - len(values))


def red_points(card: RedContract, costs: list[int]) -> int:
    if isinstance(card, CostSeats):
        return cumulative(card.values, card.beyond, costs.count(card.cost))
    if isinstance(card, AllSeats):
        return cumulative(card.values, card.beyond, len(costs))
    if isinstance(card, Pairs):
        return card.points * sum(costs.count(c) // 2 for c in set(costs))
    return card.points * min(costs.count(3), costs.count(4), costs.count(5))


def region_contract_points(state: State, player: int, region: str) -> int:
    pos = state.ring.index(region)
    ranking = majority(state, pos)
    if ranking[:1] == [player]:
        return state.data.region_contract.first
    if len(state.players) > 2 and ranking[1:2] == [player]:
        return state.data.region_contract.second
    return 0


def contract_points(state: State, player: int, contract: str) -> int:
    if contract.startswith("contract:region-"):
        return region_contract_points(state, player, contract.removeprefix("contract:region-"))
    figs = seat_figures(state, player)
    blue = state.data.blue
    if contract in blue:
        counts = [0] * 6
        for pos, _ in figs:
            counts[pos] += 1
        card = blue[contract]
        return card.points * pattern_fulfilments(counts, card.offsets)
    return red_points(state.data.red[contract], [c for _, c in figs])


def chest_points(state: State, held: list[str]) -> dict[str, int]:
    colours = [state.data.chest_kind[c][0] for c in held]
    return {
        "brown": brown_points(colours.count("brown"), state.data.brown_points),
        "turquoise+purple": colours.count("turquoise") + colours.count("purple"),
    }


def final_breakdown(state: State, player: int) -> dict[str, int]:
    out = {c: contract_points(state, player, c) for c in state.contracts[player]}
    out.update(chest_points(state, state.held[player]))
    return out


def scores(state: State) -> dict[str, int]:
    """Every player's points (the final scores once the game is over)."""
    return dict(zip(state.players, state.score, strict=True))


def ranking(state: State) -> list[list[str]]:
    """Most points; tie: most figures in the Court; then a shared place (Final
    Scoring; the "bluest blood" is read as a shared place, interpretation S11)."""
    key = {p: (state.score[i], sum(state.court[i])) for i, p in enumerate(state.players)}
    places: list[list[str]] = []
    for p in sorted(state.players, key=lambda q: key[q], reverse=True):
        if places and key[places[-1][0]] == key[p]:
            places[-1].append(p)
        else:
            places.append([p])
    return places
