"""The referee's own GitHub Action (action.yml, a composite action): its inputs, the
example workflow that uses it, and its steps run as GitHub runs them, in a real git
repository with a real `referee` (tests/test_trust_git.py's runner expands the action
for every workflow test; here its inputs are tried one by one)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.test_trust_git import (
    ACTION,
    BIN,
    REFEREE_ACTION,
    ROOT,
    WORKFLOW,
    action_steps,
    base,
    commit,
    git,
    passed,
    play,
    pull_request,
    refused,
    repo,  # noqa: F401  (a fixture)
    substitute,
)

FINISHED = ["staufer-3p.json", "dynasties-3p.json"]


def run_action(where: Path, given: dict[str, str], context: dict[str, str],
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The action's `run:` steps (but the install) with these inputs, as GitHub runs a
    composite action: each step's env from the inputs and the context. The output is
    every step's, in order; the exit status the first failing step's, else 0."""
    out, err = [], []
    for step, extra in action_steps({"uses": "org/referee@v1", "with": given}, context):
        if "run" not in step or step.get("name") == "install referee":
            continue
        full = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(where), "CI": "true",
                "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": str(ROOT),
                "GITHUB_EVENT_NAME": context["github.event_name"], "GITHUB_SHA": "0" * 40,
                **(env or {}),
                **{k: substitute(str(v), context | extra) for k, v in step["env"].items()}}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=where, env=full,
                              capture_output=True, text=True)
        out.append(done.stdout)
        err.append(done.stderr)
        if done.returncode != 0:
            break
    else:
        return subprocess.CompletedProcess([], 0, "".join(out), "".join(err))
    return subprocess.CompletedProcess([], done.returncode, "".join(out), "".join(err))


def test_the_action_is_composite_with_documented_inputs() -> None:
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    assert {"mode", "games", "secret", "signed", "site", "views", "ratings"} <= set(
        action["inputs"])
    assert all(spec.get("description") for spec in action["inputs"].values())
    runs = [s for s in action["runs"]["steps"] if "run" in s]
    assert all(s["shell"] == "bash" for s in runs)
    assert all("${{" not in s["run"] for s in runs), "expressions belong in env"
    install = next(s for s in runs if s["name"] == "install referee")
    assert install["run"] == 'pip install "${GITHUB_ACTION_PATH}[pictures,ratings]"'
    # installed from the action's folder: nothing of a checked-out pull request is read
    assert install["working-directory"] == "${{ github.action_path }}"


