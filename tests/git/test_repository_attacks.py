"""The players' repository under attack: every `run:` step of examples/github-workflow.yml
runs in a temporary git repository with the environment GitHub sets, for pull_request and
push events, and each cheat a player who has read the code might try is refused, while
an honest move passes. Real git, a real `referee` subprocess, The Staufer Dynasty.
A pull request runs both its jobs (`check` without the secret, `check-sealed` with it),
a push the job `check-main`; tests/git/test_workflow_attacks.py tries the events one by one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.ledger import gamefile
from tests.conftest import require_tool

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "github-workflow.yml"
ACTION = ROOT / "action.yml"  # the referee's own composite action
REFEREE_ACTION = re.compile(r"[A-Za-z0-9_.-]+/referee@[A-Za-z0-9_.-]+")
BIN = Path(sys.executable).parent
REPO_SECRET = "9f2c4e1a7b3d5f6e8a0c2e4f6a8b0d1c3e5f7a9b1d3f5a7c9e1b3d5f7a9c1e3f"
IDS = {"ann": "ann-gh", "ben": "ben-gh"}


def sh(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
       ) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_SECRET")}
    full.update({"PATH": f"{BIN}:{os.environ['PATH']}", "GIT_AUTHOR_NAME": "t",
                 "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                 "GIT_COMMITTER_EMAIL": "t@t", **(env or {})})
    done = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=full)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done


def git(repo: Path, *args: str) -> str:
    return sh(repo, "git", *args).stdout.strip()


def referee(repo: Path, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return sh(repo, "referee", *args, env=env)


def legal(repo: Path, game: str, player: str, env: dict[str, str] | None = None) -> list[str]:
    out = referee(repo, "status", game, "--as", player, "--json", env=env).stdout
    return list(json.loads(out)["legal"])


def play(repo: Path, game: str, player: str) -> str:
    """``player`` makes their first legal move; returns it."""
    move = legal(repo, game, player)[0]
    referee(repo, "move", game, "--as", player, move)
    return move


def commit(repo: Path, message: str, *extra: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", *extra, "-m", message)
    return git(repo, "rev-parse", "HEAD")


def push_to_new_origin(repo: Path, tmp_path: Path) -> Path:
    """A new bare repository as ``repo``'s origin, main pushed to it (what the publish
    job pushes to); returns it."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    return remote


# --- running the workflow as GitHub would ---------------------------------------------


def substitute(value: str, context: dict[str, str]) -> str:
    """GitHub's ${{ expr }} for the simple property paths the workflow uses ('' if unset)."""
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: context.get(m.group(1), ""), value)


def action_steps(step: dict, context: dict[str, str]) -> list[tuple[dict, dict[str, str]]]:
    """A workflow step as the steps GitHub runs, each with the context it adds: the
    referee's own action (``uses: OWNER/referee@REF``, action.yml) expanded into its
    composite steps with its inputs (``with:``, else their defaults) and its path."""
    if not REFEREE_ACTION.fullmatch(str(step.get("uses", ""))):
        return [(step, {})]
    action = yaml.safe_load(ACTION.read_text())
    given = {k: substitute(str(v), context) for k, v in (step.get("with") or {}).items()}
    unknown = sorted(set(given) - set(action["inputs"]))
    assert not unknown, f"the action has no inputs {unknown}"
    extra = {f"inputs.{k}": given.get(k, str(spec.get("default", "")))
             for k, spec in action["inputs"].items()}
    extra["github.action_path"] = str(ROOT)
    return [(inner, extra) for inner in action["runs"]["steps"]]


# the job that checks a change on each event (as tests/git/test_workflow_attacks.py shows)
CHECK_JOB = {"pull_request": "check", "pull_request_target": "check-sealed",
             "push": "check-main", "workflow_dispatch": "check-main"}


