"""The Dynasties board as text: 80 columns at every player count and position, a legend
of every abbreviation it uses, and the same information as the view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.engine import Match
from referee.games.dynasties import GAME
from referee.games.dynasties.render import LEGEND
from referee.games.dynasties.views import view
from referee.play.statusview import load, status_text
from tests.engine.test_textlayout import played
from tests.render_narrow import board_and_legend, walk_boards

# an abbreviation the board may use -> the legend entry that explains it
ABBREVIATIONS = {
    r"^  \S+ +\S+ +\d+ +\d+ +\d+ +\d+ +\d+ [kwgbp]+\b":
        "goods k black, w white, g gold-yellow, b light blue, p pink",
    r"\b\d[kw] ": "3k/1w Prince costs 3 black/Princess 1 white",
    r"large [PW]\*": "large P*/W* the large space is the Prince's/Princess'",
    r"\d: [kwgbp-]+ \[[^\]/]+/[^\]/]+\]": "ship [ann/ben] ann on its large, ben on its small "
                                          "space",
    r":\w+\(\d[bg]\b": "2b/1g costs 2 light blue/1 gold",
    r"\b\d\(\dp\):": "1(3p):ann space 1 costs 3 pink, taken by ann",
    r"\d+ = a\d\d": "card 7 = a07",
    r"(: | )-( |$)": "- none",
}


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("names", ["short", "long"])
def test_every_line_fits_80_columns_and_the_legend_explains_it(n: int, names: str) -> None:
    walk_boards(GAME, n, names, ABBREVIATIONS, every=20)


def test_the_narrow_board_keeps_what_the_view_holds(tmp_path: Path) -> None:
    who = played("dynasties", 4, 40, tmp_path / "g.json")
    _, match = load(tmp_path / "g.json")
    v = view(match.state, who)
    text = GAME.render(match.state, who)
    for p in v["players"]:
        assert re.search(rf"^  {p['id']} +{p['colour']} +{p['score']} +{p['supply']} +"
                         rf"{p['action_cards']} +{p['scoring_cards']} +"
                         rf"{p['book_tiles_face_down']} {p['goods'] or '-'}\b", text, re.M)
    for c in v["cities"]:
        assert re.search(
            rf"^   {c['city']} +{c['symbol']} +{c['prince']['cost']} "
            rf"{c['prince']['player']} +\| {c['princess']['cost']} "
            rf"{c['princess']['player']} +\| {c['child']} +large [PW]\*", text, re.M), c
    assert text.count(" France  [1st ") == 1
    for s in v["ships"]:
        assert f"{s['ship']}: {s['goods'] or '-'} [{s['large']}/{s['small']}]" in text
    for card in v["you"]["hand"]:
        assert f"\n  {card}" in text
    for card in v["you"]["scoring_cards"]:
        assert f"\n  {card}" in text


def test_status_fits_80_columns_and_groups_the_legal_moves(tmp_path: Path) -> None:
    who = played("dynasties", 4, 8, tmp_path / "g.json")
    gf, match = load(tmp_path / "g.json")
    text = status_text(gf, match, who, "g.json")
    lines = text.split("\n")
    assert max(len(line) for line in lines) <= 80
    start = lines.index("legal moves for cat (49; a,b = one of the values):")
    assert lines[start + 1:] == [
        "  prince: carcassonne with 5,17 pay k | york with 5,17 pay k",
        "    canterbury with 5,17 pay k | madrid with 5,17 pay k",
        "    granada with 5,17 pay k | sevilla with 5,17 pay k | prague with 5,17 pay k",
        "    lubeck with 5,17 pay k | nuremberg with 5,17 pay k",
        "    edinburgh with 9 special pay g | augsburg with 17 special pay g",
        "  use: drake with 5,9,17 pay b | merchant with 5,9,17 pay b",
        "    leonardo with 5,9,17 pay b | diplomat with 5,9,17",
        "  sit out: 5,9,17",
        "  trade: 1,2,3 with 9",
        "  princess: edinburgh with 9 special pay g | augsburg with 17 special pay g",
        "  pass: 3 keep 5,9,17 | 4 keep 5,9,17 | keep 5,9,17",
    ]


def test_legend_is_short() -> None:
    match = Match.start(GAME, ["ann", "ben", "cat"], {}, "legend")
    text = GAME.render(match.state, "ann")
    _, legend = board_and_legend(text)
    assert legend == "Legend: " + "; ".join(LEGEND)