def test_the_example_workflow_uses_the_action_for_check_and_publish() -> None:
    """Each check and the publishing through the action, no steps of their own; the
    secret only where no pull request controls the job (tests/test_edges_workflow.py
    proves that for every job and event)."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    for job, mode, secret in (("check", "check", False), ("check-sealed", "check", True),
                              ("check-main", "check", True), ("publish", "publish", True)):
        steps = flow["jobs"][job]["steps"]
        ours = [s for s in steps if REFEREE_ACTION.fullmatch(str(s.get("uses", "")))]
        assert len(ours) == 1 and ours[0]["with"]["mode"] == mode
        assert not [s for s in steps if "run" in s], f"{job}: steps of its own"
        assert ours[0]["with"].get("secret") == (
            "${{ secrets.REFEREE_SECRET }}" if secret else None), job
        assert (flow["jobs"][job].get("environment") == "referee") == secret, job


def test_unknown_input_is_refused_by_the_runner() -> None:
    with pytest.raises(AssertionError, match="no inputs"):
        action_steps({"uses": "org/referee@v1", "with": {"secrte": "x"}}, {})


def test_check_mode_with_the_signed_input(repo: Path) -> None:  # noqa: F811
    play(repo, "games/g.json", "ben")
    commit(repo, "ben moves")
    context = {"github.event_name": "pull_request",
               "github.event.pull_request.base.sha": base(repo),
               "github.event.pull_request.head.sha": git(repo, "rev-parse", "HEAD"),
               "github.event.pull_request.user.login": "ben-gh"}
    passed(run_action(repo, {"mode": "check"}, context))
    refused(run_action(repo, {"mode": "check", "signed": "true"}, context), "sign")
    passed(pull_request(repo, base(repo), "ben-gh"))  # the workflow, through the action


@pytest.fixture
def finished_repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "league").mkdir()
    for name in FINISHED:
        shutil.copy(ROOT / "examples" / name, tmp_path / "league" / name)
    commit(tmp_path, "two finished games")
    return tmp_path


PUSH = {"github.event_name": "push"}


def test_publish_writes_the_site_and_the_league(finished_repo: Path) -> None:
    summary = finished_repo / "summary.md"
    done = run_action(finished_repo, {"mode": "publish", "games": "league", "views": "",
                                      "site": "out"}, PUSH,
                      {"GITHUB_STEP_SUMMARY": str(summary)})
    passed(done)
    assert (finished_repo / "out" / "index.html").is_file()
    table = (finished_repo / "out" / "league.txt").read_text()
    assert "staufer: 1 game rated" in table and "dynasties: 1 game rated" in table
    league = json.loads((finished_repo / "out" / "league.json").read_text())
    assert sorted(league["tables"]) == ["dynasties", "staufer"]
    assert "### League" in summary.read_text() and "staufer: 1 game rated" in summary.read_text()


def test_publish_inputs_turn_parts_off(finished_repo: Path) -> None:
    passed(run_action(finished_repo, {"mode": "publish", "games": "league", "views": "",
                                      "site": "out", "ratings": "false"}, PUSH))
    assert (finished_repo / "out" / "index.html").is_file()
    assert not (finished_repo / "out" / "league.txt").exists()
    passed(run_action(finished_repo, {"mode": "publish", "games": "league", "views": "",
                                      "site": ""}, PUSH))
    assert not (finished_repo / "_site").exists()
    # check mode publishes nothing
    passed(run_action(finished_repo, {"mode": "check", "games": "league"},
                      {"github.event_name": "push", "github.event.before": "0" * 40}))
    assert not (finished_repo / "_site").exists() and not (finished_repo / "views").exists()


# --- no cache restored: the trust model of docs/security.md ----------------------------


REFEREE_CALL = re.compile(r"(^|[\s$(])referee\s")


def test_the_action_restores_no_cache_and_gives_each_step_an_empty_one() -> None:
    """The cache is trusted as the user's own files, so the action never restores one (a
    pull request's job can save a cache that a later job would restore: actions/cache,
    a self-hosted runner's leftovers): no step uses an action but setup-python, and each
    step that runs referee first points REFEREE_CACHE_DIR at a new empty folder of its
    own, removed after it."""
    action = yaml.safe_load(ACTION.read_text())
    steps = action["runs"]["steps"]
    assert [s["uses"] for s in steps if "uses" in s] == ["actions/setup-python@v5"]
    for step in steps:  # (no cache service, no cache folder of the job's)
        text = json.dumps(step)
        assert not re.search(r"actions/cache|ACTIONS_CACHE|XDG_CACHE_HOME|\.cache", text)
    calling = [s for s in steps if "run" in s and s["name"] != "install referee"
               and REFEREE_CALL.search(s["run"])]
    assert len(calling) == 4
    for step in calling:
        lines = step["run"].splitlines()
        fresh = next(i for i, line in enumerate(lines)
                     if line.strip().startswith('export REFEREE_CACHE_DIR="$(mktemp -d)"'))
        first_call = next(i for i, line in enumerate(lines) if REFEREE_CALL.search(line))
        assert fresh < first_call, step["name"]
        assert lines[fresh + 1].strip() == "trap 'rm -rf \"$REFEREE_CACHE_DIR\"' EXIT"
        assert "REFEREE_CACHE_DIR" not in step.get("env", {})


def poisoned_cache(folder: Path, games: Path) -> None:
    """A cache whose ratings rows say every game ended the other way round, won by
    Mallory: what a pull request's job could save for a later job to restore."""
    import contextlib
    import sqlite3

    import msgspec

    from referee.ledger import cachedb

    subprocess.run([str(BIN / "referee"), "ratings", str(games)], check=True,
                   capture_output=True, env={"PATH": f"{BIN}:/usr/bin:/bin",
                                             "REFEREE_CACHE_DIR": str(folder),
                                             "HOME": str(folder)})
    with contextlib.closing(sqlite3.connect(folder / cachedb.FILE_NAME)) as conn, conn:
        for key, stored in conn.execute(
                "SELECT key, value FROM rows WHERE kind = 'ratings'").fetchall():
            entry = msgspec.msgpack.decode(cachedb.unsealed(b"ratings" + key, stored) or b"")
            if isinstance(entry[0], dict):
                entry[0]["places"] = entry[0]["places"][::-1]
                entry[0]["names"] = {who: "Mallory" for who in entry[0]["names"]}
            conn.execute("UPDATE rows SET value = ? WHERE kind = 'ratings' AND key = ?",
                         (cachedb.sealed(b"ratings" + key, msgspec.msgpack.encode(entry)),
                          key))


def test_a_restored_cache_is_never_read(finished_repo: Path, tmp_path: Path) -> None:
    """A poisoned cache where a workflow would restore one (the runner's ~/.cache, an
    XDG_CACHE_HOME, a REFEREE_CACHE_DIR set for the whole job): the league the action
    publishes is the one without any cache, and nothing is written into them."""
    games = finished_repo / "league"
    home = tmp_path / "home"
    for folder in (home / ".cache" / "referee", tmp_path / "xdg" / "referee",
                   tmp_path / "job-cache"):
        folder.mkdir(parents=True, mode=0o700)
        poisoned_cache(folder, games)
    control = subprocess.run([str(BIN / "referee"), "ratings", str(games)], text=True,
                             capture_output=True, check=True,
                             env={"PATH": f"{BIN}:/usr/bin:/bin",
                                  "REFEREE_CACHE_DIR": str(tmp_path / "job-cache")})
    assert "Mallory" in control.stdout  # (the poison works where a cache is trusted)
    before = {p: p.read_bytes() for p in tmp_path.rglob("cache.sqlite3")}
    assert len(before) == 3
    done = run_action(finished_repo, {"mode": "publish", "games": "league", "views": "",
                                      "site": "out"}, PUSH,
                      {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "xdg"),
                       "REFEREE_CACHE_DIR": str(tmp_path / "job-cache")})
    passed(done)
    table = (finished_repo / "out" / "league.txt").read_text()
    assert "Mallory" not in table and "staufer: 1 game rated" in table
    assert "Mallory" not in (finished_repo / "out" / "league.html").read_text()
    # (none written either, and no other cache left in the job's folders)
    assert {p: p.read_bytes() for p in tmp_path.rglob("cache.sqlite3")} == before
