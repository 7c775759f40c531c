"""The rules: setup, legal moves and their effects, in the order of the rulebook.

Legality is decided only by ``legal_moves``; ``apply`` carries out a move from that list
and then runs every automatic step (next turn, Region Scoring, Cleanup, Final Scoring)
until someone owes a decision again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from referee.errors import UsageError
from referee.rng import Rng

from . import components as C
from .moves import (
    Deploy,
    Done,
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
from .scoring import final_breakdown, majority
from .state import KIND_INDEX, DeployCtx, E, N, State, SupplyCtx

PRIVILEGE_DECKS = (
    "first-game",
    "alternatives",
    "synergies",
    "raining-points",
    "quantity",
    "publisher",
    "partially-random",
    "random",
    "custom",
)

# ---------------------------------------------------------------- setup


def privilege_numbers(options: Mapping[str, str], rng: Rng) -> list[int]:
    """The six privilege numbers in play (Supplement: Privilege Cards)."""
    deck = options.get("privileges", "first-game")
    if deck in C.DECKS:
        return sorted(C.DECKS[deck])
    if deck == "custom":
        text = options.get("privilege_list", "")
        try:
            nums = sorted({int(x) for x in text.replace(" ", "").split(",") if x})
        except ValueError:
            nums = []
        if len(nums) != 6 or 1 not in nums or not all(1 <= x <= 16 for x in nums):
            raise UsageError(
                f"privilege_list {text!r} must name 6 different numbers 1-16 including 1",
                hints=["e.g. --option privileges=custom --option privilege_list=1,3,5,8,10,16"],
            )
        return nums
    fixed = list(C.PARTIAL_FIXED) if deck == "partially-random" else [1]
    pool = [x for x in range(1, 17) if x not in fixed]
    rng.shuffle(pool, "setup")
    return sorted(fixed + pool[: 6 - len(fixed)])


def _round_rows(rng: Rng) -> tuple[list[tuple[str, str, int]], str]:
    a = list(C.A_TILES)
    b = list(C.B_TILES)
    c = list(C.C_TILES)
    rng.shuffle(a, "setup")
    rng.shuffle(b, "setup")
    rng.shuffle(c, "setup")
    steps = [*c[:4], 0]  # row 5: the Final Scoring tile
    return [(a[i], b[i], steps[i]) for i in range(5)], a[5]


def first_turn_order(n: int) -> list[int]:
    """Game Setup 9: clockwise from the start player, then counterclockwise twice."""
    back = list(range(n - 1, -1, -1))
    return list(range(n)) + back + back


def setup(players: Sequence[str], options: Mapping[str, str], rng: Rng) -> State:
    n = len(players)
    if not 2 <= n <= 5:
        raise UsageError(f"The Staufer Dynasty needs 2-5 players, not {n}")
    if len(set(players)) != n:
        raise UsageError("player ids must be different")
    ring = list(C.REGION_KEYS)
    rng.shuffle(ring, "setup")
    rows = C.seat_rows(C.REGION_SIDE[str(n)])
    tiles = [list(t) for t in C.TILES[C.TILE_SIDE[str(n)]]]
    rng.shuffle(tiles, "setup")
    stack = list(C.ALL_CHESTS)
    rng.shuffle(stack, "chests")
    supply_chests = [[stack.pop()] for _ in C.SUPPLY_SPACES]
    seat_chests = [[[stack.pop()] for _ in rows[r]] for r in ring]
    numbers = privilege_numbers(options, rng)
    copies = 1 if n == 2 or options.get("privilege_copies") == "1" else 2
    priv_left = [0] * 17
    for x in numbers:
        if x != 1:
            priv_left[x] = copies
    vp = sorted(C.VP_VALUES)
    contracts: list[list[str]] = [[] for _ in players]
    unused: list[str] = []
    for cat in ("region", "blue", "red"):
        pile = list(C.CONTRACT_IDS[cat])
        rng.shuffle(pile, "contracts")
        for p in range(n):
            contracts[p].append(pile.pop())
        unused.extend(pile)
    round_rows, unused_a = _round_rows(rng)
    total = C.FIGURES
    start = C.COURT_START
    return State(
        players=list(players),
        options=dict(options),
        rng=rng,
        ring=ring,
        king=ring.index(unused_a),
        tiles=tiles,
        seat_cost=[[c for c, _ in rows[r]] for r in ring],
        seat_noble=[[nb for _, nb in rows[r]] for r in ring],
        seats=[[[] for _ in rows[r]] for r in ring],
        seat_chests=seat_chests,
        payment=[[] for _ in ring],
        supply_chests=supply_chests,
        stack=stack,
        discard=[],
        revealed=[],
        court=[[start["E"], start["N"]] for _ in players],
        province=[[total["E"] - start["E"], total["N"] - start["N"]] for _ in players],
        held=[[] for _ in players],
        privileges=[[] for _ in players],
        vp_card=[0] * n,
        priv_numbers=numbers,
        priv_left=priv_left,
        vp_stack=vp if n == 5 else vp[:n],
        contracts=contracts,
        unused_contracts=unused,
        score=[0] * n,
        round=1,
        rows=round_rows,
        unused_a=unused_a,
        turn_track=first_turn_order(n)[1:],
        supply_track=[],
        deploy_track=[],
        phase="turn",
        active=0,
        to_court=[0] * n,
    )


# ---------------------------------------------------------------- small helpers


def board_side(state: State) -> str:
    return C.BOARD_SIDE[str(len(state.players))]


def holds(state: State, p: int, ctype: str) -> str | None:
    """The first chest of type ``ctype`` in front of player ``p`` (or None)."""
    for cid in state.held[p]:
        if C.CHEST_KIND[cid][1] == ctype:
            return cid
    return None


def purple_count(state: State, p: int) -> int:
    return sum(1 for cid in state.held[p] if cid.startswith("purple"))


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


# ---------------------------------------------------------------- Move/Deploy costs


def move_spaces(state: State, p: int, pos: int, free_move: bool) -> list[int]:
    """Payment spaces of step 1 (Move), clockwise from the King's Region."""
    d = (pos - state.king) % 6
    if d == 0 or free_move:
        return []
    options = [[(state.king + j) % 6 for j in range(1, d + 1)]]
    if has(state, p, 10) and has(state, p, 11):
        options.append([])  # privileges 10 + 11: movement is free
    if has(state, p, 10):
        options.append([pos])  # privilege 10: one figure, in the target Region
    if has(state, p, 11):
        options.append([(state.king + j) % 6 for j in range(3, d + 1)])  # skip 2 Regions
    if has(state, p, 12) and d in (1, 5):
        options.append([])  # privilege 12: neighbours of the King's Region are free
    return min(options, key=len)


