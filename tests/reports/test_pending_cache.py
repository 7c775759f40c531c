"""`pending`'s cache (referee/reports/filecache.py, shared with `ratings`, on the one cache
database referee/ledger/cachedb.py): opened once and written once per run, never
fsynced by the referee; rows found by the bytes of the file, so a file rewritten in place
with the same size and the same mtime is never served an old row."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from referee.ledger import cachedb, fileio, replay
from tests.conftest import run


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    for i in range(3):
        path = folder / f"g{i}.json"
        assert run("new", "staufer", path, "--players", "ann,ben,cat", "--seed", f"c{i}"
                   ).exit_code == 0
        assert run("move", path, "--as", "ann", "supply 2").exit_code == 0
    return folder


def cache_files() -> list[Path]:
    return [p for p in Path(os.environ["REFEREE_CACHE_DIR"]).rglob("*") if p.is_file()]


def rows_of(kind: str) -> list[tuple[bytes, bytes]]:
    """The (key, value) rows of ``kind`` in the cache database."""
    folder = cachedb.cache_dir()
    assert folder is not None
    with contextlib.closing(sqlite3.connect(folder / cachedb.FILE_NAME)) as conn:
        return conn.execute("SELECT key, value FROM rows WHERE kind = ?", (kind,)).fetchall()


def test_an_in_place_change_with_the_same_size_and_mtime_is_seen(games: Path) -> None:
    game = games / "g0.json"
    assert "since 2026-01-01T00:00:00Z" in run("pending", game).output
    before = os.stat(game)
    raw = game.read_bytes()
    last = b'"at": "2026-01-01T00:00:00Z"}\n  ]'
    changed = raw.replace(last, last.replace(b"01T", b"09T"))
    assert changed != raw and len(changed) == len(raw)
    with open(game, "r+b") as f:  # in place: same inode, same size
        f.write(changed)
    os.utime(game, ns=(before.st_atime_ns, before.st_mtime_ns))  # the mtime set back
    after = os.stat(game)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == \
        (before.st_ino, before.st_size, before.st_mtime_ns)
    result = run("pending", game)
    assert "since 2026-01-09T00:00:00Z" in result.output, result.output


def test_a_cold_run_writes_one_database(
        games: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fsyncs: list[int] = []
    writes: list[Path] = []
    real_fsync, real_write = os.fsync, fileio.write_atomic
    monkeypatch.setattr(os, "fsync", lambda fd: fsyncs.append(fd) or real_fsync(fd))
    monkeypatch.setattr(fileio, "write_atomic",
                        lambda path, *a, **k: writes.append(path) or real_write(path, *a, **k))
    cold = run("pending", games)
    assert cold.exit_code == 0 and cold.output.count("waiting for ben") == 3
    assert fsyncs == [] and writes == []  # no key file, no index: one database
    (database,) = cache_files()
    assert database.name == cachedb.FILE_NAME and database.stat().st_mode & 0o777 == 0o600
    assert database.parent.stat().st_mode & 0o777 == 0o700
    assert len(rows_of("pending")) == 3
    # keyed by content: the SHA-256 of the bytes hashed with the rest, no name in clear
    data = database.read_bytes()
    assert b"g0.json" not in data and hashlib.sha256(
        (games / "g0.json").read_bytes()).digest() not in data
    before = hashlib.sha256(data).digest()

    def no_replay(*args: object, **kwargs: object) -> None:
        raise AssertionError("replayed although cached")

    monkeypatch.setattr(replay, "replay", no_replay)
    assert run("pending", games).output == cold.output  # from the cache
    # nothing new: the database is not written again
    assert hashlib.sha256(database.read_bytes()).digest() == before
    assert cache_files() == [database]


def test_the_cache_keeps_at_most_max_rows(games: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setattr(cachedb, "MAX_ROWS", 2)
    assert run("pending", games).exit_code == 0
    assert len(rows_of("pending")) == 2
    assert run("pending", games).output.count("waiting for ben") == 3


def test_another_referee_version_uses_other_rows(games: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    run("pending", games)
    monkeypatch.setattr(cachedb, "code_digest", lambda: "another referee")

    replayed = []
    real = replay.replay
    monkeypatch.setattr(replay, "replay", lambda *a, **k: replayed.append(1) or real(*a, **k))
    assert run("pending", games).output.count("waiting for ben") == 3
    assert len(replayed) == 3 and len(rows_of("pending")) == 6
    assert len(cache_files()) == 1  # (one database for every referee)
