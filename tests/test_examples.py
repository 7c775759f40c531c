"""Golden transcripts: every finished example game replays to its committed transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.ledger import gamefile, replay
from scripts.make_examples import transcript

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_replays_to_golden_transcript(path: Path) -> None:
    gf = gamefile.read(path)
    match = replay.replay(gf)
    assert match.game.finished(match.state), "examples are finished games"
    assert match.game.invariants(match.state) == []
    expected = path.with_suffix(".txt").read_text()
    assert transcript(gf.data) == expected


def test_examples_cover_both_games_at_3_and_5_players() -> None:
    names = {p.stem for p in FILES}
    assert {"staufer-3p", "staufer-5p", "dynasties-3p", "dynasties-5p"} <= names
