"""Many files: `check` and `pending` report each bad file on its own line and carry on;
`check` runs in parallel with the same results; `pending`'s cache is keyed by the file's
bytes and never used by `check`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from referee.ledger import cachedb, gamefile, replay
from referee.reports import checking
from referee.reports import pendingcache as cache
from tests.conftest import run


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Five toy games (one with a move), a crafted game that crashes the toy's code path
    nowhere but breaks the schema, junk, a FIFO and a folder."""
    for i in range(5):
        path = tmp_path / f"g{i}.json"
        assert run("new", "toy", path, "--players", "ann,ben", "--seed", f"s{i}").exit_code == 0
    assert run("move", tmp_path / "g0.json", "--as", "ann", "take 2").exit_code == 0
    (tmp_path / "junk.json").write_text('{"log": [], "log": []}')
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "sub.json").mkdir()
    return tmp_path


def test_pending_reports_each_bad_file_and_carries_on(folder: Path) -> None:
    result = run("pending", folder)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == f"{folder}/g0.json: waiting for ben since 2026-01-01T00:00:00Z: " \
                       "ben to take from a pile of 8"
    assert all("waiting for ann" in line for line in lines[1:5])
    assert lines[5] == (f"{folder}/junk.json: cannot read: {folder}/junk.json breaks the "
                        "schema: $: duplicate key 'log'")
    assert lines[6] == (f"{folder}/pipe.json: cannot read: {folder}/pipe.json is not a "
                        "regular file (a FIFO, device or socket), not a game file")
    assert len(lines) == 7  # the folder sub.json is entered (empty), not read as a file


def test_check_reports_each_bad_file_in_order(folder: Path) -> None:
    files = sorted(p for p in folder.iterdir())
    result = run("check", *files)
    assert result.exit_code == 1
    heads = [line.split(":")[0] for line in result.output.splitlines()
             if not line.startswith(" ")]
    assert heads == [f"ok   {folder}/g{i}.json" for i in range(5)] + [
        f"FAIL {folder}/junk.json", f"FAIL {folder}/pipe.json"]  # the folder sub.json: empty


def test_parallel_check_gives_the_sequential_results(folder: Path) -> None:
    files = sorted(folder.iterdir())
    parallel = checking.check_all(files, secret_path=None)
    sequential = [checking.check_one(p, None) for p in files]
    assert parallel == sequential
    assert [r["ok"] for r in parallel] == [True] * 5 + [False] * 3


def test_an_internal_error_in_one_file_does_not_hide_the_others(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = replay.replay

    def broken(gf: gamefile.GameFile, *args: object, **kwargs: object) -> object:
        if gf.log:
            raise ValueError("'nowhere' is not in list")
        return real(gf, *args, **kwargs)

    monkeypatch.setattr(replay, "replay", broken)
    monkeypatch.setattr(checking, "PARALLEL_MIN_FILES", 10**6)  # the patch lives here only
    result = run("check", *sorted(folder.glob("g*.json")))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    where = f"(at tests/reports/test_many_files.py:{broken.__code__.co_firstlineno + 2})"
    assert lines[0] == (f"FAIL {folder}/g0.json: internal error while replaying "
                        f"{folder}/g0.json: ValueError: 'nowhere' is not in list {where}")
    assert lines[1].strip().startswith("this is a bug in referee")
    assert [line[:4] for line in lines[2:]] == ["ok  "] * 4
    pending = run("pending", folder / "g0.json", folder / "g1.json")
    assert pending.output.splitlines()[0] == (
        f"{folder}/g0.json: cannot read: internal error while replaying {folder}/g0.json: "
        f"ValueError: 'nowhere' is not in list {where}")
    status = run("status", folder / "g0.json")
    assert status.exit_code == 1
    assert status.output.startswith(f"error: internal error while replaying {folder}/g0.json")
    assert "Traceback" not in status.output


# --- the pending cache ------------------------------------------------------------------


def test_pending_uses_its_cache_for_unchanged_bytes_only(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = folder / "g0.json"
    first = run("pending", game).output
    assert [p.name for p in Path(os.environ["REFEREE_CACHE_DIR"]).rglob("*")] == [
        cachedb.FILE_NAME]  # one database

    def no_replay(*args: object, **kwargs: object) -> None:
        raise AssertionError("replayed although cached")

    monkeypatch.setattr(replay, "replay", no_replay)
    assert run("pending", game).output == first  # from the cache
    data = json.loads(game.read_text())
    data["log"][0]["at"] = "2026-02-02T00:00:00Z"
    data["log"][0]["prev"] = gamefile.header_hash(data)
    game.write_text(gamefile.dumps(data))
    assert "internal error" in run("pending", game).output  # other bytes: replayed


def test_check_never_reads_the_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run("pending", folder)

    def no_lookup(raw: bytes, path: Path) -> None:
        raise AssertionError("check must not trust the cache")

    monkeypatch.setattr(cache, "lookup", no_lookup)
    monkeypatch.setattr(checking, "PARALLEL_MIN_FILES", 10**6)
    assert run("check", folder / "g0.json").exit_code == 0


def test_a_corrupt_cache_entry_is_ignored(folder: Path) -> None:
    game = folder / "g1.json"
    first = run("pending", game).output
    entry = next(p for p in Path(os.environ["REFEREE_CACHE_DIR"]).rglob("*") if p.is_file())
    for junk in (b"{", b'{"game": 1}', b"[]", b'{"x": "\\u001b"}'):
        entry.write_bytes(junk)
        again = run("pending", game)
        assert again.stdout == first
        assert f"the cache {entry} is ignored and made anew" in again.stderr


def test_the_cache_can_be_off_or_unwritable(folder: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    assert run("pending", folder / "g1.json").exit_code == 0
    blocker = folder / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(blocker))
    result = run("pending", folder / "g1.json")
    assert result.exit_code == 0
    assert result.output.startswith(f"{folder}/g1.json: waiting for ann")


def test_the_default_cache_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.delenv("REFEREE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cachedb.cache_dir() == tmp_path / "referee"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cachedb.cache_dir() == tmp_path / "home" / ".cache" / "referee"
