"""One board text, laid out for a width: `status` at 80 columns, a mail at 78 (laid out,
not re-wrapped), `status --wide` at 132. A wider layout is the same text with fewer
lines broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.engine import get_game, textlayout
from referee.judge import text as mailtext
from referee.ledger import gamefile, replay, roster
from tests.conftest import run
from tests.engine.test_textlayout import played

GAMES = [("staufer", 3, 36), ("dynasties", 4, 8)]


def words(text: str) -> list[str]:
    """The text without its layout: the words in order (a line broken between two moves
    drops the " | " between them)."""
    return [w for w in text.split() if w != textlayout.SEPARATOR.strip()]


def widest(text: str) -> int:
    return max(len(line) for line in text.split("\n"))


@pytest.mark.parametrize(("game", "players", "moves"), GAMES)
def test_wide_status_is_the_same_text_laid_out_for_132_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str, players: int,
        moves: int) -> None:
    monkeypatch.chdir(tmp_path)
    who = played(game, players, moves, Path("g.json"))
    wide = run("status", "g.json", "--as", who, "--wide")
    narrow = run("status", "g.json", "--as", who)
    assert wide.exit_code == 0 and narrow.exit_code == 0
    assert textlayout.WIDTH < widest(wide.output) <= textlayout.WIDE
    assert widest(narrow.output) <= textlayout.WIDTH
    assert wide.output.count("\n") < narrow.output.count("\n")
    assert words(wide.output) == words(narrow.output)
    assert "legal moves for" in wide.output


@pytest.mark.parametrize(("game", "players", "moves"), GAMES)
def test_a_board_fits_its_width_and_80_is_the_default(
        tmp_path: Path, game: str, players: int, moves: int) -> None:
    played(game, players, moves, tmp_path / "g.json")
    match = replay.replay(gamefile.read(tmp_path / "g.json"))
    rules = get_game(game)
    for viewer in (None, *match.players):
        board = rules.render(match.state, viewer)
        assert board == rules.render(match.state, viewer, width=80)
        assert widest(board) <= 80
        lines = board.count("\n")
        for width in (60, 78, 100, 132):
            other = rules.render(match.state, viewer, width=width)
            assert widest(other) <= width, (viewer, width)
            assert words(other) == words(board)
            assert (other.count("\n") >= lines) if width < 80 else (other.count("\n") <= lines)
        assert rules.render(match.state, viewer, width=60).count("\n") > lines


@pytest.mark.parametrize(("game", "players", "moves"), GAMES)
def test_a_mail_shows_the_board_laid_out_for_78_columns(
        tmp_path: Path, game: str, players: int, moves: int) -> None:
    who = played(game, players, moves, tmp_path / "g.json")
    gf = gamefile.read(tmp_path / "g.json")
    match = replay.replay(gf)
    body = mailtext.body(gf, match, None, who, None, roster.settings(gf.data))
    board = match.game.render(match.state, who, width=mailtext.WIDTH)
    assert f"\n{board}\n" in body
    assert board != match.game.render(match.state, who)  # (80 columns breaks elsewhere)
    assert widest(body) <= mailtext.WIDTH
