"""The judge's state is saved as records appended to a write-ahead journal after the
state file (referee/judge/store.py, referee/judge/statejournal.py): a save costs what
changed, a judge killed at any moment restarts from the last complete save, and a state
file without a journal loads as it is."""

from __future__ import annotations

import errno
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from referee.errors import GameFileError
from referee.judge import Config, Judge, store, sweep
from referee.judge.store import JOURNAL_NAME, STATE_NAME, Store, read_state
from tests.test_judge import SENDER, Setup


def snapshot(data: dict[str, Any]) -> dict[str, Any]:
    return dict(json.loads(json.dumps(data, sort_keys=True)))


def changed(s: Store, gid: str, seen: int) -> None:
    """One save that changes the entry of ``gid``."""
    s.game(gid)["seen"] = seen
    s.mark_answered(f"<{gid}-{seen}@player.example>")
    s.save()


def folder_with_saves(tmp_path: Path, games: int = 5) -> tuple[Path, list[dict[str, Any]]]:
    """A state with ``games`` entries in its base, then three saves in the journal; the
    state after each save (the first: the base)."""
    s = Store(tmp_path)
    for i in range(games):
        s.game(f"g{i}")
    s.save()  # (no state file yet: the first save writes the base)
    assert (tmp_path / STATE_NAME).exists() and not (tmp_path / JOURNAL_NAME).exists()
    states = [snapshot(s.data)]
    for k in range(3):
        changed(s, f"g{k}", 10 + k)
        states.append(snapshot(s.data))
    assert (tmp_path / JOURNAL_NAME).exists()
    return tmp_path, states


def test_saves_are_records_in_the_journal_and_load_in_order(tmp_path: Path) -> None:
    folder, states = folder_with_saves(tmp_path)
    base = json.loads((folder / STATE_NAME).read_text())
    assert base == states[0]  # the base untouched by the saves after it
    assert read_state(folder) == states[-1]
    lines = (folder / JOURNAL_NAME).read_bytes().split(b"\n")
    assert len(lines) == 1 + 3 + 1 and lines[-1] == b""  # header, 3 records, end


def test_a_record_cut_short_at_any_byte_is_ignored(tmp_path: Path) -> None:
    """A judge killed in the middle of an append: every prefix of the last record (and
    that record with a flipped byte) loads as the state after the save before it."""
    folder, states = folder_with_saves(tmp_path)
    journal = folder / JOURNAL_NAME
    whole = journal.read_bytes()
    start = whole.rstrip(b"\n").rindex(b"\n") + 1  # where the last record begins
    for cut in range(start, len(whole)):
        journal.write_bytes(whole[:cut])
        assert read_state(folder) == states[-2], cut
    flipped = bytearray(whole)
    flipped[start + 70] ^= 0x01
    journal.write_bytes(bytes(flipped))
    assert read_state(folder) == states[-2]
    journal.write_bytes(whole)
    assert read_state(folder) == states[-1]


def test_after_a_torn_record_the_next_save_writes_a_new_base(tmp_path: Path) -> None:
    folder, states = folder_with_saves(tmp_path)
    journal = folder / JOURNAL_NAME
    journal.write_bytes(journal.read_bytes()[:-5])
    s = Store(folder)
    assert snapshot(s.data) == states[-2]
    changed(s, "g4", 99)  # not appended after the torn bytes (it would be lost)
    assert not journal.exists()
    assert json.loads((folder / STATE_NAME).read_text()) == snapshot(s.data)
    assert read_state(folder)["games"]["g4"]["seen"] == 99


def test_a_record_for_a_game_whose_file_is_gone_loads_and_is_not_served(
        tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()  # toy-1 served
    s = Store(setup.games)
    s.game("gone-1")["file"] = "gone-1.json"  # a game whose file was removed since
    s.save()
    assert (setup.games / JOURNAL_NAME).exists()
    judge = Judge(Config(setup.games, SENDER), _Null())
    assert judge.store.peek("gone-1") is not None
    assert list(judge.game_paths()) == ["toy-1"]
    sweep(judge)  # nothing to say about it, nothing fails
    data = read_state(setup.games)
    store.apply(data, {"games": {"gone-1": None}})  # a record removing an entry (null)
    assert "gone-1" not in data["games"]


def test_the_journal_is_folded_into_a_new_base_past_its_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "JOURNAL_MIN", 2000)
    folder, _ = folder_with_saves(tmp_path, games=3)
    journal = folder / JOURNAL_NAME
    s = Store(folder)
    sizes = []
    for k in range(40):
        changed(s, f"g{k % 3}", 100 + k)
        sizes.append(journal.stat().st_size if journal.exists() else 0)
    assert 0 in sizes[1:]  # compacted (more than once: amortized)
    record = max(b - a for a, b in itertools.pairwise(sizes))
    assert max(sizes) <= 2000 + 2 * record  # never much past the limit
    assert read_state(folder) == snapshot(s.data)


def test_a_journal_left_by_a_compaction_that_died_is_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed after the new base was renamed into place, before the journal was
    removed: the journal names the old base and is not applied to the new one."""
    folder, states = folder_with_saves(tmp_path)
    journal = folder / JOURNAL_NAME
    old = journal.read_bytes()
    s = Store(folder)
    s.game("g0")["seen"] = None  # (a change the old journal's records would undo)
    s._write_base()
    journal.write_bytes(old)
    assert read_state(folder) == snapshot(s.data) != states[-1]


def test_a_state_file_without_a_journal_loads_as_it_is(tmp_path: Path) -> None:
    """The state file of a judge before the journal: read unchanged; the next save is
    a record after it, the file itself left as it was."""
    old = {"format": "referee-judge/1", "games": {"toy-1": {
        "seen": 3, "counter": 7, "last": {"ann": 3}, "asked": {}, "roots": {},
        "waiting": ["ben"], "since": "2026-01-01T00:00:00+00:00", "reminded": None,
        "expired": None, "file": "toy-1.json", "mark": "3/0/0"}},
        "queue": [], "answered": ["<a@x>"], "strangers": []}
    text = json.dumps(old, ensure_ascii=True, sort_keys=True)
    (tmp_path / STATE_NAME).write_text(text)
    s = Store(tmp_path)
    assert s.data == old
    s.next_counter("toy-1")
    s.save()
    assert (tmp_path / STATE_NAME).read_text() == text
    assert read_state(tmp_path)["games"]["toy-1"]["counter"] == 8


def test_a_save_writes_what_changed_not_every_game(tmp_path: Path) -> None:
    """The bytes a save appends do not grow with the number of games in the state."""
    appended = []
    for games in (10, 1000):
        folder = tmp_path / str(games)
        folder.mkdir()
        s = Store(folder)
        for i in range(games):
            s.game(f"g{i:04d}")
        s.save()
        changed(s, "g0001", 5)
        appended.append((folder / JOURNAL_NAME).stat().st_size)
    assert appended[0] == appended[1]


def test_a_full_disk_while_appending_leaves_the_journal_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, states = folder_with_saves(tmp_path)
    journal = folder / JOURNAL_NAME
    before = journal.read_bytes()
    s = Store(folder)
    s.game("g3")["seen"] = 42
    real = os.write

    def half(fd: int, data: Any) -> int:
        if len(data) > 40:
            real(fd, bytes(data[:40]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(GameFileError, match="No space left on device"):
        s.save()
    monkeypatch.undo()
    assert journal.read_bytes() == before and read_state(folder) == states[-1]


class _Null:
    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        return []

    def close(self) -> None:
        return None
