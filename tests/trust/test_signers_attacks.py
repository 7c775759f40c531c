"""The allowed-signers file under attack, through git and the workflow's `run:` steps.

`.referee/allowed_signers` says which SSH key signs for which player and which keys the
views are encrypted to, so every `check --since` (signed mode or not) checks each commit
that touches it: a player adds or rotates only their own key, signed with a key the file
at BASE lists for them; a new player's first key and any other removal need a game
master's signature; the file is never deleted; principals are player ids or gm. Real git,
real ssh-keygen keys, a real `referee` subprocess.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ci import UNDER_CI
from tests.git.test_repository_attacks import (
    REPO_SECRET,
    base,
    commit,
    git,
    keygen,
    passed,
    play,
    push,
    referee,
    refused,
    run_workflow,
    sh,
    signed_commit,
)

SIGNERS = Path(".referee") / "allowed_signers"
NAMES = ("gm", "ann", "ben", "cat", "eve", "ann2", "ben2", "gm2")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """name -> (private key path, "ssh-ed25519 BASE64")."""
    if shutil.which("ssh-keygen") is None or shutil.which("git") is None:
        if UNDER_CI:
            pytest.fail("ssh-keygen (openssh-client) and git are required in CI")
        pytest.skip("ssh-keygen or git is not installed")
    folder = tmp_path_factory.mktemp("keys")
    found = {}
    for name in NAMES:
        key, pub = keygen(folder, name)
        found[name] = (str(key), f"ssh-ed25519 {pub}")
    return found


def line(keys: dict[str, tuple[str, str]], principal: str, name: str | None = None) -> str:
    return f"{principal} {keys[name or principal][1]}\n"


@pytest.fixture
def repo(tmp_path: Path, keys: dict[str, tuple[str, str]]) -> Path:
    """main: two open games; .referee/allowed_signers lists gm, ann and ben, created in
    a commit the gm signed. The branch `pr` is checked out."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "gpg.format", "ssh")
    (tmp_path / "games").mkdir()
    for name, seed in (("g", "s1"), ("h", "s2")):
        referee(tmp_path, "new", "staufer", f"games/{name}.json", "--players", "ann,ben",
                "--github", "ann=ann-gh,ben=ben-gh", "--seed", seed, "--id", name)
    play(tmp_path, "games/g.json", "ann")
    (tmp_path / ".referee").mkdir()
    write(tmp_path, "# the players' keys\n" + "".join(line(keys, p) for p in ("gm", "ann",
                                                                              "ben")))
    signed_commit(tmp_path, keys["gm"][0], "start, with the players' keys")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path


def write(repo: Path, text: str) -> None:
    (repo / SIGNERS).parent.mkdir(exist_ok=True)
    (repo / SIGNERS).write_text(text)


def text(repo: Path) -> str:
    return (repo / SIGNERS).read_text()


def as_pr(repo: Path, author: str, signed: bool = False) -> subprocess.CompletedProcess[str]:
    context = {"github.event_name": "pull_request",
               "github.event.pull_request.base.sha": base(repo),
               "github.event.pull_request.user.login": author,
               "secrets.REFEREE_SECRET": REPO_SECRET}
    return run_workflow(repo, context, {"REFEREE_SIGNED": "true" if signed else "false"})


# --- adding a key for another player ------------------------------------------------


def test_an_unsigned_pr_adding_a_key_for_another_player_is_refused(repo: Path, keys) -> None:
    write(repo, text(repo) + line(keys, "ben", "eve"))
    commit(repo, "ben's new laptop (really eve's key)")
    for signed in (False, True):
        refused(as_pr(repo, "ann-gh", signed), "adds a key for ben",
                "only ben (signing with a key .referee/allowed_signers lists for ben) or a "
                "game master (gm) may", "not signed by a key listed there")


def test_a_pr_signed_by_the_attacker_is_refused(repo: Path, keys) -> None:
    write(repo, text(repo) + line(keys, "ben", "eve"))
    signed_commit(repo, keys["ann"][0], "ann adds eve's key for ben")
    refused(as_pr(repo, "ann-gh"), "adds a key for ben", "only ben", "signed by ann")
    # the attack the file existed for: after it eve could sign ben's moves
    write(repo, text(repo))
    play(repo, "games/g.json", "ben")
    signed_commit(repo, keys["eve"][0], "ben moves (eve)")
    refused(as_pr(repo, "ben-gh", signed=True), "adds a key for ben", "not signed by a key")


