"""The notation: examples from docs/dynasties.md read back to the intended moves."""

from __future__ import annotations

import pytest

from referee.errors import MalformedMove
from referee.games.dynasties import GAME
from referee.games.dynasties.moves import (
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

CASES = [
    ("trade 2 with 7", Trade(7, 2)),
    ("Trade 2 with card 7", Trade(7, 2)),
    ("trade twice 1 with 24 pay g", TradeTwice(24, 1, "g")),
    ("trade 3", SecondTrade(3)),
    ("prince paris with 5 pay kkk", Place(5, "prince", "paris", "kkk")),
    ("PRINCESS  Granada with a07 pay pppw", Place(7, "princess", "granada", "wppp")),
    ("princess brest with 3 special pay g", Place(3, "princess", "brest", "g", True)),
    ("prince Lübeck with 2 pay k", Place(2, "prince", "lubeck", "k")),
    ("use drake with 9 pay b", Use(9, "drake", "b")),
    ("use leonardo with 21 special pay pp", Use(21, "leonardo", "pp", True)),
    ("sit out 7", SitOut(7)),
    ("pass keep 12", Pass(0, 0, 12)),
    ("pass long keep 12", Pass(0, 0, 12)),
    ("pass 3 keep 12", Pass(3, 0, 12)),
    ("divide bw/gk", Divide("kg", "wb")),
    ("divide wg / kkp", Divide("kkp", "wg")),
    ("choose kkp", Choose("kkp")),
    ("take kg", Take("kg", "ship")),
    ("take k from ship 2", Take("k", "2")),
    ("take kkw from bag", Take("kkw", "bag")),
    ("divide child / arms+points", DivideDice("child", "arms+points")),
    ("divide points+arms / child", DivideDice("child", "arms+points")),
    ("choose points+arms", ChooseDice("arms+points")),
    ("keep y05", KeepScoring("y05")),
    ("bonus points", Bonus("points")),
    ("bonus ships", Bonus("ships")),
    ("upgrade sri", Country("upgrade", "sri")),
    ("wild hispania", Country("wild", "hispania")),
    ("marry paris", Marry("paris")),
    ("envoy book", Envoy("book")),
    ("save vienna", Monastery("vienna", True)),
    ("release barcelona", Monastery("barcelona", False)),
    ("score g03", Score("g03")),
    ("done", Done()),
]


@pytest.mark.parametrize(("text", "move"), CASES)
def test_reads(text: str, move: object) -> None:
    assert GAME.parse_move(text, []) == move
    assert GAME.parse_move(GAME.format_move(move), []) == move


@pytest.mark.parametrize("text", ["", "trade", "trade x with 3", "divide kk", "choose xyz",
                                  "prince paris", "take kw from the sea", "pass 2 with",
                                  "arms france"])
def test_malformed(text: str) -> None:
    with pytest.raises(MalformedMove):
        GAME.parse_move(text, [])
