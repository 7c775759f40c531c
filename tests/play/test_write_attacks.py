"""Red team: attacks on the write core through the CLI (a player who holds the file)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result

from referee.ledger.replay import MAX_PLAYER_RECORDS, MAX_TAKEBACKS
from tests.conftest import run
from tests.support import games


def new_game(tmp_path: Path, *extra: str) -> Path:
    return games.new_game(tmp_path / "g.json", "staufer", *extra, seed="red")


def refused(result: Result, path: Path, before: bytes, reason: str) -> None:
    assert result.exit_code in (1, 2), result.output
    assert reason in result.output and "Traceback" not in result.output
    assert path.read_bytes() == before


def test_a_move_undo_loop_is_bounded(tmp_path: Path) -> None:
    """Move, undo, move, undo... leaves the game as it was and grows the file by two
    entries a round: without a bound a player on turn could fill the file to the read
    cap (and make every replay slower) without the game going on."""
    path = new_game(tmp_path)
    for _ in range(MAX_TAKEBACKS):
        assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
        assert run("undo", path, "--as", "ann").exit_code == 0
    assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    before = path.read_bytes()
    refused(run("undo", path, "--as", "ann"), path, before, f"taken back {MAX_TAKEBACKS} moves")
    # the honest path: ann's move stands, the game goes on, and the count is per run
    # of one player's entries: ben moves and may undo his move
    assert run("move", path, "--as", "ben", "supply 3").exit_code == 0
    assert run("undo", path, "--as", "ben").exit_code == 0
    assert run("move", path, "--as", "ben", "supply 3").exit_code == 0


def test_a_notify_record_loop_by_hand_is_bounded(tmp_path: Path) -> None:
    """`referee seat --as ann` toggled while ben is to move (an open game: no secret
    needed): the fifth record is refused until somebody plays."""
    path = new_game(tmp_path)
    assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    for i in range(MAX_PLAYER_RECORDS):
        args = ("--bot", "random") if i % 2 == 0 else ("--human",)
        result = run("seat", path, "ann", *args, "--as", "ann")  # ben is to move
        assert result.exit_code == 0, result.output
    before = path.read_bytes()
    refused(run("seat", path, "ann", "--bot", "random", "--as", "ann"), path, before,
            "between two plays")
    assert run("move", path, "--as", "ben", "supply 3").exit_code == 0
    assert run("seat", path, "ann", "--bot", "random", "--as", "ann").exit_code == 0


def test_nobody_undoes_a_bot_seats_move(tmp_path: Path) -> None:
    """The game master gave ben's seat to a bot. ben may not move for it, nor undo its
    move: the bot would then play again under a new key (the entry number), so ben could
    re-roll his bot's moves until he liked one."""
    path = new_game(tmp_path)
    assert run("seat", path, "ben", "--bot", "random", "--as", "gm").exit_code == 0
    assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    log = json.loads(path.read_text())["log"]
    assert log[-1]["by"] == "ben" and log[-1]["bot"] is True
    before = path.read_bytes()
    refused(run("undo", path, "--as", "ben"), path, before, "ben's bot")
    # a person's own helper bot (`referee bot --as ann`, ann's seat a person's) is ann's
    # own choice: that move she may undo
    (tmp_path / "b").mkdir()
    other = new_game(tmp_path / "b")
    result = run("bot", other, "--as", "ann", "--level", "random", "--seed", "1")
    assert result.exit_code == 0 and "(bot, random)" in result.output
    result = run("undo", other, "--as", "ann")
    assert result.exit_code == 0, result.output


def test_concurrent_writers_cannot_pass_the_bound_together(tmp_path: Path) -> None:
    """Ten processes hand ann's seat to ten different bots at once (ben is to move): the
    bound is counted inside the lock, so exactly MAX_PLAYER_RECORDS of them are written,
    the others are refused with the reason, and the file stays valid."""
    import os
    import subprocess
    import sys

    path = new_game(tmp_path)
    assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs = [subprocess.Popen(
        [sys.executable, "-m", "referee", "seat", str(path), "ann", "--bot", f"mcts:{k}",
         "--as", "ann"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env) for k in range(1, 11)]
    outputs = [(p.wait(timeout=120), p.stdout.read() if p.stdout else "") for p in procs]
    ok = [out for rc, out in outputs if rc == 0]
    refusals = [out for rc, out in outputs if rc != 0]
    assert len(ok) == MAX_PLAYER_RECORDS, outputs
    assert all("between two plays" in out and "Traceback" not in out for out in refusals)
    log = json.loads(path.read_text())["log"]
    assert sum("meta" in e for e in log) == MAX_PLAYER_RECORDS
    assert run("check", path).exit_code == 0


def test_a_planted_journal_deletes_nothing(tmp_path: Path) -> None:
    """A sealed creation leaves a journal (``.NAME.xxxx.referee-new``) naming four paths,
    which the next write into the folder cleans up after a crash. A player who commits a
    journal of their own into the shared games folder named any files (another game's
    secret, a file outside) and had the next player's `referee move` delete them."""
    games = tmp_path / "games"
    games.mkdir()
    path = new_game(games)
    other = games / "h.json"
    assert run("new", "staufer", other, "--players", "ann,ben", "--sealed").exit_code == 0
    secret = games / "h.json.secret"
    victim = tmp_path / "authorized_keys"
    victim.write_text("keep me\n")
    for i, plan in enumerate([
        {"game": str(tmp_path / "none.json"), "game_tmp": str(victim),
         "secret": str(secret), "secret_tmp": str(secret)},
        {"game": str(games / "h.json"), "game_tmp": str(games / "h.json"),
         "secret": str(victim), "secret_tmp": str(victim)},
    ]):
        journal = games / f".g.json.{i:012x}.referee-new"
        journal.write_text(json.dumps(plan))
        journal.chmod(0o600)
        result = run("move", path, "--as", ("ann", "ben")[i], "supply 2" if i == 0 else
                     "supply 3")
        assert result.exit_code == 0, result.output
        assert victim.read_text() == "keep me\n" and secret.exists() and other.exists()
    assert run("status", other, "--as", "ann").exit_code == 0  # its secret is still there
