"""Red team: the nonce a player keeps beside the game file between commit and reveal.

In a shared repository another player can put a file at that path (``g.json.ben.nonce``)
before ben commits: a symlink to a private file of ben's (whose text would become ben's
nonce and be revealed into the public game file), or a file with a value of their
choosing (so they know ben's nonce before committing their own). `referee nonce`
uses a kept nonce only from an owner-only regular file, as it writes them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import run
from tests.support.games import new_game

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n" \
      "-----END OPENSSH PRIVATE KEY-----\n"


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return new_game(tmp_path / "g.json", "staufer", "--sealed", "--nonces")


def _refused(result: Result, path: Path, before: bytes) -> None:
    assert result.exit_code in (1, 2), result.output
    assert "g.json.ben.nonce" in result.output and "Traceback" not in result.output
    assert path.read_bytes() == before


def test_a_planted_symlink_cannot_reveal_a_private_file(game: Path, tmp_path: Path) -> None:
    private = tmp_path / "id_ed25519"
    private.write_text(KEY)
    private.chmod(0o600)
    (tmp_path / "g.json.ben.nonce").symlink_to(private)
    before = game.read_bytes()
    _refused(run("nonce", game, "--as", "ben"), game, before)
    # the whole dance, as the planter hoped: the key never reaches the game file
    run("nonce", game, "--as", "ann")
    run("nonce", game, "--as", "ben")
    run("nonce", game, "--as", "ann")
    assert "PRIVATE KEY" not in game.read_text() and "b3BlbnNz" not in game.read_text()
    assert private.read_text() == KEY


def test_a_planted_nonce_file_is_not_used(game: Path, tmp_path: Path) -> None:
    planted = tmp_path / "g.json.ben.nonce"
    planted.write_text("chosen-by-ann\n")
    planted.chmod(0o644)  # as a checkout writes a committed file
    before = game.read_bytes()
    _refused(run("nonce", game, "--as", "ben"), game, before)


def test_a_fifo_or_device_as_the_nonce_file_is_refused_at_once(game: Path,
                                                               tmp_path: Path) -> None:
    keep = tmp_path / "g.json.ben.nonce"
    os.mkfifo(keep)
    before = game.read_bytes()
    started = time.monotonic()
    _refused(run("nonce", game, "--as", "ben"), game, before)
    keep.unlink()
    keep.symlink_to("/dev/zero")
    _refused(run("nonce", game, "--as", "ben"), game, before)
    assert time.monotonic() - started < 10


def test_the_honest_nonce_dance_still_works(game: Path, tmp_path: Path) -> None:
    for player in ("ben", "ann", "ben", "ann"):
        result = run("nonce", game, "--as", player)
        assert result.exit_code == 0, result.output
    kept = (tmp_path / "g.json.ben.nonce").read_text().strip()
    assert json.loads(game.read_text())["rng"]["nonces"]["ben"] == kept
    assert (tmp_path / "g.json.ben.nonce").stat().st_mode & 0o777 == 0o600
    # a nonce the player prepared in an owner-only file is theirs to use
    other = tmp_path / "h.json"
    assert run("new", "staufer", other, "--players", "ann,ben", "--sealed",
               "--nonces").exit_code == 0
    mine = tmp_path / "h.json.ben.nonce"
    mine.write_text("my own words\n")
    mine.chmod(0o600)
    assert run("nonce", other, "--as", "ben").exit_code == 0
    assert run("nonce", other, "--as", "ann").exit_code == 0
    assert run("nonce", other, "--as", "ben").exit_code == 0
    assert json.loads(other.read_text())["rng"]["nonces"]["ben"] == "my own words"
