"""Git's textconv diff driver and merge driver for game files, unit and with real git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.engine import get_game
from referee.engine.rng import commitment
from referee.errors import GameFileError
from referee.git import drivers as gitdrivers
from referee.ledger import gamefile
from tests.conftest import require_tool, run
from tests.support import games

NOW = "2026-01-01T00:00:00Z"


def new_game(path: Path, *extra: str, players: str = "ann,ben,cat") -> None:
    games.new_game(path, "staufer", "--insecure-seed", *extra, players=players,
                   seed="git-test", game_id="g1")


def play(path: Path, player: str, move: str, *extra: str) -> None:
    result = run("move", path, "--as", player, move, *extra)
    assert result.exit_code == 0, result.output


def version(path: Path) -> gamefile.GameFile:
    return gamefile.read(path)


# --- textconv --------------------------------------------------------------------------


def test_textconv_prints_the_header_and_one_line_per_entry(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, players="ann=Ann <ann@example.org>,ben,cat")
    play(path, "ann", "supply 1")
    play(path, "ben", "supply 2")
    rules = get_game("staufer").data_version()
    defaults = json.loads(path.read_text())["options"]  # the game's defaults, filled in
    assert defaults["privileges"] == "first-game"
    options = ", ".join(f"{k}={v}" for k, v in sorted(defaults.items()))
    result = run("git-textconv", path)
    assert result.exit_code == 0
    assert result.output == (
        "game: The Staufer Dynasty (staufer), id g1\n"
        f"rules: {rules}\n"
        f"created: {NOW}\n"
        'players: ann "Ann" <ann@example.org>, ben, cat\n'
        f"options: {options}\n"
        "rng: open, seed git-test\n"
        "log:\n"
        f"   1. ann: supply 1  ({NOW})\n"
        f"   2. ben: supply 2  ({NOW})\n"
    )


def test_textconv_of_a_move_differs_by_one_added_line(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path)
    play(path, "ann", "supply 1")
    before = run("git-textconv", path).output.splitlines()
    play(path, "ben", "supply 2")
    after = run("git-textconv", path).output.splitlines()
    assert after[:-1] == before
    assert after[-1] == f"   2. ben: supply 2  ({NOW})"


def test_textconv_shows_an_undo(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path)
    play(path, "ann", "supply 5")
    assert run("undo", path, "--as", "ann").exit_code == 0
    assert run("git-textconv", path).output.endswith(
        f"log:\n   1. ann: supply 5  ({NOW})\n   2. ann: undo 1  ({NOW})\n")


def test_textconv_shows_sealed_moves_by_their_public_text_and_every_entry_kind(
        tmp_path: Path) -> None:
    path = tmp_path / "g.json"  # (Dynasties: The Staufer Dynasty has no hidden choice)
    result = run("new", "dynasties", path, "--players", "ann,ben,cat", "--seed", "git-test",
                 "--insecure-seed", "--id", "g1")
    assert result.exit_code == 0, result.output
    data = json.loads(path.read_text())
    for entry in ({"by": "ann", "move": {"type": "pass", "space": 2}, "sealed": "c2VhbGVk",
                   "public": "pass 2, kept a card"},
                  {"by": "gm", "void": 1},
                  {"by": "gm", "meta": {"kind": "deadline", "hours": 48}}):
        data["log"].append({"n": len(data["log"]) + 1, **entry,
                            "prev": gamefile.next_prev(data), "at": NOW})
    path.write_text(gamefile.dumps(data))
    assert run("git-textconv", path).output.endswith(
        f"log:\n   1. ann: pass 2, kept a card  ({NOW})\n"
        f"   2. gm: void 1 (struck: it was not legal)  ({NOW})\n"
        f"   3. gm: [deadline] hours 48  ({NOW})\n")


def test_textconv_of_a_sealed_game_needs_no_secret(tmp_path: Path) -> None:
    path, secret = tmp_path / "g.json", tmp_path / "keep.secret"
    new_game(path, "--sealed", "--secret-out", str(secret), "--nonces")
    for _ in ("commit", "reveal"):
        for p in ("ann", "ben", "cat"):
            assert run("nonce", path, "--as", p, f"nonce-{p}").exit_code == 0
    play(path, "ann", "supply 1", "--secret", str(secret))
    secret.unlink()  # from here on, nobody holds the seed
    text = run("git-textconv", path).output
    rng = json.loads(path.read_text())["rng"]
    commits = ", ".join(f"{p}={commitment(f'nonce-{p}')}" for p in ("ann", "ben", "cat"))
    assert f"rng: sealed, commitment {rng['commitment']}; referee recipient " \
           f"{rng['recipient']}; nonce commitments: {commits}; nonces: ann=nonce-ann, " \
           "ben=nonce-ben, cat=nonce-cat\n" in text
    assert text.endswith(f"log:\n   1. ann: supply 1  ({NOW})\n")
    assert "git-test" not in text


def test_textconv_marks_an_edited_history(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path)
    play(path, "ann", "supply 1")
    play(path, "ben", "supply 2")
    data = json.loads(path.read_text())
    data["log"][0]["move"]["space"] = 3  # ann's move rewritten, hashes left alone
    path.write_text(gamefile.dumps(data))
    lines = run("git-textconv", path).output.splitlines()
    assert lines[-2] == f"   1. ann: supply 3  ({NOW})"
    assert lines[-1] == f"   2. ben: supply 2  ({NOW})  [hash chain broken here]"


def test_textconv_shows_an_invalid_file_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text('{"format": "referee/1",\n<<<<<<< ours\n')
    result = run("git-textconv", path)
    assert result.exit_code == 0
    first, rest = result.output.split("\n", 1)
    assert first.startswith(f"(not a valid game file: {path} is not valid JSON")
    assert first.endswith("; the raw text follows)")
    assert rest == path.read_text()


def test_textconv_of_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = run("git-textconv", tmp_path / "nope.json")
    assert result.exit_code == 2
    assert result.output == f"error: no file at {tmp_path / 'nope.json'}\n"


# --- merge, in the library -------------------------------------------------------------

STANDS = ("ben: your move was not recorded; on the target branch your move stands: 2. ben: "
          "supply 3. It is cat's turn now, not yours: nothing to move again.")


@pytest.fixture
def three(tmp_path: Path) -> tuple[Path, Path, Path]:
    """base: ann has moved; ours: + ben "supply 3"; theirs: + ben "supply 2"."""
    base, ours, theirs = (tmp_path / f"{n}.json" for n in ("base", "ours", "theirs"))
    new_game(base)
    play(base, "ann", "supply 1")
    shutil.copy(base, ours)
    shutil.copy(base, theirs)
    play(ours, "ben", "supply 3")
    play(theirs, "ben", "supply 2")
    return base, ours, theirs


def test_merge_keeps_ours_and_drops_theirs(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert result.data == version(ours).data
    assert [e["move"]["space"] for e in result.kept] == [3]
    assert [e["move"]["space"] for e in result.dropped] == [2]
    assert result.taken == []
    assert result.redo_by() == ["ben"]
    assert gitdrivers.dropped_report(result, "g.json") == [
        "referee git-merge: g.json: both sides added moves; kept the target branch's "
        "1 new entry and dropped the other side's 1 new entry:",
        "  dropped 2. ben: supply 2",
        "ben: your move was not recorded; on the target branch your move stands: 2. ben: "
        "supply 3. It is cat's turn now, not yours: nothing to move again.",
    ]


def test_merge_reports_several_dropped_moves(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    shutil.copy(base, theirs)
    play(theirs, "ben", "deploy aachen 3")
    play(theirs, "ben", "seat noble")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert gitdrivers.dropped_report(result, "g.json") == [
        "referee git-merge: g.json: both sides added moves; kept the target branch's "
        "1 new entry and dropped the other side's 2 new entries:",
        "  dropped 2. ben: deploy aachen 3",
        "  dropped 3. ben: seat noble",
        "ben: your 2 moves were not recorded; on the target branch your move stands: 2. "
        "ben: supply 3. It is cat's turn now, not yours: nothing to move again.",
    ]


def test_merge_tells_a_player_whose_turn_it_still_is_to_move_again(
        three: tuple[Path, Path, Path]) -> None:
    """ann's record on the target branch leaves ben's turn as it was."""
    base, ours, theirs = three
    shutil.copy(base, ours)
    assert run("lang", ours, "--as", "ann", "de").exit_code == 0
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert gitdrivers.dropped_report(result, "g.json")[-1] == (
        "ben: your move was not recorded. It is your turn: look at the merged game "
        "(`referee status g.json --as ben`) and move again.")


def test_merge_of_a_sealed_game_without_its_secret_says_what_it_cannot_know(
        tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / f"{n}.json" for n in ("base", "ours", "theirs"))
    new_game(base, "--sealed", "--secret-out", tmp_path / "away.secret")
    for path, space in ((ours, "3"), (theirs, "2")):
        shutil.copy(base, path)
        play(path, "ann", f"supply {space}", "--unchecked")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert gitdrivers.dropped_report(result, str(tmp_path / "g.json"))[-1] == (
        "ann: your move was not recorded; on the target branch your move stands: 1. ann: "
        f"supply 3. Look at the merged game (`referee status {tmp_path / 'g.json'} --as "
        "ann`) and move again if it is your turn.")


def test_merge_takes_theirs_when_ours_added_nothing_new(three: tuple[Path, Path, Path]
                                                        ) -> None:
    base, ours, theirs = three
    shutil.copy(ours, theirs)
    play(theirs, "cat", "supply 2")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert result.data == version(theirs).data
    assert [e["by"] for e in result.taken] == ["cat"]
    assert result.dropped == []


def test_merge_keeps_a_common_prefix_once(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    shutil.copy(ours, theirs)
    play(ours, "cat", "supply 2")
    play(theirs, "cat", "supply 1")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert result.data == version(ours).data
    assert [(e["by"], e["move"]["space"]) for e in result.kept] == [("cat", 2)]
    assert [(e["by"], e["move"]["space"]) for e in result.dropped] == [("cat", 1)]


def test_merge_refuses_an_edited_header(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    data = json.loads(theirs.read_text())
    data["options"]["privileges"] = "random"
    theirs.write_text(gamefile.dumps(data))
    with pytest.raises(gitdrivers.MergeConflict, match=r"^the header was edited: options$"):
        gitdrivers.merge(version(base), version(ours), version(theirs))


def test_merge_refuses_rewritten_history(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    data = json.loads(theirs.read_text())
    data["log"][0]["at"] = "2026-01-02T00:00:00Z"
    theirs.write_text(gamefile.dumps(data))
    with pytest.raises(gitdrivers.MergeConflict,
                       match=r"^their side rewrote or deleted history"):
        gitdrivers.merge(version(base), version(ours), version(theirs))


def test_merge_refuses_a_broken_chain_in_what_it_takes(three: tuple[Path, Path, Path]
                                                       ) -> None:
    base, ours, theirs = three
    shutil.copy(base, ours)
    data = json.loads(theirs.read_text())
    data["log"][1]["prev"] = "0" * 64
    theirs.write_text(gamefile.dumps(data))
    with pytest.raises(gitdrivers.MergeConflict,
                       match=r"^the merged game would be invalid: \$\.log\[1\] .*: "
                             r"the hash chain is broken"):
        gitdrivers.merge(version(base), version(ours), version(theirs))


def nonce(path: Path, player: str, value: str) -> None:
    result = run("nonce", path, "--as", player, value, "--keep", f"{path}.{player}.nonce")
    assert result.exit_code == 0, result.output


def test_merge_refuses_a_game_of_other_rules(three: tuple[Path, Path, Path]) -> None:
    for path in three:
        data = json.loads(path.read_text())
        data["rules"] = "staufer-0+data.000000000000"
        path.write_text(gamefile.dumps(data))
    # refused as it is read: the rules part of the pin is not this referee's
    with pytest.raises((gitdrivers.MergeConflict, GameFileError),
                       match=r"this game was made with rules staufer-0, but this referee"):
        gitdrivers.merge(*(version(p) for p in three))


def test_merge_joins_nonces_given_on_both_sides(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / f"{n}.json" for n in ("base", "ours", "theirs"))
    new_game(base, "--sealed", "--nonces")
    nonce(base, "cat", "c")
    shutil.copy(base, ours)
    shutil.copy(base, theirs)
    nonce(ours, "ben", "b")  # commitments, on two branches
    nonce(theirs, "ann", "a")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    commits = result.data["rng"]["nonce_commitments"]
    assert commits == {p: commitment(v) for p, v in (("ann", "a"), ("ben", "b"), ("cat", "c"))}
    assert list(commits) == ["ann", "ben", "cat"]
    base.write_text(gamefile.dumps(result.data))
    shutil.copy(base, ours)
    shutil.copy(base, theirs)
    nonce(ours, "cat", "c")  # reveals, on two branches
    nonce(theirs, "ann", "a")
    nonce(theirs, "ben", "b")
    result = gitdrivers.merge(version(base), version(ours), version(theirs))
    assert result.data["rng"]["nonces"] == {"ann": "a", "ben": "b", "cat": "c"}
    assert list(result.data["rng"]["nonces"]) == ["ann", "ben", "cat"]


def test_merge_refuses_two_nonces_for_one_player(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / f"{n}.json" for n in ("base", "ours", "theirs"))
    new_game(base, "--sealed", "--nonces")
    shutil.copy(base, ours)
    shutil.copy(base, theirs)
    nonce(ours, "ann", "one")
    nonce(theirs, "ann", "two")
    with pytest.raises(gitdrivers.MergeConflict,
                       match=r"^both sides changed the game's header differently$"):
        gitdrivers.merge(version(base), version(ours), version(theirs))


def test_merge_refuses_a_nonce_taken_back(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / f"{n}.json" for n in ("base", "ours", "theirs"))
    new_game(base, "--sealed", "--nonces")
    nonce(base, "ann", "a")
    shutil.copy(base, ours)
    shutil.copy(base, theirs)
    nonce(ours, "ben", "b")
    data = json.loads(theirs.read_text())
    data["rng"]["nonce_commitments"] = {}
    theirs.write_text(gamefile.dumps(data))
    with pytest.raises(gitdrivers.MergeConflict,
                       match=r"^the header was edited: rng\.nonce_commitments \(changed\)$"):
        gitdrivers.merge(version(base), version(ours), version(theirs))


def test_merge_of_a_file_added_on_both_sides(three: tuple[Path, Path, Path]) -> None:
    _, ours, theirs = three
    result = gitdrivers.merge(None, version(ours), version(theirs))
    assert result.data == version(ours).data
    assert [e["n"] for e in result.dropped] == [2]  # move 1 is the same on both


# --- merge, the command ----------------------------------------------------------------


def test_git_merge_command_writes_ours_and_exits_1_when_it_drops(
        three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    expected = ours.read_text()
    result = run("git-merge", base, ours, theirs, "games/g.json")
    assert result.exit_code == 1
    assert ours.read_text() == expected
    assert result.stderr.splitlines()[-1] == (
        "The file holds the merged game: check it, `git add games/g.json` and go on with "
        "the merge or rebase.")
    assert "  dropped 2. ben: supply 2" in result.stderr.splitlines()


def test_git_merge_keeps_the_bytes_of_the_side_it_equals(three: tuple[Path, Path, Path]
                                                         ) -> None:
    base, ours, theirs = three
    for path in (ours, theirs):  # same games, other formatting: the bytes are kept
        path.write_text(json.dumps(json.loads(path.read_text()), indent=1))
    kept = ours.read_bytes()
    assert run("git-merge", base, ours, theirs, "g.json").exit_code == 1
    assert ours.read_bytes() == kept
    shutil.copy(ours, theirs)
    play(theirs, "cat", "supply 2")
    theirs.write_text(json.dumps(json.loads(theirs.read_text()), indent=3))
    assert run("git-merge", base, ours, theirs, "g.json").exit_code == 0
    assert ours.read_bytes() == theirs.read_bytes()


def test_git_merge_accept_drop_exits_0(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    result = run("git-merge", base, ours, theirs, "g.json", "--accept-drop")
    assert result.exit_code == 0
    assert STANDS in result.stderr


def test_git_merge_takes_theirs_silently(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    shutil.copy(ours, theirs)
    play(theirs, "cat", "supply 2")
    shutil.copy(base, ours)
    result = run("git-merge", base, ours, theirs, "g.json")
    assert (result.exit_code, result.output) == (0, "")
    assert ours.read_text() == theirs.read_text()


def test_git_merge_conflict_leaves_ours_untouched(three: tuple[Path, Path, Path]) -> None:
    base, ours, theirs = three
    theirs.write_text("{ not json")
    before = ours.read_bytes()
    result = run("git-merge", base, ours, theirs, "g.json")
    assert result.exit_code == 1
    assert ours.read_bytes() == before
    assert result.stderr.startswith(
        "referee git-merge: g.json: not merged: g.json (theirs) is not valid JSON")


# --- with real git ---------------------------------------------------------------------


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {done.stdout}{done.stderr}")
    return done


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository set up as docs/git.md says, with a game where ann has moved."""
    require_tool("git")
    for name, value in (("GIT_CONFIG_GLOBAL", os.devnull), ("GIT_CONFIG_NOSYSTEM", "1"),
                        ("GIT_AUTHOR_NAME", "t"), ("GIT_AUTHOR_EMAIL", "t@example.org"),
                        ("GIT_COMMITTER_NAME", "t"), ("GIT_COMMITTER_EMAIL", "t@example.org")):
        monkeypatch.setenv(name, value)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    referee = f"{sys.executable} -m referee"
    git(repo, "config", "diff.referee.textconv", f"{referee} git-textconv")
    git(repo, "config", "merge.referee.name", "referee game file")
    git(repo, "config", "merge.referee.driver", f"{referee} git-merge %O %A %B %P")
    (repo / ".gitattributes").write_text("games/*.json diff=referee merge=referee\n")
    (repo / "games").mkdir()
    new_game(repo / "games" / "g.json")
    play(repo / "games" / "g.json", "ann", "supply 1")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "ann moves")
    return repo


