"""Game Setup (steps 1-13), the start player and the privilege deck in play."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from referee.engine.rng import Rng
from referee.errors import UsageError

from .components import StauferData
from .state import State

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

START_CHOICES = ("first", "random")


def _numbers(text: str) -> list[int] | None:
    """The distinct numbers 1-16 of a privilege_list, or None if it is not one."""
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not all(x.isascii() and x.isdigit() for x in items):
        return None
    nums = [int(x) for x in items]
    if len(set(nums)) != len(nums) or not all(1 <= x <= 16 for x in nums):
        return None
    return sorted(nums)


def _custom_deck(text: str) -> list[int]:
    nums = _numbers(text)
    if nums is None or len(nums) != 6 or 1 not in nums:
        raise UsageError(
            f"privilege_list {text!r} must name 6 different numbers 1-16 including 1",
            hints=["e.g. --option privileges=custom --option privilege_list=1,3,5,8,10,16"],
        )
    return nums


def _partially_random_deck(data: StauferData, text: str, rng: Rng) -> list[int]:
    """Supplement: "Partially Random Deck: 1, 2, and 4 of your own choice". The players
    name the four in privilege_list; left empty, the four are drawn (interpretation S4)."""
    fixed = list(data.partial_fixed)
    if not text.strip():
        pool = [x for x in range(1, 17) if x not in fixed]
        rng.shuffle(pool, "setup")
        return sorted(fixed + pool[: 6 - len(fixed)])
    nums = _numbers(text)
    chosen = [x for x in nums or [] if x not in fixed]
    if nums is None or len(chosen) != 6 - len(fixed) or len(nums) not in (4, 6):
        raise UsageError(
            f"privilege_list {text!r} must name 4 different numbers 3-16 (the deck is "
            "1, 2 and these four)",
            hints=["e.g. --option privileges=partially-random --option privilege_list=5,8,13,16"],
        )
    if len(nums) == 6 and nums[:2] != fixed:
        raise UsageError(f"privilege_list {text!r}: a partially random deck includes 1 and 2")
    return sorted(fixed + chosen)


def privilege_numbers(data: StauferData, options: Mapping[str, str], rng: Rng) -> list[int]:
    """The six privilege numbers in play (Supplement: Privilege Cards)."""
    deck = options.get("privileges", "first-game")
    text = options.get("privilege_list", "")
    if text.strip() and deck not in ("custom", "partially-random"):
        raise UsageError(
            f"privilege_list is only for privileges=custom or partially-random, not {deck!r}"
        )
    if deck in data.decks:
        return sorted(data.decks[deck])
    if deck == "custom":
        return _custom_deck(text)
    if deck == "partially-random":
        return _partially_random_deck(data, text, rng)
    pool = list(range(2, 17))  # random: 1 and five drawn
    rng.shuffle(pool, "setup")
    return sorted([1, *pool[:5]])


def start_player(players: Sequence[str], value: str, rng: Rng) -> int:
    """Setup 9: the start player (option ``start``: a player id, first or random)."""
    if value in ("", "first"):
        return 0
    if value == "random":
        return rng.below(len(players), "start")
    if value in players:
        return list(players).index(value)
    raise UsageError(
        f"option start cannot be {value!r}",
        hints=[f"choices: first, random or a player id ({', '.join(players)})"],
    )


def _round_rows(data: StauferData, rng: Rng) -> tuple[list[tuple[str, str, int]], str]:
    a = list(data.a_tiles)
    b = list(data.b_tiles)
    c = list(data.c_tiles)
    rng.shuffle(a, "setup")
    rng.shuffle(b, "setup")
    rng.shuffle(c, "setup")
    steps = [*c[:4], 0]  # row 5: the Final Scoring tile
    return [(a[i], b[i], steps[i]) for i in range(5)], a[5]


def first_turn_order(n: int, start: int = 0) -> list[int]:
    """Game Setup 9: clockwise from the start player, then counterclockwise from the
    last player, twice (players are seated clockwise in the order listed)."""
    ahead = [(start + i) % n for i in range(n)]
    back = ahead[::-1]
    return ahead + back + back


def setup(data: StauferData, players: Sequence[str], options: Mapping[str, str],
          rng: Rng) -> State:
    """The state before the first move, played with the component data ``data``."""
    n = len(players)
    if not 2 <= n <= 5:
        raise UsageError(f"The Staufer Dynasty needs 2-5 players, not {n}")
    if len(set(players)) != n:
        raise UsageError("player ids must be different")
    start = start_player(players, options.get("start", "first"), rng)
    ring = list(data.region_keys)
    rng.shuffle(ring, "setup")
    rows = data.seat_rows[data.region_side[str(n)]]
    tiles = [list(t) for t in data.tiles[data.tile_side[str(n)]]]
    rng.shuffle(tiles, "setup")
    stack = list(data.all_chests)
    rng.shuffle(stack, "chests")
    supply_chests = [[stack.pop()] for _ in data.supply_spaces]
    seat_chests = [[[stack.pop()] for _ in rows[r]] for r in ring]
    numbers = privilege_numbers(data, options, rng)
    copies = 1 if n == 2 or options.get("privilege_copies") == "1" else 2
    priv_left = [0] * 17
    for x in numbers:
        if x != 1:
            priv_left[x] = copies
    vp = sorted(data.vp_values)
    contracts: list[list[str]] = [[] for _ in players]
    unused: list[str] = []
    for cat in ("region", "blue", "red"):
        pile = list(data.contract_ids[cat])
        rng.shuffle(pile, "contracts")
        for p in range(n):
            contracts[p].append(pile.pop())
        unused.extend(pile)
    round_rows, unused_a = _round_rows(data, rng)
    total = data.figures
    court = data.court_start
    return State(
        data=data,
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
        court=[[court["E"], court["N"]] for _ in players],
        province=[[total["E"] - court["E"], total["N"] - court["N"]] for _ in players],
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
        turn_track=first_turn_order(n, start)[1:],
        supply_track=[],
        deploy_track=[],
        phase="turn",
        active=start,
        start=start,
        to_court=[0] * n,
    )

