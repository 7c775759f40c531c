"""Odd paths and failed writes through the CLI: one clear message, exit 1 or 2, no
traceback, and the game file byte for byte as it was (or kept what it was: mode, group,
symlink)."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result

from referee.ledger import fileio
from tests.conftest import run
from tests.support.games import new_game

ROOT = Path(__file__).resolve().parents[2]


def assert_rejected(result: Result, code: int, *fragments: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert result.output.startswith("error: "), result.output
    for fragment in fragments:
        assert fragment in result.output, result.output


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return new_game(tmp_path / "g.json", "toy", seed="s1", game_id="g1")


# --- reading odd files ------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["status"], ["log"], ["check"], ["move", "--as", "ann", "take 1"], ["undo", "--as", "ann"],
    ["nonce", "--as", "ann"], ["reveal", "--secret", "x"],
])
def test_a_directory_as_game_file_is_refused(tmp_path: Path, command: list[str]) -> None:
    out = run(command[0], tmp_path, *command[1:])
    if command[0] == "check":  # a folder of games: every game file in it (none here)
        assert out.exit_code == 0 and out.output == "no game files to check\n"
    else:
        assert_rejected(out, 1, f"{tmp_path} is a directory, not a game file")


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "referee", "check", str(fifo)],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 1
    assert "not a regular file (a FIFO, device or socket)" in proc.stdout
    assert_rejected(run("move", fifo, "--as", "ann", "take 1"), 1, "not a regular file")


def test_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "z.json"
    link.symlink_to("/dev/zero")
    assert_rejected(run("status", link), 1, f"{link} is not a regular file")


def test_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    assert_rejected(run("status", loop), 1, f"cannot read {loop}: Too many levels")
    assert_rejected(run("move", loop, "--as", "ann", "take 1"), 1, "Too many levels")


def test_a_file_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(fileio.MAX_GAME_FILE_BYTES + 1)
    assert_rejected(run("status", big), 1, f"{big} is larger than 16 MiB: not a game file")


def test_secret_naming_a_folder_is_a_usage_error(game: Path, tmp_path: Path) -> None:
    sealed = tmp_path / "s.json"
    assert run("new", "toy", sealed, "--players", "ann,ben", "--sealed").exit_code == 0
    assert_rejected(run("status", sealed, "--secret", tmp_path), 2,
                    f"{tmp_path} is a directory, not a secret file")


# --- writes keep what the file was ------------------------------------------------------


def test_a_write_keeps_mode_and_group(game: Path) -> None:
    os.chmod(game, 0o664)
    os.chown(game, -1, 12345)
    assert run("move", game, "--as", "ann", "take 1").exit_code == 0
    st = game.stat()
    assert stat.S_IMODE(st.st_mode) == 0o664
    assert st.st_gid == 12345


def test_new_respects_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert run("new", "toy", tmp_path / "u.json", "--players", "a,b").exit_code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "u.json").stat().st_mode) == 0o644


def test_a_write_goes_through_a_symlink_to_its_target(game: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(game.name)
    assert run("move", link, "--as", "ann", "take 1").exit_code == 0
    assert link.is_symlink()
    assert '"take"' in game.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "link.json"]


def test_a_read_only_game_file_is_refused_not_replaced(game: Path) -> None:
    os.chmod(game, 0o444)
    before = game.read_bytes()
    assert_rejected(run("move", game, "--as", "ann", "take 1"), 1,
                    f"{game} is read-only; nothing was changed", "chmod u+w")
    assert game.read_bytes() == before
    assert stat.S_IMODE(game.stat().st_mode) == 0o444


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EFBIG])
def test_a_failed_write_is_a_message_and_changes_nothing(
        game: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    before = game.read_bytes()

    def fail(fd: int, data: bytes) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fileio.os, "write", fail)
    assert_rejected(run("move", game, "--as", "ann", "take 1"), 1,
                    f"cannot write {game}: {os.strerror(code)}; nothing was changed")
    assert game.read_bytes() == before
    assert sorted(p.name for p in game.parent.iterdir()) == ["g.json"]


def test_a_failed_create_is_a_message_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fileio.os, "write", fail)
    for extra in ([], ["--sealed"]):
        out = run("new", "toy", tmp_path / "n.json", "--players", "a,b", *extra)
        assert_rejected(out, 1, "No space left on device; nothing was changed")
        assert list(tmp_path.iterdir()) == []


def test_ulimit_f_is_a_message(game: Path) -> None:
    """A file size limit smaller than the new file: EFBIG, not a crash (SIGXFSZ)."""
    before = game.read_bytes()
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200)); "
            "from referee.engine import register; register('toy', 'tests.toygame'); "
            "from referee.cli import main; sys.argv = ['referee'] + sys.argv[1:]; main()")
    proc = subprocess.run([sys.executable, "-c", code, "move", str(game), "--as", "ann",
                           "take 1"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(f"error: cannot write {game}: File too large")
    assert "Traceback" not in proc.stderr
    assert game.read_bytes() == before


def test_temps_of_a_dead_writer_are_removed_by_the_next_write(game: Path) -> None:
    stale = game.with_name(f".{game.name}.0123456789ab{fileio.TEMP_SUFFIX}")
    stale.write_text("half a file")
    assert run("move", game, "--as", "ann", "take 1").exit_code == 0
    assert sorted(p.name for p in game.parent.iterdir()) == ["g.json"]


def test_temps_of_a_live_writer_are_kept(game: Path) -> None:
    fd, tmp = fileio.write_temp(game, b"in progress", 0o600)
    try:
        assert run("move", game, "--as", "ann", "take 1").exit_code == 0
        assert tmp.exists()
    finally:
        fileio.discard_temp(fd, tmp)


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
def test_an_unwritable_folder_is_a_message(game: Path, monkeypatch: pytest.MonkeyPatch,
                                           code: int) -> None:
    """A folder the user may not write (or a read-only mount): the temporary file cannot
    be made. (As root, a real unwritable folder cannot be arranged; the error is.)"""
    real_open = os.open
    before = game.read_bytes()

    def refuse_create(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if flags & os.O_CREAT:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fileio.os, "open", refuse_create)
    assert_rejected(run("move", game, "--as", "ann", "take 1"), 1,
                    f"cannot write {game}: {os.strerror(code)}; nothing was changed")
    assert game.read_bytes() == before
    assert_rejected(run("new", "toy", game.parent / "n.json", "--players", "a,b"), 1,
                    f"cannot write {game.parent / 'n.json'}: {os.strerror(code)}")
    assert_rejected(run("new", "toy", game.parent / "s.json", "--players", "a,b", "--sealed"),
                    1, os.strerror(code))
    assert sorted(p.name for p in game.parent.iterdir()) == ["g.json"]


def test_mail_from_stdin_over_the_cap_is_refused(tmp_path: Path) -> None:
    game = tmp_path / "s.json"
    assert run("new", "toy", game, "--players", "ann,ben", "--sealed").exit_code == 0
    result = run("move", str(game), "--from-email", "-",
          input=b"x" * (fileio.MAX_GAME_FILE_BYTES + 1))
    assert_rejected(result, 2, "standard input is larger than 16 MiB")


def test_a_reply_that_cannot_be_written_is_a_message(tmp_path: Path) -> None:
    game = tmp_path / "s.json"
    assert run("new", "toy", game, "--players", "ann,ben", "--sealed").exit_code == 0
    mail = tmp_path / "reply.eml"
    mail.write_text("From: someone@example.org\nSubject: hello\n\ntake 1\n")
    before = game.read_bytes()
    result = run("move", game, "--from-email", mail, "--reply-out", tmp_path)
    assert_rejected(result, 2, f"cannot write {tmp_path}: Is a directory")
    assert game.read_bytes() == before
