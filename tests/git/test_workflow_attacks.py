"""The workflow's secret and the base of a change (issue 30, items 2 and 6), attacked.

* Who gets REFEREE_SECRET: examples/github-workflow.yml read with tests/workflows.py (every
  job's `if:` for every event); broken copies show that the reading finds each way to
  give the secret to a pull request's code.
* action.yml, run as GitHub runs it (tests/git/test_action.py's runner), for each event:
  pull_request and merge_group hold no secret and refuse one; pull_request_target checks
  the pull request it was given; an unknown event or mode fails.
* `check --since` with a base that names no revision (GitHub's zeros for a push that
  creates a branch, or none), an unknown base and a force push, in real git repositories.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.ledger import gamefile
from tests import workflows
from tests.git.test_action import run_action
from tests.git.test_repository_attacks import (
    REPO_SECRET,
    WORKFLOW,
    base,
    commit,
    git,
    legal,
    passed,
    play,
    push,
    referee,
    refused,
    rehash,
    repo,  # noqa: F401  (a fixture)
    sealed_repo,  # noqa: F401  (a fixture)
    sh,
)

ZERO = "0" * 40
SHIPPED = yaml.safe_load(WORKFLOW.read_text())


# --- who gets the secret ------------------------------------------------------------------


def test_each_event_runs_the_jobs_meant_for_it() -> None:
    """The reading of `if:` and `needs`, on the shipped workflow (and the jobs the tests
    of tests/git/test_repository_attacks.py run for each event are the ones GitHub would run)."""
    assert workflows.may_run(SHIPPED, "pull_request") == {"check"}
    assert workflows.may_run(SHIPPED, "pull_request_target") == {"check-sealed"}
    assert workflows.may_run(SHIPPED, "push") == {"check-main", "publish", "deploy", "clock"}
    assert workflows.may_run(SHIPPED, "schedule") == {"clock"}
    # (a run by hand, or the one the job `play` starts after a move: checked, published)
    assert workflows.may_run(SHIPPED, "workflow_dispatch") == {"check-main", "publish",
                                                               "deploy"}
    assert workflows.may_run(SHIPPED, "merge_group") == set()  # not a trigger
    # moves through issues: the job `play` alone (its `if:` also leaves out a pull
    # request's comments and bots, which the reading cannot tell: UNKNOWN, may run)
    assert workflows.may_run(SHIPPED, "issues") == {"play"}
    assert workflows.may_run(SHIPPED, "issue_comment") == {"play"}


def test_the_shipped_workflow_gives_the_secret_to_no_pull_requests_code() -> None:
    assert workflows.exposures(SHIPPED) == []
    holders = {name for name, job in SHIPPED["jobs"].items()
               if workflows.secret_uses(job, name)}
    assert holders == {"check-sealed", "check-main", "publish", "clock", "play"}
    assert not holders & workflows.may_run(SHIPPED, "pull_request")


def _job(flow: dict[Any, Any], name: str) -> dict[str, Any]:
    return flow["jobs"][name]


def _ours(flow: dict[Any, Any], name: str) -> dict[str, Any]:
    return next(s for s in _job(flow, name)["steps"]
                if workflows.REFEREE_ACTION.fullmatch(str(s.get("uses", ""))))


SECRET = "${{ secrets.REFEREE_SECRET }}"
BREAKS = {  # a way to hand the secret to a pull request's code -> a word of the finding
    "the old workflow: the action's input in the pull_request job": (
        lambda f: _ours(f, "check")["with"].update(secret=SECRET), "given a secret"),
    "the workflow's env": (lambda f: f["env"].update(REFEREE_SECRET=SECRET), "every job"),
    "the job's env": (lambda f: _job(f, "check").update(env={"S": SECRET}), "check runs on"),
    "a step's env": (lambda f: _ours(f, "check").update(env={"S": SECRET}), "given a secret"),
    "all secrets as JSON": (lambda f: _job(f, "check")["steps"].append(
        {"run": "echo '${{ toJSON(secrets) }}'"}), "given a secret"),
    "another name, other case": (lambda f: _ours(f, "check")["with"].update(
        secret="${{ Secrets['referee_secret'] }}"), "given a secret"),
    "a reusable workflow with secrets: inherit": (lambda f: f["jobs"].update(
        lint={"if": "github.event_name == 'pull_request'", "uses": "./.github/workflows/l.yml",
              "secrets": "inherit"}), "lint runs on pull_request"),
    "an environment in the pull request's job": (
        lambda f: _job(f, "check").update(environment="referee"), "in the environment"),
    "the sealed check also on pull_request": (lambda f: _job(f, "check-sealed").update(
        {"if": "github.event_name == 'pull_request' || github.event_name == "
               "'pull_request_target'"}), "check-sealed runs on pull_request"),
    "an event name in other case": (lambda f: _job(f, "check-main").update(
        {"if": "github.event_name == 'PULL_REQUEST'"}), "check-main runs on pull_request"),
    "no condition at all": (lambda f: _job(f, "check-main").pop("if"),
                            "check-main runs on pull_request"),
    "the merge queue": (lambda f: (f[True].update(merge_group=None), _job(f, "check-main")
                                   .update({"if": "github.event_name != 'push'"})),
                        "runs on merge_group"),
    "a build step in the pull_request_target job": (
        lambda f: _job(f, "check-sealed")["steps"].insert(1, {"run": "make test"}),
        "may run the pull request's code"),
    "a local action in the pull_request_target job": (
        lambda f: _job(f, "check-sealed")["steps"].insert(1, {"uses": "./.github/a"}),
        "may run the pull request's code"),
    "the checkout keeps its token": (
        lambda f: _job(f, "check-sealed")["steps"][0]["with"].pop("persist-credentials"),
        "keeps the token"),
    "a write token on pull_request_target": (
        lambda f: _job(f, "check-sealed").update(permissions={"contents": "write"}),
        "may write"),
    "the secret outside its environment": (
        lambda f: _job(f, "check-main").pop("environment"), "outside the environment"),
    "a script in the job that plays issues": (
        lambda f: _job(f, "play")["steps"].insert(1, {"run": "echo \"$TITLE\""}),
        "may run what an issue's author wrote"),
    "another action in the job that plays issues": (
        lambda f: _job(f, "play")["steps"].append({"uses": "someone/comment-bot@v1"}),
        "may run what an issue's author wrote"),
    "the job that plays issues checks out a pull request": (
        lambda f: _job(f, "play")["steps"][0]["with"].update(
            ref="refs/pull/${{ github.event.issue.number }}/merge"), "not the default branch"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_way_to_leak_the_secret_is_found(name: str) -> None:
    change, word = BREAKS[name]
    flow = copy.deepcopy(SHIPPED)
    change(flow)
    found = workflows.exposures(flow)
    assert any(word in problem for problem in found), found


def test_the_expression_reader() -> None:
    on = {"github.event_name": "push"}
    assert workflows.evaluate("github.event_name == 'Push'", on) is True
    assert workflows.evaluate("!(github.event_name != 'push') && true", on) is True
    assert workflows.evaluate("${{ github.event_name == 'schedule' }}", on) is False
    unknown = workflows.evaluate("needs.check.result == 'success'", on)
    assert unknown is workflows.UNKNOWN
    assert workflows.evaluate("needs.x.result == 'success' || true", on) is True
    assert workflows.evaluate("always() && github.event_name == 'pull_request'", on) is False
    assert workflows.evaluate("contains('push schedule', github.event_name)", on) is True
    with pytest.raises(AssertionError):
        workflows.evaluate("github.event_name == 'push' ~", on)


# --- action.yml, event by event ----------------------------------------------------------


def verdict(out: str, name: str) -> str:
    """How the check's output starts the line of game file ``name`` (`ok`, `ok?`, `FAIL`)."""
    found = [line.split()[0] for line in out.splitlines()
             if line.split()[1:2] and line.split()[1].rstrip(":").endswith(name)]
    assert len(found) == 1, out
    return found[0]


