"""The referee's own GitHub Action (action.yml, a composite action): its inputs, the
example workflow that uses it, and its steps run as GitHub runs them, in a real git
repository with a real `referee` (tests/git/test_repository_attacks.py's runner expands the action
for every workflow test; here its inputs are tried one by one)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.git.test_repository_attacks import (
    ACTION,
    BIN,
    REFEREE_ACTION,
    REPO_SECRET,
    ROOT,
    WORKFLOW,
    action_steps,
    base,
    commit,
    git,
    legal,
    passed,
    play,
    pull_request,
    referee,
    refused,
    repo,  # noqa: F401  (a fixture)
    run_workflow,
    substitute,
)
from tests.githubevents import DATA, github_event

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
    secret only where no pull request controls the job (tests/git/test_workflow_attacks.py
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


# --- play: moves through issues (docs/git-and-ci.md, "Moving through issues") -------------
# The action's `play` steps in a real clone of a real (bare) origin; `gh`, which needs
# GitHub, is a stand-in on PATH that records its calls and the answer it was given.

GH = """#!{python}
import json, os, sys
args = sys.argv[1:]
body = None
if "--body-file" in args:
    body = open(args[args.index("--body-file") + 1], encoding="utf-8").read()
with open(os.environ["GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")
"""
PLAY_REPO = "octo-org/games"
LOGINS = {"ann": "ann-gh", "ben": "ben-gh"}


@dataclass
class Played:
    """A players' repository as the `play` job finds it: a bare ``origin``, a clone of
    it that is the job's checkout (``runner``), another clone where others push
    (``elsewhere``), the stand-in `gh`'s log and the job's temporary folder."""

    origin: Path
    runner: Path
    elsewhere: Path
    gh_log: Path
    temp: Path
    bin: Path

    def env(self, event: dict[str, Any]) -> dict[str, str]:
        path = self.temp / "event.json"
        path.write_text(json.dumps(event), encoding="utf-8")
        return {"PATH": f"{self.bin}:{BIN}:/usr/bin:/bin", "GITHUB_EVENT_PATH": str(path),
                "RUNNER_TEMP": str(self.temp), "GH_LOG": str(self.gh_log)}

    def calls(self) -> list[dict[str, Any]]:
        if not self.gh_log.exists():
            return []
        return [json.loads(line) for line in self.gh_log.read_text().splitlines()]

    def log(self) -> list[str]:
        return git(self.origin, "log", "--format=%s", "main").splitlines()


def played_repo(tmp_path: Path, games: Path) -> Played:
    """``games`` (a folder of game files) committed in a new origin and cloned."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(work))
    shutil.copytree(games, work / "games", ignore=shutil.ignore_patterns(".referee-judge*"))
    commit(work, "the games")
    git(work, "push", "-q", "origin", "HEAD:main")
    runner, elsewhere = tmp_path / "runner", tmp_path / "elsewhere"
    for clone in (runner, elsewhere):
        git(tmp_path, "clone", "-q", str(origin), str(clone))
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gh").write_text(GH.format(python=sys.executable))
    (fake / "gh").chmod(0o755)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return Played(origin, runner, elsewhere, tmp_path / "gh.log", temp, fake)


@pytest.fixture
def played(tmp_path: Path) -> Played:
    """Two open Staufer games, g1 and h1 (ann, ben; GitHub logins ann-gh, ben-gh)."""
    games = tmp_path / "start"
    games.mkdir()
    for gid in ("g1", "h1"):
        referee(tmp_path, "new", "staufer", f"start/{gid}.json", "--players", "ann,ben",
                "--github", "ann=ann-gh,ben=ben-gh", "--seed", gid, "--id", gid)
    return played_repo(tmp_path, games)


def issue_event(title: str, body: str, login: str, number: int = 7,
                comment: int | None = None) -> dict[str, Any]:
    """GitHub's own payload (tests/data/github/), its title, body, logins, ids and
    repository set."""
    return github_event("issue_comment.created" if comment else "issues.opened",
                        title=title, body=body, login=login, text_id=comment or 1000 + number,
                        repo=PLAY_REPO, number=number)


def play_context(event: dict[str, Any]) -> dict[str, str]:
    """The GitHub context a play job has for ``event``."""
    return {"github.event_name": "issue_comment" if "comment" in event else "issues",
            "github.event.repository.default_branch": "main",
            "github.event.issue.number": str(event["issue"]["number"]),
            "github.event.issue.state": event["issue"]["state"],
            "github.event.comment.id": str(event.get("comment", {}).get("id", "")),
            "github.repository": PLAY_REPO, "github.token": "t0ken",
            "github.workflow_ref": f"{PLAY_REPO}/.github/workflows/referee.yml@refs/heads/main"}


def first_link(where: Path, game: str, player: str) -> tuple[str, str]:
    """The (title, body) of the first issue link of ``player`` in ``game``."""
    move = legal(where, f"games/{game}.json", player)[0]
    play = len(json.loads((where / "games" / f"{game}.json").read_text())["log"])
    return f"[referee] {game}: {player} {move}", f"{move}\n\nplay {play}\n"


def game_log(where: Path, game: str) -> list[dict[str, Any]]:
    return list(json.loads(git(where, "show", f"main:games/{game}.json"))["log"])


def test_play_plays_commits_pushes_answers_closes_and_starts_the_workflow(
        played: Played) -> None:
    title, body = first_link(played.runner, "g1", "ann")
    event = issue_event(title, body, "ann-gh")
    done = run_action(played.runner, {"mode": "play", "dispatch": "true"},
                      play_context(event), played.env(event))
    passed(done)
    assert done.stdout.startswith("played: g1 issue:1007")
    assert played.log()[0] == "referee: the move of issue #7"
    entry = game_log(played.origin, "g1")[-1]
    assert (entry["by"], entry["github"]) == ("ann", "issue:1007")
    tracked = git(played.origin, "ls-tree", "-r", "--name-only", "main").split()
    assert sorted(tracked) == ["games/g1.json", "games/h1.json"]  # (no judge state)
    calls = played.calls()
    assert [c["args"][:3] for c in calls] == [["issue", "comment", "7"],
                                              ["issue", "close", "7"],
                                              ["workflow", "run", "referee.yml"]]
    assert calls[0]["args"][3:5] == ["--repo", PLAY_REPO]
    assert "Played for ann" in calls[0]["body"] and "Your turn: @ben-gh." in calls[0]["body"]
    assert calls[2]["args"][3:] == ["--repo", PLAY_REPO, "--ref", "main"]


def test_play_a_lost_race_is_rebased_and_checked_again(played: Played) -> None:
    title, body = first_link(played.runner, "g1", "ann")
    play(played.elsewhere, "games/h1.json", "ann")  # meanwhile, a move in another game
    commit(played.elsewhere, "ann moves in h1")
    git(played.elsewhere, "push", "-q", "origin", "HEAD:main")
    event = issue_event(title, body, "ann-gh")
    done = run_action(played.runner, {"mode": "play"}, play_context(event), played.env(event))
    passed(done)
    assert "lost a race (try 1): rebased on main" in done.stdout
    assert played.log()[:2] == ["referee: the move of issue #7", "ann moves in h1"]
    assert game_log(played.origin, "g1")[-1]["github"] == "issue:1007"
    assert [c["args"][:2] for c in played.calls()] == [["issue", "comment"],
                                                      ["issue", "close"]]


def test_play_the_same_game_moved_meanwhile_judges_the_link_again(played: Played) -> None:
    """The job's checkout is older than main: the link of play 0 is played there, the
    push loses, the rebase conflicts, and on main as it is the link is stale: nothing
    is pushed, and the answer says why."""
    title, body = first_link(played.runner, "g1", "ann")
    other = legal(played.elsewhere, "games/g1.json", "ann")[1]
    referee(played.elsewhere, "move", "games/g1.json", "--as", "ann", other)
    commit(played.elsewhere, "ann moves in g1 by pull request")
    git(played.elsewhere, "push", "-q", "origin", "HEAD:main")
    event = issue_event(title, body, "ann-gh")
    done = run_action(played.runner, {"mode": "play", "dispatch": "true"},
                      play_context(event), played.env(event))
    passed(done)
    assert "rejected: g1 issue:1007 stale" in done.stdout
    assert played.log()[0] == "ann moves in g1 by pull request"
    assert [e.get("github") for e in game_log(played.origin, "g1")] == [None]
    calls = played.calls()
    assert [c["args"][:2] for c in calls] == [["issue", "comment"], ["issue", "close"]]
    assert "answers move 0, but the game is at move 1" in " ".join(calls[0]["body"].split())


def test_play_a_comment_on_a_closed_issue_and_what_is_not_for_the_referee(
        played: Played) -> None:
    move = legal(played.runner, "games/g1.json", "ann")[0]
    event = issue_event("[referee] g1", move, "ann-gh", number=8, comment=555)
    event["issue"]["state"] = "closed"
    passed(run_action(played.runner, {"mode": "play"}, play_context(event),
                      played.env(event)))
    assert game_log(played.origin, "g1")[-1]["github"] == "comment:555"
    assert [c["args"][:2] for c in played.calls()] == [["issue", "comment"]]  # (no close)
    before = played.log()
    untouched = json.loads((DATA / "issues.opened.payload.json").read_text())
    done = run_action(played.runner, {"mode": "play"}, play_context(untouched),
                      played.env(untouched))
    passed(done)
    assert "no answer to post" in done.stdout
    assert played.log() == before and len(played.calls()) == 1


def test_play_a_hidden_choice_said_in_a_comment_is_deleted(tmp_path: Path) -> None:
    from tests.doors.github.test_door import LOGINS as SEATS
    from tests.doors.github.test_door import hidden_choice_game

    path, mover, hidden = hidden_choice_game(tmp_path, sealed=False)
    found = played_repo(tmp_path, path.parent)
    event = issue_event("[referee] d1", hidden, SEATS[mover], number=9, comment=4242)
    done = run_action(found.runner, {"mode": "play"}, play_context(event), found.env(event))
    passed(done)
    assert done.stdout.startswith("withdrawn: d1 comment:4242")
    calls = found.calls()
    assert [c["args"] for c in calls[1:]] == [
        ["api", "-X", "DELETE", f"repos/{PLAY_REPO}/issues/comments/4242"],
        ["issue", "close", "9", "--repo", PLAY_REPO]]
    assert hidden not in calls[0]["body"]
    assert found.log() == ["the games"]


def test_play_runs_on_issue_events_only(played: Played) -> None:
    event = issue_event("[referee] g1", "supply 1", "ann-gh")
    for name in ("push", "pull_request", "pull_request_target", "schedule"):
        refused(run_action(played.runner, {"mode": "play"}, {"github.event_name": name},
                           played.env(event)), f"mode 'play' does not run on the event '{name}'")
    assert played.calls() == [] and played.log() == ["the games"]


def test_the_example_workflow_plays_issues_through_the_action(played: Played) -> None:
    """The `play` job: on issues opened and comments created, never a pull request's
    comment or a bot's; one at a time per repository; the secret from the environment;
    its steps (the checkout of main, the action) run as GitHub runs them."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    on = flow.get("on", flow.get(True))
    assert on["issues"] == {"types": ["opened"]}
    assert on["issue_comment"] == {"types": ["created"]}
    job = flow["jobs"]["play"]
    assert job["environment"] == "referee"
    assert job["concurrency"] == {"group": "referee-play-${{ github.repository }}",
                                  "cancel-in-progress": False}
    assert job["permissions"] == {"contents": "write", "issues": "write", "actions": "write"}
    condition = str(job["if"])
    assert "!github.event.issue.pull_request" in condition
    assert "github.event.sender.type != 'Bot'" in condition
    checkout, ours = job["steps"]
    assert checkout["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert ours["with"] == {"mode": "play", "games": "games",
                            "secret": "${{ secrets.REFEREE_SECRET }}", "dispatch": "true"}
    title, body = first_link(played.runner, "g1", "ann")
    event = issue_event(title, body, "ann-gh")
    done = run_workflow(played.runner, play_context(event) | {
        "secrets.REFEREE_SECRET": REPO_SECRET}, job="play", env=played.env(event))
    passed(done)
    assert played.log()[0] == "referee: the move of issue #7"
    assert [c["args"][:2] for c in played.calls()] == [
        ["issue", "comment"], ["issue", "close"], ["workflow", "run"]]


def test_publish_draws_the_issue_links_when_asked(played: Played) -> None:
    context = {"github.event_name": "push", "github.repository": PLAY_REPO}
    passed(run_action(played.runner, {"mode": "publish", "views": "", "site": "out",
                                      "ratings": "false", "issue-links": "true"}, context))
    page = (played.runner / "out" / "g1" / "index.html").read_text(encoding="utf-8")
    move = legal(played.runner, "games/g1.json", "ann")[0]
    assert f">{move}</a>" in page and f"https://github.com/{PLAY_REPO}/issues/new?" in page
    passed(run_action(played.runner, {"mode": "publish", "views": "", "site": "plain",
                                      "ratings": "false"}, context))
    assert "/issues/new?" not in (played.runner / "plain" / "g1" / "index.html").read_text()
    flow = yaml.safe_load(WORKFLOW.read_text())
    publish = next(s for s in flow["jobs"]["publish"]["steps"]
                   if REFEREE_ACTION.fullmatch(str(s.get("uses", ""))))
    assert publish["with"]["issue-links"] == "true"


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
    assert len(calling) == 5  # (check, views, site, the league table, play)
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
