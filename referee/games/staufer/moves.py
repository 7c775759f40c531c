"""Moves of The Staufer Dynasty (frozen msgspec Structs) and their text notation.

Notation (case-insensitive, extra spaces ignored, region names may be abbreviated to
any unique prefix):

    supply 2                 Supply action on Supply Board space 2 (1-5, left to right)
    supply 2 chests 4        ... using a turquoise "Supplies" chest: take the chests of space 4
    supply 2 +envoy +draw    ... with privilege 7 (extra Envoy) / privilege 8 (extra chest)
    deploy aachen 3          Move/Deploy action onto office seat 3 (1 = leftmost) of Aachen
    deploy aachen 3 free-move free-pay   ... using turquoise chests
    seat noble               who stands on the seat (then: nobles <regions>, double, bonus)
    seat envoy nobles milano ... with a Noble laid in Milano's payment space
    first                    use a turquoise "first position" chest this turn
    privilege 5              exchange 2 purple chests for privilege 5
    done                     end your turn without taking a privilege
    take milano              Supply shortage: take the figure from Milano's payment space
    deploy mailand 3         the German names of the cities are read too (Mailand,
                             Nimwegen, Strassburg/Straßburg; ae/oe/ue for umlauts);
                             the move is the same and is always written in English
    pick vp3                 Augsburg/Aachen bonus: take a revealed chest of this type
    keep aachen 3 envoy      Cleanup: keep this figure on its seat (turquoise chest)
    keep none
    return court             Cleanup with privilege 13: vacated figures go to the Court
    return province
"""

# (no `from __future__ import annotations`: msgspec reads the move types' annotations
# when it builds a file's decoder, and evaluating them from strings costs every `move`)

from collections.abc import Sequence
from typing import Annotated, Literal, Union, cast

import msgspec

from referee import i18n
from referee.engine import NUMBER_DIGITS_MAX
from referee.errors import AmbiguousMove, MalformedMove

from .components import current
from .texts import _

# Every field is constrained to the game's data, so that a hand-crafted game file with a
# value outside it ("region": "nowhere", "seat": 99) is rejected when the log is decoded,
# with the JSON path of the bad value, before any rule code sees it. The move types are
# the file format of the rules version (schemas/): their vocabulary comes from the
# current data files, and the rules read every other value from the game's own data.
_VOCABULARY = current()
REGION_KEYS: tuple[str, ...] = _VOCABULARY.region_keys
CHEST_TYPES: tuple[str, ...] = tuple(t for mix in _VOCABULARY.chest_mix.values() for t in mix)
SPACES = len(_VOCABULARY.supply_spaces)  # Supply Board spaces
FIGURES = ("envoy", "noble")
MAX_SEATS = _VOCABULARY.max_seats
MAX_NOBLES = _VOCABULARY.figures["N"]

Region = Literal[REGION_KEYS]  # type: ignore[valid-type]
ChestType = Literal[CHEST_TYPES]  # type: ignore[valid-type]
Figure = Literal["envoy", "noble"]
Space = Annotated[int, msgspec.Meta(ge=1, le=SPACES)]
SeatNumber = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS)]
PrivilegeNumber = Annotated[int, msgspec.Meta(ge=1, le=16)]
NobleSpaces = Annotated[tuple[Region, ...], msgspec.Meta(max_length=MAX_NOBLES)]


class Supply(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="supply"):
    space: Space
    chests: Annotated[int, msgspec.Meta(ge=0, le=SPACES)] = 0  # Supplies chest
    envoy: bool = False  # privilege 7
    draw: bool = False  # privilege 8


class Deploy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="deploy"):
    region: Region
    seat: SeatNumber  # 1 = leftmost
    free_move: bool = False  # turquoise "no movement cost"
    free_pay: bool = False  # turquoise "no payment cost to Deploy"