def pr_context(where: Path, event: str, author: str) -> dict[str, str]:
    return {"github.event_name": event, "github.event.pull_request.base.sha": base(where),
            "github.event.pull_request.head.sha": git(where, "rev-parse", "HEAD"),
            "github.event.pull_request.user.login": author}


def check(where: Path, context: dict[str, str], secret: str = "", **given: str
          ) -> subprocess.CompletedProcess[str]:
    return run_action(where, {"mode": "check", "secret": secret, **given}, context)


@pytest.mark.parametrize("event", ["pull_request", "merge_group"])
def test_a_pull_requests_job_given_the_secret_refuses_it(repo: Path, event: str  # noqa: F811
                                                         ) -> None:
    play(repo, "games/g.json", "ben")
    commit(repo, "ben moves")
    context = pr_context(repo, event, "ben-gh") | {
        "github.event.merge_group.base_sha": base(repo)}
    done = check(repo, context, REPO_SECRET)
    refused(done, f"the secret was given to a {event} job", "pull_request_target")
    assert "games/g.json" not in done.stdout  # nothing was checked with it
    passed(check(repo, context))


def test_without_the_secret_a_pull_request_is_checked_for_all_that_needs_none(
        sealed_repo: Path) -> None:  # noqa: F811
    """The pull_request job: a sealed game's history, header and authors are checked,
    and what needs the secret is listed as not verified; an out-of-turn move passes
    there and is refused by the pull_request_target job, which has the secret."""
    repo = sealed_repo  # noqa: F811  (the fixture, by its short name)
    referee(repo, "move", "games/s.json", "--as", "ben", "supply 1", "--unchecked")
    commit(repo, "ben moves out of turn")
    done = check(repo, pr_context(repo, "pull_request", "ben-gh"))
    passed(done)
    out = done.stdout + done.stderr
    assert verdict(out, "games/s.json") == "ok?" and "has no secret" in out
    for skipped in ("sealed game without its secret: the legality of each move",
                    "the referee's MAC on each entry"):
        assert f"not verified: {skipped}" in out
    target = pr_context(repo, "pull_request_target", "ben-gh")
    refused(check(repo, target, REPO_SECRET), "not ben's turn")
    refused(check(repo, target), "secret is required")
    # what needs no secret is refused without it: another's entry, a rewritten history
    refused(check(repo, pr_context(repo, "pull_request", "ann-gh")), "only entries by ann")
    git(repo, "reset", "-q", "--hard", "main")
    move = legal(repo, "games/s.json", "ann", env={"REFEREE_SECRET": REPO_SECRET})[0]
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    commit(repo, "ann moves")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "pr")
    git(repo, "checkout", "-q", "-B", "pr2")
    path = repo / "games" / "s.json"
    data = json.loads(path.read_text())
    data["log"][0]["at"] = "2020-01-01T00:00:00Z"
    rehash(data)
    path.write_text(gamefile.dumps(data))
    commit(repo, "a rehashed edit")
    refused(check(repo, pr_context(repo, "pull_request", "ann-gh")), "rewritten")


