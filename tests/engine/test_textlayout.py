"""referee.engine.textlayout: lines that fit 80 columns, and legal moves grouped by kind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.engine import Match, get_game
from referee.engine.rng import Rng
from referee.engine.textlayout import (
    expand,
    fit,
    fit_all,
    group_moves,
    grouped_lines,
    merge_one_word,
    wrap_items,
)
from referee.ledger import gamefile

PLAYERS = ["ann", "ben", "cat", "dan", "eve"]


def played(game_name: str, n: int, moves: int, path: Path,
           players: list[str] | None = None) -> str:
    """Write a game of ``n`` players after ``moves`` seeded random legal moves to
    ``path``; returns the player who owes the next decision."""
    game = get_game(game_name)
    os.environ["REFEREE_NOW"] = "2026-11-30T00:00:00Z"
    ids = (players or PLAYERS)[:n]
    data = gamefile.new_data(game, [{"id": p, "name": p} for p in ids], {}, {"seed": "wide"},
                             "wide")
    match = Match.start(game, ids, data["options"], "wide")
    rng = Rng("wide-moves")
    for _ in range(moves):
        player = game.to_move(match.state)[0]
        match.play(player, rng.choice(game.legal_moves(match.state, player), "playout"))
    for player, move in match.log:
        gamefile.append_entry(data, player, move)
    path.write_text(gamefile.dumps(data))
    return game.to_move(match.state)[0]


def round_trips(legal: list[str]) -> None:
    """The grouping stands for exactly the legal moves, each once."""
    back = [move for kind, items in group_moves(legal) for item in items
            for move in expand(kind, item)]
    assert sorted(back) == sorted(legal)
    assert len(back) == len(set(back)) == len(legal)


def test_moves_merge_where_one_word_differs() -> None:
    legal = ["supply 1", "supply 2", "supply 1 +envoy", "supply 2 +envoy",
             "deploy aachen 3", "deploy aachen 4", "deploy milano 2",
             "deploy milano 5 free-move", "done"]
    assert group_moves(legal) == [
        ("supply", ["1,2", "1,2 +envoy"]),
        ("deploy", ["aachen 3,4", "milano 2", "milano 5 free-move"]),
        ("done", [""]),
    ]
    assert grouped_lines(legal) == [
        "  supply: 1,2 | 1,2 +envoy",
        "  deploy: aachen 3,4 | milano 2 | milano 5 free-move",
        "  done",
    ]
    round_trips(legal)


def test_shared_words_join_the_kind_and_a_bare_move_has_its_own_line() -> None:
    legal = ["sit out 7", "sit out 12", "pass", "pass 3 keep 7", "pass 3 keep 12",
             "use drake with 9 pay b"]
    assert grouped_lines(legal) == [
        "  sit out: 7,12",
        "  pass",
        "  pass: 3 keep 7,12",
        "  use: drake with 9 pay b",
    ]
    round_trips(legal)


def test_the_last_word_that_merges_two_moves_varies() -> None:
    rests = [("paris", "with", "32", "pay", "kkk"), ("lyon", "with", "32", "pay", "kk"),
             ("paris", "with", "4", "pay", "kkk"), ("york", "with", "32", "pay", "kk")]
    assert merge_one_word(rests) == ["paris with 32,4 pay kkk", "lyon,york with 32 pay kk"]
    assert merge_one_word([("a", "1"), ("b", "1")]) == ["a,b 1"]
    assert merge_one_word([("a", "1"), ("a", "2"), ("b", "1")]) == ["a 1,2", "b 1"]
    assert merge_one_word([("a", "1"), ("b", "1"), ("c", "1"), ("a", "2")]) == \
        ["a 1,2", "b,c 1"]


def test_long_lists_wrap_between_items_with_an_indent() -> None:
    legal = [f"deploy {region} {seat}" for region in
             ("strasbourg", "aachen", "milano", "augsburg", "palermo", "nijmegen")
             for seat in (1, 2, 3, 4, 5)] + ["take strasbourg"]
    lines = grouped_lines(legal)
    assert lines == [
        "  deploy: strasbourg 1,2,3,4,5 | aachen 1,2,3,4,5 | milano 1,2,3,4,5",
        "    augsburg 1,2,3,4,5 | palermo 1,2,3,4,5 | nijmegen 1,2,3,4,5",
        "  take: strasbourg",
    ]
    round_trips(legal)


def test_fit_breaks_at_spaces_and_keeps_every_word() -> None:
    line = "  payment space: " + "; ".join(f"player{i} 2E 1N" for i in range(12))
    lines = fit(line)
    assert len(lines) == 3 and all(len(x) <= 80 for x in lines)
    assert lines[1].startswith("      player") and lines[2].startswith("      player")
    assert " ".join(" ".join(lines).split()) == " ".join(line.split())
    assert fit("short") == ["short"]
    assert fit_all(["a\nb", "x" * 170]) == ["a", "b", "x" * 80, "    " + "x" * 76,
                                            "    " + "x" * 14]


def test_wrap_items_separators() -> None:
    items = [f"item{i:02d}" for i in range(12)]
    assert wrap_items(items, "Head: ", "  ", width=40) == [
        "Head: item00 | item01 | item02 | item03",
        "  item04 | item05 | item06 | item07",
        "  item08 | item09 | item10 | item11",
    ]
    assert wrap_items(items[:7], "Legend: ", "  ", width=40, sep="; ") == [
        "Legend: item00; item01; item02; item03;",
        "  item04; item05; item06",
    ]


@pytest.mark.parametrize("game_name", ["staufer", "dynasties"])
@pytest.mark.parametrize("n", [3, 5])
def test_grouping_of_real_legal_moves_round_trips(game_name: str, n: int) -> None:
    game = get_game(game_name)
    players = PLAYERS[:n]
    match = Match.start(game, players, {}, f"group-{n}")
    rng = Rng(f"group-{game_name}-{n}")
    seen = 0
    while not game.finished(match.state) and seen < 400:
        player = game.to_move(match.state)[0]
        legal = game.legal_moves(match.state, player)
        texts = [game.format_move(m) for m in legal]
        round_trips(texts)
        assert all(len(line) <= 80 for line in grouped_lines(texts))
        match.play(player, rng.choice(legal, "playout"))
        seen += 1
    assert seen > 50
