"""A git game with a clock: players move without the secret, the workflow's `clock` job
(examples/github-workflow.yml, run step by step as GitHub would, with REFEREE_NOW as its
clock) stamps their entries with the referee's time and, once a bank has run out, times
the seat out and lets a bot play; every push passes `check --since`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from tests.conftest import require_tool
from tests.git.test_repository_attacks import (
    BIN,
    REPO_SECRET,
    WORKFLOW,
    commit,
    git,
    passed,
    pull_request,
    push,
    push_to_new_origin,
    referee,
    substitute,
)

DAY, HOUR = 86400, 3600


def clock_job(repo: Path, when: str) -> subprocess.CompletedProcess[str]:
    """The `clock` job's run steps (not the install), at ``when``."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    job = flow["jobs"]["clock"]
    assert "schedule" in flow[True] and job["needs"] == ["check-main", "publish"]
    context = {"github.event_name": "schedule", "secrets.REFEREE_SECRET": REPO_SECRET}
    top = {k: substitute(str(v), context) for k, v in flow["env"].items()}
    done = subprocess.CompletedProcess([], 0, "", "")
    for step in job["steps"]:
        if "run" not in step or step.get("name") == "install referee":
            continue
        env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(repo), "CI": "true",
               "REFEREE_NOW": when, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", **top,
               **{k: substitute(str(v), context) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            return done
    return done


def log(repo: Path) -> list[dict]:  # type: ignore[type-arg]
    return list(json.loads((repo / "games" / "c.json").read_text())["log"])


def test_a_git_game_with_a_clock_stamped_and_timed_out_by_the_clock_job(
        tmp_path: Path) -> None:
    require_tool("git")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "games").mkdir()
    secret = {"REFEREE_SECRET": REPO_SECRET, "REFEREE_NOW": "2026-12-01T09:00:00Z"}
    referee(repo, "new", "staufer", "games/c.json", "--players", "ann,ben", "--github",
            "ann=ann-gh,ben=ben-gh", "--sealed", "--id", "clocked", "--clock", "1d+12h/2d",
            "--timeout", "bot:random", env=secret)
    commit(repo, "a clocked game")
    remote = push_to_new_origin(repo, tmp_path)

    # ann moves at 15:00 without the secret (her entry's `at` says 09:30: it counts for
    # nothing); the pull request is checked and merged; the clock job sees it at 18:00
    base = git(repo, "rev-parse", "HEAD")
    legal = json.loads(referee(repo, "status", "games/c.json", "--json",
                               env=secret).stdout)
    assert legal["clock"]["seats"]["ann"]["awaited"]
    referee(repo, "move", "games/c.json", "--as", "ann", "supply 2", "--unchecked",
            env={"REFEREE_NOW": "2026-12-01T09:30:00Z"})
    commit(repo, "ann: supply 2")
    passed(pull_request(repo, base, "ann-gh"))
    passed(push(repo, base))
    git(repo, "push", "-q", "origin", "main")
    before = git(repo, "rev-parse", "HEAD")
    passed(clock_job(repo, "2026-12-01T18:00:00Z"))
    assert log(repo)[-1]["meta"] == {"kind": "stamp"} and "mac" in log(repo)[-1]
    assert log(repo)[-1]["at"] == "2026-12-01T18:00:00Z"
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "HEAD") != before
    passed(push(repo, before))
    view = (repo / "views" / "c.clock.txt").read_text()
    assert "ann          bank 1d 3h, vacation 0d" in view  # 24 h - 9 h + 12 h
    assert "ben          bank 1d, vacation 0d, awaited: times out 2026-12-02 18:00" in view

    # nothing new: the job commits nothing
    head = git(repo, "rev-parse", "HEAD")
    passed(clock_job(repo, "2026-12-02T10:00:00Z"))
    assert git(repo, "rev-parse", "HEAD") == head

    # ben's bank runs out at 18:00 on the 2nd: the next run times him out, a bot plays
    passed(clock_job(repo, "2026-12-02T19:00:00Z"))
    entries = log(repo)
    timeout = next(e for e in entries if e.get("meta", {}).get("kind") == "timeout")
    assert timeout["meta"]["player"] == "ben" and timeout["by"] == "gm" and "mac" in timeout
    assert entries[entries.index(timeout) + 1]["bot"] is True
    passed(push(repo, head))
    assert "ben          bank 12h" in (repo / "views" / "c.clock.txt").read_text()
    assert json.loads((repo / "views" / "c.clock.json").read_text())["seats"]["ben"][
        "timeouts"] == 1
