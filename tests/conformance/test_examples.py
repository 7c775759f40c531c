"""The examples golden files: every game of this package has finished example games in
examples/ (scripts/make_examples.py: 3 players, or the nearest count the game allows,
and the most it allows), and each replays to its committed transcript: every move, the
final board, the prompt, the pinned scores and the state's fingerprint. For every
registered game, the plug-in included, the script makes the same examples twice (a game
without the optional ``fingerprint`` gets the engine's hash of its state)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee import engine
from referee.engine import get_game
from referee.ledger import gamefile, replay
from scripts import make_examples
from tests.conformance.registry import GAMES, PLUGIN_GAME

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
PACKAGED = sorted(engine.packaged_games())


def example_files(name: str) -> list[Path]:
    return [EXAMPLES / f"{name}-{n}p.json" for n in make_examples.counts(get_game(name))]


def test_examples_are_those_of_the_games_of_this_package() -> None:
    expected = {p for name in PACKAGED for p in example_files(name)}
    assert set(EXAMPLES.glob("*.json")) == expected


@pytest.mark.parametrize("name", PACKAGED)
def test_examples_replay_to_their_golden_transcripts(name: str) -> None:
    for path in example_files(name):
        gf = gamefile.read(path)
        match = replay.replay(gf)
        assert match.game.finished(match.state), f"{path.name}: examples are finished games"
        assert engine.invariants(match.game, match.state) == []
        assert make_examples.transcript(gf.data) == path.with_suffix(".txt").read_text(), (
            f"{path.name} no longer replays to its transcript: after a deliberate rules "
            "change, run scripts/make_examples.py")


@pytest.mark.parametrize("name", GAMES)
def test_make_examples_makes_the_same_examples_twice(name: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    monkeypatch.setenv("REFEREE_NOW", make_examples.CREATED)  # (the script sets it too)
    make_examples.main([name, "--out", str(tmp_path / "a")])
    make_examples.main([name, "--out", str(tmp_path / "b")])
    first = {p.name: p.read_bytes() for p in sorted((tmp_path / "a").iterdir())}
    again = {p.name: p.read_bytes() for p in sorted((tmp_path / "b").iterdir())}
    assert first == again and len(first) == 2 * len(make_examples.counts(get_game(name)))
    for path in sorted((tmp_path / "a").glob("*.json")):
        data = gamefile.read(path).data
        assert make_examples.transcript(data) == path.with_suffix(".txt").read_text()
        assert "\nfingerprint: " in path.with_suffix(".txt").read_text()


def test_the_plugin_has_no_fingerprint_and_still_gets_examples() -> None:
    assert not hasattr(get_game(PLUGIN_GAME), "fingerprint")
