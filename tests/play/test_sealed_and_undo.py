"""Sealed games, nonces, reveal, undo, pending and `check --since` (with the toy game)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from referee.ledger import gamefile, replay
from tests.conftest import ok, run
from tests.leaks import assert_hidden
from tests.support.games import new_game


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[Path, Path]:
    path, secret = tmp_path / "s.json", tmp_path / "keep" / "s.secret"
    secret.parent.mkdir()
    new_game(path, "toy", "--sealed", "--insecure-seed", "--secret-out", secret, players="ann,ben",
             seed="the-secret-seed", game_id="s1")
    return path, secret


def test_sealed_file_holds_only_a_commitment(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    text = path.read_text()
    assert "the-secret-seed" not in text
    assert json.loads(text)["rng"]["commitment"].startswith("sha256:")
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    assert json.loads(secret.read_text())["seed"] == "the-secret-seed"


def test_sealed_commands_refuse_without_the_secret(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    result = run("status", path)  # the public view `new` wrote: no state without the secret
    assert result.exit_code == 0 and "ann to take from a pile of 10\n" in result.output
    assert "(sealed: the board is the public view its referee signed at move 0" in \
        result.output
    before = path.read_bytes()
    refused = run("move", path, "--as", "ann", "take 1")
    assert refused.exit_code == 1 and "--unchecked" in refused.output
    assert path.read_bytes() == before
    ok("move", path, "--as", "ann", "take 1", "--secret", secret)


def test_secret_from_environment(sealed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
                                 ) -> None:
    path, secret = sealed
    monkeypatch.setenv("REFEREE_SECRET", "the-secret-seed")
    ok("status", path)
    monkeypatch.setenv("REFEREE_SECRET", "wrong")
    result = run("status", path)
    assert result.exit_code == 1 and "does not match this game's commitment" in result.output
    monkeypatch.delenv("REFEREE_SECRET")
    monkeypatch.setenv("REFEREE_SECRET_FILE", str(secret))
    ok("status", path)


def test_check_without_secret_says_what_it_could_not_verify(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    ok("move", path, "--as", "ann", "take 1", "--secret", secret)
    result = ok("check", path)
    assert "ok?" in result.output and "not verified" in result.output
    assert "ok   " in ok("check", path, "--secret", secret).output
    ok("move", path, "--as", "ben", "take 1", "--secret", secret)
    data = json.loads(path.read_text())
    data["log"][0]["move"]["n"] = 2
    path.write_text(gamefile.dumps(data))
    result = run("check", path)  # the hash chain is checked without the secret
    assert result.exit_code == 1 and "hash chain is broken" in result.output


def test_views_of_a_sealed_game_leak_nothing(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    ann = json.loads(ok("status", path, "--as", "ann", "--json", "--secret", secret).output)
    ben = json.loads(ok("status", path, "--as", "ben", "--json", "--secret", secret).output)
    public = ok("status", path, "--json", "--secret", secret).output
    assert ann["view"]["card"] not in public and ben["view"]["card"] not in public
    assert ann["view"]["card"] not in json.dumps(ben)
    match = replay.replay(gamefile.read(path), "the-secret-seed")
    assert_hidden(match.game, match.state, {None: {"status": public, "file": path.read_text()},
                                            "ben": {"status --as ben": json.dumps(ben)}})
    for output in (public, json.dumps(ann), path.read_text()):
        assert "the-secret-seed" not in output


def test_reveal_only_after_the_end_then_full_check(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    for player, n in [("ann", 3), ("ben", 3), ("ann", 3)]:
        ok("move", path, "--as", player, f"take {n}", "--secret", secret)
    result = run("reveal", path, "--secret", secret)
    assert result.exit_code == 2 and "not finished" in result.output
    ok("move", path, "--as", "ben", "take 1", "--secret", secret)
    ok("reveal", path, "--secret", secret)
    assert json.loads(path.read_text())["rng"]["seed"] == "the-secret-seed"
    assert "ok   " in ok("check", path).output
    data = json.loads(path.read_text())
    data["rng"]["seed"] = "a-different-seed"
    path.write_text(gamefile.dumps(data))
    result = run("check", path)
    assert result.exit_code == 1 and "does not match" in result.output


def test_nonces_before_the_first_move(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    new_game(path, "toy", "--nonces", players="ann,ben", seed="s")
    assert "waiting for nonce commitments from ann, ben" in ok("status", path).output
    result = run("move", path, "--as", "ann", "take 1")
    assert result.exit_code == 1 and "waiting for nonce" in result.output
    ok("nonce", path, "--as", "ann", "n-ann")  # commits; the nonce is kept beside the file
    assert (tmp_path / "n.json.ann.nonce").read_text() == "n-ann\n"
    assert "n-ann" not in path.read_text()
    again = run("nonce", path, "--as", "ann", "again")
    assert again.exit_code == 2 and "already committed" in again.output
    ok("nonce", path, "--as", "ben", "n-ben")
    assert "waiting for nonces from ann, ben" in ok("status", path).output
    wrong = run("nonce", path, "--as", "ann", "other")
    assert wrong.exit_code == 2 and "does not match" in wrong.output
    ok("nonce", path, "--as", "ann")  # reveals the kept nonce
    ok("nonce", path, "--as", "ben")
    card = json.loads(ok("status", path, "--as", "ann", "--json").output)["view"]["card"]
    ok("move", path, "--as", "ann", "take 1")
    assert run("nonce", path, "--as", "ann", "x").exit_code == 2
    other = tmp_path / "o.json"
    new_game(other, "toy", "--nonces", players="ann,ben", seed="s")
    for step in range(2):
        ok("nonce", other, "--as", "ann", "n-ann", "--keep", tmp_path / f"a{step}")
        ok("nonce", other, "--as", "ben", "something else", "--keep", tmp_path / f"b{step}")
    # same seed, other nonces: another deal (the whole deck order is compared)
    decks = [replay.replay(gamefile.read(p), upto=0).state.deck for p in (path, other)]
    assert decks[0] != decks[1]
    assert card in {*decks[0], *replay.replay(gamefile.read(path)).state.cards.values()}


# --- undo -----------------------------------------------------------------------------


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return new_game(tmp_path / "g.json", "toy", seed="u")


def test_undo_own_last_move(game: Path) -> None:
    ok("move", game, "--as", "ann", "take 2")
    result = ok("undo", game, "--as", "ann")
    assert "move 1 undone by ann" in result.output
    assert result.output.rstrip().endswith("ann to take from a pile of 10")
    log = json.loads(game.read_text())["log"]
    assert log[1]["undo"] == 1  # recorded, not rewritten
    ok("move", game, "--as", "ann", "take 3")
    assert "ok" in ok("check", game).output


def test_undo_refusals_leave_the_file_unchanged(game: Path) -> None:
    before = game.read_bytes()
    assert run("undo", game, "--as", "ann").exit_code == 2  # nothing to undo
    ok("move", game, "--as", "ann", "take 2")
    before = game.read_bytes()
    result = run("undo", game, "--as", "ben")
    assert result.exit_code == 1 and "only its author ann" in result.output
    assert game.read_bytes() == before
    ok("move", game, "--as", "ben", "take 1")
    before = game.read_bytes()
    result = run("undo", game, "--as", "ann")
    assert result.exit_code == 1 and game.read_bytes() == before
    ok("undo", game, "--as", "ben")
    assert run("undo", game, "--as", "ben").exit_code == 2  # not twice


def test_undo_refused_after_a_reveal(game: Path) -> None:
    ok("move", game, "--as", "ann", "draw")
    before = game.read_bytes()
    result = run("undo", game, "--as", "ann")
    assert result.exit_code == 1 and "hidden information" in result.output
    assert "Traceback" not in result.output and game.read_bytes() == before


def test_forged_undo_in_the_file_is_caught(game: Path) -> None:
    ok("move", game, "--as", "ann", "draw")
    data = json.loads(game.read_text())
    data["log"].append({"n": 2, "by": "ann", "undo": 1, "prev": gamefile.next_prev(data)})
    game.write_text(gamefile.dumps(data))
    result = run("check", game)
    assert result.exit_code == 1 and "undo of move 1 refused" in result.output


# --- pending --------------------------------------------------------------------------


def test_pending_lists_who_owes_what(tmp_path: Path) -> None:
    new_game(tmp_path / "a.json", "toy", players="ann,ben", seed="a")
    new_game(tmp_path / "b.json", "toy", "--sealed", "--insecure-seed", players="cat,dan", seed="b")
    ok("move", tmp_path / "a.json", "--as", "ann", "take 1")
    (tmp_path / "junk.json").write_text("{")
    result = run("pending", tmp_path)
    assert result.exit_code == 1  # one file could not be read; the others are listed
    lines = result.output.splitlines()
    assert lines[0].endswith("a.json: waiting for ben since 2026-01-01T00:00:00Z: "
                             "ben to take from a pile of 9")
    assert "b.json: waiting for cat" in lines[1]  # read with b.json.secret beside it
    assert "junk.json: cannot read" in lines[2]
    rows = json.loads(run("pending", tmp_path, "--json").output)
    assert rows[0]["waiting"] == ["ben"]


# --- check --since --------------------------------------------------------------------


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    new_game(tmp_path / "g.json", "toy", players="ann,ben", seed="r")
    ok("move", tmp_path / "g.json", "--as", "ann", "take 1")
    git(tmp_path, "add", "g.json")
    git(tmp_path, "commit", "-qm", "start")
    return tmp_path


def test_since_accepts_appended_legal_moves(repo: Path) -> None:
    path = repo / "g.json"
    ok("move", path, "--as", "ben", "take 1")
    assert "(1 new move)" in ok("check", path, "--since", "HEAD").output
    ok("check", path, "--since", "HEAD", "--by", "ben")
    ok("move", path, "--as", "ann", "take 1")
    result = run("check", path, "--since", "HEAD", "--by", "ben")
    assert result.exit_code == 1 and "entry 3 is by ann" in result.output


def test_since_catches_rewritten_history(repo: Path) -> None:
    path = repo / "g.json"
    data = json.loads(path.read_text())
    data["log"] = []
    path.write_text(gamefile.dumps(data))
    ok("move", path, "--as", "ann", "take 2")  # a legal game, but not the one played
    result = run("check", path, "--since", "HEAD")
    assert result.exit_code == 1 and "changed since HEAD" in result.output


def test_since_catches_a_header_change_and_truncation(repo: Path) -> None:
    path = repo / "g.json"
    data = json.loads(path.read_text())
    data["players"][1]["name"] = "Benjamin"
    path.write_text(gamefile.dumps(data))
    result = run("check", path, "--since", "HEAD")
    assert result.exit_code == 1 and "header changed since HEAD: players" in result.output
    data["players"][1]["name"] = "ben"
    data["log"] = []
    path.write_text(gamefile.dumps(data))
    result = run("check", path, "--since", "HEAD")
    assert result.exit_code == 1 and "lost entries" in result.output


def test_since_new_file_and_bad_revision(repo: Path) -> None:
    new_game(repo / "h.json", "toy", players="ann,ben")
    assert "(0 new moves)" in ok("check", repo / "h.json", "--since", "HEAD").output
    result = run("check", repo / "g.json", "--since", "nope")
    assert result.exit_code == 2 and "unknown git revision" in result.output


def test_unchecked_move_in_a_sealed_game_is_checked_later(sealed: tuple[Path, Path]) -> None:
    path, secret = sealed
    result = ok("move", path, "--as", "ann", "take 1", "--unchecked")
    assert "appended UNCHECKED" in result.output
    ok("check", path, "--secret", secret)
    ok("move", path, "--as", "ann", "take 2", "--unchecked")  # out of turn: caught later
    result = run("check", path, "--secret", secret)
    assert result.exit_code == 1 and "not ann's turn" in result.output
    result = run("move", path, "--as", "ben", "fly", "--unchecked")
    assert result.exit_code == 1 and "cannot read 'fly'" in result.output
