"""Moves of Dynasties and their e-mail notation. The move types themselves (a msgspec
tagged union) are defined in :mod:`.movetypes`, below the component data that the
notation reads; every move type is imported from here as well.

Goods are letters: k black, w white, g gold-yellow, b light blue, p pink. Action cards
are numbers (card a07 is ``7``). See docs/dynasties.md for every form.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from referee import i18n
from referee.engine import NUMBER_DIGITS_MAX
from referee.errors import AmbiguousMove, MalformedMove

from .data import Data
from .movetypes import (
    COLOURS,
    Bonus,
    Choose,
    ChooseDice,
    Country,
    Divide,
    DivideDice,
    Done,
    Envoy,
    KeepScoring,
    Marry,
    Monastery,
    Pass,
    Place,
    Score,
    SecondTrade,
    SitOut,
    Take,
    Trade,
    TradeTwice,
    Use,
)
from .movetypes import WORDS as WORDS  # the words of the notation (game() compares them)
from .movetypes import Move as Move  # the union of the move types (the game's move_type)
from .words import GERMAN_GOODS, N_, _, german_aliases, ngettext

ORDER = {c: i for i, c in enumerate(COLOURS)}


def goods_str(text: str) -> str:
    """Goods letters in canonical colour order."""
    return "".join(sorted(text, key=ORDER.__getitem__))


def goods_pair(a: str, b: str) -> tuple[str, str]:
    """A division in canonical order: larger group first, then by letters."""
    a, b = goods_str(a), goods_str(b)
    return (a, b) if (-len(a), [ORDER[c] for c in a]) <= (-len(b), [ORDER[c] for c in b]) \
        else (b, a)


def faces_str(faces: Sequence[str], order: dict[str, int]) -> str:
    """Die faces joined by + in the order of the data's faces (``Data.face_order``)."""
    return "+".join(sorted(faces, key=order.__getitem__))


# --- formatting ---------------------------------------------------------------------------
def _pay(pay: str) -> str:
    return f" pay {pay}" if pay else ""


def format_move(m: Any) -> str:
    match m:
        case Trade(card, ship):
            return f"trade {ship} with {card}"
        case TradeTwice(card, ship, pay):
            return f"trade twice {ship} with {card}{_pay(pay)}"
        case SecondTrade(ship):
            return f"trade {ship}"
        case Place(card, figure, city, pay, special):
            return f"{figure} {city} with {card}{' special' if special else ''}{_pay(pay)}"
        case Use(card, personality, pay, special):
            return f"use {personality} with {card}{' special' if special else ''}{_pay(pay)}"
        case SitOut(card):
            return f"sit out {card}"
        case Pass(space, card, keep):
            text = "pass" if card else ("pass" if space == 0 else f"pass {space}")
            if card:
                text += f" with {card}"
            return text + (f" keep {keep}" if keep else "")
        case Divide(first, second):
            return f"divide {first}/{second}"
        case Choose(goods):
            return f"choose {goods}"
        case Take(goods, source):
            if source == "ship":
                return f"take {goods}"
            return f"take {goods} from " + ("bag" if source == "bag" else f"ship {source}")
        case DivideDice(single, pair):
            return f"divide {single} / {pair}"
        case ChooseDice(faces):
            return f"choose {faces}"
        case KeepScoring(card):
            return f"keep {card}"
        case Bonus(space):
            return f"bonus {space}"
        case Country(purpose, country):
            return f"{purpose} {country}"
        case Marry(city):
            return f"marry {city}"
        case Envoy(city):
            return f"envoy {city}"
        case Monastery(city, save):
            return f"{'save' if save else 'release'} {city}"
        case Score(card):
            return f"score {card}"
        case Done():
            return "done"
    raise TypeError(f"not a Dynasties move: {m!r}")


# --- hidden choices -------------------------------------------------------------------------
# The fields that may be sealed, by move type: the public part of such a move is the move
# without them (published in schemas/dynasties.schema.json as SealedMove).
SEALED_FIELDS: dict[str, tuple[str, ...]] = {"pass": ("keep",), "keep": ("card",)}