def test_a_key_for_another_player_hidden_in_a_shared_line_is_refused(repo: Path, keys
                                                                     ) -> None:
    write(repo, text(repo) + f"ann,ben {keys['ann2'][1]}\n")
    signed_commit(repo, keys["ann"][0], "one key for both of us")
    refused(as_pr(repo, "ann-gh"), "adds a key for ben", "signed by ann")


def test_a_pattern_principal_is_refused_even_from_the_gm(repo: Path, keys) -> None:
    write(repo, text(repo) + f"b* {keys['eve'][1]}\n")
    signed_commit(repo, keys["gm"][0], "a wildcard")
    refused(as_pr(repo, "ann-gh"), "names 'b*'", "a principal must be a player id or gm")


def test_the_victims_own_old_key_may_rotate(repo: Path, keys) -> None:
    write(repo, text(repo).replace(keys["ben"][1], keys["ben2"][1]))
    signed_commit(repo, keys["ben"][0], "ben rotates his key")
    passed(as_pr(repo, "ben-gh"))
    passed(as_pr(repo, "ben-gh", signed=True))


def test_a_player_adds_a_second_key_of_their_own(repo: Path, keys) -> None:
    write(repo, text(repo) + line(keys, "ann", "ann2"))
    signed_commit(repo, keys["ann"][0], "ann's second key")
    passed(as_pr(repo, "ann-gh"))
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "pr")  # from now on ann2 signs for ann
    git(repo, "checkout", "-q", "pr")
    play(repo, "games/h.json", "ann")
    signed_commit(repo, keys["ann2"][0], "ann with her new key")
    passed(run_signed(repo))


def run_signed(repo: Path) -> subprocess.CompletedProcess[str]:
    """The --signed check over the whole branch, as for a push."""
    return run_workflow(repo, {"github.event_name": "push", "github.event.before": base(repo),
                               "secrets.REFEREE_SECRET": REPO_SECRET},
                        {"REFEREE_SIGNED": "true"})


def test_a_rotation_signed_with_the_new_key_is_refused(repo: Path, keys) -> None:
    write(repo, text(repo).replace(keys["ben"][1], keys["ben2"][1]))
    signed_commit(repo, keys["ben2"][0], "ben rotates, signed with the new key")
    refused(as_pr(repo, "ben-gh"), "adds a key for ben", "not signed by a key listed there")


# --- removals, deletion, new players --------------------------------------------------


def test_removing_another_players_line_needs_the_gm(repo: Path, keys) -> None:
    write(repo, text(repo).replace(line(keys, "ben"), ""))
    signed_commit(repo, keys["ann"][0], "ben left (says ann)")
    refused(as_pr(repo, "ann-gh"), "removes a key of ben", "only a game master (gm) may",
            "signed by ann")
    git(repo, "reset", "-q", "--hard", "main")
    write(repo, text(repo).replace(line(keys, "ben"), ""))
    signed_commit(repo, keys["gm"][0], "ben left")
    passed(as_pr(repo, "ann-gh"))


def test_removing_ones_own_last_key_needs_the_gm(repo: Path, keys) -> None:
    write(repo, text(repo).replace(line(keys, "ben"), ""))
    signed_commit(repo, keys["ben"][0], "ben withdraws")
    refused(as_pr(repo, "ben-gh"), "removes ben's last key", "game master's (gm) signature")


@pytest.mark.parametrize("signer", ["ann", "gm", None])
def test_deleting_the_file_is_refused(repo: Path, keys, signer: str | None) -> None:
    (repo / SIGNERS).unlink()
    if signer is None:
        commit(repo, "no more keys")
    else:
        signed_commit(repo, keys[signer][0], "no more keys")
    refused(as_pr(repo, "ann-gh"), "deletes .referee/allowed_signers", "may not be deleted",
            "a game master (gm) removes keys line by line")