class Seat(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="seat"):
    figure: Figure  # the figure standing on the office seat
    nobles: NobleSpaces = ()  # payment spaces (regions) that get a Noble, alphabetical
    double: bool = False  # privilege 3: a second Envoy on the same seat
    bonus: bool = False  # take the Envoy shown on the Move/Deploy track space

    def __post_init__(self) -> None:
        if list(self.nobles) != sorted(self.nobles):
            raise ValueError("nobles must list the regions in alphabetical order")


class First(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="first"):
    pass


class Privilege(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="privilege"):
    number: PrivilegeNumber


class Done(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="done"):
    pass


class Take(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="take"):
    region: Region


class Pick(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="pick"):
    chest: ChestType  # chest type, e.g. "vp3", "purple", "free-move"


class Keep(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="keep"):
    region: Literal[("", *REGION_KEYS)] = ""  # type: ignore[valid-type]  # "" = keep none
    seat: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEATS)] = 0
    figure: Literal["", "envoy", "noble"] = ""

    def __post_init__(self) -> None:
        if (self.region == "") != (self.seat == 0) or (self.region == "") != (self.figure == ""):
            raise ValueError("keep names a region, a seat and a figure, or none of them")


class Return(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag="return"):
    court: bool


Move = Union[Supply, Deploy, Seat, First, Privilege, Done, Take, Pick, Keep, Return]  # noqa: UP007
MOVE_TYPE = Move


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
                out += " nobles " + " ".join(move.nobles)
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


def private_fields(move: Move) -> tuple[str, ...]:
    """No move of The Staufer Dynasty holds a secret: every field is public."""
    return ()


public_text = format_move  # (no secret in any move: what others read is the notation)


FORMS = (
    "supply <1-5> [chests <1-5>] [+envoy] [+draw]",
    "deploy <region> <seat> [free-move] [free-pay]",
    "seat <envoy|noble> [nobles <region> ...] [double] [bonus]",
    "first",
    "privilege <1-16>",
    "done",
    "take <region>",
    "pick <chest type>",
    "keep <region> <seat> <envoy|noble> | keep none",
    "return <court|province>",
)


#: the German names of regions where they differ from the English key (a token is read
#: after folding: lower case, ß -> ss, ä/ö/ü -> ae/oe/ue)
GERMAN_NAMES = {"mailand": "milano", "nimwegen": "nijmegen", "strassburg": "strasbourg"}


def _names() -> list[tuple[str, str]]:
    """(name, region key): every key, then every German name."""
    return [(k, k) for k in REGION_KEYS] + [(n, k) for n, k in GERMAN_NAMES.items()
                                            if k in REGION_KEYS]


def _bad(text: str, form: str) -> MalformedMove:
    return MalformedMove(_("cannot read {text}: expected {form}").format(
        text=repr(text), form=repr(form)), hints=list(FORMS))


def _int(tok: str, text: str, form: str, low: int, high: int) -> int:
    """A number in ``low..high`` (the range every move field is constrained to)."""
    if tok.isascii() and tok.isdigit() and len(tok) > NUMBER_DIGITS_MAX:
        raise MalformedMove(_("cannot read {text}: number too long ({digits} digits; "
                              "at most {most})").format(text=repr(text), digits=len(tok),
                                                        most=NUMBER_DIGITS_MAX),
                            hints=list(FORMS))
    if not (tok.isascii() and tok.isdigit()) or not low <= int(tok) <= high:
        raise _bad(text, form)
    return int(tok)


def _region(tok: str, text: str) -> str:
    """The region key ``tok`` names: a key or a German name, whole or a unique prefix."""
    if tok in REGION_KEYS:
        return tok
    folded = i18n.fold(tok)  # lower case, German letters spelt out (Straßburg -> strassburg)
    names = _names()
    exact = [k for n, k in names if n == folded]
    if exact:
        return exact[0]
    found = list(dict.fromkeys(k for n, k in names if n.startswith(folded)))
    if len(found) == 1:
        return found[0]
    if not found:
        raise MalformedMove(
            _("{token} in {text} is not a region").format(token=repr(tok), text=repr(text)),
            hints=[_("regions: {regions}").format(regions=", ".join(REGION_KEYS))])
    raise AmbiguousMove(_("{token} could be {regions}").format(
        token=repr(tok), regions=_(" or ").join(found)), legal=[])


