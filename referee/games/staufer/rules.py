"""The rules of a player's turn: Move/Deploy costs, legal moves and their effects, in the
order of the rulebook, and ``apply``.

Legality is decided only by ``legal_moves``; ``apply`` carries out a move from that list
and then runs every automatic step (next turn, Region Scoring, Cleanup, Final Scoring)
until someone owes a decision again. Setup is in ``gamesetup``, the end of a round in
``rounds``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations
from typing import cast

from .basics import (
    add_points,
    available_privileges,
    board_side,
    draw_chest,
    gain_chest,
    has,
    holds,
    spend,
    take_from_province,
    take_privilege,
)
from .moves import (
    MAX_SEATS,
    Deploy,
    Done,
    Figure,
    First,
    Keep,
    Move,
    Pick,
    Privilege,
    Return,
    Seat,
    Supply,
    Take,
)
from .rounds import (
    do_keep,
    do_pick,
    next_cleanup_decision,
    pick_moves,
    purple_decided,
    start_turn,
)
from .state import KIND_INDEX, DeployCtx, E, N, State, SupplyCtx

# ---------------------------------------------------------------- Move/Deploy costs


def move_spaces(state: State, p: int, pos: int, free_move: bool) -> list[int]:
    """Payment spaces of step 1 (Move), clockwise from the King's Region."""
    if free_move:
        return []
    privileges = state.privileges[p]
    flags = (10 in privileges, 11 in privileges, 12 in privileges)
    return list(_move_spaces(state.king, pos, *flags))


@cache
def _move_spaces(king: int, pos: int, p10: bool, p11: bool, p12: bool) -> tuple[int, ...]:
    """move_spaces for the King at ``king`` and privileges 10, 11, 12 held or not."""
    d = (pos - king) % 6
    if d == 0:
        return ()
    options: list[list[int]] = [[(king + j) % 6 for j in range(1, d + 1)]]
    if p10 and p11:
        options.append([])  # privileges 10 + 11: movement is free
    if p10:
        options.append([pos])  # privilege 10: one figure, in the target Region
    if p11:
        options.append([(king + j) % 6 for j in range(3, d + 1)])  # skip 2 Regions
    if p12 and d in (1, 5):
        options.append([])  # privilege 12: neighbours of the King's Region are free
    best: list[int] = min(options, key=len)
    return tuple(best)


@cache
def _move_costs(king: int, p10: bool, p11: bool, p12: bool) -> tuple[int, ...]:
    """Figures paid in step 1 (Move) to each Region position (no free-move chest)."""
    return tuple(len(_move_spaces(king, pos, p10, p11, p12)) for pos in range(6))


def move_costs(state: State, p: int) -> tuple[int, ...]:
    privileges = state.privileges[p]
    return _move_costs(state.king, 10 in privileges, 11 in privileges, 12 in privileges)


def _paid_cost(cost: int, privilege_4: bool, privilege_5: bool) -> int:
    """Figures paid in step 2 (Deploy) for a seat of printed ``cost``."""
    if privilege_4:
        cost = min(cost, 3)  # privilege 4: always only 3
    if privilege_5:
        cost -= 1  # privilege 5: one less (with 4: only 2)
    return max(cost, 1)


@cache
def _paid_costs(max_cost: int, privilege_4: bool, privilege_5: bool) -> tuple[int, ...]:
    """Figures paid in step 2 (Deploy), indexed by the printed cost 0..``max_cost``."""
    return tuple(_paid_cost(c, privilege_4, privilege_5) for c in range(max_cost + 1))


def paid_costs(state: State, p: int) -> tuple[int, ...]:
    """Figures ``p`` pays in step 2 (Deploy), the one on the seat included, indexed by
    the seat's printed cost."""
    privileges = state.privileges[p]
    return _paid_costs(state.data.max_cost, 4 in privileges, 5 in privileges)


def deploy_cost(state: State, p: int, pos: int, seat: int, free_pay: bool) -> int:
    """Figures paid in step 2 (Deploy), the one on the seat included."""
    if free_pay:
        return 1
    return paid_costs(state, p)[state.seat_cost[pos][seat]]