def test_removing_the_last_gm_key_is_refused(repo: Path, keys) -> None:
    write(repo, text(repo).replace(line(keys, "gm"), ""))
    signed_commit(repo, keys["gm"][0], "no gm")
    refused(as_pr(repo, "ann-gh"), "removes the last gm key")


def test_a_gm_rotates_their_key(repo: Path, keys) -> None:
    write(repo, text(repo).replace(keys["gm"][1], keys["gm2"][1]))
    signed_commit(repo, keys["gm"][0], "new gm key")
    passed(as_pr(repo, "ann-gh"))


def test_a_new_players_first_key_needs_the_gm(repo: Path, keys) -> None:
    write(repo, text(repo) + line(keys, "cat"))
    signed_commit(repo, keys["ann"][0], "cat joins (says ann)")
    refused(as_pr(repo, "ann-gh"), "adds the first key of cat",
            "a new player's first key needs a game master's (gm) signature")
    git(repo, "reset", "-q", "--hard", "main")
    write(repo, text(repo) + line(keys, "cat"))
    signed_commit(repo, keys["gm"][0], "cat joins")
    passed(as_pr(repo, "ann-gh"))


def test_a_player_may_not_add_a_gm_key(repo: Path, keys) -> None:
    write(repo, text(repo) + line(keys, "gm", "ann2"))
    signed_commit(repo, keys["ann"][0], "I am the gm now")
    refused(as_pr(repo, "ann-gh"), "adds a gm key", "only a game master may")


def test_comments_and_order_change_no_grant(repo: Path, keys) -> None:
    lines = text(repo).splitlines(keepends=True)
    write(repo, "# reordered\n" + "".join(reversed(lines)))
    commit(repo, "tidy up (unsigned)")
    passed(as_pr(repo, "ann-gh"))


def test_a_push_is_checked_like_a_pull_request(repo: Path, keys) -> None:
    git(repo, "checkout", "-q", "main")
    before = base(repo)
    write(repo, text(repo) + line(keys, "ben", "eve"))
    commit(repo, "pushed straight to main")
    refused(push(repo, before), "adds a key for ben")


def test_a_later_commit_cannot_undo_the_check(repo: Path, keys) -> None:
    """Two commits: the attack, then an innocent-looking one; each is checked."""
    write(repo, text(repo) + line(keys, "ben", "eve"))
    commit(repo, "attack")
    write(repo, text(repo) + "# a comment\n")
    signed_commit(repo, keys["gm"][0], "gm adds a comment on top")
    refused(as_pr(repo, "ann-gh"), "adds a key for ben")


# --- merge commits ------------------------------------------------------------------


def test_a_merge_commit_that_changes_the_file_is_refused(repo: Path, keys) -> None:
    git(repo, "checkout", "-q", "-b", "side", "main")
    play(repo, "games/h.json", "ann")
    commit(repo, "a move on a side branch")
    git(repo, "checkout", "-q", "pr")
    write(repo, text(repo) + "# pr\n")
    commit(repo, "a comment")
    git(repo, "merge", "-q", "--no-commit", "--no-ff", "side")
    write(repo, text(repo) + line(keys, "ben", "eve"))
    git(repo, "add", "-A")
    git(repo, "-c", f"user.signingkey={keys['gm'][0]}", "commit", "-q", "-S", "-m", "merge")
    refused(as_pr(repo, "ann-gh"), ".referee/allowed_signers at HEAD grants ben the key "
            f"{keys['eve'][1][:40]}..., which no commit since", "brought in by a merge?")


def test_a_merge_that_brings_back_an_old_version_is_refused(repo: Path, keys) -> None:
    old = git(repo, "rev-parse", "main")
    git(repo, "checkout", "-q", "main")
    write(repo, text(repo) + line(keys, "cat"))
    signed_commit(repo, keys["gm"][0], "cat joins")
    write(repo, text(repo).replace(line(keys, "ben"), ""))
    signed_commit(repo, keys["gm"][0], "ben is out")
    git(repo, "checkout", "-q", "-B", "pr", old)  # from before ben was removed
    play(repo, "games/h.json", "ann")
    commit(repo, "a move")
    git(repo, "merge", "-q", "--no-commit", "main")
    (repo / SIGNERS).write_text(git(repo, "show", f"{old}:{SIGNERS}") + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "merge main, keeping our keys")
    refused(as_pr(repo, "ann-gh"), "at HEAD grants ben the key", "at HEAD lacks cat's key",
            "a merge undid the removal or brought back an older version?")
    # the honest merge keeps main's version
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "merge", "-q", "--no-edit", "main")
    passed(as_pr(repo, "ann-gh"))


