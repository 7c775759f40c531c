"""The state of a game of The Staufer Dynasty (one mutable msgspec Struct).

Positions 0-5 are the places of the region ring, clockwise; ``ring[pos]`` is the region
key there. Players are indices into ``players``. A figure is ``(player, kind)`` with kind
"E" (Envoy) or "N" (Noble). Figure counts per player are ``[Envoys, Nobles]``.

``data`` is the component data the game is played with (fixed at setup, shared by
copies); :func:`encode` and the fingerprint leave it out.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from .components import StauferData

Fig = tuple[int, str]
E, N = 0, 1  # indices into [Envoys, Nobles]
KIND_INDEX = {"E": E, "N": N}


class DeployCtx(msgspec.Struct):
    """A Move/Deploy action waiting for the choice of figures (phase "seat")."""

    pos: int
    seat: int  # 0-based
    move_to: list[int]  # payment spaces of the Move step, in order
    pay_to: list[int]  # payment spaces of the Deploy step, in order
    bonus: bool  # Envoy icon on the track space and an Envoy in the Province
    noble_only: bool
    double_ok: bool  # privilege 3 applies (seat was empty)

    def copy(self) -> DeployCtx:
        return msgspec.structs.replace(
            self, move_to=list(self.move_to), pay_to=list(self.pay_to)
        )


class SupplyCtx(msgspec.Struct):
    """A Supply action in progress (figures still to take, then its chests)."""

    space: int  # 0-based
    chests: int  # 0-based space whose chests are taken
    draw: bool
    need: list[str]  # figure kinds still to take ("E"/"N")

    def copy(self) -> SupplyCtx:
        return msgspec.structs.replace(self, need=list(self.need))


class State(msgspec.Struct):
    data: StauferData  # the component data (not encoded)
    players: list[str]
    options: dict[str, str]
    rng: Any  # referee.engine.rng.Rng; fingerprint encodes its counters
    ring: list[str]
    king: int
    tiles: list[list[int]]
    seat_cost: list[list[int]]
    seat_noble: list[list[bool]]
    seats: list[list[list[Fig]]]
    seat_chests: list[list[list[str]]]
    payment: list[list[Fig]]
    supply_chests: list[list[str]]
    stack: list[str]  # face down; the top is the last element
    discard: list[str]
    revealed: list[str]  # Augsburg/Aachen chests on display
    court: list[list[int]]
    province: list[list[int]]
    held: list[list[str]]  # turquoise, brown and purple chests in front of each player
    privileges: list[list[int]]
    vp_card: list[int]  # value of the Victory Point privilege held (0 = none)
    priv_numbers: list[int]
    priv_left: list[int]  # index = privilege number
    vp_stack: list[int]  # face up, highest on top (= last)
    contracts: list[list[str]]
    unused_contracts: list[str]
    score: list[int]
    round: int
    rows: list[tuple[str, str, int]]  # (A region, B condition, C King steps; 0 = Final)
    unused_a: str
    turn_track: list[int]
    supply_track: list[int]
    deploy_track: list[int]  # in placement order: first = bottom space
    start: int = 0  # the start player (Setup 9); players are seated clockwise as listed
    phase: str = "turn"
    active: int = 0
    first_used: bool = False
    deploy: DeployCtx | None = None
    supply: SupplyCtx | None = None
    to_score: list[int] = msgspec.field(default_factory=list)
    scored: list[int] = msgspec.field(default_factory=list)
    pickers: list[int] = msgspec.field(default_factory=list)
    queue: list[tuple[str, int]] = msgspec.field(default_factory=list)
    kept: list[tuple[int, int, int, str]] = msgspec.field(default_factory=list)
    to_court: list[int] = msgspec.field(default_factory=list)
    purple_queue: list[int] = msgspec.field(default_factory=list)  # owed purple decisions
    events: list[str] = msgspec.field(default_factory=list)
    final: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    finished: bool = False

    def copy(self) -> State:
        """An independent copy for search (much cheaper than ``copy.deepcopy``): every
        part that play changes is copied as deep as it is nested; the parts fixed at
        setup (SHARED) are shared, and no rule changes them in place."""
        return msgspec.structs.replace(
            self,
            rng=self.rng.copy(),
            seats=[[list(occ) for occ in row] for row in self.seats],
            seat_chests=[[list(chests) for chests in row] for row in self.seat_chests],
            payment=[list(space) for space in self.payment],
            supply_chests=[list(space) for space in self.supply_chests],
            stack=list(self.stack),
            discard=list(self.discard),
            revealed=list(self.revealed),
            court=[list(c) for c in self.court],
            province=[list(c) for c in self.province],
            held=[list(h) for h in self.held],
            privileges=[list(h) for h in self.privileges],
            vp_card=list(self.vp_card),
            priv_left=list(self.priv_left),
            vp_stack=list(self.vp_stack),
            contracts=[list(h) for h in self.contracts],
            unused_contracts=list(self.unused_contracts),
            score=list(self.score),
            turn_track=list(self.turn_track),
            supply_track=list(self.supply_track),
            deploy_track=list(self.deploy_track),
            deploy=None if self.deploy is None else self.deploy.copy(),
            supply=None if self.supply is None else self.supply.copy(),
            to_score=list(self.to_score),
            scored=list(self.scored),
            pickers=list(self.pickers),
            queue=list(self.queue),
            kept=list(self.kept),
            to_court=list(self.to_court),
            purple_queue=list(self.purple_queue),
            events=list(self.events),
            final={who: dict(parts) for who, parts in self.final.items()},
        )


copy_state = State.copy  # the game's copy for the bots and undo (engine.Bots)

# Fields of State fixed at setup, shared between a state and its copy().
SHARED = ("data", "players", "options", "ring", "tiles", "seat_cost", "seat_noble", "rows",
          "unused_a", "priv_numbers")


def _enc_hook(obj: Any) -> Any:
    counters = getattr(obj, "counters", None)
    if counters is not None:
        return {"rng_counters": counters}
    raise TypeError(f"cannot encode {type(obj)}")


_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook, order="sorted")
ENCODED = tuple(f for f in State.__struct_fields__ if f != "data")


def encode(state: State) -> bytes:
    """The whole state but its data, as JSON with sorted keys (the bytes the state as a
    Struct of these fields would encode to)."""
    return _ENCODER.encode({f: getattr(state, f) for f in ENCODED})


def fingerprint(state: State) -> str:
    """A hash of the whole state, hidden parts and generator counters included."""
    return hashlib.sha256(encode(state)).hexdigest()
