"""A move after the mover's time ran out, before a timeout was recorded, is judged by the
clock as the log proves it: the timeout wins and the move is refused with the reason, by
`move` (the referee's own time), by the judge (the time it reads the mail) and by
`check --since` (a pull request's move, late by its own `at` or by the time the referee
vouched for before it). The honest move just in time is played in each path
(docs/clocks.md, "Late moves")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from referee.ledger import gamefile
from tests.conftest import ok, require_tool, run
from tests.git.test_repository_attacks import REPO_SECRET, commit, git, referee, sh
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup
from tests.support import games

T0 = "2026-12-01T09:00:00Z"
DUE = "2026-12-02 09:00 UTC"  # ann's 1 d bank from T0


def new_game(path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> None:
    monkeypatch.setenv("REFEREE_NOW", T0)
    games.new_game(path, "staufer", "--sealed", "--clock", "1d+12h/2d", "--timeout",
                   "bot:random", *extra, players="ann,ben")


def test_move_refuses_a_move_after_the_time_ran_out_and_plays_one_just_in_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.json"
    new_game(path, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("REFEREE_NOW", "2026-12-02T09:30:00Z")
    late = run("move", path, "--as", "ann", "supply", "2")
    assert late.exit_code == 1 and "Traceback" not in late.output
    assert f"ann's time ran out at {DUE} (bank and vacation days used up), before this " \
           "move came at 2026-12-02 09:30 UTC: the timeout wins" in late.output
    assert "a bot (random) plays the owed decisions" in late.output
    assert path.read_bytes() == before
    # the referee's next look writes the timeout, and the bot plays ann's decision
    assert "timeout ann (bot)" in ok("tick", tmp_path).output
    entries = gamefile.read(path).log
    assert entries[0]["meta"] == {"kind": "timeout", "player": "ann"}
    assert entries[1]["by"] == "ann" and entries[1]["bot"] is True
    # the honest control: the same move a minute before the time runs out
    other = tmp_path / "h" / "g.json"
    other.parent.mkdir()
    new_game(other, monkeypatch)
    monkeypatch.setenv("REFEREE_NOW", "2026-12-02T08:59:00Z")
    assert "supply 2" in ok("move", other, "--as", "ann", "supply", "2").output
    assert ok("check", other).exit_code == 0


def judge_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Setup:
    """A judge's clocked game: ann's bank (1 d) runs out at midnight on 2 January."""
    monkeypatch.setenv("REFEREE_NOW", "2026-01-01T00:00:00Z")
    game = Setup(tmp_path, game="staufer", gid="st-late", extra=(
        "--clock", "1d+12h/2d", "--timeout", "bot:random"))
    game.judge()
    game.new_mail()
    return game


def timed_out(path: Path) -> None:
    """ann's decision was the bot's, after a MAC'd timeout; no move of hers stands."""
    entries = gamefile.read(path).log
    assert entries[0]["meta"] == {"kind": "timeout", "player": "ann"} and "mac" in entries[0]
    assert entries[1]["by"] == "ann" and entries[1]["bot"] is True
    assert not any(e["by"] == "ann" and "move" in e and not e.get("bot") for e in entries)
    assert ok("check", path).exit_code == 0


