# ruff: noqa: F811  (the fixtures `repo` and `signed_repo` come from tests/git/test_repository_attacks.py)
"""`check --since REV` reads what changed, not the archive (referee/git/delta.py), and the
fast path gives up nothing: the files read for one move do not grow with the number of
games, and every copy the full scan refused is still refused through the CLI (the same
id in another case or written with JSON escapes, a non-ASCII letter that folds to the
id, the same commitment, a non-game file turned into a copy, an untracked copy), as are
a rename and a deletion, and a signed forgery a later commit undid, while a file git
cannot vouch for (a checkout filter, a skip-worktree entry) is read as if changed. The
honest move and the honest new game pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.git import delta, history
from referee.ledger import gamefile
from tests.conftest import run
from tests.git.test_repository_attacks import (  # noqa: F401  (fixtures)
    play,
    repo,
    signed_commit,
    signed_pr,
    signed_repo,
)
from tests.git.test_repository_attacks import refused as refused_in_ci

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from scripts.bench_scale import chained, game_copy  # noqa: E402

TEMPLATE = json.loads((ROOT / "examples" / "staufer-3p.json").read_bytes())


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True, env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                                           "GIT_COMMITTER_NAME": "t",
                                           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo),
                                           "PATH": "/usr/bin:/bin"})
    return done.stdout


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(gamefile.dumps(data))


def build(repo: Path, games: int) -> dict[str, Any]:
    """``games`` games in one commit (odd ones running); returns a running game's data."""
    git(repo, "init", "-q", "-b", "main")
    running: dict[str, Any] = {}
    for i in range(games):
        data, rest = game_copy(TEMPLATE, i)
        write(repo / "games" / f"{data['id']}.json", data)
        if rest and not running:
            running = {"data": data, "next": rest[0]}
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "games")
    return running


def one_move(repo: Path, running: dict[str, Any]) -> Path:
    data = running["data"]
    path = repo / "games" / f"{data['id']}.json"
    write(path, chained(data, [*data["log"], running["next"]]))
    git(repo, "commit", "-q", "-am", "a move")
    return path


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", str(tmp_path))
    yield repo


def check(*args: str) -> tuple[int, str]:
    done = run("check", "--since", *args)
    return done.exit_code, done.output


# --- what one move costs ----------------------------------------------------------------


def reads_for_one_move(repo: Path, games: int, monkeypatch: pytest.MonkeyPatch,
                       named: bool) -> Counter[str]:
    """The files `check --since HEAD^` parses, reads or asks git for, one move changed."""
    path = one_move(repo, build(repo, games))
    seen: Counter[str] = Counter()

    def counting(name: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(gamefile, "parse", counting("parse", gamefile.parse))
    monkeypatch.setattr(history, "parse_header", counting("header", history.parse_header))
    monkeypatch.setattr(history, "read_work_file", counting("read", history.read_work_file))
    monkeypatch.setattr(history.Repo, "show", counting("show", history.Repo.show))
    code, out = check("HEAD^", *([str(path)] if named else []))
    assert code == 0, out
    assert "(1 new move)" in out and out.count("\nok ") + out.startswith("ok ") == 1, out
    return seen


@pytest.mark.parametrize("named", [False, True])
def test_one_move_reads_the_same_files_in_20_and_200_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: bool) -> None:
    counts = []
    for games in (20, 200):
        repo = tmp_path / f"r{games}"
        repo.mkdir()
        monkeypatch.chdir(repo)
        with monkeypatch.context() as patched:
            counts.append(reads_for_one_move(repo, games, patched, named))
    small, large = counts
    assert small == large, counts
    assert large["parse"] <= 3 and large["read"] <= 3 and large["show"] <= 2, large


def test_folds_to_ascii_is_every_such_code_point() -> None:
    """The letters searched for beside the id: every code point outside ASCII whose
    case folding is made of an id's ASCII characters."""
    import re

    plain = re.compile(r"[A-Za-z0-9._-]+")
    found = "".join(c for c in map(chr, range(0x80, 0x110000))
                    if plain.fullmatch(c.casefold()))
    assert found == delta.FOLDS_TO_ASCII


# --- copies on the fast path ------------------------------------------------------------


