"""Moves of The Staufer Dynasty (frozen msgspec Structs) and their text notation.

Notation (case-insensitive, extra spaces ignored, region names may be abbreviated to
any unique prefix):

    supply 2                 Supply action on Supply Board space 2 (1-5, left to right)
    supply 2 chests 4        ... using a turquoise "Supplies" chest: take the chests of space 4
    supply 2 +envoy +draw    ... with privilege 7 (extra Envoy) / privilege 8 (extra chest)
    deploy aachen 3          Move/Deploy action onto office seat 3 (1 = leftmost) of Aachen
    deploy aachen 3 free-move free-pay   ... using turquoise chests
    seat noble               who stands on the seat (then: nobles 1, double, bonus)
    first                    use a turquoise "first position" chest this turn
    privilege 5              exchange 2 purple chests for privilege 5
    done                     end your turn without taking a privilege
    take milano              Supply shortage: take the figure from Milano's payment space
    pick vp3                 Augsburg/Aachen bonus: take a revealed chest of this type
    keep aachen 3 envoy      Cleanup: keep this figure on its seat (turquoise chest)
    keep none
    return court             Cleanup with privilege 13: vacated figures go to the Court
    return province
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import msgspec

from referee.errors import AmbiguousMove, MalformedMove

from .components import CHEST_MIX, REGION_KEYS


class Supply(msgspec.Struct, frozen=True, tag="supply"):
    space: int
    chests: int = 0  # turquoise Supplies chest: take the chests of this space instead
    envoy: bool = False  # privilege 7
    draw: bool = False  # privilege 8


class Deploy(msgspec.Struct, frozen=True, tag="deploy"):
    region: str
    seat: int  # 1 = leftmost
    free_move: bool = False  # turquoise "no movement cost"
    free_pay: bool = False  # turquoise "no payment cost to Deploy"


class Seat(msgspec.Struct, frozen=True, tag="seat"):
    figure: str  # "envoy" | "noble": the figure standing on the office seat
    nobles: int = 0  # Nobles among the figures laid in payment spaces
    double: bool = False  # privilege 3: a second Envoy on the same seat
    bonus: bool = False  # take the Envoy shown on the Move/Deploy track space


class First(msgspec.Struct, frozen=True, tag="first"):
    pass


class Privilege(msgspec.Struct, frozen=True, tag="privilege"):
    number: int


class Done(msgspec.Struct, frozen=True, tag="done"):
    pass


class Take(msgspec.Struct, frozen=True, tag="take"):
    region: str


class Pick(msgspec.Struct, frozen=True, tag="pick"):
    chest: str  # chest type, e.g. "vp3", "purple", "free-move"


class Keep(msgspec.Struct, frozen=True, tag="keep"):
    region: str = ""  # "" = keep none
    seat: int = 0
    figure: str = ""


class Return(msgspec.Struct, frozen=True, tag="return"):
    court: bool


Move = Union[Supply, Deploy, Seat, First, Privilege, Done, Take, Pick, Keep, Return]  # noqa: UP007
MOVE_TYPE = Move

CHEST_TYPES: tuple[str, ...] = tuple(t for mix in CHEST_MIX.values() for t in mix)
FIGURES = ("envoy", "noble")


def format_move(move: Move) -> str:
    match move:
        case Supply():
            out = f"supply {move.space}"
            if move.chests:
                out += f" chests {move.chests}"
            if move.envoy:
                out += " +envoy"
            if move.draw:
                out += " +draw"
            return out
        case Deploy():
            out = f"deploy {move.region} {move.seat}"
            if move.free_move:
                out += " free-move"
            if move.free_pay:
                out += " free-pay"
            return out
        case Seat():
            out = f"seat {move.figure}"
            if move.nobles:
                out += f" nobles {move.nobles}"
            if move.double:
                out += " double"
            if move.bonus:
                out += " bonus"
            return out
        case First():
            return "first"
        case Privilege():
            return f"privilege {move.number}"
        case Done():
            return "done"
        case Take():
            return f"take {move.region}"
        case Pick():
            return f"pick {move.chest}"
        case Keep():
            if not move.region:
                return "keep none"
            return f"keep {move.region} {move.seat} {move.figure}"
        case Return():
            return "return court" if move.court else "return province"
    raise TypeError(f"not a staufer move: {move!r}")


FORMS = (
    "supply <1-5> [chests <1-5>] [+envoy] [+draw]",
    "deploy <region> <seat> [free-move] [free-pay]",
    "seat <envoy|noble> [nobles <k>] [double] [bonus]",
    "first",
    "privilege <1-16>",
    "done",
    "take <region>",
    "pick <chest type>",
    "keep <region> <seat> <envoy|noble> | keep none",
    "return <court|province>",
)


def _bad(text: str, form: str) -> MalformedMove:
    return MalformedMove(f"cannot read {text!r}: expected {form!r}", hints=list(FORMS))


def _int(tok: str, text: str, form: str) -> int:
    if not tok.isdigit():
        raise _bad(text, form)
    return int(tok)


def _region(tok: str, text: str) -> str:
    found = [r for r in REGION_KEYS if r.startswith(tok)]
    if tok in REGION_KEYS:
        return tok
    if len(found) == 1:
        return found[0]
    if not found:
        raise MalformedMove(
            f"{tok!r} in {text!r} is not a region", hints=[f"regions: {', '.join(REGION_KEYS)}"]
        )
    raise AmbiguousMove(f"{tok!r} could be {' or '.join(found)}", legal=[])


def _flags(rest: list[str], allowed: set[str], text: str, form: str) -> set[str]:
    flags = set(rest)
    if len(flags) != len(rest) or not flags <= allowed:
        raise _bad(text, form)
    return flags


def _parse_supply(toks: list[str], text: str) -> Supply:
    form = FORMS[0]
    if len(toks) < 2:
        raise _bad(text, form)
    space = _int(toks[1], text, form)
    rest = toks[2:]
    chests = 0
    if rest[:1] == ["chests"]:
        if len(rest) < 2:
            raise _bad(text, form)
        chests = _int(rest[1], text, form)
        rest = rest[2:]
    flags = _flags(rest, {"+envoy", "+draw"}, text, form)
    return Supply(space, chests, "+envoy" in flags, "+draw" in flags)


def _parse_deploy(toks: list[str], text: str) -> Deploy:
    form = FORMS[1]
    if len(toks) < 3:
        raise _bad(text, form)
    region = _region(toks[1], text)
    seat = _int(toks[2], text, form)
    flags = _flags(toks[3:], {"free-move", "free-pay"}, text, form)
    return Deploy(region, seat, "free-move" in flags, "free-pay" in flags)


def _parse_seat(toks: list[str], text: str) -> Seat:
    form = FORMS[2]
    if len(toks) < 2 or toks[1] not in FIGURES:
        raise _bad(text, form)
    rest = toks[2:]
    nobles = 0
    if rest[:1] == ["nobles"]:
        if len(rest) < 2:
            raise _bad(text, form)
        nobles = _int(rest[1], text, form)
        rest = rest[2:]
    flags = _flags(rest, {"double", "bonus"}, text, form)
    return Seat(toks[1], nobles, "double" in flags, "bonus" in flags)


def _parse_keep(toks: list[str], text: str) -> Keep:
    form = FORMS[8]
    if toks[1:] == ["none"]:
        return Keep()
    if len(toks) != 4 or toks[3] not in FIGURES:
        raise _bad(text, form)
    return Keep(_region(toks[1], text), _int(toks[2], text, form), toks[3])


def parse_move(text: str, legal: Sequence[Move] = ()) -> Move:
    """Read notation; raises MalformedMove or AmbiguousMove. Never decides legality."""
    toks = text.lower().replace(",", " ").split()
    if not toks:
        raise MalformedMove("empty move", hints=list(FORMS))
    head = toks[0]
    if head == "supply":
        return _parse_supply(toks, text)
    if head == "deploy":
        return _parse_deploy(toks, text)
    if head == "seat":
        return _parse_seat(toks, text)
    if head in ("first", "done"):
        if len(toks) != 1:
            raise _bad(text, head)
        return First() if head == "first" else Done()
    if head == "privilege":
        if len(toks) != 2:
            raise _bad(text, FORMS[4])
        return Privilege(_int(toks[1], text, FORMS[4]))
    if head == "take":
        if len(toks) != 2:
            raise _bad(text, FORMS[6])
        return Take(_region(toks[1], text))
    if head == "pick":
        if len(toks) != 2 or toks[1] not in CHEST_TYPES:
            raise MalformedMove(
                f"cannot read {text!r}: expected 'pick <chest type>'",
                hints=[f"chest types: {', '.join(CHEST_TYPES)}"],
            )
        return Pick(toks[1])
    if head == "keep":
        return _parse_keep(toks, text)
    if head == "return":
        if len(toks) != 2 or toks[1] not in ("court", "province"):
            raise _bad(text, FORMS[9])
        return Return(toks[1] == "court")
    raise MalformedMove(f"unknown move {head!r} in {text!r}", hints=list(FORMS))