def private_fields(m: Any) -> tuple[str, ...]:
    """Fields only the mover may see: the action card kept when passing and the scoring
    card kept out of those drawn. Every other choice is made in the open."""
    if isinstance(m, Pass) and m.keep:
        return ("keep",)
    if isinstance(m, KeepScoring):
        return ("card",)
    return ()


def public_text(m: Any) -> str:
    """The move as the other players may read it; never uses a private field's value."""
    if isinstance(m, Pass) and m.keep:
        return format_move(msgspec.structs.replace(m, keep=0)) + ", kept a card"
    if isinstance(m, KeepScoring):
        return "kept a scoring card"
    return format_move(m)


def shown_public_text(m: Any) -> str:
    """:func:`public_text` as a reader sees it: the notation, the words around a hidden
    choice in the reader's language."""
    if isinstance(m, Pass) and m.keep:
        return _("{move}, kept a card").format(
            move=format_move(msgspec.structs.replace(m, keep=0)))
    if isinstance(m, KeepScoring):
        return _("kept a scoring card")
    return format_move(m)


# --- parsing ------------------------------------------------------------------------------
FORMS = [
    "trade SHIP with CARD", "trade twice SHIP with CARD pay GOODS", "trade SHIP",
    "prince|princess CITY with CARD [special] [pay GOODS]",
    "use PERSONALITY with CARD [special] [pay GOODS]", "sit out CARD",
    "pass [SPACE] [with CARD] [keep CARD]", "divide GOODS/GOODS", "choose GOODS",
    "take GOODS [from bag|from ship N]", "divide FACE / FACE+FACE", "choose FACE[+FACE]",
    "keep SCORINGCARD", "bonus SPACE", "upgrade|wild COUNTRY", "marry CITY",
    "envoy FREECITY", "save|release CITY", "score SCORINGCARD", "done",
]
_TOKEN = re.compile(r"[a-z0-9\-]+|[/+]")


#: what a reader expects next, as the parse errors name it (``_Reader``'s ``what``, the
#: key of aliases() too): marked here for the catalog, translated where it is shown
EXPECTED = (
    N_("a move"), N_("a ship"), N_("a ship (1-3)"), N_("an action card"),
    N_("a Pass action card"), N_("a passing-track space"), N_("the action card you keep"),
    N_("goods letters (k w g b p)"), N_("a city"), N_("a free city"), N_("a country"),
    N_("a personality"), N_("a scoring card"), N_("a bonus space"), N_("a die face"),
)
#: the fields a short move may leave out, as an ambiguous move names them (``pay`` and
#: ``keep`` are the notation's words)
FIELD_NAMES = {"space": N_("space")}


def _what(what: str) -> str:
    return _(what)


def _malformed(text: str, why: str) -> MalformedMove:
    return MalformedMove(
        _("cannot read {text} as a Dynasties move: {why}").format(text=repr(text), why=why),
        hints=[_("move forms: {forms}").format(forms="; ".join(FORMS))],
    )