def copy_of(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return chained({**data, **changes}, [])


def base_with(repo: Path, games: int = 6) -> list[dict[str, Any]]:
    build(repo, games)
    return [json.loads(p.read_bytes()) for p in sorted((repo / "games").glob("*.json"))]


def refused(code: int, out: str, *words: str) -> None:
    assert code == 1, out
    assert "Traceback" not in out
    for word in words:
        assert word in out, (word, out)


@pytest.mark.parametrize("named", [False, True])
def test_a_new_file_with_an_unchanged_games_id_is_refused(at: Path, named: bool) -> None:
    games = base_with(at)
    other = games[3]
    write(at / "games" / "new.json", copy_of(other, created="2026-12-02T00:00:00Z"))
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "copy")
    refused(*check("HEAD^", *(["games/new.json"] if named else [])),
            "games/new.json is the same game as", f"{other['id']}.json at HEAD^")


def test_the_same_id_in_another_case_is_refused(at: Path) -> None:
    other = base_with(at)[2]
    write(at / "games" / "new.json", copy_of(other, id=other["id"].upper(),
                                             created="2026-12-02T00:00:00Z"))
    refused(*check("HEAD"), "the same game id")


def escaped(data: dict[str, Any]) -> str:
    """The file text of ``data`` with its id written as JSON \\u escapes."""
    text = gamefile.dumps(data)
    plain = json.dumps(data["id"])
    coded = '"' + "".join(f"\\u{ord(c):04x}" for c in data["id"]) + '"'
    assert text.count(f'"id": {plain}') == 1
    return text.replace(f'"id": {plain}', f'"id": {coded}')


def test_a_game_whose_id_is_written_in_escapes_is_still_found(at: Path) -> None:
    """The game at the base writes its id as \\u escapes: no byte of the plain id is in
    it, and the strict reader reads the same id. A new file with that id is refused."""
    git(at, "init", "-q", "-b", "main")
    data, _ = game_copy(TEMPLATE, 0)
    (at / "games").mkdir()
    (at / "games" / "old.json").write_text(escaped(data))
    assert data["id"].encode() not in (at / "games" / "old.json").read_bytes()
    assert gamefile.read(at / "games" / "old.json").data["id"] == data["id"]
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "an escaped id")
    write(at / "games" / "new.json", copy_of(data, created="2026-12-02T00:00:00Z"))
    refused(*check("HEAD"), "games/new.json is the same game as games/old.json at HEAD",
            "the same game id")


def test_an_id_with_a_letter_that_folds_to_ascii_is_found(at: Path) -> None:
    """A file at the base whose id holds "ſ" (folds to "s"): json.loads reads it and
    ids are compared case-folded, so the new plain-"s" id is the same id."""
    git(at, "init", "-q", "-b", "main")
    data, _ = game_copy(TEMPLATE, 0)
    odd = {**data, "id": data["id"].replace("s", "\u017f")}
    assert odd["id"] != data["id"] and odd["id"].casefold() == data["id"].casefold()
    write(at / "games" / "old.json", odd)
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "an odd id")
    write(at / "games" / "new.json", copy_of(data, created="2026-12-02T00:00:00Z"))
    refused(*check("HEAD"), "games/old.json at HEAD", "the same game id")


def test_the_same_commitment_under_a_new_id_is_refused(at: Path) -> None:
    git(at, "init", "-q", "-b", "main")
    data, _ = game_copy(TEMPLATE, 0)
    sealed = copy_of(data, rng={"commitment": "sha256:" + "ab" * 32})
    write(at / "games" / "old.json", sealed)
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "a sealed game")
    write(at / "games" / "new.json", copy_of(sealed, id="fresh-id"))
    refused(*check("HEAD"), "games/old.json at HEAD", "the same rng commitment")


def test_a_non_game_file_turned_into_a_copy_is_refused(at: Path) -> None:
    other = base_with(at)[1]
    (at / "games" / "notes.json").write_text('{"notes": []}\n')
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "notes")
    write(at / "games" / "notes.json", copy_of(other, created="2026-12-02T00:00:00Z"))
    refused(*check("HEAD"), "games/notes.json is the same game as")


def test_an_untracked_copy_is_refused_even_when_another_file_is_named(at: Path) -> None:
    games = base_with(at)
    write(at / "games" / "new.json", copy_of(games[0], created="2026-12-02T00:00:00Z"))
    named = f"games/{games[1]['id']}.json"
    refused(*check("HEAD", named), "games/new.json is the same game as")