def run_workflow(repo: Path, context: dict[str, str], settings: dict[str, str] | None = None,
                 job: str | None = None, env: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """Every `run:` step but the install (referee is installed here), in order, with the
    workflow's and the step's environment; the referee's action runs its own steps the
    same way (:func:`action_steps`); stops at the first failing step. ``job``: by
    default the check of the event (CHECK_JOB). ``settings`` changes the workflow's
    top-level env as a group would (e.g. REFEREE_SIGNED). A pull request's head is
    HEAD unless the context says otherwise (GitHub always sets it). ``env``: what the
    runner sets besides (GITHUB_EVENT_PATH, RUNNER_TEMP, a PATH with a stand-in `gh`)."""
    event = context["github.event_name"]
    job = job or CHECK_JOB[event]
    context = {"github.repository": "octo-org/games"} | context  # (GitHub always sets it)
    if event.startswith("pull_request"):
        context = {"github.event.pull_request.head.sha": git(repo, "rev-parse", "HEAD")
                   } | context
    flow = yaml.safe_load(WORKFLOW.read_text())
    for name, value in (settings or {}).items():
        assert name in flow["env"], f"the workflow has no setting {name}"
        flow["env"][name] = value
    top = {k: substitute(str(v), context) for k, v in flow.get("env", {}).items()}
    context = context | {f"env.{k}": v for k, v in top.items()}
    done = subprocess.CompletedProcess([], 0, "", "")
    for outer in flow["jobs"][job]["steps"]:
        for step, extra in action_steps(outer, context):
            if "run" not in step or step.get("name") == "install referee":
                continue
            assert "${{" not in step["run"], "expressions belong in env, not in the script"
            where = context | extra
            full = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(repo), "CI": "true",
                    "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": context["github.event_name"],
                    "GITHUB_SHA": context.get("github.sha", "0" * 40),
                    **({"GITHUB_ACTION_PATH": str(ROOT)} if extra else {}), **(env or {}),
                    **top, **{k: substitute(str(v), where)
                              for k, v in step.get("env", {}).items()}}
            done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=full,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                return done
    return done


def pull_request_jobs(repo: Path, base: str, author: str, secret: str = REPO_SECRET,
                      actor: str | None = None, settings: dict[str, str] | None = None
                      ) -> tuple[subprocess.CompletedProcess[str],
                                 subprocess.CompletedProcess[str]]:
    """Both jobs a pull request starts, as GitHub runs them, each on its own: `check`
    (pull_request: no secret reaches it) and `check-sealed` (pull_request_target, with
    the secret, the pull request as data)."""
    context = {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.user.login": author,
        "github.actor": actor or author,
    }
    plain = run_workflow(repo, context | {"github.event_name": "pull_request"}, settings)
    sealed = run_workflow(repo, context | {"github.event_name": "pull_request_target",
                                           "secrets.REFEREE_SECRET": secret}, settings)
    return plain, sealed


def pull_request(repo: Path, base: str, author: str, secret: str = REPO_SECRET,
                 actor: str | None = None, settings: dict[str, str] | None = None
                 ) -> subprocess.CompletedProcess[str]:
    """:func:`pull_request_jobs`, their output together; it fails if either fails."""
    plain, sealed = pull_request_jobs(repo, base, author, secret, actor, settings)
    return subprocess.CompletedProcess([], plain.returncode or sealed.returncode,
                                       plain.stdout + sealed.stdout,
                                       plain.stderr + sealed.stderr)


def push(repo: Path, before: str, secret: str = REPO_SECRET) -> subprocess.CompletedProcess[str]:
    return run_workflow(repo, {
        "github.event_name": "push", "github.event.before": before, "github.actor": "ann-gh",
        "secrets.REFEREE_SECRET": secret,
    })


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    out = done.stdout + done.stderr
    assert done.returncode != 0, f"the attack passed:\n{out}"
    assert "Traceback" not in out
    for word in words:
        assert word in out, out


