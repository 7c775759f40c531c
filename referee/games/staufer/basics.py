"""Small rule helpers shared by the turn and the end-of-round rules: chests, figures,
points and the purple-chest exchange."""

from __future__ import annotations

from . import components as C
from .state import E, N, State


def board_side(state: State) -> str:
    return C.BOARD_SIDE[str(len(state.players))]


CHEST_TYPE = {cid: ctype for cid, (_, ctype) in C.CHEST_KIND.items()}


def holds(state: State, p: int, ctype: str) -> str | None:
    """The first chest of type ``ctype`` in front of player ``p`` (or None)."""
    for cid in state.held[p]:
        if CHEST_TYPE[cid] == ctype:
            return cid
    return None


PURPLES = frozenset(cid for cid in C.ALL_CHESTS if cid.startswith("purple"))


def purple_count(state: State, p: int) -> int:
    return sum(map(PURPLES.__contains__, state.held[p]))


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
    colour, ctype = C.CHEST_KIND[cid]
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

