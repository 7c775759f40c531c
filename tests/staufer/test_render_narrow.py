"""The Staufer board as text: 80 columns at every player count and position, a legend
of every abbreviation it uses, and the same information as the view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.engine import Match
from referee.games.staufer import GAME
from referee.games.staufer.render import LEGEND
from referee.games.staufer.views import view
from referee.play.statusview import load, status_text
from tests.engine.test_textlayout import played
from tests.render_narrow import board_and_legend, walk_boards

# an abbreviation the board may use -> the legend entry that explains it
ABBREVIATIONS = {
    r"\[\d+/\d+(/\d+)?\]": "[9/7/5] points for 1st/2nd/3rd most figures",
    r"\b\d+N!": "7N! costs 7, Nobles only",
    r":[EN]\b": "ann:E/ann:N ann's Envoy/Noble",
    r"\b\d+E \d+N\b": "2E 1N 2 Envoys, 1 Noble",
    r"\bvp\d\b": "vp3 3 points",
    r"\benvoy\d\b": "envoy2 2 Envoys",
    r"#\d+": "#5 privilege 5",
    r"\bx\d+\b": "x2 2 left",
    r"(: | )-( |$)": "- none",
}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("names", ["short", "long"])
def test_every_line_fits_80_columns_and_the_legend_explains_it(n: int, names: str) -> None:
    walk_boards(GAME, n, names, ABBREVIATIONS, every=25)


def test_the_narrow_board_keeps_what_the_view_holds(tmp_path: Path) -> None:
    who = played("staufer", 4, 60, tmp_path / "g.json")
    _, match = load(tmp_path / "g.json")
    v = view(match.state, who)
    text = GAME.render(match.state, who)
    flat = " ".join(text.split())
    king = next(r for r in v["regions"] if r["king"])
    assert re.search(rf"^{king['title']} \[[\d/]+\] bonus: .*<KING>$", text, re.M)
    assert text.count("<KING>") == 1
    for r in v["regions"]:
        for s in r["seats"]:
            figs = ", ".join(s["figures"]) or "-"
            chests = ", ".join(s["chests"]) or "-"
            mark = "N!" if s["noble_only"] else "  "
            assert re.search(rf"^  seat {s['seat']} {s['cost']}{mark} {re.escape(figs)} +"
                             rf"chests: {re.escape(chests)}$", text, re.M)
    for name, pv in v["players"].items():
        privileges = ", ".join(f"#{n}" for n in pv["privileges"]) or "-"
        assert re.search(rf"^{name} +{pv['score']} pts  Court {pv['court']['envoys']}E "
                         rf"{pv['court']['nobles']}N  privileges: {privileges}", text, re.M)
        assert f"chests: {', '.join(pv['chests']) or '-'}" in flat
    for c in v["your_contracts"]:
        assert c["text"] in flat
    assert f"Turn order: {', '.join(v['tracks']['turn_order'])}" in text


def test_status_fits_80_columns_and_groups_the_legal_moves(tmp_path: Path) -> None:
    who = played("staufer", 3, 36, tmp_path / "g.json")
    gf, match = load(tmp_path / "g.json")
    text = status_text(gf, match, who, "g.json")
    assert max(len(line) for line in text.split("\n")) <= 80
    assert text.split("\n")[-5:] == [
        "Round 3: ann to choose an action (supply/deploy)",
        "legal moves for ann (23; a,b = one of the values):",
        "  supply: 1,2,3,4,5 | 1,2,3,4,5 +envoy",
        "  deploy: aachen 3 | aachen 3 free-pay | palermo 2,3,4 free-pay",
        "    nijmegen 2,3,4,5 free-pay | strasbourg 2,3,4,5 free-pay",
    ]


def test_status_json_keeps_the_flat_legal_list(tmp_path: Path) -> None:
    import json

    who = played("staufer", 3, 36, tmp_path / "g.json")
    out = CliRunner().invoke(main, ["status", str(tmp_path / "g.json"), "--as", who,
                                    "--json"]).output
    legal = json.loads(out)["legal"]
    assert len(legal) == 23 and "deploy palermo 2 free-pay" in legal and "supply 3 +envoy" in legal


def test_legend_is_short() -> None:
    match = Match.start(GAME, ["ann", "ben"], {}, "legend")
    text = GAME.render(match.state, "ann")
    _, legend = board_and_legend(text)
    assert legend == "Legend: " + "; ".join(LEGEND)
    assert sum(1 for line in text.split("\n")[1:6] if line.startswith(("Legend", "  "))) <= 3


def test_a_long_file_name_wraps_and_the_underline_stops_at_80(tmp_path: Path) -> None:
    folder = tmp_path / ("club-" * 12) / "season-2026"
    folder.mkdir(parents=True)
    path = folder / "a-game-with-a-long-name.json"
    played("staufer", 2, 5, path)
    out = CliRunner().invoke(main, ["status", str(path)]).output.split("\n")
    assert max(len(line) for line in out) <= 80
    underline = next(i for i, line in enumerate(out) if line.startswith("="))
    assert out[underline] == "=" * 80 and underline >= 2
    assert "".join(out[:underline]).replace(" ", "") == \
        f"The Staufer Dynasty: {path} (move 5)".replace(" ", "")