def two_branches(repo: Path, target: str = "main") -> None:
    """``target``: ben "supply 3"; branch ben: ben "supply 2", both from the same
    commit."""
    game = repo / "games" / "g.json"
    git(repo, "checkout", "-q", "-b", "ben")
    play(game, "ben", "supply 2")
    git(repo, "commit", "-q", "-am", "ben: supply 2")
    git(repo, "checkout", "-q", target)
    play(game, "ben", "supply 3")
    git(repo, "commit", "-q", "-am", "ben: supply 3")


def test_git_merge_of_two_appended_moves_keeps_the_targets(repo: Path) -> None:
    two_branches(repo)
    done = git(repo, "merge", "ben", check=False)
    assert done.returncode == 1
    assert "dropped 2. ben: supply 2" in done.stderr
    game = repo / "games" / "g.json"
    check = run("check", game)
    assert check.exit_code == 0, check.output
    assert [e["move"]["space"] for e in version(game).log] == [1, 3]
    git(repo, "add", "games/g.json")
    git(repo, "commit", "-q", "--no-edit")
    assert git(repo, "show", "HEAD:games/g.json").stdout == game.read_text()


def test_git_merge_accept_drop_completes_the_merge(repo: Path) -> None:
    referee = f"{sys.executable} -m referee"
    git(repo, "config", "merge.referee.driver",
        f"{referee} git-merge %O %A %B %P --accept-drop")
    two_branches(repo)
    done = git(repo, "merge", "-q", "--no-edit", "ben")
    assert STANDS in done.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    assert [e["move"]["space"] for e in version(repo / "games" / "g.json").log] == [1, 3]


