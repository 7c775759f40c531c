"""Build test positions from real states and play moves through the real rules."""

from __future__ import annotations

from referee.engine import full_options
from referee.engine.rng import Rng
from referee.games.staufer import GAME, gamesetup
from referee.games.staufer.state import KIND_INDEX, State

NAMES = ["bettina", "rudi", "gabi", "guenter", "uwe"]


def position(
    n: int = 4,
    ring: list[str] | None = None,
    king: str | None = None,
    seed: str = "test",
    options: dict[str, str] | None = None,
    empty_chests: bool = True,
) -> State:
    """A fresh game with the ring order and the King set; seats and supply spaces hold
    no chests when ``empty_chests`` (all chests back on the stack)."""
    state = gamesetup.setup(GAME.data, NAMES[:n], full_options(GAME, options or {}), Rng(seed))
    if ring is not None:
        rows = GAME.data.seat_rows[GAME.data.region_side[str(n)]]
        back = [c for row in state.seat_chests for seat in row for c in seat]
        state.stack.extend(back)
        state.ring = list(ring)
        state.seat_cost = [[c for c, _ in rows[r]] for r in ring]
        state.seat_noble = [[nb for _, nb in rows[r]] for r in ring]
        state.seats = [[[] for _ in rows[r]] for r in ring]
        state.seat_chests = [[[state.stack.pop()] for _ in rows[r]] for r in ring]
    if king is not None:
        state.king = state.ring.index(king)
    if empty_chests:
        for row in state.seat_chests:
            for seat in row:
                state.stack.extend(seat)
                seat.clear()
        for space in state.supply_chests:
            state.stack.extend(space)
            space.clear()
    return state


def pi(state: State, name: str) -> int:
    return state.players.index(name)


def pos(state: State, region: str) -> int:
    return state.ring.index(region)


def occupy(state: State, name: str, region: str, seat: int, kind: str = "E") -> None:
    """Put a figure from the Province on a seat (1 = leftmost)."""
    p = pi(state, name)
    state.province[p][KIND_INDEX[kind]] -= 1
    state.seats[pos(state, region)][seat - 1].append((p, kind))


def set_court(state: State, name: str, envoys: int, nobles: int) -> None:
    """Move figures between Province and Court so the Court holds exactly this."""
    p = pi(state, name)
    for k, want in ((0, envoys), (1, nobles)):
        diff = want - state.court[p][k]
        state.court[p][k] += diff
        state.province[p][k] -= diff
        assert state.province[p][k] >= 0


def chest_of(state: State, ctype: str) -> str:
    """Take a chest of this type off the stack (for placing it somewhere)."""
    cid = next(c for c in state.stack if state.data.chest_kind[c][1] == ctype)
    state.stack.remove(cid)
    return cid


def give(state: State, name: str, ctype: str, count: int = 1) -> None:
    for _ in range(count):
        state.held[pi(state, name)].append(chest_of(state, ctype))


def under_seat(state: State, region: str, seat: int, ctype: str) -> None:
    state.seat_chests[pos(state, region)][seat - 1].append(chest_of(state, ctype))


def under_space(state: State, space: int, ctype: str) -> None:
    state.supply_chests[space - 1].append(chest_of(state, ctype))


def turn_of(state: State, name: str, *then: str) -> None:
    """Make it ``name``'s turn now (phase "turn"), with ``then`` players after."""
    state.active = pi(state, name)
    state.phase = "turn"
    state.first_used = False
    rest = gamesetup.first_turn_order(len(state.players))
    rest.remove(pi(state, name))
    front = [pi(state, x) for x in then]
    for q in front:
        rest.remove(q)
    state.turn_track = front + rest
    state.supply_track = []
    state.deploy_track = []


def legal_texts(state: State, name: str) -> list[str]:
    return [GAME.format_move(m) for m in GAME.legal_moves(state, name)]


def play(state: State, name: str, text: str) -> None:
    """Play a move typed as text; it must be legal."""
    assert GAME.to_move(state) == [name], GAME.prompt(state)
    legal = GAME.legal_moves(state, name)
    move = GAME.parse_move(text, legal)
    assert move in legal, f"{text!r} not legal: {GAME.why_illegal(state, name, move)}"
    GAME.apply(state, name, move)
    assert GAME.invariants(state) == [], GAME.invariants(state)


def figures_in_payment(state: State, region: str, name: str) -> int:
    return sum(1 for q, _ in state.payment[pos(state, region)] if q == pi(state, name))


def round_over(state: State) -> None:
    """All Action Figures have acted (on the Supply Track, in first-round order)."""
    state.turn_track = []
    state.deploy_track = []
    state.supply_track = gamesetup.first_turn_order(len(state.players))