def passed(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: two open Staufer games (ann, ben; GitHub logins ann-gh, ben-gh), a few moves."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "games").mkdir()
    for name, seed in (("g", "s1"), ("h", "s2")):
        referee(tmp_path, "new", "staufer", f"games/{name}.json", "--players", "ann,ben",
                "--github", "ann=ann-gh,ben=ben-gh", "--seed", seed, "--id", name)
    play(tmp_path, "games/g.json", "ann")
    commit(tmp_path, "start two games")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


def base(repo: Path) -> str:
    return git(repo, "rev-parse", "main")


# --- honest play ----------------------------------------------------------------------


def test_an_honest_move_passes_as_pull_request_and_as_push(repo: Path) -> None:
    play(repo, "games/g.json", "ben")
    commit(repo, "ben moves")
    passed(pull_request(repo, base(repo), "ben-gh"))
    before = base(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "pr")
    passed(push(repo, before))


# --- deleting, renaming, truncating -------------------------------------------------


def test_deleting_a_game_file_is_refused(repo: Path) -> None:
    (repo / "games" / "h.json").unlink()
    commit(repo, "oops")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/h.json", "gone")


def test_deleting_every_game_file_is_refused(repo: Path) -> None:
    shutil.rmtree(repo / "games")
    commit(repo, "nothing to see")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/g.json", "games/h.json")


def test_renaming_a_game_and_emptying_its_log_is_refused(repo: Path) -> None:
    data = json.loads((repo / "games" / "g.json").read_text())
    data["log"] = []
    (repo / "games" / "g.json").unlink()
    (repo / "games" / "g2.json").write_text(gamefile.dumps(data))
    play(repo, "games/g2.json", "ann")  # only the cheater's own new move is left
    commit(repo, "fresh start")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/g.json", "gone")


def test_truncating_the_log_is_refused(repo: Path) -> None:
    data = json.loads((repo / "games" / "g.json").read_text())
    data["log"] = []
    (repo / "games" / "g.json").write_text(gamefile.dumps(data))
    commit(repo, "take it back")
    refused(pull_request(repo, base(repo), "ann-gh"), "lost entries")


def test_replacing_a_game_with_other_json_is_refused(repo: Path) -> None:
    (repo / "games" / "g.json").write_text("{}\n")
    commit(repo, "empty")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/g.json")


# --- who moved ----------------------------------------------------------------------


def test_adding_another_players_move_is_refused(repo: Path) -> None:
    play(repo, "games/g.json", "ben")
    commit(repo, "ann plays for ben")
    refused(pull_request(repo, base(repo), "ann-gh"), "entry 2 is by ben", "only entries by ann")


def test_the_pull_request_author_counts_not_who_reran_the_job(repo: Path) -> None:
    play(repo, "games/g.json", "ben")
    commit(repo, "ann plays for ben")
    # ben re-runs ann's pull request: github.actor is ben, the author is still ann.
    refused(pull_request(repo, base(repo), "ann-gh", actor="ben-gh"), "only entries by ann")
    flow = WORKFLOW.read_text()
    assert "github.actor" not in re.sub(r"#.*", "", flow)


def test_a_stranger_may_add_nothing(repo: Path) -> None:
    play(repo, "games/g.json", "ben")
    commit(repo, "a drive-by move")
    refused(pull_request(repo, base(repo), "mallory"), "only entries by @mallory")


def test_editing_the_header_is_refused(repo: Path) -> None:
    data = json.loads((repo / "games" / "h.json").read_text())
    data["players"][1]["github"] = "ann-gh"  # ann would then move for ben too
    (repo / "games" / "h.json").write_text(gamefile.dumps(data))
    commit(repo, "fix logins")
    refused(pull_request(repo, base(repo), "ann-gh"), "header changed", "players")


# --- rewriting history ----------------------------------------------------------------


def rehash(data: dict) -> None:
    """What a cheater does after editing history: recompute every prev."""
    log, data["log"] = data["log"], []
    for entry in log:
        entry["prev"] = gamefile.next_prev(data)
        data["log"].append(entry)


def test_a_rehashed_edit_of_history_is_refused(repo: Path) -> None:
    path = repo / "games" / "g.json"
    data = json.loads(path.read_text())
    data["log"][0]["move"] = json.loads(json.dumps(data["log"][0]["move"]))
    data["log"][0]["move"]["space"] = 3 if data["log"][0]["move"].get("space") != 3 else 4
    rehash(data)
    path.write_text(gamefile.dumps(data))
    commit(repo, "a better first move")
    refused(pull_request(repo, base(repo), "ann-gh"), "changed since", "rewritten")


def test_a_force_pushed_history_is_refused_on_push(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    before = base(repo)
    git(repo, "reset", "-q", "--hard", "HEAD")
    data = json.loads((repo / "games" / "g.json").read_text())
    data["log"] = []
    (repo / "games" / "g.json").write_text(gamefile.dumps(data))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "-m", "start two games")  # the old main is gone
    refused(push(repo, before), "not an ancestor", "rewritten")


# --- new games ----------------------------------------------------------------------


def test_a_new_valid_game_passes_and_a_forged_one_fails(repo: Path) -> None:
    referee(repo, "new", "staufer", "games/n.json", "--players", "ann,ben",
            "--github", "ann=ann-gh,ben=ben-gh", "--seed", "n1", "--id", "n")
    commit(repo, "a new game")
    passed(pull_request(repo, base(repo), "ann-gh"))
    play(repo, "games/n.json", "ann")
    play(repo, "games/n.json", "ben")
    commit(repo, "and both first moves")
    refused(pull_request(repo, base(repo), "ann-gh"), "games/n.json", "by ben")


# --- sealed games in CI -----------------------------------------------------------------


@pytest.fixture
def sealed_repo(repo: Path) -> Path:
    """main also holds a sealed game whose seed CI derives from the repository secret."""
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/s.json", "--players", "ann,ben", "--sealed",
            "--github", "ann=ann-gh,ben=ben-gh", "--id", "sealed-1",
            env={"REFEREE_SECRET": REPO_SECRET})
    assert not (repo / "games" / "s.json.secret").exists()  # derived from the repo secret
    commit(repo, "a sealed game")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    return repo