def _flags(rest: list[str], allowed: set[str], text: str, form: str) -> set[str]:
    flags = set(rest)
    if len(flags) != len(rest) or not flags <= allowed:
        raise _bad(text, form)
    return flags


def _parse_supply(toks: list[str], text: str) -> Supply:
    form = FORMS[0]
    if len(toks) < 2:
        raise _bad(text, form)
    space = _int(toks[1], text, form, 1, SPACES)
    rest = toks[2:]
    chests = 0
    if rest[:1] == ["chests"]:
        if len(rest) < 2:
            raise _bad(text, form)
        chests = _int(rest[1], text, form, 1, SPACES)
        rest = rest[2:]
    flags = _flags(rest, {"+envoy", "+draw"}, text, form)
    return Supply(space, chests, "+envoy" in flags, "+draw" in flags)


def _parse_deploy(toks: list[str], text: str) -> Deploy:
    form = FORMS[1]
    if len(toks) < 3:
        raise _bad(text, form)
    region = _region(toks[1], text)
    seat = _int(toks[2], text, form, 1, MAX_SEATS)
    flags = _flags(toks[3:], {"free-move", "free-pay"}, text, form)
    return Deploy(region, seat, "free-move" in flags, "free-pay" in flags)


def _parse_seat(toks: list[str], text: str) -> Seat:
    form = FORMS[2]
    if len(toks) < 2 or toks[1] not in FIGURES:
        raise _bad(text, form)
    rest = toks[2:]
    nobles: list[str] = []
    if rest[:1] == ["nobles"]:
        rest = rest[1:]
        while rest and rest[0] not in ("double", "bonus"):
            nobles.append(_region(rest.pop(0), text))
        if not nobles or len(nobles) > MAX_NOBLES:
            raise _bad(text, form)
    flags = _flags(rest, {"double", "bonus"}, text, form)
    figure = cast(Figure, toks[1])  # (checked against FIGURES above)
    return Seat(figure, tuple(sorted(nobles)), "double" in flags, "bonus" in flags)


def _parse_keep(toks: list[str], text: str) -> Keep:
    form = FORMS[8]
    if toks[1:] == ["none"]:
        return Keep()
    if len(toks) != 4 or toks[3] not in FIGURES:
        raise _bad(text, form)
    return Keep(_region(toks[1], text), _int(toks[2], text, form, 1, MAX_SEATS),
                cast(Literal["envoy", "noble"], toks[3]))


def parse_move(text: str, legal: Sequence[Move] = ()) -> Move:
    """Read notation; raises MalformedMove or AmbiguousMove. Never decides legality."""
    toks = text.lower().replace(",", " ").split()
    if not toks:
        raise MalformedMove(_("empty move"), hints=list(FORMS))
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
        return Privilege(_int(toks[1], text, FORMS[4], 1, 16))
    if head == "take":
        if len(toks) != 2:
            raise _bad(text, FORMS[6])
        return Take(_region(toks[1], text))
    if head == "pick":
        if len(toks) != 2 or toks[1] not in CHEST_TYPES:
            raise MalformedMove(
                _("cannot read {text}: expected {form}").format(
                    text=repr(text), form=repr("pick <chest type>")),
                hints=[_("chest types: {types}").format(types=", ".join(CHEST_TYPES))],
            )
        return Pick(toks[1])
    if head == "keep":
        return _parse_keep(toks, text)
    if head == "return":
        if len(toks) != 2 or toks[1] not in ("court", "province"):
            raise _bad(text, FORMS[9])
        return Return(toks[1] == "court")
    raise MalformedMove(_("unknown move {word} in {text}").format(word=repr(head),
                                                                   text=repr(text)),
                        hints=list(FORMS))
