"""The clock job vouches only for what extends what it vouched for (docs/clocks.md, "What
tick vouches for"), played as attacks through git and the CLI.

A clocked, sealed git game; players move without the secret and the referee's `tick`
(run as the workflow's clock job runs it: in the repository, CI=true, the repository
secret, REFEREE_NOW as its clock) stamps their entries. Each attack puts a state on main
that `check` would refuse (an admin's merge, a branch without protection) and shows that
`tick` then refuses it with the reason, writes nothing and commits nothing; the honest
control is stamped.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.ledger import gamefile
from tests.clocks.test_clock_job import clock_job
from tests.conftest import require_tool
from tests.git.test_repository_attacks import REPO_SECRET, WORKFLOW, commit, git, referee, sh

T0 = "2026-12-01T09:00:00Z"
GAME = "games/c.json"
SECRET = {"REFEREE_SECRET": REPO_SECRET}


def tick(repo: Path, when: str, where: Path | None = None, **env: str
         ) -> subprocess.CompletedProcess[str]:
    """`referee tick games --out views` as the clock job runs it, at ``when``."""
    return sh(where or repo, "referee", "tick", "games", "--out", "views", check=False,
              env={"CI": "true", "REFEREE_NOW": when, **SECRET, **env})


def move(repo: Path, who: str, text: str, when: str) -> None:
    """A player's move without the secret (their entry's `at` is ``when``)."""
    referee(repo, "move", GAME, "--as", who, text, "--unchecked", env={"REFEREE_NOW": when})


def log(repo: Path) -> list[dict[str, Any]]:
    return list(json.loads((repo / GAME).read_text())["log"])


def write(repo: Path, data: dict[str, Any]) -> None:
    (repo / GAME).write_text(gamefile.dumps(data))


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    out = done.stdout + done.stderr
    assert done.returncode != 0, f"tick stamped it:\n{out}"
    assert "Traceback" not in out and "internal error" not in out, out
    for word in words:
        assert word in out, out


def untouched(repo: Path, before: tuple[str, bytes]) -> None:
    """Nothing written, nothing committed."""
    assert (git(repo, "rev-parse", "HEAD"), (repo / GAME).read_bytes()) == before


def state(repo: Path) -> tuple[str, bytes]:
    return git(repo, "rev-parse", "HEAD"), (repo / GAME).read_bytes()


def stamped(repo: Path, when: str) -> None:
    """The honest control: tick stamps, and the job commits it."""
    done = tick(repo, when)
    assert done.returncode == 0, done.stdout + done.stderr
    assert log(repo)[-1]["meta"] == {"kind": "stamp"} and "mac" in log(repo)[-1]
    commit(repo, "clocks: stamps and timeouts")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: a clocked sealed Staufer game of ann and ben (1 d bank, +12 h a turn, a
    random bot plays a timed-out seat); ann moved at 10:00 and the clock job stamped it
    at 11:00."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "games").mkdir()
    referee(repo, "new", "staufer", GAME, "--players", "ann,ben", "--github",
            "ann=ann-gh,ben=ben-gh", "--sealed", "--id", "clocked", "--clock", "1d+12h/2d",
            "--timeout", "bot:random", env={**SECRET, "REFEREE_NOW": T0})
    commit(repo, "a clocked game")
    move(repo, "ann", "supply 2", "2026-12-01T10:00:00Z")
    commit(repo, "ann: supply 2")
    stamped(repo, "2026-12-01T11:00:00Z")
    return repo


def ben_moves(repo: Path, when: str) -> str:
    moves = json.loads(referee(repo, "status", GAME, "--as", "ben", "--json",
                               env=SECRET).stdout)["legal"]
    move(repo, "ben", moves[0], when)
    commit(repo, f"ben: {moves[0]}")
    return str(moves[0])


def test_an_honest_log_is_stamped_each_time_it_grows(repo: Path) -> None:
    ben_moves(repo, "2026-12-01T12:00:00Z")
    stamped(repo, "2026-12-01T13:00:00Z")
    assert [e.get("meta", {}).get("kind") for e in log(repo)] == [None, "stamp", None,
                                                                    "stamp"]
    assert referee(repo, "check", GAME, env=SECRET).returncode == 0
    again = tick(repo, "2026-12-01T14:00:00Z")
    assert again.returncode == 0 and "nothing due" in again.stdout


def test_a_history_rewound_past_a_stamp_is_not_stamped(repo: Path) -> None:
    """ben moves, the referee stamps it; ben regrets it, puts back the file as it was
    before his move (every MAC left is genuine) and plays another move, pushed to main
    without a check. The referee vouched for his first move: tick refuses."""
    before_ben = (repo / GAME).read_bytes()
    first = ben_moves(repo, "2026-12-01T12:00:00Z")
    stamped(repo, "2026-12-01T13:00:00Z")
    vouched = git(repo, "rev-parse", "HEAD")
    (repo / GAME).write_bytes(before_ben)
    moves = json.loads(referee(repo, "status", GAME, "--as", "ben", "--json",
                               env=SECRET).stdout)["legal"]
    other = next(m for m in moves if m != first)
    move(repo, "ben", other, "2026-12-01T12:00:00Z")
    commit(repo, f"ben: {other}")
    assert referee(repo, "check", GAME, env=SECRET).returncode == 0  # replays: legal
    before = state(repo)
    refused(tick(repo, "2026-12-01T14:00:00Z"), "entry 4, which the referee vouched for "
            f"in commit {vouched[:12]}", "is gone from games/c.json",
            "the history was rewritten")
    untouched(repo, before)


def test_a_merge_that_hides_the_stamps_behind_a_second_parent_is_not_stamped(
        repo: Path) -> None:
    """ben branches off before his stamped move, plays another, merges main into his
    branch keeping his version of the game, and main fast-forwards to that merge: main's
    first parents never held his first move, but its history does."""
    base = git(repo, "rev-parse", "HEAD")
    first = ben_moves(repo, "2026-12-01T12:00:00Z")
    stamped(repo, "2026-12-01T13:00:00Z")
    git(repo, "checkout", "-q", "-b", "redo", base)
    moves = json.loads(referee(repo, "status", GAME, "--as", "ben", "--json",
                               env=SECRET).stdout)["legal"]
    move(repo, "ben", next(m for m in moves if m != first), "2026-12-01T12:00:00Z")
    commit(repo, "ben: another move")
    sh(repo, "git", "merge", "-q", "main", check=False)
    git(repo, "checkout", "-q", "--ours", GAME)
    commit(repo, "merge main, keeping my game", "--no-edit")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "redo")
    assert referee(repo, "check", GAME, env=SECRET).returncode == 0  # replays: legal
    before = state(repo)
    refused(tick(repo, "2026-12-01T14:00:00Z"), "entry 4, which the referee vouched for",
            "is gone from games/c.json")
    untouched(repo, before)


def test_a_log_cut_back_to_an_earlier_stamp_is_not_ticked(repo: Path) -> None:
    """The same without a new move: the log ends with a genuine stamp, nothing is
    pending, but ben's vouched move is gone. A timeout written now would vouch for it.
    (The repository's attributes call game files binary: their diffs are read anyway.)"""
    (repo / ".gitattributes").write_text("*.json binary\n")
    commit(repo, "game files are binary")
    before_ben = (repo / GAME).read_bytes()
    ben_moves(repo, "2026-12-01T12:00:00Z")
    stamped(repo, "2026-12-01T13:00:00Z")
    (repo / GAME).write_bytes(before_ben)
    commit(repo, "undo ben's move")
    before = state(repo)
    refused(tick(repo, "2026-12-02T13:00:00Z"), "entry 4", "is gone from games/c.json")
    untouched(repo, before)


def test_a_vouched_entry_edited_is_not_stamped(repo: Path) -> None:
    """ann backdates her stamped move. Dropping the stamp that vouched for it leaves a
    log with no broken MAC, but the stamp is gone; keeping the stamp (its `prev`
    recomputed) breaks its MAC."""
    data = json.loads((repo / GAME).read_text())
    stamp = data["log"].pop()
    data["log"][0]["at"] = "2026-12-01T09:30:00Z"
    write(repo, data)
    commit(repo, "ann: an earlier time")
    before = state(repo)
    refused(tick(repo, "2026-12-01T14:00:00Z"), "entry 2, which the referee vouched for",
            "is gone from games/c.json")
    untouched(repo, before)
    data["log"].append({**stamp, "prev": gamefile.entry_hash(data["log"][0])})
    write(repo, data)
    commit(repo, "ann: an earlier time, the stamp kept")
    before = state(repo)
    refused(tick(repo, "2026-12-01T14:00:00Z"), "the referee's MAC does not match")
    untouched(repo, before)


def test_an_illegal_move_merged_without_check_is_not_stamped(repo: Path) -> None:
    """ann moves again although it is ben's turn (appended without the secret, so
    nothing checked it) and the change reaches main unchecked."""
    moves = json.loads(referee(repo, "status", GAME, "--as", "ben", "--json",
                               env=SECRET).stdout)["legal"]
    move(repo, "ann", moves[0], "2026-12-01T12:00:00Z")
    commit(repo, "ann again")
    before = state(repo)
    refused(tick(repo, "2026-12-01T13:00:00Z"), "it was not ann's turn")
    untouched(repo, before)
    # the honest way out: its author strikes it, and the clock goes on
    referee(repo, "void", GAME, "3", "--as", "ann")
    commit(repo, "ann: void 3")
    assert tick(repo, "2026-12-01T13:00:00Z").returncode == 0
    assert log(repo)[-1]["meta"] == {"kind": "stamp"}


@pytest.mark.parametrize("entry, why", [
    ({"by": "gm", "meta": {"kind": "timeout", "player": "ben"}},
     "a game master's entry without the referee's MAC"),
    ({"by": "ann", "meta": {"kind": "stamp"}}, "only the game master may write it"),
    ({"by": "gm", "meta": {"kind": "bot", "player": "ben", "level": "random"}},
     "a game master's entry without the referee's MAC"),
])
def test_a_referees_record_forged_without_the_secret_is_not_stamped(
        repo: Path, entry: dict[str, Any], why: str) -> None:
    """A timeout, a stamp or a bot for another's seat, written by hand (the hash chain
    right, no MAC: only the referee holds the key) and merged unchecked."""
    data = json.loads((repo / GAME).read_text())
    gamefile.append_raw(data, {"n": len(data["log"]) + 1, **entry})
    write(repo, data)
    commit(repo, "a record")
    before = state(repo)
    refused(tick(repo, "2026-12-02T13:00:00Z"), why)
    untouched(repo, before)


def test_a_copy_of_a_game_is_ticked_in_neither_file(repo: Path) -> None:
    """A copy would let the referee's MACs, timeouts and bot moves be made twice for one
    game (a second deal to look at, or MAC'd entries to paste back)."""
    ben_moves(repo, "2026-12-01T12:00:00Z")
    shutil.copy(repo / GAME, repo / "games" / "d.json")
    commit(repo, "a copy")
    before = state(repo), (repo / "games" / "d.json").read_bytes()
    refused(tick(repo, "2026-12-01T13:00:00Z"), "games/d.json is the same game as",
            "tick vouches for neither file")
    assert (state(repo), (repo / "games" / "d.json").read_bytes()) == before


def test_a_shallow_clone_is_refused_and_a_folder_outside_git_says_what_it_cannot_see(
        repo: Path, tmp_path: Path) -> None:
    """A shallow clone (actions/checkout's default) lacks the history the referee vouched
    in: refused, nothing written. A folder outside git is ticked, and tick says that a
    rewritten history cannot be seen there."""
    ben_moves(repo, "2026-12-01T12:00:00Z")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    before = (shallow / GAME).read_bytes()
    done = tick(shallow, "2026-12-01T13:00:00Z")
    assert done.returncode == 2 and "shallow clone" in done.stderr, done.stderr
    assert "fetch-depth: 0" in done.stderr and (shallow / GAME).read_bytes() == before
    loose = tmp_path / "loose"
    shutil.copytree(repo / "games", loose / "games")
    done = tick(loose, "2026-12-01T13:00:00Z")
    assert done.returncode == 0 and "stamped at entry 4" in done.stdout
    assert "is not in a git repository: tick cannot see whether an entry the referee " \
           "vouched for was rewritten since" in done.stderr


def test_a_header_edited_before_the_first_stamp_is_not_stamped(tmp_path: Path) -> None:
    """A game whose secret is its own file (not derived from the header): before any
    MAC covers the header, ann doubles her bank in it. Its first version on the branch
    is the header tick holds it to."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "games").mkdir()
    own = tmp_path / "ci" / "c.secret"
    own.parent.mkdir()
    referee(repo, "new", "staufer", GAME, "--players", "ann,ben", "--sealed",
            "--secret-out", str(own), "--clock", "1d", env={"REFEREE_NOW": T0})
    commit(repo, "a clocked game")
    data = json.loads((repo / GAME).read_text())
    data["clock"]["bank"] = data["clock"]["cap"] = 2 * 86400
    write(repo, data)
    move(repo, "ann", "supply 2", "2026-12-01T10:00:00Z")
    commit(repo, "ann: supply 2")
    before = state(repo)
    refused(tick(repo, "2026-12-01T11:00:00Z", REFEREE_SECRET_FILE=str(own)),
            "the header of games/c.json changed since the game was created", "clock")
    untouched(repo, before)
    git(repo, "checkout", "-q", "HEAD~1", "--", GAME)
    move(repo, "ann", "supply 2", "2026-12-01T10:00:00Z")
    commit(repo, "ann: supply 2, the header as made")
    done = tick(repo, "2026-12-01T11:00:00Z", REFEREE_SECRET_FILE=str(own))
    assert done.returncode == 0 and "stamped at entry 2" in done.stdout, done.stderr


def test_a_game_renamed_with_a_new_id_and_cut_back_is_still_held_to_its_stamps(
        tmp_path: Path) -> None:
    """A game whose REFEREE_SECRET is its own seed (so its header may change without the
    seed failing): its stamps are cut away, the file renamed and given another id, and
    ben plays again. Its rng commitment, bound to its seed, still names the game whose
    stamps are gone."""
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "games").mkdir()
    own = "3f9a1c7e5b2d4f608e1a3c5b7d9f0e2a4c6b8d0f1e3a5c7b9d2f4e6a8c0b1d3f"
    referee(repo, "new", "staufer", GAME, "--players", "ann,ben", "--sealed", "--seed",
            own, "--secret-out", str(tmp_path / "c.secret"), "--id", "clocked",
            "--clock", "1d", env={"REFEREE_NOW": T0})
    commit(repo, "a clocked game")
    move(repo, "ann", "supply 2", "2026-12-01T10:00:00Z")
    commit(repo, "ann: supply 2")
    first = (repo / GAME).read_bytes()
    assert tick(repo, "2026-12-01T11:00:00Z", REFEREE_SECRET=own).returncode == 0
    commit(repo, "clocks")
    data = json.loads(first)
    data["id"] = "fresh"
    data["log"][0]["prev"] = gamefile.header_hash(data)
    git(repo, "rm", "-q", GAME)
    (repo / "games").mkdir(exist_ok=True)
    (repo / "games" / "e.json").write_text(gamefile.dumps(data))
    commit(repo, "a fresh start")
    before = git(repo, "rev-parse", "HEAD"), (repo / "games" / "e.json").read_bytes()
    refused(tick(repo, "2026-12-01T12:00:00Z", REFEREE_SECRET=own),
            "entry 2, which the referee vouched for", "(games/c.json)",
            "is gone from games/e.json")
    assert (git(repo, "rev-parse", "HEAD"), (repo / "games" / "e.json").read_bytes()) == before


def test_a_late_move_merged_without_check_is_not_stamped_until_reverted(
        repo: Path) -> None:
    """ben is awaited from 11:00 with 1 d: out of time at 11:00 on 2 December. He moves at
    12:00 that day (his entry says so) and the change reaches main before the clock job
    ran: the timeout wins. Reverted, the next run writes the timeout and the bot plays."""
    ben_moves(repo, "2026-12-02T12:00:00Z")
    before = state(repo)
    refused(tick(repo, "2026-12-02T12:17:00Z"), "entry 3: ben's move came after their "
            "time ran out at 2026-12-02 11:00 UTC", "its own time says 2026-12-02 12:00",
            "the timeout wins")
    untouched(repo, before)
    git(repo, "revert", "--no-edit", "HEAD")
    done = tick(repo, "2026-12-02T13:17:00Z")
    assert done.returncode == 0 and "timeout ben (bot)" in done.stdout, done.stdout
    entries = log(repo)
    assert entries[2]["meta"] == {"kind": "timeout", "player": "ben"}
    assert entries[3]["by"] == "ben" and entries[3]["bot"] is True


def test_the_workflows_clock_job_refuses_a_forged_game_and_stamps_the_others(
        repo: Path, tmp_path: Path) -> None:
    """Through the example workflow's own clock job (its checkout takes the whole
    history): a rewound history on main fails the job and that game is pushed as it
    was; another game's honest move is stamped and pushed all the same."""
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["clock"]
    checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith(
        "actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    other = "games/d.json"
    referee(repo, "new", "staufer", other, "--players", "ann,ben", "--sealed", "--id",
            "other", "--clock", "1d", env={**SECRET, "REFEREE_NOW": T0})
    before_ben = (repo / GAME).read_bytes()
    ben_moves(repo, "2026-12-01T12:00:00Z")
    git(repo, "push", "-q", "origin", "main")
    done = clock_job(repo, "2026-12-01T13:00:00Z")
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / GAME).write_bytes(before_ben)
    referee(repo, "move", other, "--as", "ann", "supply 2", "--unchecked",
            env={"REFEREE_NOW": "2026-12-01T13:30:00Z"})
    commit(repo, "ben takes his move back by hand; ann moves in the other game")
    git(repo, "push", "-q", "origin", "main")
    forged = (repo / GAME).read_bytes()
    refused(clock_job(repo, "2026-12-01T14:00:00Z"), "is gone from games/c.json")
    git(repo, "fetch", "-q", "origin")
    assert sh(repo, "git", "show", f"origin/main:{GAME}").stdout.encode() == forged
    stamp = json.loads(git(repo, "show", f"origin/main:{other}"))["log"][-1]
    assert stamp["meta"] == {"kind": "stamp"} and stamp["at"] == "2026-12-01T14:00:00Z"