def test_rebase_onto_the_target_drops_the_rebased_move(repo: Path) -> None:
    """In a rebase "ours" is the branch rebased onto: main's move stays."""
    two_branches(repo)
    git(repo, "checkout", "-q", "ben")
    done = git(repo, "rebase", "main", check=False)
    assert done.returncode != 0
    assert "dropped 2. ben: supply 2" in done.stderr
    assert [e["move"]["space"] for e in version(repo / "games" / "g.json").log] == [1, 3]


def test_merging_main_into_a_players_branch_keeps_mains_move(repo: Path) -> None:
    """ben merges main into his branch to catch up: main's move was recorded first and
    stands; his own is dropped and he is told to move again (the result passes check)."""
    two_branches(repo)
    git(repo, "checkout", "-q", "ben")
    done = git(repo, "merge", "main", check=False)
    assert done.returncode == 1
    assert "dropped 2. ben: supply 2" in done.stderr
    assert STANDS in done.stderr
    game = repo / "games" / "g.json"
    assert [e["move"]["space"] for e in version(game).log] == [1, 3]
    assert run("check", game).exit_code == 0
    git(repo, "add", "games/g.json")
    git(repo, "commit", "-q", "--no-edit")
    assert game.read_text() == git(repo, "show", "main:games/g.json").stdout


