"""`referee pending` on a judge's games folder: the judge's own files (its state, lock,
picture cache, quarantine) are no game files and are not read as such."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run
from tests.judge.test_maildir_loop import Setup


def test_pending_of_a_judges_folder_skips_its_own_files(tmp_path: Path) -> None:
    toy = Setup(tmp_path)
    toy.judge()
    own = sorted(p.name for p in toy.games.iterdir() if p.name.startswith("."))
    assert ".referee-judge.sqlite" in own  # the judge's state: no game
    (toy.games / ".cache").mkdir()
    (toy.games / ".cache" / "x.json").write_text("{}")
    result = run("pending", str(toy.games))
    assert result.exit_code == 0, result.output
    assert ".referee-judge" not in result.output and "x.json" not in result.output
    assert "toy-1.json" in result.output