def test_pull_request_target_checks_the_pull_request_it_was_given(repo: Path  # noqa: F811
                                                                   ) -> None:
    """pull_request_target checks out the default branch unless told otherwise: a check
    of that would pass whatever the pull request holds, so it fails."""
    play(repo, "games/g.json", "ben")
    play(repo, "games/h.json", "ann")  # ann's move in ben's pull request
    commit(repo, "ben moves, and ann")
    context = pr_context(repo, "pull_request_target", "ben-gh")
    refused(check(repo, context, REPO_SECRET), "only entries by ben")
    git(repo, "checkout", "-q", "main")  # the default checkout of pull_request_target
    refused(check(repo, context, REPO_SECRET), "the checkout is not pull request head")
    refused(check(repo, context | {"github.event.pull_request.head.sha": ""}, REPO_SECRET),
            "the checkout is not pull request head")


def test_merge_group_checks_the_queue_against_its_base(repo: Path) -> None:  # noqa: F811
    play(repo, "games/g.json", "ben")
    commit(repo, "ben moves")
    context = {"github.event_name": "merge_group",
               "github.event.merge_group.base_sha": base(repo)}
    passed(check(repo, context))
    (repo / "games" / "h.json").unlink()
    commit(repo, "a queued deletion")
    refused(check(repo, context), "games/h.json", "gone")


