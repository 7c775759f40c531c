"""The end of a round: Region Scoring (with its purple-chest checkpoints), the Cleanup
Phase and the Final Scoring, and the start of each turn."""

from __future__ import annotations

from .basics import (
    add_points,
    available_privileges,
    draw_chest,
    gain_chest,
    has,
    holds,
    spend,
    take_from_province,
)
from .moves import Keep, Move, Pick
from .scoring import final_breakdown, majority
from .state import KIND_INDEX, E, State


def start_turn(state: State) -> None:
    """A Player's Turn: the Action Figure at the top of the Turn Order Track moves."""
    if not state.turn_track:
        begin_scoring(state)
        return
    state.active = state.turn_track.pop(0)
    state.phase = "turn"
    state.first_used = False
    state.deploy = None
    state.supply = None


def pick_moves(state: State) -> list[Move]:
    seen: list[str] = []
    for cid in state.revealed:
        ctype = state.data.chest_kind[cid][1]
        if ctype not in seen:
            seen.append(ctype)
    return [Pick(t) for t in seen]


# ---------------------------------------------------------------- Region Scoring


def b_region(state: State, condition: str) -> int:
    """Supplement, conditions of the B tiles; ties go to the Region closest clockwise
    to the King's Region (the King's Region itself first)."""
    order = [(state.king + d) % 6 for d in range(6)]
    if condition == "king":
        return state.king
    if condition == "fewest-chests":
        value = {pos: sum(len(c) for c in state.seat_chests[pos]) for pos in order}
        best = min(value.values())
    elif condition == "most-seats":
        value = {pos: sum(len(o) for o in state.seats[pos]) for pos in order}
        best = max(value.values())
    else:
        raise ValueError(condition)
    return next(pos for pos in order if value[pos] == best)


def scoring_regions(state: State) -> list[int]:
    a_region, condition, _ = state.rows[state.round - 1]
    a = state.ring.index(a_region)
    b = b_region(state, condition)
    return [a] if a == b else [a, b]  # the same Region is never scored twice


def begin_scoring(state: State) -> None:
    state.phase = "scoring"
    state.scored = scoring_regions(state)
    state.to_score = list(state.scored)
    names = ", ".join(state.data.region_titles[state.ring[x]] for x in state.scored)
    state.events.append(f"Round {state.round} scoring: {names}")
    purple_checkpoint(state)


def purple_checkpoint(state: State) -> None:
    """Supplement, purple chests: "If at any time you have 2 purple Chests in front of
    you, you may discard them both and take one Privilege card of your choice." Before
    each scored Region (privileges 14/15) and after the last one (Cleanup: 13; Final
    Scoring: the chests' own points against a VP privilege) every player who can
    exchange owes a decision, in seating order from the start player."""
    n = len(state.players)
    order = [(state.start + i) % n for i in range(n)]
    state.purple_queue = [p for p in order if available_privileges(state, p)]
    next_purple(state)


def next_purple(state: State) -> None:
    while state.purple_queue:
        p = state.purple_queue[0]
        if available_privileges(state, p):
            state.phase = "purple"
            state.active = p
            return
        state.purple_queue.pop(0)
    state.phase = "scoring"
    score_next(state)


def purple_decided(state: State, p: int, declined: bool) -> None:
    """After ``privilege N`` or ``done`` at a checkpoint: ask again while the player
    can still exchange (4 purple chests), else the next player."""
    if declined or not available_privileges(state, p):
        state.purple_queue.pop(0)
    next_purple(state)


def score_next(state: State) -> None:
    """Score the next marked Region (then a checkpoint), or end the Region Scoring."""
    if not state.to_score:
        if state.round == 5:
            final_scoring(state)
        else:
            begin_cleanup(state)
        return
    pos = state.to_score.pop(0)
    if not score_region(state, pos):  # else a chest pick is pending
        purple_checkpoint(state)


def score_region(state: State, pos: int) -> bool:
    """Region Scoring steps 2 and 3; True if a chest pick is now pending."""
    n = len(state.players)
    ranking = majority(state, pos)
    tile = state.tiles[pos]
    places = 3 if n >= 4 else 2
    title = state.data.region_titles[state.ring[pos]]
    for place, p in enumerate(ranking[:places]):
        add_points(state, p, tile[place], f"{title} place {place + 1}")
    for place, p in enumerate(ranking):
        if has(state, p, 14) and place < 3 and (place == 0 or n > 2):
            add_points(state, p, 3 - place, "privilege 14")
        if has(state, p, 15):
            add_points(state, p, 2, "privilege 15")
    return region_bonus(state, pos, ranking)


