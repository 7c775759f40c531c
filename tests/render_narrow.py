"""What the narrow-board tests of both games share: the board fits 80 columns at every
position of a random game, and its legend explains every abbreviation it uses."""

from __future__ import annotations

import re
from collections.abc import Mapping

from referee.engine import Game, Match
from referee.engine.rng import Rng
from referee.play.statusview import legal_lines

LONG = ["a" * 24, "bartholomew-of-hohenlohe", "c_" * 12, "dietrich-von-bern-012345",
        "eberhard-im-bart-0123456"]
SHORT = ["ann", "ben", "cat", "dan", "eve"]


def board_and_legend(text: str) -> tuple[str, str]:
    """The legend (second line and its continuation lines) and the rest of the board."""
    lines = text.split("\n")
    end = 2
    while lines[end].startswith("  "):
        end += 1
    assert lines[1].startswith("Legend: ")
    legend = " ".join(line.strip() for line in lines[1:end])
    return "\n".join(lines[:1] + lines[end:]), legend


def check_board(text: str, abbreviations: Mapping[str, str], seen: set[str]) -> None:
    """Every line fits 80 columns; every abbreviation on the board is in the legend
    (``abbreviations``: a pattern the board may show -> the legend entry for it)."""
    assert all(len(line) <= 80 for line in text.split("\n")), max(text.split("\n"), key=len)
    board, legend = board_and_legend(text)
    for pattern, entry in abbreviations.items():
        if re.search(pattern, board, re.M):
            assert entry in legend, entry
            seen.add(pattern)


def walk_boards(game: Game, n: int, names: str, abbreviations: Mapping[str, str],
                every: int) -> None:
    """A random game of ``n`` players: the mover's board and legal moves at every
    position, every viewer's board every ``every`` moves, the public board at the end;
    the walk must meet every abbreviation."""
    players = (LONG if names == "long" else SHORT)[:n]
    match = Match.start(game, players, {}, f"narrow-{n}-{names}")
    rng = Rng(f"narrow-{n}-{names}")
    seen: set[str] = set()
    count = 0
    while not game.finished(match.state):
        player = game.to_move(match.state)[0]
        check_board(game.render(match.state, player), abbreviations, seen)
        lines = legal_lines(match, player)
        assert all(len(line) <= 80 for line in lines), lines
        if count % every == 0:
            for viewer in [None, *players]:
                check_board(game.render(match.state, viewer), abbreviations, seen)
        match.play(player, rng.choice(game.legal_moves(match.state, player), "playout"))
        count += 1
    check_board(game.render(match.state, None), abbreviations, seen)
    assert set(abbreviations) <= seen  # the test saw every kind