def pay_spaces(pos: int, cost: int) -> list[int]:
    """Deploy payment: one figure per Region clockwise from the target; a cost of 7
    wraps around onto the target's own payment space."""
    return [(pos + j) % 6 for j in range(1, cost)]


def bonus_available(state: State, p: int) -> bool:
    """A Move/Deploy track space with an Envoy icon (Action Board) for the next figure."""
    if state.first_used or not state.province[p][E]:
        return False
    return len(state.deploy_track) + 1 in state.data.envoy_spaces[board_side(state)]


def payable(state: State, p: int, bonus: bool) -> tuple[int, int]:
    """The most figures ``p`` can pay for one action: (onto any seat, onto a seat with a
    Noble icon, which needs a Noble on it; -1 = none)."""
    court = state.court[p]
    figures = court[E] + court[N] + (1 if bonus else 0)
    return figures, (figures if court[N] >= 1 else -1)


def can_pay(state: State, p: int, figures: int, noble_only: bool, bonus: bool) -> bool:
    return figures <= payable(state, p, bonus)[noble_only]


# ---------------------------------------------------------------- legal moves
#
# One generator per decision. ``legal_moves`` is the unfiltered call; ``is_legal`` asks
# the same generators for only the moves that could equal a given move (its kind, its
# Supply space, its Region and seat, its seat figure), as a chess move generator is
# masked by squares: the filtered list is the full list's sub-list of those moves.

POSITIONS = range(6)
NO, BOTH = (False,), (False, True)
FIGURES = ("envoy", "noble")


def supply_moves(state: State, p: int, spaces: tuple[int, ...] | None = None) -> list[Move]:
    """Supply actions on the Supply Board ``spaces`` (numbers, 1 = leftmost; None: all)."""
    numbers = state.data.supply_numbers
    filled: tuple[int, ...] = ()  # spaces with chests, for a turquoise 'Supplies' chest
    if holds(state, p, "supplies") is not None:
        filled = tuple(t for t in numbers if state.supply_chests[t - 1])
    return list(_supply_moves(numbers if spaces is None else spaces, filled,
                              has(state, p, 7), has(state, p, 8)))


@lru_cache(maxsize=4096)
def _supply_moves(
    spaces: tuple[int, ...], filled: tuple[int, ...], privilege_7: bool, privilege_8: bool
) -> tuple[Supply, ...]:
    """supply_moves for the chests under ``filled`` spaces (only when a 'Supplies' chest
    is held) and privileges 7 (+envoy) and 8 (+draw) held or not."""
    out = []
    for space in spaces:
        chests = [0] + [t for t in filled if t != space]
        for ch in chests:
            for ev in BOTH if privilege_7 else NO:
                for dr in BOTH if privilege_8 else NO:
                    out.append(Supply(space, ch, ev, dr))
    return tuple(out)


@cache
def _deploy(region: str) -> list[tuple[Deploy, ...]]:
    """Seat index -> the Deploy moves onto ``region`` by free_move * 2 + free_pay (frozen,
    so the generator hands out the same objects instead of building new ones)."""
    return [tuple(Deploy(region, seat, fm, fp) for fm in BOTH for fp in BOTH)
            for seat in range(1, MAX_SEATS + 1)]


# (free move possible, free pay possible) -> (index into a seat's Deploy moves, free
# move, free pay) of the ways to use turquoise chests, in the generator's order
CHEST_USES: dict[tuple[bool, bool], tuple[tuple[int, bool, bool], ...]] = {
    (fm_ok, fp_ok): tuple(
        (2 * fm + fp, fm, fp)
        for fm in (BOTH if fm_ok else NO)
        for fp in (BOTH if fp_ok else NO)
        if fm or fp
    )
    for fm_ok in BOTH
    for fp_ok in BOTH
}


