"""The one cache database (referee/ledger/cachedb.py): `pending`, `ratings`, `site` and
`views` leave nothing in the cache folder but it; it is owner-only; what the caches
before it left (the signed indexes, the site's manifests, the key the indexes were signed
with) is removed when it is first made; one damaged in use is removed and made anew; and
each row carries a check, so bytes changed on disk are a miss, never a wrong row."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from referee.ledger import cachedb, replay
from tests.conftest import ok, run
from tests.pictures.test_pictures import make_game


def cache_folder() -> Path:
    folder = cachedb.cache_dir()
    assert folder is not None
    return folder


def everything(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    make_game(folder, "staufer", 2, seed="done", file="a.json")
    make_game(folder, "dynasties", 3, moves=9, seed="open", file="b.json")
    return folder


def test_the_commands_leave_only_the_database(games: Path, tmp_path: Path) -> None:
    """Done-bar of issue 42: `pending`, `ratings` and `site` (and `views`) leave only the
    SQLite database in the cache folder, owner-only; its WAL files go with the run."""
    ok("pending", games)
    ok("ratings", games)
    ok("site", games, "-o", tmp_path / "site")
    assert everything(cache_folder()) == [cachedb.FILE_NAME]
    assert cache_folder().stat().st_mode & 0o777 == 0o700
    assert (cache_folder() / cachedb.FILE_NAME).stat().st_mode & 0o777 == 0o600
    with contextlib.closing(sqlite3.connect(cache_folder() / cachedb.FILE_NAME)) as conn:
        kinds = dict(conn.execute("SELECT kind, count(*) FROM rows GROUP BY kind"))
        sites = conn.execute("SELECT count(*) FROM sites").fetchone()[0]
    assert kinds == {"pending": 2, "ratings": 2} and sites == 1


def test_what_the_old_caches_left_is_removed(games: Path, monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    folder = cache_folder()
    for old in ("pending-2", "ratings-2", "site-1"):
        (folder / old).mkdir(parents=True)
        (folder / old / "x.index").write_bytes(b"referee-cache-2\n" + b"\0" * 40)
    key = Path(os.environ["XDG_STATE_HOME"]) / "referee" / "cache-key"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_bytes(os.urandom(32))
    (folder / "notes.txt").write_text("mine")  # (not the referee's: left alone)
    ok("pending", games)
    assert everything(folder) == [cachedb.FILE_NAME, "notes.txt"]
    assert not key.exists()


def test_a_database_damaged_in_use_is_made_anew(games: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    expected = ok("pending", games).stdout
    path = cache_folder() / cachedb.FILE_NAME
    data = bytearray(path.read_bytes())
    data[200:4096] = os.urandom(4096 - 200)  # (the header kept, the rest of page 1 not)
    path.write_bytes(bytes(data))
    first = run("pending", games)
    assert first.exit_code == 0 and first.stdout == expected
    assert "Traceback" not in first.output
    assert first.stderr.startswith(f"referee: note: the cache {path} ")
    again = run("pending", games)  # (made anew: quiet, and filled again)
    assert again.stdout == expected and again.stderr == ""
    with monkeypatch.context() as m:
        m.setattr(replay, "replay", lambda *a, **k: (_ for _ in ()).throw(
            AssertionError("replayed although cached")))
        assert ok("pending", games).stdout == expected


def test_a_row_changed_on_disk_is_a_miss(games: Path) -> None:
    """Every row's value and key are checked (BLAKE2b) when read: one changed in place
    is replayed, its answer the one without a cache."""
    expected = ok("ratings", games).stdout
    with contextlib.closing(sqlite3.connect(cache_folder() / cachedb.FILE_NAME)) as conn, \
            conn:
        for key, value in conn.execute("SELECT key, value FROM rows").fetchall():
            flipped = bytearray(value)
            flipped[-3] ^= 0x01
            conn.execute("UPDATE rows SET value = ? WHERE key = ?", (bytes(flipped), key))
    assert ok("ratings", games).stdout == expected


def test_a_folder_that_is_not_the_users_is_never_made_or_read(
        games: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # (as /tmp: anyone may add a file)
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(shared))
    result = run("pending", games)
    assert result.exit_code == 0
    assert f"the cache {shared} is not used: others may write its folder" in result.stderr
    assert list(shared.iterdir()) == []
    shutil.rmtree(shared)


def test_a_database_that_fails_in_use_is_noted_once(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    """A run that goes on asking a failed database (`views` reads two tables of each
    folder) hears of it once, not once a query."""
    cache = cachedb.open_cache()
    assert cache is not None
    cache.broken(sqlite3.OperationalError("disk I/O error"))
    assert cache.query("SELECT 1") == []  # (the closed database answers nothing)
    assert cache.query("SELECT 2") == []
    notes = capsys.readouterr().err.splitlines()
    assert len(notes) == 1 and notes[0].startswith("referee: note: the cache ")
    assert "disk I/O error" in notes[0]