def test_sealed_game_unchecked_move_is_checked_by_ci(sealed_repo: Path) -> None:
    repo = sealed_repo
    move = legal(repo, "games/s.json", "ann", env={"REFEREE_SECRET": REPO_SECRET})[0]
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    commit(repo, "ann moves")
    passed(pull_request(repo, base(repo), "ann-gh"))
    refused(pull_request(repo, base(repo), "ann-gh", secret=""), "secret")


def test_a_missing_secret_fails_the_check(sealed_repo: Path) -> None:
    refused(push(sealed_repo, "0" * 40, secret=""), "games/s.json", "secret is required")


def test_an_illegal_unchecked_move_fails_and_a_void_unbricks_the_game(sealed_repo: Path
                                                                        ) -> None:
    repo = sealed_repo
    env = {"REFEREE_SECRET": REPO_SECRET}
    referee(repo, "move", "games/s.json", "--as", "ben", "supply 1", "--unchecked")
    commit(repo, "ben moves out of turn")
    refused(pull_request(repo, base(repo), "ben-gh"), "not ben's turn", "referee void")
    stuck = sh(repo, "referee", "status", "games/s.json", "--as", "ann", env=env, check=False)
    assert stuck.returncode == 1 and "Traceback" not in stuck.stderr
    referee(repo, "void", "games/s.json", "1", "--as", "ben")
    commit(repo, "strike it")
    passed(pull_request(repo, base(repo), "ben-gh"))
    before = base(repo)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "pr")
    passed(push(repo, before))
    move = legal(repo, "games/s.json", "ann", env=env)[0]  # the game goes on
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    commit(repo, "ann's move")
    passed(push(repo, git(repo, "rev-parse", "HEAD~1")))


def test_a_legal_move_cannot_be_struck(sealed_repo: Path) -> None:
    repo = sealed_repo
    env = {"REFEREE_SECRET": REPO_SECRET}
    move = legal(repo, "games/s.json", "ann", env=env)[0]
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    referee(repo, "void", "games/s.json", "1", "--as", "ann")  # an undo in disguise
    commit(repo, "take it back")
    refused(pull_request(repo, base(repo), "ann-gh"), "that move was legal")


# --- signed commits ---------------------------------------------------------------------


def keygen(folder: Path, name: str) -> tuple[Path, str]:
    key = folder / f"id_{name}"
    sh(folder, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key))
    return key, (folder / f"id_{name}.pub").read_text().split(" ", 2)[1]