def test_the_target_branch_can_be_configured(repo: Path) -> None:
    """A group whose accepted moves live on `play` says so with referee.target."""
    git(repo, "branch", "-m", "main", "play")
    git(repo, "config", "referee.target", "refs/heads/play")
    two_branches(repo, target="play")
    git(repo, "checkout", "-q", "ben")
    game = repo / "games" / "g.json"
    done = git(repo, "merge", "play", check=False)
    assert "dropped 2. ben: supply 2" in done.stderr
    assert [e["move"]["space"] for e in version(game).log] == [1, 3]


def test_git_log_shows_moves_in_notation(repo: Path) -> None:
    game = repo / "games" / "g.json"
    play(game, "ben", "supply 2")
    git(repo, "commit", "-q", "-am", "ben moves")
    patch = git(repo, "log", "-p", "-1").stdout
    added = [line for line in patch.splitlines() if line.startswith("+") and
             not line.startswith("+++")]
    assert added == [f"+   2. ben: supply 2  ({NOW})"]


def test_a_merge_by_the_driver_passes_check_signed(repo: Path, tmp_path: Path) -> None:
    """Signed moves on two branches, merged by the driver: `check --signed` accepts the
    merge commit (it writes the game as its first parent does) and the result."""
    require_tool("ssh-keygen", "openssh-client")
    key = tmp_path / "id_ben"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ben", "-f",
                    str(key)], check=True)
    (repo / ".referee").mkdir()
    public = " ".join(key.with_suffix(".pub").read_text().split()[:2])
    (repo / ".referee" / "allowed_signers").write_text(f"ben {public}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ben's key")
    start = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingkey", str(key))
    game = repo / "games" / "g.json"
    git(repo, "checkout", "-q", "-b", "ben")
    play(game, "ben", "supply 2")
    git(repo, "commit", "-q", "-S", "-am", "ben: supply 2")
    git(repo, "checkout", "-q", "main")
    play(game, "ben", "supply 3")
    git(repo, "commit", "-q", "-S", "-am", "ben: supply 3")
    merged = game.read_bytes()
    assert git(repo, "merge", "ben", check=False).returncode == 1
    assert game.read_bytes() == merged
    git(repo, "add", "games/g.json")
    git(repo, "commit", "-q", "--no-edit")
    result = run("check", game, "--since", start, "--signed")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok   games/g.json: staufer, 3 players, 2 moves")