def deploy_cost(state: State, p: int, pos: int, seat: int, free_pay: bool) -> int:
    """Figures paid in step 2 (Deploy), the one on the seat included."""
    if free_pay:
        return 1
    cost = state.seat_cost[pos][seat]
    if has(state, p, 4):
        cost = min(cost, 3)  # privilege 4: always only 3
    if has(state, p, 5):
        cost -= 1  # privilege 5: one less (with 4: only 2)
    return max(cost, 1)


def pay_spaces(pos: int, cost: int) -> list[int]:
    """Deploy payment: one figure per Region clockwise from the target; a cost of 7
    wraps around onto the target's own payment space."""
    return [(pos + j) % 6 for j in range(1, cost)]


def bonus_available(state: State, p: int) -> bool:
    """A Move/Deploy track space with an Envoy icon (Action Board) for the next figure."""
    if state.first_used or not state.province[p][E]:
        return False
    return len(state.deploy_track) + 1 in C.ENVOY_SPACES[board_side(state)]


def can_pay(state: State, p: int, figures: int, noble_only: bool, bonus: bool) -> bool:
    envoys = state.court[p][E] + (1 if bonus else 0)
    nobles = state.court[p][N]
    if noble_only:
        return nobles >= 1 and envoys + nobles >= figures
    return envoys + nobles >= figures