def region_bonus(state: State, pos: int, ranking: list[int]) -> bool:
    bonus = state.data.bonus[state.ring[pos]]
    if bonus == "envoys-2-1":  # Strasbourg (2nd place also with 2 players)
        for p, count in zip(ranking, (2, 1), strict=False):
            take_from_province(state, p, E, count)
    elif bonus == "envoy-all-1":  # Nijmegen
        for p in ranking:
            take_from_province(state, p, E, 1)
    elif bonus == "vp-3-1":  # Palermo
        for p, pts in zip(ranking, (3, 1), strict=False):
            add_points(state, p, pts, "Palermo bonus")
    elif bonus == "vp-all-2":  # Milano
        for p in ranking:
            add_points(state, p, 2, "Milano bonus")
    elif ranking:  # Augsburg: 2 chests; Aachen: as many chests as players
        count = 2 if bonus == "chests-2" else len(state.players)
        for _ in range(count):
            cid = draw_chest(state)
            if cid is not None:
                state.revealed.append(cid)
        state.pickers = ranking[:count]
        return next_pick(state)
    return False


def next_pick(state: State) -> bool:
    """The majority players take revealed chests in order; a choice is a decision."""
    while state.pickers and state.revealed:
        p = state.pickers[0]
        if len(pick_moves(state)) > 1:
            state.phase = "pick"
            state.active = p
            return True
        gain_chest(state, p, state.revealed.pop(0))
        state.pickers.pop(0)
    state.pickers = []
    state.discard.extend(state.revealed)  # remaining chests are discarded
    state.revealed = []
    return False


def do_pick(state: State, p: int, move: Pick) -> None:
    cid = next(c for c in state.revealed if state.data.chest_kind[c][1] == move.chest)
    state.revealed.remove(cid)
    gain_chest(state, p, cid)
    state.pickers.pop(0)
    if not next_pick(state):
        purple_checkpoint(state)


# ---------------------------------------------------------------- Cleanup


def own_scored_figures(state: State, p: int) -> int:
    return sum(1 for pos in state.scored for occ in state.seats[pos] for q, _ in occ if q == p)


def begin_cleanup(state: State) -> None:
    """Decisions of step 1 first: keep-a-figure chests, then privilege 13."""
    n = len(state.players)
    state.queue = [
        ("keep", p)
        for p in range(n)
        for cid in state.held[p]
        if state.data.chest_kind[cid][1] == "keep"
    ]
    state.queue += [("return", p) for p in range(n) if has(state, p, 13)]
    state.to_court = [0] * n
    state.kept = []
    next_cleanup_decision(state)


def next_cleanup_decision(state: State) -> None:
    while state.queue:
        kind, p = state.queue.pop(0)
        kept = sum(1 for k in state.kept if k[2] == p)
        if own_scored_figures(state, p) - kept > 0:
            state.phase = kind
            state.active = p
            return
    finish_cleanup(state)


def do_keep(state: State, p: int, move: Keep) -> None:
    if move.region:
        pos = state.ring.index(move.region)
        state.kept.append((pos, move.seat - 1, p, "N" if move.figure == "noble" else "E"))
        spend(state, p, holds(state, p, "keep") or "")
    next_cleanup_decision(state)


def finish_cleanup(state: State) -> None:
    vacate(state)
    replenish(state)
    king_travels(state, state.rows[state.round - 1][2])
    state.round += 1
    # step 5: Supply Track top to bottom, then Move/Deploy Track top to bottom
    state.turn_track = state.supply_track + state.deploy_track[::-1]
    state.supply_track = []
    state.deploy_track = []
    state.scored = []
    state.kept = []
    state.to_court = [0] * len(state.players)
    start_turn(state)


def vacate(state: State) -> None:
    """Step 1: figures on seats of scored Regions go to the Province (or Court)."""
    kept = list(state.kept)
    for pos in state.scored:
        for i, occ in enumerate(state.seats[pos]):
            stay = []
            for q, kind in occ:
                if (pos, i, q, kind) in kept:
                    kept.remove((pos, i, q, kind))
                    stay.append((q, kind))
                elif state.to_court[q]:
                    state.court[q][KIND_INDEX[kind]] += 1
                else:
                    state.province[q][KIND_INDEX[kind]] += 1
            state.seats[pos][i] = stay


def replenish(state: State) -> None:
    """Step 2: a new chest on top under every seat of the scored Regions, then under
    every Supply Board space."""
    for pos in state.scored:
        for i in range(len(state.seats[pos])):
            cid = draw_chest(state)
            if cid is not None:
                state.seat_chests[pos][i].append(cid)
    for space in state.supply_chests:
        cid = draw_chest(state)
        if cid is not None:
            space.append(cid)


def king_travels(state: State, steps: int) -> None:
    """Step 3: clear the payment space of every Region the King enters (not the one
    he leaves); the figures return to their owners' Courts."""
    for _ in range(steps):
        state.king = (state.king + 1) % 6
        for q, kind in state.payment[state.king]:
            state.court[q][KIND_INDEX[kind]] += 1
        state.payment[state.king] = []
        title = state.data.region_titles[state.ring[state.king]]
        state.events.append(f"The King travels to {title}")


# ---------------------------------------------------------------- Final Scoring


def final_scoring(state: State) -> None:
    for p in range(len(state.players)):
        parts = final_breakdown(state, p)
        state.final[state.players[p]] = parts
        for what, points in parts.items():
            add_points(state, p, points, what)
    state.finished = True
    state.phase = "over"