@pytest.mark.parametrize("event", ["schedule", "workflow_dispatch"])
def test_schedule_and_manual_runs_check_the_last_commit(repo: Path, event: str  # noqa: F811
                                                        ) -> None:
    git(repo, "checkout", "-q", "main")
    play(repo, "games/g.json", "ben")
    commit(repo, "ben moves")
    passed(done := check(repo, {"github.event_name": event}))
    assert "checked against its first parent" in done.stderr
    (repo / "games" / "h.json").write_text("{}\n")
    commit(repo, "emptied")
    refused(check(repo, {"github.event_name": event}), "games/h.json", "HEAD^")


def test_a_push_whose_base_is_gone_fails(repo: Path) -> None:  # noqa: F811
    """After a force push GitHub's `before` is the old tip, which the checkout lacks
    (and no remote serves here): the check fails; it never falls back to HEAD^."""
    git(repo, "checkout", "-q", "main")
    play(repo, "games/g.json", "ben")
    commit(repo, "a rewritten main")
    refused(check(repo, {"github.event_name": "push", "github.event.before": "ab" * 20},
                  REPO_SECRET), "unknown git revision", "gone")


@pytest.mark.parametrize("event", ["issue_comment", "release", "workflow_run",
                                   "pull_request_review", "repository_dispatch", ""])
def test_an_event_the_action_does_not_know_fails(repo: Path, event: str  # noqa: F811
                                                 ) -> None:
    context = pr_context(repo, event, "ann-gh") | {"github.event.before": base(repo)}
    refused(check(repo, context), f"does not run on the event '{event}'")
    refused(run_action(repo, {"mode": "publish", "views": "", "site": ""}, context),
            f"does not run on the event '{event}'")


@pytest.mark.parametrize("event", ["pull_request", "pull_request_target", "merge_group"])
def test_publish_never_runs_for_a_pull_request(repo: Path, event: str) -> None:  # noqa: F811
    refused(run_action(repo, {"mode": "publish", "views": "", "site": "out"},
                       pr_context(repo, event, "ann-gh")), "does not run on the event")
    assert not (repo / "out").exists()


def test_an_unknown_mode_fails(repo: Path) -> None:  # noqa: F811
    refused(run_action(repo, {"mode": "chek"}, {"github.event_name": "push",
                                                "github.event.before": base(repo)}),
            "unknown mode 'chek'")


# --- a base that names no revision ---------------------------------------------------------


def since(where: Path, rev: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return sh(where, "referee", "check", f"--since={rev}", *extra, check=False)


def on_main(where: Path) -> Path:
    git(where, "checkout", "-q", "main")
    return where


def test_a_rewritten_history_pushed_with_a_zero_base_is_refused(repo: Path  # noqa: F811
                                                                ) -> None:
    repo = on_main(repo)
    path = repo / "games" / "g.json"
    data = json.loads(path.read_text())
    data["log"] = []
    path.write_text(gamefile.dumps(data))
    other = legal(repo, "games/g.json", "ann")[1]  # another first move, honestly chained
    referee(repo, "move", "games/g.json", "--as", "ann", other)
    commit(repo, "a better first move")
    done = since(repo, ZERO)
    refused(done, "games/g.json", "changed since HEAD^", "rewritten")
    assert "checked against its first parent" in done.stderr
    refused(check(repo, {"github.event_name": "push", "github.event.before": ZERO},
                  REPO_SECRET), "rewritten")  # the action passes GitHub's zeros through


@pytest.mark.parametrize("rev", [ZERO, "0" * 64, "0000000", "", "  "])
def test_a_deleted_game_with_no_base_is_refused(repo: Path, rev: str) -> None:  # noqa: F811
    repo = on_main(repo)
    (repo / "games" / "h.json").unlink()
    commit(repo, "tidy up")
    done = since(repo, rev)
    refused(done, "games/h.json", "existed at HEAD^", "gone")
    assert "names no revision" in done.stderr


def test_a_renamed_game_with_a_zero_base_is_refused(repo: Path) -> None:  # noqa: F811
    repo = on_main(repo)
    git(repo, "mv", "games/h.json", "games/h2.json")
    commit(repo, "a new name")
    refused(since(repo, ZERO), "games/h.json", "gone")


def test_an_unknown_or_foreign_base_fails_closed(repo: Path) -> None:  # noqa: F811
    repo = on_main(repo)
    done = since(repo, "deadbeef" * 5)
    assert done.returncode == 2 and "unknown git revision" in done.stderr
    refused(since(repo, "--output=/tmp/x"), "is not a git revision")
    old = base(repo)
    path = repo / "games" / "g.json"
    data = json.loads(path.read_text())
    data["log"] = []
    path.write_text(gamefile.dumps(data))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "-m", "start two games")  # a force push
    done = since(repo, old)
    assert done.returncode == 1
    refused(done, "not an ancestor of HEAD", "rewritten")


