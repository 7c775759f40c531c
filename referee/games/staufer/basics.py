"""Small rule helpers shared by the turn and the end-of-round rules: chests, figures,
points, the purple-chest exchange and the conservation invariants."""

from __future__ import annotations

from .state import E, N, State


def board_side(state: State) -> str:
    return state.data.board_side[str(len(state.players))]


def holds(state: State, p: int, ctype: str) -> str | None:
    """The first chest of type ``ctype`` in front of player ``p`` (or None)."""
    chest_type = state.data.chest_type
    for cid in state.held[p]:
        if chest_type[cid] == ctype:
            return cid
    return None


def purple_count(state: State, p: int) -> int:
    return sum(map(state.data.purples.__contains__, state.held[p]))


def has(state: State, p: int, number: int) -> bool:
    return number in state.privileges[p]


def spend(state: State, p: int, cid: str) -> None:
    state.held[p].remove(cid)
    state.discard.append(cid)


def draw_chest(state: State) -> str | None:
    """Top chest of the face-down stack; reshuffle the discards when it is empty
    (Cleanup Phase ?: empty draw stack)."""
    if not state.stack and state.discard:
        state.stack = state.discard
        state.discard = []
        state.rng.shuffle(state.stack, "chests")
    return state.stack.pop() if state.stack else None


def take_from_province(state: State, p: int, kind: int, count: int) -> int:
    got = min(count, state.province[p][kind])
    state.province[p][kind] -= got
    state.court[p][kind] += got
    return got


def add_points(state: State, p: int, points: int, why: str) -> None:
    if points:
        state.score[p] += points
        state.events.append(f"{state.players[p]} +{points} ({why})")


def gain_chest(state: State, p: int, cid: str) -> None:
    """Supplement, Treasure Chests: orange at once, the others in front of you."""
    colour, ctype = state.data.chest_kind[cid]
    if colour != "orange":
        state.held[p].append(cid)
        return
    if ctype.startswith("vp"):
        add_points(state, p, int(ctype[2:]), "orange chest")
    elif ctype.startswith("envoy"):
        take_from_province(state, p, E, int(ctype[5:]))
    else:
        take_from_province(state, p, N, 1)
    if has(state, p, 16):
        add_points(state, p, 2, "privilege 16")
    state.discard.append(cid)


def available_privileges(state: State, p: int) -> list[int]:
    """Supplement, purple chests: 2 purple chests -> a privilege of your choice, at most
    one of each number and only one Victory Point privilege."""
    if purple_count(state, p) < 2:
        return []
    out = []
    for x in state.priv_numbers:
        if x in state.privileges[p]:
            continue
        if (x == 1 and state.vp_stack) or (x != 1 and state.priv_left[x] > 0):
            out.append(x)
    return out


def take_privilege(state: State, p: int, number: int) -> None:
    purples = [cid for cid in state.held[p] if cid.startswith("purple")][:2]
    for cid in purples:
        spend(state, p, cid)
    state.privileges[p].append(number)
    if number == 1:
        value = state.vp_stack.pop()
        state.vp_card[p] = value
        add_points(state, p, value, "privilege 1")
    else:
        state.priv_left[number] -= 1



def invariants(state: State) -> list[str]:
    """Violated conservation invariants: every player's figures and Action Figures, the
    72 chests, the scores (empty when all hold)."""
    errors: list[str] = []
    total = state.data.figures
    for p, who in enumerate(state.players):
        count = [state.court[p][E] + state.province[p][E], state.court[p][N] + state.province[p][N]]
        for figs in [*(o for row in state.seats for o in row), *state.payment]:
            for q, kind in figs:
                if q == p:
                    count[E if kind == "E" else N] += 1
        if count != [total["E"], total["N"]]:
            errors.append(f"{who} has {count[E]} Envoys and {count[N]} Nobles, not 15 and 3")
        if min(state.court[p] + state.province[p]) < 0:
            errors.append(f"{who} has a negative figure count")
        figures = state.turn_track + state.supply_track + state.deploy_track
        in_hand = int(state.phase == "turn" and state.active == p and not state.finished)
        if figures.count(p) + in_hand != 3:
            errors.append(f"{who} has {figures.count(p) + in_hand} Action Figures, not 3")
    chests = list(state.stack) + state.discard + state.revealed
    chests += [c for row in state.seat_chests for seat in row for c in seat]
    chests += [c for space in state.supply_chests for c in space]
    chests += [c for held in state.held for c in held]
    if sorted(chests) != sorted(state.data.all_chests):
        errors.append(f"chests: {len(chests)} found, {len(set(chests))} distinct, not the 72")
    if min(state.score) < 0:
        errors.append("a negative score")
    return errors