def seat_open(state: State, p: int, pos: int, seat: int) -> bool:
    occ = state.seats[pos][seat]
    return not occ or (len(occ) == 1 and has(state, p, 2))


# ---------------------------------------------------------------- legal moves


def supply_moves(state: State, p: int) -> list[Move]:
    others = holds(state, p, "supplies") is not None
    envoy = [False, True] if has(state, p, 7) else [False]
    draw = [False, True] if has(state, p, 8) else [False]
    out: list[Move] = []
    for space in range(1, len(C.SUPPLY_SPACES) + 1):
        chests = [0]
        if others:
            chests += [
                t
                for t in range(1, len(C.SUPPLY_SPACES) + 1)
                if t != space and state.supply_chests[t - 1]
            ]
        for ch in chests:
            for ev in envoy:
                for dr in draw:
                    out.append(Supply(space, ch, ev, dr))
    return out


def deploy_moves(state: State, p: int) -> list[Move]:
    bonus = bonus_available(state, p)
    fm_chest = holds(state, p, "free-move") is not None
    fp_chest = holds(state, p, "free-pay") is not None
    out: list[Move] = []
    for pos in range(6):
        region = state.ring[pos]
        base_move = len(move_spaces(state, p, pos, False))
        fms = [False, True] if fm_chest and base_move else [False]
        for seat in range(len(state.seats[pos])):
            if not seat_open(state, p, pos, seat):
                continue
            noble_only = state.seat_noble[pos][seat]
            base_pay = deploy_cost(state, p, pos, seat, False)
            fps = [False, True] if fp_chest and base_pay > 1 else [False]
            for fm in fms:
                for fp in fps:
                    total = (0 if fm else base_move) + (1 if fp else base_pay)
                    if can_pay(state, p, total, noble_only, bonus):
                        out.append(Deploy(region, seat + 1, fm, fp))
    return out


def seat_options(state: State, p: int, ctx: DeployCtx) -> list[Seat]:
    """Which figure stands on the seat, how many Nobles pay, privilege 3, track Envoy."""
    payers = len(ctx.move_to) + len(ctx.pay_to)
    out: list[Seat] = []
    for bonus in [False, True] if ctx.bonus else [False]:
        envoys = state.court[p][E] + bonus
        for figure in ("envoy", "noble"):
            if figure == "envoy" and ctx.noble_only:
                continue
            rest_e = envoys - (figure == "envoy")
            rest_n = state.court[p][N] - (figure == "noble")
            if rest_e < 0 or rest_n < 0:
                continue
            for double in [False, True] if ctx.double_ok and figure == "envoy" else [False]:
                free_e = rest_e - double
                if free_e < 0:
                    continue
                for nobles in range(min(rest_n, payers) + 1):
                    if payers - nobles <= free_e:
                        out.append(Seat(figure, nobles, double, bonus))
    return out


def turn_moves(state: State, p: int) -> list[Move]:
    out: list[Move] = [Privilege(x) for x in available_privileges(state, p)]
    if not state.first_used and holds(state, p, "first"):
        out.append(First())
    return out + supply_moves(state, p) + deploy_moves(state, p)


def take_moves(state: State, p: int) -> list[Move]:
    assert state.supply is not None
    kind = state.supply.need[0]
    return [Take(state.ring[pos]) for pos in range(6) if (p, kind) in state.payment[pos]]


def pick_moves(state: State) -> list[Move]:
    seen: list[str] = []
    for cid in state.revealed:
        ctype = C.CHEST_KIND[cid][1]
        if ctype not in seen:
            seen.append(ctype)
    return [Pick(t) for t in seen]


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


def legal_moves(state: State, player: str) -> list[Move]:
    if state.finished or state.players[state.active] != player:
        return []
    p = state.active
    phase = state.phase
    if phase == "turn":
        return turn_moves(state, p)
    if phase == "seat":
        assert state.deploy is not None
        return list(seat_options(state, p, state.deploy))
    if phase == "take":
        return take_moves(state, p)
    if phase == "end":
        return [*(Privilege(x) for x in available_privileges(state, p)), Done()]
    if phase == "pick":
        return pick_moves(state)
    if phase == "keep":
        return keep_moves(state, p)
    if phase == "return":
        return [Return(True), Return(False)]
    return []