def deploy_moves(
    state: State, p: int, positions: Sequence[int] = POSITIONS, seat_number: int | None = None
) -> list[Move]:
    """Move/Deploy actions onto the Regions at ``positions``: every seat, or only seat
    ``seat_number`` (1 = leftmost). Per seat: without turquoise chests first, then with
    the 'no payment cost' chest, the 'no movement cost' chest, both."""
    bonus = bonus_available(state, p)
    fm_chest = holds(state, p, "free-move") is not None
    fp_chest = holds(state, p, "free-pay") is not None
    privilege_2 = has(state, p, 2)
    moving = move_costs(state, p)
    paid = paid_costs(state, p)
    most = payable(state, p, bonus)
    out: list[Move] = []
    for pos in positions:
        base_move = moving[pos]
        chests = CHEST_USES[fm_chest and base_move > 0, fp_chest]
        row, costs, noble_icons = state.seats[pos], state.seat_cost[pos], state.seat_noble[pos]
        moves = _deploy(state.ring[pos])
        seats = range(len(row))
        if seat_number is not None:
            wanted = seat_number in range(1, len(row) + 1)
            seats = range(seat_number - 1, seat_number) if wanted else range(0)
        for seat in seats:
            occupants = row[seat]
            if occupants and (len(occupants) > 1 or not privilege_2):
                continue  # an unoccupied seat only; privilege 2: or one with one figure
            limit = most[noble_icons[seat]]
            base_pay = paid[costs[seat]]
            if base_move + base_pay <= limit:
                out.append(moves[seat][0])
            for index, fm, fp in chests:
                if fp and base_pay == 1:
                    continue  # the 'no payment cost' chest would change nothing
                if (0 if fm else base_move) + (1 if fp else base_pay) <= limit:
                    out.append(moves[seat][index])
    return out


def _placements(regions: tuple[str, ...], count: int) -> tuple[tuple[str, ...], ...]:
    """Every way to lay ``count`` Nobles in the payment spaces of ``regions`` (sorted),
    as the sorted regions that get one (Move/Deploy: the payer chooses which figures go
    where; two figures in one payment space are the same choice)."""
    return tuple(dict.fromkeys(combinations(regions, count)))


@lru_cache(maxsize=4096)
def _seat_moves(
    figure: str, regions: tuple[str, ...], count: int, double: bool, bonus: bool
) -> tuple[Seat, ...]:
    """The Seat moves with ``count`` Nobles laid in the payment spaces of ``regions``
    (frozen, so one object serves every state)."""
    seat_figure = cast(Figure, figure)
    return tuple(Seat(seat_figure, nobles, double, bonus)
                 for nobles in _placements(regions, count))


def seat_options(
    state: State, p: int, ctx: DeployCtx, figures: Sequence[str] = FIGURES
) -> list[Seat]:
    """Which figure stands on the seat (one of ``figures``), which payment spaces get
    Nobles, privilege 3, track Envoy."""
    payers = len(ctx.move_to) + len(ctx.pay_to)
    regions = tuple(sorted(state.ring[x] for x in ctx.move_to + ctx.pay_to))
    court = state.court[p]
    out: list[Seat] = []
    for bonus in BOTH if ctx.bonus else NO:
        envoys = court[E] + bonus
        for figure in figures:
            if figure == "envoy" and ctx.noble_only:
                continue
            rest_e = envoys - (figure == "envoy")
            rest_n = court[N] - (figure == "noble")
            if rest_e < 0 or rest_n < 0:
                continue
            for double in BOTH if ctx.double_ok and figure == "envoy" else NO:
                free_e = rest_e - double
                if free_e < 0:
                    continue
                for count in range(min(rest_n, payers) + 1):
                    if payers - count <= free_e:
                        out.extend(_seat_moves(figure, regions, count, double, bonus))
    return out


def turn_moves(state: State, p: int, like: Move | None = None) -> list[Move]:
    """A turn's choices: privileges, first position, Supply, Move/Deploy; with ``like``
    only those of its kind (and its Supply space, its Region and seat)."""
    kind = type(like)
    out: list[Move] = []
    if like is None or kind is Privilege:
        out += [Privilege(x) for x in available_privileges(state, p)]
    if (like is None or kind is First) and not state.first_used and holds(state, p, "first"):
        out.append(First())
    if like is None:
        return out + supply_moves(state, p) + deploy_moves(state, p)
    if isinstance(like, Supply):
        # the generator's own numbers, so that the cached moves are built from them only
        numbers = state.data.supply_numbers
        out += supply_moves(state, p, tuple(x for x in numbers if x == like.space))
    elif isinstance(like, Deploy):
        positions = [state.ring.index(like.region)] if like.region in state.ring else []
        out += deploy_moves(state, p, positions, like.seat)
    return out