class _Reader:
    def __init__(self, text: str, data: Data) -> None:
        self.text = text
        self.data = data  # the names of cards, cities, ... come from the game's data
        norm = i18n.fold(text, plain=True).replace("sit-out", "sit out")
        self.toks = _TOKEN.findall(norm)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, what: str) -> str:
        tok = self.peek()
        if tok is None:
            raise _malformed(self.text, _("expected {what} at the end").format(
                what=_what(what)))
        self.i += 1
        return tok

    def accept(self, word: str) -> bool:
        if self.peek() == word:
            self.i += 1
            return True
        return False

    def number(self, what: str) -> int:
        tok = self.take(what)
        if tok == "card":
            tok = self.take(what)
        tok = tok.removeprefix("a") if re.fullmatch(r"a\d+", tok) else tok
        if not (tok.isascii() and tok.isdigit()):
            raise _malformed(self.text, _("expected {what} (a number), got {token}").format(
                what=_what(what), token=repr(tok)))
        if len(tok) > NUMBER_DIGITS_MAX:
            raise _malformed(self.text, _("number too long: {what} has at most {digits} "
                                          "digits").format(what=_what(what),
                                                           digits=NUMBER_DIGITS_MAX))
        return int(tok)

    def goods(self, what: str = "goods letters (k w g b p)") -> str:
        tok = self.take(what)
        if tok in ("none", "-", "keine"):
            return ""
        tok = tok.translate(GERMAN_GOODS)  # s schwarz = k, r rosa = p
        if not all(c in COLOURS for c in tok):
            raise _malformed(self.text, _("expected {what}, got {token}").format(
                what=_what(what), token=repr(tok)))
        return goods_str(tok)

    def word(self, what: str, choices: Sequence[str]) -> str:
        tok = self.take(what)
        tok = aliases(self.data).get(what, {}).get(tok, tok)
        if tok not in choices:
            raise _malformed(self.text, _("{token} is not {what}; one of: {choices}").format(
                token=repr(tok), what=_what(what), choices=", ".join(choices)))
        return tok

    def end(self) -> None:
        if self.peek() is not None:
            raise _malformed(self.text, _("unexpected {words}").format(
                words=repr(" ".join(self.toks[self.i:]))))

    def faces(self) -> list[str]:
        out = [self.word("a die face", self.data.faces)]
        while self.accept("+"):
            out.append(self.word("a die face", self.data.faces))
        return out


@functools.cache
def aliases(data: Data) -> dict[str, dict[str, str]]:
    """The German names the notation accepts, by the kind of word (``what`` of
    ``_Reader.word``): spelling -> key (``wien`` -> ``vienna``, ``frankreich`` ->
    ``france``)."""
    return {
        "a city": german_aliases({k: c.name for k, c in data.cities.items()},
                                 list(data.cities)),
        "a country": german_aliases(data.country_names, data.countries),
        "a personality": german_aliases({k: p.name for k, p in data.personalities.items()},
                                        list(data.personalities)),
    }


def _card_and_pay(r: _Reader) -> tuple[int, bool, str | None]:
    if not r.accept("with"):
        raise _malformed(r.text, _("expected 'with CARD'"))
    card = r.number("an action card")
    special = r.accept("special")
    pay = r.goods() if r.accept("pay") else None
    r.end()
    return card, special, pay


#: a move's fields as the text gave them, by name (None: left out, filled from the legal
#: moves) and the type of the move they make
Fields = dict[str, int | str | bool | None]
Parsed = tuple[type, Fields]


def _trade(r: _Reader, verb: str) -> Parsed:
    if r.accept("twice"):
        ship = r.number("a ship")
        card, _special, pay = _card_and_pay(r)
        return TradeTwice, {"card": card, "ship": ship, "pay": pay}
    ship = r.number("a ship (1-3)")
    if r.peek() is None:
        return SecondTrade, {"ship": ship}
    card, special, pay = _card_and_pay(r)
    if special or pay is not None:
        return TradeTwice, {"card": card, "ship": ship, "pay": pay}
    return Trade, {"card": card, "ship": ship}


def _place(r: _Reader, verb: str) -> Parsed:
    city = r.word("a city", list(r.data.cities))
    card, special, pay = _card_and_pay(r)
    return Place, {"card": card, "figure": verb, "city": city, "pay": pay, "special": special}


def _use(r: _Reader, verb: str) -> Parsed:
    who = r.word("a personality", list(r.data.personalities))
    card, special, pay = _card_and_pay(r)
    return Use, {"card": card, "personality": who, "pay": pay, "special": special}


def _sit_out(r: _Reader, verb: str) -> Parsed:
    if verb == "sit" and not r.accept("out"):
        raise _malformed(r.text, _("expected 'sit out CARD'"))
    r.accept("with")
    card = r.number("an action card")
    r.end()
    return SitOut, {"card": card}