def test_a_stale_pull_request_with_a_rotation_merges(repo: Path, keys) -> None:
    """GitHub checks a pull request as the merge of its head into the base: a rotation on
    a branch that forked before main moved is still ann's, and main's change stays."""
    old = git(repo, "rev-parse", "main")
    git(repo, "checkout", "-q", "main")
    write(repo, text(repo) + line(keys, "cat"))
    signed_commit(repo, keys["gm"][0], "cat joins")
    git(repo, "checkout", "-q", "-B", "pr", old)
    write(repo, text(repo).replace(keys["ann"][1], keys["ann2"][1]))
    signed_commit(repo, keys["ann"][0], "ann rotates")
    git(repo, "checkout", "-q", "--detach", "main")
    git(repo, "merge", "-q", "--no-edit", "pr")  # what refs/pull/N/merge holds
    assert line(keys, "cat") in text(repo) and keys["ann2"][1] in text(repo)
    passed(as_pr(repo, "ann-gh"))
    passed(as_pr(repo, "ann-gh", signed=True))


# --- bootstrap ----------------------------------------------------------------------


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """main without an allowed-signers file; the branch `pr` checked out."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "gpg.format", "ssh")
    (tmp_path / "games").mkdir()
    referee(tmp_path, "new", "staufer", "games/g.json", "--players", "ann,ben",
            "--github", "ann=ann-gh,ben=ben-gh", "--seed", "s1", "--id", "g")
    commit(tmp_path, "a game")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    (tmp_path / ".referee").mkdir()
    return tmp_path


def test_a_pull_request_may_not_create_the_file(bare: Path, keys) -> None:
    write(bare, line(keys, "gm", "eve") + line(keys, "ben", "eve"))
    signed_commit(bare, keys["eve"][0], "eve bootstraps herself")
    refused(as_pr(bare, "ann-gh"), "creates .referee/allowed_signers in a pull request",
            "created by the repository's owner")


def test_the_first_file_is_pushed_signed_by_its_gm(bare: Path, keys) -> None:
    git(bare, "checkout", "-q", "main")
    before = base(bare)
    write(bare, line(keys, "gm") + line(keys, "ann") + line(keys, "ben"))
    commit(bare, "keys, unsigned")
    refused(push(bare, before), "is not signed by a gm key it lists")
    git(bare, "reset", "-q", "--hard", before)
    write(bare, line(keys, "ann") + line(keys, "ben"))
    signed_commit(bare, keys["ann"][0], "keys without a gm")
    refused(push(bare, before), "without a gm key")
    git(bare, "reset", "-q", "--hard", before)
    write(bare, line(keys, "gm") + line(keys, "ann") + line(keys, "ben"))
    signed_commit(bare, keys["gm"][0], "keys")
    passed(push(bare, before))
    write(bare, text(bare) + line(keys, "ben", "eve"))  # the anchor is the new file
    commit(bare, "and one for eve")
    refused(push(bare, before), "adds a key for ben")


def test_a_first_push_checks_the_bootstrap(bare: Path, keys) -> None:
    git(bare, "checkout", "-q", "main")
    write(bare, line(keys, "gm") + line(keys, "ann"))
    signed_commit(bare, keys["gm"][0], "keys")
    passed(push(bare, "0" * 40))
    write(bare, text(bare) + line(keys, "ann", "eve"))
    commit(bare, "eve")
    refused(push(bare, "0" * 40), "adds a key for ann")


# --- what the publish job does with the checked file --------------------------------


def test_views_follow_an_allowed_rotation(repo: Path, keys, tmp_path_factory) -> None:
    """After ben's rotation is merged, the publish job encrypts ben's view to the new key
    only: the old key (and eve's, never accepted) cannot read it."""
    env = {"REFEREE_SECRET": REPO_SECRET}
    git(repo, "checkout", "-q", "main")
    referee(repo, "new", "staufer", "games/s.json", "--players", "ann,ben", "--sealed",
            "--id", "sealed-r", env=env)
    write(repo, text(repo).replace(keys["ben"][1], keys["ben2"][1]))
    signed_commit(repo, keys["ben"][0], "ben rotates; a sealed game")
    remote = tmp_path_factory.mktemp("remote") / "r.git"
    git(repo, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    context = {"github.event_name": "push", "secrets.REFEREE_SECRET": REPO_SECRET,
               "github.sha": git(repo, "rev-parse", "HEAD")}
    passed(run_workflow(repo, context, job="publish"))
    assert referee(repo, "view", "views/s.ben.age", "-i", keys["ben2"][0]).returncode == 0
    for old in ("ben", "eve"):
        done = sh(repo, "referee", "view", "views/s.ben.age", "-i", keys[old][0],
                  check=False)
        assert done.returncode == 1 and "was not encrypted to the key" in done.stderr


# --- the rules as pure functions (no git) -------------------------------------------------


def fake_key(name: str) -> str:
    import base64
    import hashlib

    return "ssh-ed25519 " + base64.b64encode(hashlib.sha256(name.encode()).digest()).decode()


BASE_TEXT = "".join(f"{p} {fake_key(p)}\n" for p in ("gm", "ann", "ben"))


@pytest.mark.parametrize(("new", "signer", "expected"), [
    (BASE_TEXT + f"ann {fake_key('ann2')}\n", "ann", None),
    (BASE_TEXT.replace(fake_key("ann"), fake_key("ann2")), "ann", None),
    (BASE_TEXT + f"ann {fake_key('ann2')}\n", "", "adds a key for ann"),
    (BASE_TEXT + f"ben {fake_key('eve')}\n", "ann", "adds a key for ben"),
    (BASE_TEXT + f"ben {fake_key('eve')}\n", "gm", None),
    (BASE_TEXT + f'ben namespaces="git" {fake_key("ben")}\n', "ann", "adds a key for ben"),
    (BASE_TEXT.replace(f"ben {fake_key('ben')}", f'ben valid-before="20000101" '
                                                 f"{fake_key('ben')}"), "ann",
     "removes a key of ben"),
    (BASE_TEXT + f"cat {fake_key('cat')}\n", "cat", "adds the first key of cat"),
    (BASE_TEXT + f"cat {fake_key('cat')}\n", "gm", None),
    (BASE_TEXT + f"gm {fake_key('ann2')}\n", "ann", "adds a gm key"),
    (BASE_TEXT.replace(f"ann {fake_key('ann')}\n", ""), "ann", "removes ann's last key"),
    (BASE_TEXT.replace(f"ann {fake_key('ann')}\n", ""), "gm", None),
    (BASE_TEXT.replace(f"gm {fake_key('gm')}\n", ""), "gm", "removes the last gm key"),
    (BASE_TEXT + f"Ben {fake_key('eve')}\n", "gm", "names 'Ben'"),
    (BASE_TEXT + f"* {fake_key('eve')}\n", "gm", "names '*'"),
    (BASE_TEXT + f"ann,ben {fake_key('ann2')}\n", "ann", "adds a key for ben"),
    ("# shuffled\n" + "".join(reversed(BASE_TEXT.splitlines(keepends=True))), "", None),
    (None, "gm", "may not be deleted"),
])
def test_the_rules(new: str | None, signer: str, expected: str | None) -> None:
    from referee.trust import signers

    found = signers.change_problems(BASE_TEXT, new, frozenset([signer] if signer else []),
                                    "commit c", ".referee/allowed_signers")
    if expected is None:
        assert found == []
    else:
        assert found and expected in " ".join(found), found


def test_a_line_that_cannot_be_read_is_named() -> None:
    from referee.trust import signers

    with pytest.raises(signers.SignersError) as caught:
        signers.change_problems(BASE_TEXT, BASE_TEXT + "ben ssh-ed25519 not*base64\n",
                                frozenset(["gm"]), "commit c", "S")
    assert caught.value.message == "S at commit c line 4: the key is not base64"