def take_moves(state: State, p: int) -> list[Move]:
    assert state.supply is not None
    kind = state.supply.need[0]
    return [Take(state.ring[pos]) for pos in POSITIONS if (p, kind) in state.payment[pos]]


def keep_moves(state: State, p: int) -> list[Move]:
    out: list[Move] = [Keep()]
    for pos in state.scored:
        for i, occ in enumerate(state.seats[pos]):
            kinds = []
            for q, kind in occ:
                left = occ.count((q, kind)) - state.kept.count((pos, i, q, kind))
                if q == p and kind not in kinds and left > 0:
                    kinds.append(kind)
                    out.append(Keep(state.ring[pos], i + 1, "envoy" if kind == "E" else "noble"))
    return out


def to_move(state: State) -> list[str]:
    """The player who owes the current decision ([] once the game is over)."""
    return [] if state.finished else [state.players[state.active]]


def finished(state: State) -> bool:
    return state.finished


def legal_moves(state: State, player: str, like: Move | None = None) -> list[Move]:
    """Every legal move of ``player`` now, in a fixed order. With ``like``: only those
    that could equal ``like``, in the same order (what ``is_legal`` asks for)."""
    if state.finished or state.players[state.active] != player:
        return []
    p = state.active
    phase = state.phase
    if phase == "turn":
        return turn_moves(state, p, like)
    if phase == "seat":
        assert state.deploy is not None
        if isinstance(like, Seat):
            figures = tuple(f for f in FIGURES if f == like.figure)
            return cast(list[Move], seat_options(state, p, state.deploy, figures))
        return cast(list[Move], seat_options(state, p, state.deploy)) if like is None else []
    if phase == "take":
        return take_moves(state, p)
    if phase in ("end", "purple"):
        return [*(Privilege(x) for x in available_privileges(state, p)), Done()]
    if phase == "pick":
        return pick_moves(state)
    if phase == "keep":
        return keep_moves(state, p)
    if phase == "return":
        return [Return(True), Return(False)]
    return []


def is_legal(state: State, player: str, move: Move) -> bool:
    """``move in legal_moves(state, player)``, asking the generators only for the moves
    that could equal ``move``."""
    return move in legal_moves(state, player, move)


def after_action(state: State) -> None:
    """The action is done; the player may still exchange purple chests this turn."""
    state.deploy = None
    state.supply = None
    if available_privileges(state, state.active):
        state.phase = "end"
    else:
        start_turn(state)


def place_action_figure(state: State, p: int, track: str) -> None:
    """Supply Track: top first, then downwards; Move/Deploy Track: bottom first, then
    upwards. Turquoise 'first position': first space of the Supply Track."""
    if state.first_used:
        state.supply_track.insert(0, p)
    elif track == "supply":
        state.supply_track.append(p)
    else:
        state.deploy_track.append(p)



def do_supply(state: State, p: int, move: Supply) -> None:
    place_action_figure(state, p, "supply")
    chests = move.space - 1
    if move.chests:
        cid = holds(state, p, "supplies")
        assert cid is not None
        spend(state, p, cid)
        chests = move.chests - 1
    need = list(state.data.supply_spaces[move.space - 1]) + (["E"] if move.envoy else [])
    state.supply = SupplyCtx(move.space - 1, chests, move.draw, need)
    supply_figures(state, p)


def supply_figures(state: State, p: int) -> None:
    """Take the figures; Supply ?: from a payment space if the Province has none of
    your colour; an Envoy instead of a Noble if there is no Noble anywhere."""
    ctx = state.supply
    assert ctx is not None
    while ctx.need:
        kind = ctx.need[0]
        k = KIND_INDEX[kind]
        if state.province[p][k]:
            take_from_province(state, p, k, 1)
            ctx.need.pop(0)
            continue
        spaces = [pos for pos in range(6) if (p, kind) in state.payment[pos]]
        if not spaces and kind == "N":
            ctx.need[0] = "E"
            continue
        if len(spaces) > 1:
            state.phase = "take"
            return
        if spaces:
            take_from_payment(state, p, spaces[0], kind)
        ctx.need.pop(0)
    finish_supply(state, p)