def test_an_honest_new_branch_with_new_games_passes(repo: Path) -> None:  # noqa: F811
    repo = on_main(repo)
    git(repo, "checkout", "-q", "--orphan", "fresh")  # a new repository's first push
    commit(repo, "the first commit")
    done = since(repo, ZERO)
    passed(done)
    assert "HEAD is a root commit: every game file is new" in done.stderr
    git(repo, "checkout", "-q", "-b", "league", "main")  # a new branch from main
    referee(repo, "new", "staufer", "games/n.json", "--players", "ann,ben",
            "--github", "ann=ann-gh,ben=ben-gh", "--seed", "n1", "--id", "n")
    play(repo, "games/g.json", "ben")
    commit(repo, "a new game, and ben's move")
    done = since(repo, ZERO)
    passed(done)
    assert verdict(done.stdout, "games/n.json") == "ok" and "(1 new move)" in done.stdout
    passed(check(repo, {"github.event_name": "push", "github.event.before": ZERO},
                 REPO_SECRET))


def test_a_first_push_checks_every_game_as_new(repo: Path) -> None:  # noqa: F811
    git(repo, "checkout", "-q", "main")
    passed(push(repo, "0" * 40))  # a root commit: every game is new
    path = repo / "games" / "g.json"
    data = json.loads(path.read_text())
    data["log"][0]["by"] = "ben"  # not ben's turn
    path.write_text(gamefile.dumps(data))
    commit(repo, "broken")
    # zeros name no revision: the push is checked against HEAD^, whose history it rewrote
    refused(push(repo, "0" * 40), "changed since HEAD^", "rewritten")
    git(repo, "checkout", "-q", "--orphan", "fresh")
    commit(repo, "the broken game as a root commit")
    refused(push(repo, "0" * 40), "not ben's turn")


def test_json_stays_json_with_a_zero_base(repo: Path) -> None:  # noqa: F811
    repo = on_main(repo)
    (repo / "games" / "h.json").unlink()
    commit(repo, "gone")
    done = since(repo, ZERO, "--json")
    assert done.returncode == 1
    rows = json.loads(done.stdout)
    assert [r["file"] for r in rows if not r["ok"]] == ["games/h.json"]
    assert "names no revision" in done.stderr


# --- sealed games without the secret: checked as far as the secret is not needed ----------


def test_check_without_the_secret_says_what_it_left(sealed_repo: Path) -> None:  # noqa: F811
    repo = sealed_repo  # noqa: F811  (the fixture, by its short name)
    referee(repo, "new", "staufer", "games/b.json", "--players", "ann,bot:ben=random",
            "--sealed", "--id", "sealed-bot", env={"REFEREE_SECRET": REPO_SECRET})
    commit(repo, "a sealed game with a bot seat")
    ci = {"CI": "true"}
    required = sh(repo, "referee", "check", "--since", base(repo), env=ci, check=False)
    refused(required, "secret is required")  # CI's default
    done = sh(repo, "referee", "check", "--since", base(repo), "--no-require-secret",
              env=ci, check=False)
    passed(done)
    assert verdict(done.stdout, "games/b.json") == "ok?"
    assert "not verified: the bot seats' moves" in done.stdout
    assert "not verified: the referee's MAC on each entry" in done.stdout
