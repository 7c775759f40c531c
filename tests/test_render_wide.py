"""`status --wide`: the long one-table board and the flat list of legal moves, exactly
as `status` printed them before the 80-column layout (each game's
test_render_wide.golden.txt was made by that version for its position)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run
from tests.test_textlayout import played

HERE = Path(__file__).parent


@pytest.mark.parametrize(("game", "players", "moves"),
                         [("staufer", 3, 36), ("dynasties", 4, 8)])
def test_wide_status_is_the_old_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      game: str, players: int, moves: int) -> None:
    golden = HERE / game / "test_render_wide.golden.txt"
    monkeypatch.chdir(tmp_path)
    who = played(game, players, moves, Path("g.json"))
    wide = run("status", "g.json", "--as", who, "--wide")
    assert wide.exit_code == 0
    assert wide.output == golden.read_text()
    assert max(len(line) for line in wide.output.split("\n")) > 80
    narrow = run("status", "g.json", "--as", who).output
    assert narrow != wide.output
    assert max(len(line) for line in narrow.split("\n")) <= 80
