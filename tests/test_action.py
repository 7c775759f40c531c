"""The referee's own GitHub Action (action.yml, a composite action): its inputs, the
example workflow that uses it, and its steps run as GitHub runs them, in a real git
repository with a real `referee` (tests/test_trust_git.py's runner expands the action
for every workflow test; here its inputs are tried one by one)."""

from __future__ import annotations

import json
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
