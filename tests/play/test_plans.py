"""Plans (referee/ledger/plans.py, `referee plan`): reading lines, and plans answering the
decisions that arise in real games of both games, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.engine import get_game
from referee.errors import UsageError
from referee.ledger import gamefile, plans
from referee.ledger.fileformat import PLAN_LINE_MAX, PLAN_LINES_MAX
from tests import plangames as pg
from tests.conftest import ok, run

PLAYERS = ["ann", "ben", "cat"]


# --- reading lines ----------------------------------------------------------------------


def test_a_standing_answer_and_a_conditional_line_are_read_in_the_games_notation() -> None:
    staufer, dynasties = get_game("staufer"), get_game("dynasties")
    line = plans.parse_line(staufer, PLAYERS, "ann", "  pick   PURPLE ")
    assert (line.text, line.then, line.when) == ("pick PURPLE", "pick PURPLE", None)
    cond = plans.parse_line(dynasties, PLAYERS, "ann", "if ben divide kkp/wg then choose kkp")
    assert cond.when is not None and cond.when[0] == "ben"
    assert dynasties.format_move(cond.when[1]) == "divide kkp/wg"
    assert cond.then == "choose kkp"


@pytest.mark.parametrize("text, why", [
    ("pick gold", "not a The Staufer Dynasty move"),
    ("if dan done then done", "'dan' is not a player"),
    ("if ann done then done", "another player's next move"),
    ("if ben done", "if PLAYER MOVE then MOVE"),
    ("if ben deploy a 3 then done", "could be aachen or augsburg"),
    ("x" * (PLAN_LINE_MAX + 1), f"at most {PLAN_LINE_MAX}"),
    ("pick\x07purple", "printable"),
])
def test_a_line_that_is_no_plan_is_refused_with_its_reason(text: str, why: str) -> None:
    with pytest.raises(UsageError) as exc:
        plans.parse_line(get_game("staufer"), PLAYERS, "ann", text)
    assert why in exc.value.message


def test_a_plan_has_a_bounded_number_of_lines() -> None:
    with pytest.raises(UsageError, match=f"at most {PLAN_LINES_MAX} lines"):
        plans.parse_lines(get_game("staufer"), PLAYERS, "ann",
                          ["done"] * (PLAN_LINES_MAX + 1))


def test_in_a_sealed_game_a_condition_may_not_name_a_hidden_choice() -> None:
    game = get_game("dynasties")
    line = "if ben pass 2 keep 3 then done"
    assert plans.parse_line(game, PLAYERS, "ann", line).when is not None  # open: fine
    with pytest.raises(UsageError, match="hidden choice"):
        plans.parse_line(game, PLAYERS, "ann", line, sealed=True)


# --- the CLI: Staufer -------------------------------------------------------------------


def test_a_standing_pick_is_played_the_moment_the_bonus_decision_arises(
        tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    wanted = picks[-1]
    out = ok("plan", path, "--as", picker, wanted).output
    assert "anyone holding the file can read" in out  # an open game says so
    out = ok("move", path, "--as", mover, move).output
    assert f"{picker}: {wanted} (planned" in out
    log = gamefile.read(path).log
    assert log[-1]["by"] == picker and log[-1]["plan"] == log[-3]["n"]
    assert "(planned)" in ok("log", path).output.splitlines()[-2]
    ok("check", path)
    # the line is used up: the plan shows no line any more, and says what it played
    shown = ok("plan", path, "--as", picker).output
    assert f"Entry {log[-1]['n']} was played from your plan" in shown
    assert wanted not in shown.split("played from your plan")[1]


def test_a_standing_answer_that_fits_the_decision_but_is_not_legal_is_dropped_and_told(
        tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    missing = next(f"pick {c}" for c in ("vp5", "vp4", "envoy3", "brown", "keep", "first")
                   if f"pick {c}" not in picks)
    ok("plan", path, "--as", picker, missing)
    out = ok("move", path, "--as", mover, move).output
    assert "planned" not in out
    assert gamefile.read(path).log[-1]["by"] == mover  # the pick waits for its player
    status = ok("status", path, "--as", picker).output
    assert f"Your plan line `{missing}` was dropped" in status
    assert "not legal at that decision" in status
    assert missing not in ok("status", path, "--as", mover).output  # only to its owner


def test_a_standing_answer_of_another_kind_waits_for_a_decision_it_fits(
        tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("plan", path, "--as", picker, "return court", picks[0])
    ok("move", path, "--as", mover, move)
    log = gamefile.read(path).log
    assert log[-1]["by"] == picker and log[-1]["move"]["type"] == "pick"
    shown = ok("plan", path, "--as", picker).output
    assert "return court  (standing answer)" in shown  # waits for privilege 13


def test_planned_answers_chain_one_decision_after_another(tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("plan", path, "--as", picker, "keep none", picks[0])
    out = ok("move", path, "--as", mover, move).output
    assert f"{picker}: {picks[0]} (planned" in out
    assert f"{picker}: keep none (planned" in out  # the Cleanup keep that came next
    ok("check", path)


def test_a_plan_written_while_its_decision_waits_answers_only_later_ones(
        tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("move", path, "--as", mover, move)
    ok("plan", path, "--as", picker, picks[0])
    assert gamefile.read(path).log[-1]["meta"]["kind"] == "plan"  # nothing played
    assert "standing answer" in ok("plan", path, "--as", picker).output


def test_clear_withdraws_the_plan(tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("plan", path, "--as", picker, picks[0])
    assert "withdrawn" in ok("plan", path, "--as", picker, "--clear").output
    ok("move", path, "--as", mover, move)
    assert gamefile.read(path).log[-1]["by"] == mover
    assert "has no plan" in ok("plan", path, "--as", picker).output


def test_bad_plans_change_nothing(tmp_path: Path) -> None:
    path, _mover, _move, picker, _picks = pg.pick_position(tmp_path)
    before = path.read_bytes()
    for args in (["pick gold"], ["if dan done then done"], ["done"] * (PLAN_LINES_MAX + 1),
                 ["--clear", "done"]):
        result = run("plan", path, "--as", picker, *args)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert run("plan", path, "--as", "dan", "done").exit_code == 2
    assert path.read_bytes() == before


# --- the CLI: Dynasties -----------------------------------------------------------------


def _divide_game(tmp_path: Path, kinds: tuple[str, ...] = ("choose",), policy: str = "p2"
                 ) -> tuple[Path, str, str, str, list[str], list[str]]:
    """A Dynasties game just before a divide that raises another player's choice:
    (file, divider, the divide, the chooser, the divider's other divides, the choices
    it will raise)."""
    path = pg.new(tmp_path, "dynasties")
    mover, move, owing = pg.play_until(path, policy, pg.raised(kinds))
    match = pg.state(path)
    game = match.game
    chooser = next(p for p in owing if p != mover)
    others = [game.format_move(m) for m in game.legal_moves(match.state, mover)
              if m != move and type(m) is type(move)]
    after = game.copy_state(match.state)
    game.apply(after, mover, move)
    choices = [game.format_move(m) for m in game.legal_moves(after, chooser)]
    return path, mover, pg.text(match, move), chooser, others, choices


def test_a_conditional_choice_is_played_when_the_divide_is_exactly_the_condition(
        tmp_path: Path) -> None:
    path, divider, divide, chooser, _, choices = _divide_game(tmp_path)
    ok("plan", path, "--as", chooser, f"if {divider} {divide} then {choices[-1]}")
    out = ok("move", path, "--as", divider, divide).output
    assert f"{chooser}: {choices[-1]} (planned" in out
    rows = json.loads(ok("log", path, "--json").output)
    assert rows[-1]["planned"] == rows[-3]["n"] and rows[-1]["by"] == chooser
    ok("check", path)


def test_a_conditional_line_whose_condition_fails_is_dropped_and_told(
        tmp_path: Path) -> None:
    path, divider, divide, chooser, others, choices = _divide_game(tmp_path)
    assert others, "the divider has another way to divide"
    ok("plan", path, "--as", chooser, f"if {divider} {others[0]} then {choices[0]}")
    ok("move", path, "--as", divider, divide)
    assert gamefile.read(path).log[-1]["by"] == divider  # nothing planned was played
    status = ok("status", path, "--as", chooser).output
    assert f"{divider} played {divide}, not {others[0]}" in status
    assert "dropped" not in ok("status", path, "--as", divider).output


def test_a_standing_dowry_dice_choice_is_played(tmp_path: Path) -> None:
    path, divider, divide, chooser, _, choices = _divide_game(tmp_path, ("choose-dice",), "p1")
    assert choices[0].startswith("choose ")
    ok("plan", path, "--as", chooser, "done", choices[0])  # `done` waits: another kind
    ok("move", path, "--as", divider, divide)
    log = gamefile.read(path).log
    assert log[-1]["by"] == chooser and log[-1]["move"]["type"] == "choose-dice"
    ok("check", path)