def take_from_payment(state: State, p: int, pos: int, kind: str) -> None:
    state.payment[pos].remove((p, kind))
    state.court[p][KIND_INDEX[kind]] += 1


def finish_supply(state: State, p: int) -> None:
    ctx = state.supply
    assert ctx is not None
    taken = state.supply_chests[ctx.chests]
    state.supply_chests[ctx.chests] = []
    for cid in taken:
        gain_chest(state, p, cid)
    if ctx.draw:  # privilege 8
        drawn = draw_chest(state)
        if drawn is not None:
            gain_chest(state, p, drawn)
    if has(state, p, 9):
        add_points(state, p, 2, "privilege 9")
    after_action(state)


def do_deploy(state: State, p: int, move: Deploy) -> None:
    pos = state.ring.index(move.region)
    seat = move.seat - 1
    bonus = bonus_available(state, p)
    place_action_figure(state, p, "deploy")
    if move.free_move:
        spend(state, p, holds(state, p, "free-move") or "")
    if move.free_pay:
        spend(state, p, holds(state, p, "free-pay") or "")
    ctx = DeployCtx(
        pos=pos,
        seat=seat,
        move_to=move_spaces(state, p, pos, move.free_move),
        pay_to=pay_spaces(pos, deploy_cost(state, p, pos, seat, move.free_pay)),
        bonus=bonus,
        noble_only=state.seat_noble[pos][seat],
        double_ok=has(state, p, 3) and not state.seats[pos][seat],
    )
    state.deploy = ctx
    options = seat_options(state, p, ctx)
    if len(options) == 1:
        do_seat(state, p, options[0])
    else:
        state.phase = "seat"


def do_seat(state: State, p: int, move: Seat) -> None:
    """Deploy: the first figure stands on the seat, the others lie in payment spaces
    (Nobles in the payment spaces the player named); then take every chest under the
    seat."""
    ctx = state.deploy
    assert ctx is not None
    if move.bonus:
        take_from_province(state, p, E, 1)
    kind = "N" if move.figure == "noble" else "E"
    placed = [kind, "E"] if move.double else [kind]
    for k in placed:
        state.court[p][KIND_INDEX[k]] -= 1
        state.seats[ctx.pos][ctx.seat].append((p, k))
    nobles = list(move.nobles)
    for pos in ctx.move_to + ctx.pay_to:
        k = "N" if state.ring[pos] in nobles else "E"
        if k == "N":
            nobles.remove(state.ring[pos])
        state.court[p][KIND_INDEX[k]] -= 1
        state.payment[pos].append((p, k))
    taken = state.seat_chests[ctx.pos][ctx.seat]
    state.seat_chests[ctx.pos][ctx.seat] = []
    for cid in taken:
        gain_chest(state, p, cid)
    if has(state, p, 6) and ctx.pos == state.king:
        add_points(state, p, 3 * len(placed), "privilege 6")
    after_action(state)


# ---------------------------------------------------------------- apply


def apply(state: State, player: str, move: Move) -> None:
    p = state.players.index(player)
    match move:
        case Privilege():
            take_privilege(state, p, move.number)
            if state.phase == "purple":
                purple_decided(state, p, declined=False)
            elif state.phase == "end" and not available_privileges(state, p):
                start_turn(state)
        case First():
            state.first_used = True
            spend(state, p, holds(state, p, "first") or "")
        case Supply():
            do_supply(state, p, move)
        case Deploy():
            do_deploy(state, p, move)
        case Seat():
            do_seat(state, p, move)
        case Take():
            assert state.supply is not None
            take_from_payment(state, p, state.ring.index(move.region), state.supply.need.pop(0))
            state.phase = "turn"
            supply_figures(state, p)
        case Done() if state.phase == "purple":
            purple_decided(state, p, declined=True)
        case Done():
            start_turn(state)
        case Pick():
            do_pick(state, p, move)
        case Keep():
            do_keep(state, p, move)
        case Return():
            state.to_court[p] = int(move.court)
            next_cleanup_decision(state)
        case _:
            raise TypeError(f"not a staufer move: {move!r}")

