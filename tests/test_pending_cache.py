"""`pending`'s cache (referee/reports/filecache.py, shared with `ratings`): one index,
read once and written once per run without fsync; rows found by the bytes of the file,
so a file rewritten in place with the same size and the same mtime is never served an
old row."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from referee.ledger import fileio, replay
from referee.reports import filecache as cache
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


def index_files() -> list[Path]:
    return [p for p in Path(os.environ["REFEREE_CACHE_DIR"]).rglob("*") if p.is_file()]


def rows_of(index: Path) -> dict[str, object]:
    """The rows of a signed index (after its magic and MAC)."""
    data = index.read_bytes()
    assert data.startswith(cache.MAGIC)
    rows: dict[str, object] = msgspec.msgpack.decode(data[len(cache.MAGIC) + 32:])["rows"]
    return rows


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


def test_a_cold_run_writes_one_index_and_never_fsyncs(games: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fsyncs: list[int] = []
    writes: list[Path] = []
    real_fsync, real_write = os.fsync, fileio.write_atomic
    monkeypatch.setattr(os, "fsync", lambda fd: fsyncs.append(fd) or real_fsync(fd))
    monkeypatch.setattr(fileio, "write_atomic",
                        lambda path, *a, **k: writes.append(path) or real_write(path, *a, **k))
    cold = run("pending", games)
    assert cold.exit_code == 0 and cold.output.count("waiting for ben") == 3
    assert fsyncs == [] and len(writes) == 2  # the user's cache key, made now, and the index
    (index,) = index_files()
    assert writes == [cache.key_path(), index] and index.stat().st_mode & 0o777 == 0o600
    assert cache.key_path().stat().st_mode & 0o777 == 0o600
    rows = rows_of(index)
    assert len(rows) == 3

    def no_replay(*args: object, **kwargs: object) -> None:
        raise AssertionError("replayed although cached")

    monkeypatch.setattr(replay, "replay", no_replay)
    assert run("pending", games).output == cold.output  # from the cache
    assert len(writes) == 2  # nothing new: the index is not written again


def test_the_index_keeps_at_most_max_rows(games: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setattr(cache, "MAX_ROWS", 2)
    assert run("pending", games).exit_code == 0
    (index,) = index_files()
    assert len(rows_of(index)) == 2
    assert run("pending", games).output.count("waiting for ben") == 3


def test_another_referee_version_uses_another_index(games: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    run("pending", games)
    monkeypatch.setattr(cache, "code_fingerprint", lambda: b"\x01" * 32)

    replayed = []
    real = replay.replay
    monkeypatch.setattr(replay, "replay", lambda *a, **k: replayed.append(1) or real(*a, **k))
    assert run("pending", games).output.count("waiting for ben") == 3
    assert len(replayed) == 3 and len(index_files()) == 2