# ---------------------------------------------------------------- turns


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


def do_supply(state: State, p: int, move: Supply) -> None:
    place_action_figure(state, p, "supply")
    chests = move.space - 1
    if move.chests:
        cid = holds(state, p, "supplies")
        assert cid is not None
        spend(state, p, cid)
        chests = move.chests - 1
    need = list(C.SUPPLY_SPACES[move.space - 1]) + (["E"] if move.envoy else [])
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
        cid = draw_chest(state)
        if cid is not None:
            gain_chest(state, p, cid)
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
    (Nobles first, in payment order); then take every chest under the seat."""
    ctx = state.deploy
    assert ctx is not None
    if move.bonus:
        take_from_province(state, p, E, 1)
    kind = "N" if move.figure == "noble" else "E"
    placed = [kind, "E"] if move.double else [kind]
    for k in placed:
        state.court[p][KIND_INDEX[k]] -= 1
        state.seats[ctx.pos][ctx.seat].append((p, k))
    for j, pos in enumerate(ctx.move_to + ctx.pay_to):
        k = "N" if j < move.nobles else "E"
        state.court[p][KIND_INDEX[k]] -= 1
        state.payment[pos].append((p, k))
    taken = state.seat_chests[ctx.pos][ctx.seat]
    state.seat_chests[ctx.pos][ctx.seat] = []
    for cid in taken:
        gain_chest(state, p, cid)
    if has(state, p, 6) and ctx.pos == state.king:
        add_points(state, p, 3 * len(placed), "privilege 6")
    after_action(state)


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
    names = ", ".join(C.REGION_TITLES[state.ring[x]] for x in state.scored)
    state.events.append(f"Round {state.round} scoring: {names}")
    score_next(state)


def score_next(state: State) -> None:
    while state.to_score:
        pos = state.to_score.pop(0)
        if score_region(state, pos):
            return
    if state.round == 5:
        final_scoring(state)
    else:
        begin_cleanup(state)


def score_region(state: State, pos: int) -> bool:
    """Region Scoring steps 2 and 3; True if a chest pick is now pending."""
    n = len(state.players)
    ranking = majority(state, pos)
    tile = state.tiles[pos]
    places = 3 if n >= 4 else 2
    title = C.REGION_TITLES[state.ring[pos]]
    for place, p in enumerate(ranking[:places]):
        add_points(state, p, tile[place], f"{title} place {place + 1}")
    for place, p in enumerate(ranking):
        if has(state, p, 14) and place < 3 and (place == 0 or n > 2):
            add_points(state, p, 3 - place, "privilege 14")
        if has(state, p, 15):
            add_points(state, p, 2, "privilege 15")
    return region_bonus(state, pos, ranking)


def region_bonus(state: State, pos: int, ranking: list[int]) -> bool:
    bonus = C.BONUS[state.ring[pos]]
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
    cid = next(c for c in state.revealed if C.CHEST_KIND[c][1] == move.chest)
    state.revealed.remove(cid)
    gain_chest(state, p, cid)
    state.pickers.pop(0)
    if not next_pick(state):
        score_next(state)


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
        if C.CHEST_KIND[cid][1] == "keep"
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
        state.events.append(f"The King travels to {C.REGION_TITLES[state.ring[state.king]]}")


# ---------------------------------------------------------------- Final Scoring


def final_scoring(state: State) -> None:
    for p in range(len(state.players)):
        parts = final_breakdown(state, p)
        state.final[state.players[p]] = parts
        for what, points in parts.items():
            add_points(state, p, points, what)
    state.finished = True
    state.phase = "over"


# ---------------------------------------------------------------- apply


def apply(state: State, player: str, move: Move) -> None:
    p = state.players.index(player)
    match move:
        case Privilege():
            take_privilege(state, p, move.number)
            if state.phase == "end" and not available_privileges(state, p):
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
