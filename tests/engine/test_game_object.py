"""A game object made from the modules of its rules (``engine.functions_from``): no class
of forwarders. The two games keep every capability they declare, and what only bots,
explanations, undo and inspection use is imported at its first call; the decorator takes
nothing by accident (two sources of one name, a misspelt lazy name, a core function
nobody defines: TypeError when the class is made)."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from referee import engine
from referee.engine import FUNCTIONS, functions_from

CAPABILITIES = (engine.Game, engine.Explains, engine.FastLegality, engine.Seals, engine.Bots,
                engine.Documents, engine.Inspects, engine.Undo)


def core(**extra: Any) -> types.SimpleNamespace:
    """A module-like namespace with every core function (each returning its name)."""
    return types.SimpleNamespace(**{**{n: (lambda n=n: n) for n in engine.CORE_FUNCTIONS},
                                    **extra})


@pytest.mark.parametrize("name", ["staufer", "dynasties"])
def test_each_game_keeps_the_core_and_every_capability(name: str) -> None:
    game = engine.get_game(name)
    assert [p.__name__ for p in CAPABILITIES if not isinstance(game, p)] == []
    assert callable(game.event_text)
    assert type(game).__module__ == f"referee.games.{name}"  # its data, its reference note


_PROBE = """
import sys
from referee import engine
from referee.engine import Match, get_game
game = get_game({name!r})
later = {later!r}
assert [m for m in later if m in sys.modules] == [], [m for m in later if m in sys.modules]
match = Match.start(game, ["ann", "ben", "cat"], {{}}, "lazy")
before = game.copy_state(match.state)
player = game.to_move(match.state)[0]
move = game.legal_moves(match.state, player)[0]
match.play(player, move)
assert engine.invariants(game, match.state) == []
assert isinstance(engine.hidden_items(game, match.state, None), list)
assert isinstance(engine.reveals(game, before, match.state), bool)
assert engine.determinize(game, match.state, player, match.rng.copy()) is not match.state
assert isinstance(engine.why_illegal(game, match.state, player, move), str)
assert [m for m in later if m not in sys.modules] == []
print("ok")
"""


@pytest.mark.parametrize(("name", "later"), [
    ("staufer", ["referee.games.staufer.explain", "referee.games.staufer.hidden",
                 "referee.games.staufer.determinize"]),
    ("dynasties", ["referee.games.dynasties.hidden", "referee.games.dynasties.determinize",
                   "referee.games.dynasties.checks"]),
])
def test_what_only_bots_undo_and_inspection_use_is_imported_when_asked(
        name: str, later: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(name=name, later=later)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_the_functions_come_from_the_modules_and_the_class_wins() -> None:
    def parse_move(text: str, legal: Any) -> str:
        return "module"

    rules = core(parse_move=parse_move, is_legal=None)  # not a function: not taken
    views = types.SimpleNamespace(view=rules.view, hidden_items=lambda s, v: [])

    @functions_from(rules, views)
    class Made:
        def parse_move(self, text: str, legal: Any) -> str:
            return "class"

        def setup(self) -> str:
            return "class"

    made = Made()
    assert made.parse_move("x", ()) == "class" and made.setup() == "class"
    assert Made.view is rules.view and made.to_move() == "to_move"  # one object, twice
    assert made.hidden_items(None, None) == []
    assert [n for n in FUNCTIONS if hasattr(Made, n)] == sorted(
        {*engine.CORE_FUNCTIONS, "hidden_items"})  # nothing else was made up


def test_a_lazy_function_is_imported_at_its_first_call(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "probe_lazy_rules.py").write_text(
        "def why_illegal(state, player, move):\n    return f'no {move} for {player}'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "probe_lazy_rules", raising=False)

    @functions_from(core(), lazy={"why_illegal": "probe_lazy_rules"})
    class Made:
        pass

    assert "probe_lazy_rules" not in sys.modules
    assert engine.why_illegal(Made(), None, "ann", "x") == "no x for ann"
    assert "probe_lazy_rules" in sys.modules


@pytest.mark.parametrize(("sources", "lazy", "own", "said"), [
    ((core(), types.SimpleNamespace(view=lambda s, v: {})), {}, False, "two sources of view"),
    ((core(),), {"why_ilegal": "somewhere"}, False, "not functions of a game: why_ilegal"),
    ((core(),), {"view": "somewhere"}, False, "two sources of view"),
    ((core(),), {"to_move": "somewhere"}, True, "two sources of to_move"),
    ((types.SimpleNamespace(view=lambda s, v: {}),), {}, False, "lacks apply, data_version"),
])
def test_nothing_is_taken_by_accident_or_left_out(sources: tuple[object, ...],
                                                  lazy: dict[str, str], own: bool,
                                                  said: str) -> None:
    with pytest.raises(TypeError, match=said):
        @functions_from(*sources, lazy=lazy)
        class Made:
            if own:
                def to_move(self, state: Any) -> list[str]:
                    return []