def test_the_judge_plays_a_move_read_just_in_time(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    game = judge_game(tmp_path, monkeypatch)
    monkeypatch.setenv("REFEREE_NOW", "2026-01-01T23:59:00Z")
    game.send(reply(game.latest("ann"), "supply 2"))
    entries = gamefile.read(game.path).log
    assert entries[0]["by"] == "ann" and "bot" not in entries[0] and "mac" in entries[0]
    assert not any(e.get("meta", {}).get("kind") == "timeout" for e in entries)


def test_the_judge_answers_a_move_read_after_the_time_ran_out_with_the_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mail is read half an hour late: the judge's round writes the timeout first
    (a bot plays), and the move is refused with the clock as the reason."""
    game = judge_game(tmp_path, monkeypatch)
    monkeypatch.setenv("REFEREE_NOW", "2026-01-02T00:30:00Z")
    out = game.send(reply(game.latest("ann"), "supply 2"))
    answer = " ".join([body_text(m) for m in out if m["X-Referee-Player"] == "ann"][-1].split())
    assert ("Not played: your time ran out before your mail was read, and the timeout was "
            "recorded at 2026-01-02 00:30 UTC: the timeout wins." in answer), answer
    timed_out(game.path)


def test_the_judge_refuses_a_late_move_even_before_it_wrote_the_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A round that did not look at the game's clock first (its look failed, or was not
    due): the move itself meets the clock and is refused with the reason; the next round
    writes the timeout."""
    from referee.judge import clocks

    game = judge_game(tmp_path, monkeypatch)
    monkeypatch.setenv("REFEREE_NOW", "2026-01-02T00:30:00Z")
    with monkeypatch.context() as m:
        m.setattr(clocks, "tend", lambda judge, path: None)
        out = game.send(reply(game.latest("ann"), "supply 2"))
    answer = " ".join(next(body_text(m) for m in out if m["X-Referee-Player"] == "ann").split())
    assert ("Line 1 `supply 2` was not accepted: ann's time ran out at 2026-01-02 00:00 "
            "UTC (bank and vacation days used up), before this move came at 2026-01-02 "
            "00:30 UTC: the timeout wins, the move is not played" in answer), answer
    assert gamefile.read(game.path).log == []
    game.judge()
    timed_out(game.path)


# --- check --since: a pull request's move ----------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: a clocked sealed game of ann and ben (ann's 1 d from 09:00 on 1 December)."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "games").mkdir()
    referee(repo, "new", "staufer", "games/c.json", "--players", "ann,ben", "--github",
            "ann=ann-gh,ben=ben-gh", "--sealed", "--id", "clocked", "--clock", "1d+12h/2d",
            env={"REFEREE_SECRET": REPO_SECRET, "REFEREE_NOW": T0})
    commit(repo, "a clocked game")
    return repo


def check_since(repo: Path, base: str) -> subprocess.CompletedProcess[str]:
    """The pull request's check with the repository secret."""
    return sh(repo, "referee", "check", "--since", base, "--by-github", "ann-gh",
              "--require-secret", check=False,
              env={"CI": "true", "REFEREE_SECRET": REPO_SECRET})


def ann_moves(repo: Path, when: str) -> str:
    """ann's move without the secret, its `at` ``when``; committed. Returns the base."""
    base = git(repo, "rev-parse", "HEAD")
    referee(repo, "move", "games/c.json", "--as", "ann", "supply 2", "--unchecked",
            env={"REFEREE_NOW": when})
    commit(repo, "ann: supply 2")
    return base


def test_check_since_passes_a_move_just_in_time(repo: Path) -> None:
    done = check_since(repo, ann_moves(repo, "2026-12-02T08:59:00Z"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_since_refuses_a_move_late_by_its_own_time(repo: Path) -> None:
    done = check_since(repo, ann_moves(repo, "2026-12-02T09:30:00Z"))
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out
    assert (f"entry 1: ann's move came after their time ran out at {DUE} (its own time "
            "says 2026-12-02 09:30 UTC), before a timeout was recorded: the timeout wins"
            in out), out


def test_check_since_refuses_a_backdated_move_after_a_time_the_referee_vouched_for(
        repo: Path) -> None:
    """At 10:00 on 2 December the game master writes a MAC'd record (ann is out of time,
    nobody has timed her out yet). ann then moves and dates her entry 08:00, before her
    time ran out: it follows an entry vouched for at 10:00, so it came after that."""
    referee(repo, "clock", "games/c.json", "--set", "1d+12h/2d", "--as", "gm",
            env={"REFEREE_SECRET": REPO_SECRET, "REFEREE_NOW": "2026-12-02T10:00:00Z"})
    commit(repo, "gm: the same time control")
    done = check_since(repo, ann_moves(repo, "2026-12-02T08:00:00Z"))
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out
    assert (f"entry 2: ann's move came after their time ran out at {DUE} (the referee had "
            "vouched for 2026-12-02 10:00 UTC before it was written)" in out), out