def _pass(r: _Reader, verb: str) -> Parsed:
    space: int | None = None
    if r.accept("long"):
        space = 0
    elif (r.peek() or "").isdigit():
        space = r.number("a passing-track space")
    card = 0
    if r.accept("with"):
        card = r.number("a Pass action card")
    elif space is None:
        space = 0
    keep = r.number("the action card you keep") if r.accept("keep") else None
    r.end()
    return Pass, {"space": space, "card": card, "keep": keep}


def _divide(r: _Reader, verb: str) -> Parsed:
    if r.peek() in r.data.faces:
        return _divide_dice(r)
    a = r.goods()
    if not r.accept("/"):
        raise _malformed(r.text, _("expected 'divide GOODS/GOODS'"))
    b = r.goods()
    r.end()
    first, second = goods_pair(a, b)
    return Divide, {"first": first, "second": second}


def _divide_dice(r: _Reader) -> Parsed:
    one = r.faces()
    if not r.accept("/"):
        raise _malformed(r.text, _("expected 'divide FACE / FACE+FACE'"))
    two = r.faces()
    r.end()
    if len(one) == 2 and len(two) == 1:
        one, two = two, one
    if len(one) != 1 or len(two) != 2:
        raise _malformed(r.text, _("the dowry is divided 1 die / 2 dice"))
    return DivideDice, {"single": one[0], "pair": faces_str(two, r.data.face_order)}


def _choose(r: _Reader, verb: str) -> Parsed:
    if r.peek() in r.data.faces:
        faces = r.faces()
        r.end()
        return ChooseDice, {"faces": faces_str(faces, r.data.face_order)}
    goods = r.goods()
    r.end()
    return Choose, {"goods": goods}


def _take(r: _Reader, verb: str) -> Parsed:
    goods = r.goods()
    source = "ship"
    if r.accept("from"):
        if r.accept("bag"):
            source = "bag"
        else:
            r.accept("ship")
            source = str(r.number("a ship (1-3)"))
    r.end()
    return Take, {"goods": goods, "source": source}


def _scoring_card(r: _Reader, verb: str) -> Parsed:
    scoring = r.word("a scoring card", list(r.data.scoring))
    r.end()
    return (KeepScoring if verb == "keep" else Score), {"card": scoring}


def _bonus(r: _Reader, verb: str) -> Parsed:
    space = r.word("a bonus space", list(r.data.bonus))
    r.end()
    return Bonus, {"space": space}


def _country(r: _Reader, verb: str) -> Parsed:
    country = r.word("a country", r.data.countries)
    r.end()
    return Country, {"purpose": verb, "country": country}


def _marry(r: _Reader, verb: str) -> Parsed:
    city = r.word("a city", list(r.data.cities))
    r.end()
    return Marry, {"city": city}


def _envoy(r: _Reader, verb: str) -> Parsed:
    city = r.word("a free city", r.data.free_cities)
    r.end()
    return Envoy, {"city": city}


def _monastery(r: _Reader, verb: str) -> Parsed:
    city = r.word("a city", list(r.data.cities))
    r.end()
    return Monastery, {"city": city, "save": verb == "save"}


def _done(r: _Reader, verb: str) -> Parsed:
    r.end()
    return Done, {}


#: what each verb of the notation reads (docs/dynasties.md has every form)
VERBS: dict[str, Callable[[_Reader, str], Parsed]] = {
    "trade": _trade, "prince": _place, "princess": _place, "use": _use, "sit": _sit_out,
    "sitout": _sit_out, "pass": _pass, "divide": _divide, "choose": _choose, "take": _take,
    "keep": _scoring_card, "score": _scoring_card, "bonus": _bonus, "upgrade": _country,
    "wild": _country, "marry": _marry, "envoy": _envoy, "save": _monastery,
    "release": _monastery, "done": _done,
}


def _parse(r: _Reader) -> Parsed:
    verb = r.take("a move")
    read = VERBS.get(verb)
    if read is None:
        raise _malformed(r.text, _("unknown verb {verb}").format(verb=repr(verb)))
    return read(r, verb)