@pytest.fixture
def signed_repo(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    require_tool("ssh-keygen", "openssh-client")
    keys = tmp_path_factory.mktemp("keys")
    found = {p: keygen(keys, p) for p in ("ann", "ben")}
    git(repo, "checkout", "-q", "main")
    (repo / ".referee").mkdir()
    (repo / ".referee" / "allowed_signers").write_text(
        "".join(f"{p} ssh-ed25519 {pub}\n" for p, (_, pub) in found.items()))
    commit(repo, "players' keys")
    git(repo, "branch", "-q", "-f", "pr", "main")
    git(repo, "checkout", "-q", "pr")
    git(repo, "config", "gpg.format", "ssh")
    return {"repo": repo, "keys": {p: str(k) for p, (k, _) in found.items()}}


def signed_commit(repo: Path, key: str, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "-c", f"user.signingkey={key}", "commit", "-q", "-S", "-m", message)


def signed_pr(repo: Path, author: str) -> subprocess.CompletedProcess[str]:
    return pull_request(repo, base(repo), author, settings={"REFEREE_SIGNED": "true"})


def test_signed_moves_pass_and_every_forgery_fails(signed_repo: dict[str, object]) -> None:
    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    play(repo, "games/g.json", "ben")
    signed_commit(repo, keys["ben"], "ben moves, signed")
    passed(signed_pr(repo, "ben-gh"))


def test_a_commit_signed_by_one_player_with_anothers_move_fails(
        signed_repo: dict[str, object]) -> None:
    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    play(repo, "games/g.json", "ben")
    signed_commit(repo, keys["ann"], "ann signs ben's move")
    refused(signed_pr(repo, "ben-gh"), "signed by ann adds entry 2", "by ben")


def test_an_unsigned_move_fails_when_signatures_are_required(
        signed_repo: dict[str, object]) -> None:
    repo = signed_repo["repo"]
    assert isinstance(repo, Path)
    play(repo, "games/g.json", "ben")
    commit(repo, "unsigned")
    refused(signed_pr(repo, "ben-gh"), "not signed")


def test_a_change_cannot_add_its_own_key(signed_repo: dict[str, object],
                                         tmp_path: Path) -> None:
    repo = signed_repo["repo"]
    assert isinstance(repo, Path)
    mallory, pub = keygen(tmp_path, "mallory")
    with (repo / ".referee" / "allowed_signers").open("a") as f:
        f.write(f"ben ssh-ed25519 {pub}\n")  # mallory's key, claimed for ben
    play(repo, "games/g.json", "ben")
    signed_commit(repo, str(mallory), "ben's move, by mallory")
    refused(signed_pr(repo, "ben-gh"), "not signed by a key")


# --- after a push: the players' views and the site -----------------------------------------


def test_publish_writes_encrypted_views_and_the_site(signed_repo: dict[str, object],
                                                     tmp_path: Path) -> None:
    """The publish job's run steps on main: views encrypted to each player's key are
    committed and pushed, a re-run commits nothing, and the site holds every game; a
    player reads their own view with their key, and not another's."""
    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    env = {"REFEREE_SECRET": REPO_SECRET}
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/s.json", "--players", "ann,ben", "--sealed",
            "--id", "sealed-2", env=env)
    commit(repo, "a sealed game")
    remote = push_to_new_origin(repo, tmp_path)
    context = {"github.event_name": "push", "secrets.REFEREE_SECRET": REPO_SECRET,
               "github.sha": git(repo, "rev-parse", "HEAD")}
    passed(run_workflow(repo, context, job="publish"))
    views = sorted(p.name for p in (repo / "views").iterdir())
    assert "s.ann.age" in views and "s.ben.age" in views and "s.public.txt" in views
    assert git(repo, "log", "-1", "--format=%s").startswith("players' views after")
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    head = git(repo, "rev-parse", "HEAD")
    passed(run_workflow(repo, context, job="publish"))
    assert git(repo, "rev-parse", "HEAD") == head  # nothing changed: nothing committed
    own = referee(repo, "view", "views/s.ann.age", "--identity", keys["ann"])
    assert "ann" in own.stdout
    other = sh(repo, "referee", "view", "views/s.ann.age", "--identity", keys["ben"],
               check=False)
    assert other.returncode == 1 and "Traceback" not in other.stderr
    index = (repo / "_site" / "index.html").read_text()
    for game in ("g", "h", "sealed-2"):  # pages are named by the game id
        assert f'href="{game}/index.html"' in index
        assert (repo / "_site" / game / "index.html").exists()
    # (the issue links of moving through issues: the workflow asks for them)
    assert "https://github.com/octo-org/games/issues/new?" in \
        (repo / "_site" / "g" / "index.html").read_text()