def test_a_rename_and_a_deletion_are_refused(at: Path) -> None:
    games = base_with(at)
    first, second = (f"games/{g['id']}.json" for g in games[:2])
    git(at, "mv", first, "games/renamed.json")
    git(at, "rm", "-q", second)
    git(at, "commit", "-q", "-m", "tidy up")
    code, out = check("HEAD^")
    refused(code, out, f"{first}: this game file existed at HEAD^ and is gone",
            f"{second}: this game file existed", "games/renamed.json is the same game as")


# --- files git cannot vouch for -----------------------------------------------------------


def test_a_checkout_filter_cannot_hide_a_rewritten_log(at: Path) -> None:
    """A clean filter that gives git the old bytes whatever the file holds: git says
    unchanged, the file the referee reads lost entries. Read as changed, refused."""
    games = base_with(at)
    target = f"games/{games[1]['id']}.json"
    frozen = at.parent / "frozen.json"
    frozen.write_bytes((at / target).read_bytes())
    (at / ".gitattributes").write_text(f"{target} filter=frozen\n")
    git(at, "config", "filter.frozen.clean", f"cat {frozen}")
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "attributes")
    size = (at / target).stat().st_size
    cut = gamefile.dumps(chained(games[1], games[1]["log"][:3]))
    (at / target).write_text(cut + " " * (size - len(cut.encode())))  # git trusts a new size
    assert git(at, "status", "--porcelain", "--", target) == ""  # git sees nothing
    refused(*check("HEAD"), target, "the log lost entries")


def test_a_skip_worktree_entry_is_read_as_changed(at: Path) -> None:
    games = base_with(at)
    target = f"games/{games[2]['id']}.json"
    git(at, "update-index", "--skip-worktree", target)
    (at / target).unlink()
    refused(*check("HEAD"), target, "is gone")


def test_a_signed_forgery_undone_by_a_later_commit_is_still_seen(
        signed_repo: dict[str, object]) -> None:
    """ann signs a commit with ben's move, then a second that puts the file back: the
    file is unchanged since the base, its commits are not. --signed still reads them."""
    repo, keys = signed_repo["repo"], signed_repo["keys"]
    assert isinstance(repo, Path) and isinstance(keys, dict)
    before = (repo / "games" / "g.json").read_bytes()
    play(repo, "games/g.json", "ben")
    signed_commit(repo, keys["ann"], "ann signs ben's move")
    (repo / "games" / "g.json").write_bytes(before)
    signed_commit(repo, keys["ann"], "and takes it back")
    refused_in_ci(signed_pr(repo, "ann-gh"), "signed by ann adds entry 2", "by ben")


@pytest.mark.parametrize(("attributes", "doubtful"), [
    ("* text=auto\n", False), ("*.json text\n", False), ("*.json -text\n", False),
    ("*.json eol=crlf\n", True), ("*.json ident\n", True), ("*.json filter=lfs\n", True),
    ("*.json working-tree-encoding=UTF-16\n", True), ("*.json crlf\n", True)])
def test_which_attributes_put_a_file_in_doubt(at: Path, attributes: str,
                                              doubtful: bool) -> None:
    games = base_with(at, 2)
    (at / ".git" / "info" / "attributes").write_text(attributes)
    found = delta.working_changes(at, "HEAD")
    expected = {f"games/{g['id']}.json" for g in games} if doubtful else set()
    assert found.doubt == expected and found.changed == expected


def test_core_autocrlf_puts_every_file_in_doubt(at: Path) -> None:
    games = base_with(at, 2)
    git(at, "config", "core.autocrlf", "true")
    assert delta.working_changes(at, "HEAD").doubt == {f"games/{g['id']}.json"
                                                        for g in games}


# --- the honest controls ------------------------------------------------------------------


def test_an_honest_move_and_an_honest_new_game_pass(at: Path) -> None:
    running = build(at, 8)
    one_move(at, running)
    created = run("new", "staufer", "games/fresh.json", "--players", "ann,ben,cat",
                  "--id", "fresh-one")
    assert created.exit_code == 0, created.output
    git(at, "add", "-A")
    git(at, "commit", "-q", "-m", "a new game")
    code, out = check("HEAD~2")
    assert code == 0, out
    assert "games/fresh.json" in out and "(1 new move)" in out
    assert "(0 new moves)" in out  # the new game, with its empty log
    assert out.count("ok ") == 2, out


def test_nothing_changed_reads_nothing_and_says_so(at: Path) -> None:
    base_with(at, 4)
    code, out = check("HEAD")
    assert code == 0 and "no game file changed since HEAD: nothing to check" in out, out