def _turn_trade(text: str, ship: int, legal: Sequence[Any]) -> Any:
    """``trade SHIP`` on a turn (no second trade pending): the Trade with the one action
    card that allows it, or ambiguous among the cards that do (listed to the mover, like
    the closest legal moves)."""
    fits = [m for m in legal if type(m) is Trade and m.ship == ship]
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:
        raise AmbiguousMove(
            _("{text} fits several legal moves; say which action card "
              "(trade {ship} with CARD)").format(text=repr(text), ship=ship),
            legal=[format_move(m) for m in fits],
        )
    return SecondTrade(ship)


DEFAULTS: Fields = {"pay": "", "keep": 0, "space": 1}

#: what each bounded field is, as a refusal names it (the words of ``EXPECTED``)
FIELD_WHAT = {"card": "an action card", "keep": "the action card you keep", "ship": "a ship",
              "space": "a passing-track space", "source": "a ship (1-3)",
              **dict.fromkeys(("pay", "goods", "first", "second"), "goods letters (k w g b p)")}


def _bounded(move: Any, text: str) -> Any:
    """``move`` if every field is within the bounds its type declares (what the file
    format checks of a logged move); else the text is malformed, naming the bound."""
    try:
        msgspec.convert(msgspec.to_builtins(move), type(move))
    except msgspec.ValidationError as exc:
        raise _malformed(text, _out_of_bounds(move) or str(exc)) from None
    return move


def _out_of_bounds(move: Any) -> str | None:
    """Which field of ``move`` is past its bound, in the reader's words."""
    import msgspec.inspect as mi  # only for a refused move

    info = mi.type_info(type(move))
    assert isinstance(info, mi.StructType)
    for field in info.fields:
        kind = field.type.type if isinstance(field.type, mi.Metadata) else field.type
        value, what = getattr(move, field.name), _what(FIELD_WHAT.get(field.name, field.name))
        if isinstance(kind, mi.IntType) and kind.ge is not None and kind.le is not None \
                and not kind.ge <= value <= kind.le:
            return _("{what} is a number from {low} to {high}, not {value}").format(
                what=what, low=kind.ge, high=kind.le, value=value)
        if isinstance(kind, mi.StrType) and kind.max_length is not None \
                and len(value) > kind.max_length:
            return _("{what}: at most {most}, not {count}").format(
                what=what, most=kind.max_length, count=len(value))
        if isinstance(kind, mi.LiteralType) and value not in kind.values:
            return _("{value} is not {what}").format(value=repr(value), what=what)
    return None


def parse_move(text: str, legal: Sequence[Any], data: Data) -> Any:
    """Read notation (the names of ``data``); fields left out (pay, keep, space) are
    filled from ``legal``.
    ``choose 1`` / ``choose 2`` pick the groups in the order they were offered."""
    numbered = re.fullmatch(r"\s*choose\s+([12])\s*", text.lower())
    if numbered:
        offered = [m for m in legal if isinstance(m, (Choose, ChooseDice))]
        k = int(numbered.group(1))
        if k > len(offered):
            raise _malformed(text, ngettext("only {count} group is on offer now",
                                            "only {count} groups are on offer now",
                                            len(offered)).format(count=len(offered)))
        return offered[k - 1]
    cls, fields = _parse(_Reader(text, data))
    ship = fields.get("ship")
    if cls is SecondTrade and isinstance(ship, int) and SecondTrade(ship) not in legal:
        return _bounded(_turn_trade(text, ship, legal), text)
    missing = [k for k, v in fields.items() if v is None]
    if not missing:
        return _bounded(cls(**fields), text)
    given = {k: v for k, v in fields.items() if v is not None}
    fits = [m for m in legal if type(m) is cls
            and all(getattr(m, k) == v for k, v in given.items())]
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:  # listed as others may read them: a hand is never printed
        named = [_(FIELD_NAMES[k]) if k in FIELD_NAMES else k for k in missing]
        raise AmbiguousMove(
            _("{text} fits several legal moves; say which ({fields})").format(
                text=repr(text), fields=", ".join(named)),
            legal=list(dict.fromkeys(shown_public_text(m) for m in fits)),
        )
    return _bounded(cls(**{**given, **{k: DEFAULTS[k] for k in missing}}), text)
