"""Plans under attack: a plan for another seat, a planned move forged without a plan or
against it, a plan slipped in after its decision arose (through git, as CI checks a
change), and another player's plan read in a sealed game."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from referee.ledger import gamefile
from tests import leaks
from tests import plangames as pg
from tests.conftest import ok, require_tool, run


def _append(path: Path, entry: dict[str, Any]) -> None:
    """What a cheater appends by hand: an entry with a right hash chain."""
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": len(data["log"]) + 1, **entry})
    path.write_text(gamefile.dumps(data))


def _pick_entry(path: Path, picker: str, pick: str) -> dict[str, Any]:
    match = pg.state(path)
    move = match.game.parse_move(pick, [])
    return gamefile.move_entry(json.loads(path.read_text()), picker, move)


def _refused(path: Path, *words: str) -> str:
    result = run("check", path)
    assert result.exit_code == 1, result.output
    for word in words:
        assert word in result.output, result.output
    assert "Traceback" not in result.output
    return result.output


# --- in the file ------------------------------------------------------------------------


def test_a_plan_for_another_seat_is_refused(tmp_path: Path) -> None:
    path, mover, _, picker, picks = pg.pick_position(tmp_path)
    _append(path, {"by": mover, "meta": {"kind": "plan", "player": picker,
                                         "lines": [picks[0]]}})
    _refused(path, "only the game master may write it")


def test_a_plan_by_the_game_master_is_refused(tmp_path: Path) -> None:
    path, _, _, picker, picks = pg.pick_position(tmp_path)
    _append(path, {"by": "gm", "meta": {"kind": "plan", "player": picker,
                                        "lines": [picks[0]]}})
    _refused(path, "a plan by the game master")


def test_a_planned_move_forged_without_a_plan_is_refused(tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("move", path, "--as", mover, move)
    trigger = gamefile.read(path).log[-1]["n"]
    _append(path, {**_pick_entry(path, picker, picks[0]), "plan": trigger})
    _refused(path, "names no earlier plan of theirs", "forged")


def test_a_planned_move_that_its_plan_does_not_give_is_refused(tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("plan", path, "--as", picker, "return court")  # a plan, but not for this pick
    record = gamefile.read(path).log[-1]["n"]
    ok("move", path, "--as", mover, move)
    _append(path, {**_pick_entry(path, picker, picks[0]), "plan": record})
    _refused(path, "does not give here")


def test_a_plan_written_after_its_decision_arose_gives_no_planned_move(
        tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path)
    ok("move", path, "--as", mover, move)
    ok("plan", path, "--as", picker, picks[0])
    record = gamefile.read(path).log[-1]["n"]
    _append(path, {**_pick_entry(path, picker, picks[0]), "plan": record})
    _refused(path, "must directly follow the move that raised its decision")


# --- through git: a change checked as CI checks it -----------------------------------------


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                               "PATH": "/usr/bin:/bin", "HOME": str(repo)})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _commit(repo: Path) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "change")
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    require_tool("git")
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    return root


def test_through_git_plans_pass_and_a_late_plan_is_refused(repo: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(repo)
    base = _commit(repo)
    ok("plan", path, "--as", picker, picks[0])  # the picker's change: their plan
    ok("check", path, "--since", base, "--by", picker)
    base = _commit(repo)
    # the mover's change plays the picker's planned pick too: it is the plan's, not theirs
    ok("move", path, "--as", mover, move)
    assert gamefile.read(path).log[-1]["plan"]
    ok("check", path, "--since", base, "--by", mover)
    # but a mover may not slip a plan record in for the picker
    _append(path, {"by": picker, "meta": {"kind": "plan", "player": picker,
                                          "lines": [picks[0]]}})
    result = run("check", path, "--since", base, "--by", mover)
    assert result.exit_code == 1 and f"is by {picker}" in result.output


def test_through_git_a_plan_and_its_move_added_after_the_decision_are_refused(
        repo: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(repo)
    ok("move", path, "--as", mover, move)  # the decision arises; nobody had a plan
    base = _commit(repo)
    _append(path, {"by": picker, "meta": {"kind": "plan", "player": picker,
                                          "lines": [picks[0]]}})
    record = gamefile.read(path).log[-1]["n"]
    _append(path, {**_pick_entry(path, picker, picks[0]), "plan": record})
    _commit(repo)
    result = run("check", path, "--since", base, "--by", picker)
    assert result.exit_code == 1, result.output
    assert "must directly follow the move that raised its decision" in result.output


# --- secrecy in a sealed game ---------------------------------------------------------


SECRET_LINE_WORDS = "return court"


def test_in_a_sealed_game_nobody_else_reads_a_plan(tmp_path: Path) -> None:
    path, mover, move, picker, picks = pg.pick_position(tmp_path, sealed=True)
    secret = tmp_path / "referee.ledger.secret"
    shutil.move(str(path) + ".secret", secret)  # the players do not hold the secret
    plan_line = f"if {mover} {move} then {picks[-1]}"
    out = ok("plan", path, "--as", picker, plan_line, SECRET_LINE_WORDS).output
    assert "sealed to the referee" in out
    raw = path.read_text()
    record = gamefile.read(path).log[-1]
    assert "sealed" in record["meta"] and "lines" not in record["meta"]
    assert not leaks.found(SECRET_LINE_WORDS, raw) and plan_line not in raw
    # without the secret even its author sees only that it is sealed
    assert "sealed to the referee" in ok("plan", path, "--as", picker).output
    # the referee (holding the secret) plays it when the mover moves
    ok("move", path, "--as", mover, move, "--secret", secret)
    log = gamefile.read(path).log
    assert log[-1]["by"] == picker and log[-1]["plan"] == record["n"]
    ok("check", path, "--secret", secret)
    mine = ok("status", path, "--as", picker, "--secret", secret).output
    assert SECRET_LINE_WORDS in mine  # its owner sees what stands
    outputs = [ok("status", path, "--as", mover, "--secret", secret).output,
               ok("status", path, "--secret", secret).output,
               ok("log", path, "--as", mover, "--secret", secret).output,
               ok("log", path, "--secret", secret).output,
               ok("log", path).output,
               ok("log", path, "--as", mover, "--secret", secret, "--json").output]
    for other in outputs:
        for token in (SECRET_LINE_WORDS, plan_line):
            assert not leaks.found(token, other), other
    own = ok("log", path, "--as", picker, "--secret", secret).output
    assert SECRET_LINE_WORDS in own  # its author reads their plan in the log


def test_after_the_game_the_log_shows_every_plan(tmp_path: Path) -> None:
    path = pg.new(tmp_path, "dynasties")
    last, move, _ = pg.play_until(path, "p3", lambda m, mover, mv: m.game.finished(m.state))
    other = next(p for p in ("ann", "ben", "cat") if p != last)
    ok("plan", path, "--as", other, "done")
    assert "[plan] done" not in ok("log", path, "--as", last).output  # not yet
    ok("move", path, "--as", last, pg.text(pg.state(path), move))
    assert "[plan] done" in ok("log", path).output  # the game is over: everyone reads it