# --- views under attack in the repository (tests/trust/test_age_views.py has the details) -----


@pytest.mark.slow
def test_forged_swapped_and_old_views_in_the_repository(signed_repo: dict[str, object],
                                                        tmp_path: Path) -> None:
    """The publish job writes signed views; a pull request then commits a forged view
    (any file encrypted to ann's public key), ben's own view re-encrypted as ann's, or
    ann's old view: `referee view` refuses each, and the next publish job rewrites it."""
    import pyrage

    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    env = {"REFEREE_SECRET": REPO_SECRET}
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/s.json", "--players", "ann,ben", "--sealed",
            "--id", "sealed-3", env=env)
    commit(repo, "a sealed game")
    push_to_new_origin(repo, tmp_path)

    def publish() -> None:
        passed(run_workflow(repo, {"github.event_name": "push",
                                   "secrets.REFEREE_SECRET": REPO_SECRET,
                                   "github.sha": git(repo, "rev-parse", "HEAD")},
                            job="publish"))

    def look() -> subprocess.CompletedProcess[str]:
        return sh(repo, "referee", "view", "views/s.ann.age", "-i", keys["ann"],
                  check=False)

    publish()
    old = (repo / "views" / "s.ann.age").read_bytes()
    assert look().returncode == 0
    move = legal(repo, "games/s.json", "ann", env=env)[0]
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    commit(repo, "ann moves")
    publish()
    ann_pub = " ".join(Path(keys["ann"] + ".pub").read_text().split()[:2])
    to_ann = [pyrage.ssh.Recipient.from_str(ann_pub)]
    ben_id = pyrage.ssh.Identity.from_buffer(Path(keys["ben"]).read_bytes())
    bens = pyrage.decrypt((repo / "views" / "s.ben.age").read_bytes(), [ben_id])
    forged = json.loads(bens)
    forged.update(player="ann", text="99 = FORGED CARD\n" + forged["text"])
    attacks = {"forged": (pyrage.encrypt(json.dumps(forged).encode(), to_ann),
                          "is not signed by the referee of"),
               "swapped": (pyrage.encrypt(bens, to_ann), "is ben's view, not ann's"),
               "old": (old, "is an old view")}
    for name, (data, message) in attacks.items():
        git(repo, "checkout", "-q", "-B", "pr", "main")
        (repo / "views" / "s.ann.age").write_bytes(data)
        commit(repo, f"a {name} view")
        passed(pull_request(repo, base(repo), "ben-gh"))  # views are no game files...
        shown = look()
        refused(shown, message)  # ...but ann's `referee view` refuses them
        assert "FORGED" not in shown.stdout
        git(repo, "checkout", "-q", "main")
        git(repo, "merge", "-q", "--ff-only", "pr")
        publish()
        assert git(repo, "log", "-1", "--format=%s").startswith("players' views after")
        assert look().returncode == 0, name


def test_an_old_view_beside_an_old_copy_of_its_game_is_refused(
        signed_repo: dict[str, object]) -> None:
    """The attacker commits ann's old view together with views/s.json, a copy of the game
    as it was then (a valid game file: same header, shorter log). `view` verifies with
    the game file the signed view names (games/s.json), not the copy beside it."""
    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    env = {"REFEREE_SECRET": REPO_SECRET}
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/s.json", "--players", "ann,ben", "--sealed",
            "--id", "sealed-4", env=env)
    commit(repo, "a sealed game")
    referee(repo, "views", "games/s.json", "--out", "views", env=env)
    old_view = (repo / "views" / "s.ann.age").read_bytes()
    old_game = (repo / "games" / "s.json").read_bytes()
    move = legal(repo, "games/s.json", "ann", env=env)[0]
    referee(repo, "move", "games/s.json", "--as", "ann", move, "--unchecked")
    referee(repo, "views", "games/s.json", "--out", "views", env=env)
    commit(repo, "ann moves; views")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    (repo / "views" / "s.ann.age").write_bytes(old_view)
    (repo / "views" / "s.json").write_bytes(old_game)
    commit(repo, "the old view, and the game as it was")
    done = sh(repo, "referee", "view", "views/s.ann.age", "-i", keys["ann"], check=False)
    refused(done, "is an old view", "games/s.json has 1 entry")
