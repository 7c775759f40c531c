"""The judge reads again only the game files that changed since its last look, as the
file watch names them (referee/judge/folderwatch.py, watchfiles), and its sweep asks only
the games that may be due (referee/judge/looks.py): nothing is missed for it."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pytest

from referee.doors.mail import MailJudge as Judge
from referee.judge import Config, folderwatch
from referee.judge.looks import Look, Looks
from tests.conftest import run
from tests.judge.test_maildir_loop import PLAYERS, SENDER, Setup

needs_watch = pytest.mark.skipif(folderwatch._watch(Path(".")) is None,
                                 reason="no file watch here (watchfiles, the [mail] extra)")


class Null:
    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        return []

    def close(self) -> None:
        return None


@needs_watch
def test_the_watch_names_every_kind_of_change(tmp_path: Path) -> None:
    (tmp_path / "kept.json").write_text("{}")
    (tmp_path / "gone.json").write_text("{}")
    watch = folderwatch.FolderWatch(tmp_path)
    watch.listing()
    assert watch.changes() == set()
    (tmp_path / "new.json").write_text("{}")
    with open(tmp_path / "kept.json", "r+") as f:  # written in place: no rename
        f.write("[]")
    (tmp_path / "gone.json").unlink()
    (tmp_path / ".tmp").write_text("x")
    os.replace(tmp_path / ".tmp", tmp_path / "moved.json")
    assert watch.changes() == {"new.json", "kept.json", "gone.json", ".tmp", "moved.json"}
    os.utime(tmp_path / "kept.json", (1, 1))
    assert watch.changes() == {"kept.json"}
    assert watch.changes() == set()


def failing() -> folderwatch.Watch:
    """A watch that fails at its next look (its thread gone, the kernel's queue lost)."""
    raise RuntimeError("the watch failed")
    yield set()  # (a generator)


def test_a_failed_watch_is_unknown_and_the_watch_closed(tmp_path: Path) -> None:
    watch = folderwatch.FolderWatch(tmp_path)
    watch.close()
    watch.watch, watch.listed = failing(), time.monotonic()  # (as if listed just now)
    assert watch.changes() is None and watch.watch is None
    watch.listing()  # the whole folder listed: from here on watched again
    assert (watch.watch is not None) == (folderwatch._watch(tmp_path) is not None)


@needs_watch
def test_after_a_failed_watch_the_next_listing_watches_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    judge = Judge(Config(setup.games, SENDER), Null())
    judge.game_paths()
    watch = judge._watcher()
    assert watch.watch is not None
    watch.close()
    watch.watch = failing()
    made = listings(monkeypatch)
    judge.game_paths()  # the failure seen: one listing, and a new watch
    assert len(made) == 1 and watch.watch is not None
    for _ in range(3):
        assert list(judge.game_paths()) == ["toy-1"]
    assert len(made) == 1


def listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The listings of the games folder the judges make from now on."""
    made: list[Path] = []
    real = Judge._game_files

    def counted(self: Judge) -> list[Path]:
        made.append(self.config.games_dir)
        return real(self)

    monkeypatch.setattr(Judge, "_game_files", counted)
    return made


@needs_watch
def test_a_game_file_written_in_place_is_seen_without_a_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setup = Setup(tmp_path)
    judge = Judge(Config(setup.games, SENDER), Null())
    assert list(judge.game_paths()) == ["toy-1"]
    made = listings(monkeypatch)
    assert list(judge.game_paths()) == ["toy-1"] and made == []
    judge.take_marked()
    before = judge.marks[setup.path]
    with open(setup.path, "a") as f:  # by hand, in place: the folder itself unchanged
        f.write("\n")
    assert list(judge.game_paths()) == ["toy-1"] and made == []
    assert judge.marks[setup.path] != before and judge.take_marked() == {setup.path}
    result = run("new", "toy", str(setup.games / "toy-2.json"), "--sealed", "--id", "toy-2",
                 "--players", PLAYERS)
    assert result.exit_code == 0, result.output
    assert sorted(judge.game_paths()) == ["toy-1", "toy-2"] and len(made) == 1
    (setup.games / "toy-2.json").unlink()
    assert list(judge.game_paths()) == ["toy-1"] and len(made) == 2


@pytest.mark.parametrize("why", ["no watch", "a minute since the last listing"])
def test_without_a_watch_every_look_lists_the_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, why: str) -> None:
    if why == "no watch":
        monkeypatch.setattr(folderwatch, "_watch", lambda folder: None)
    else:
        monkeypatch.setattr(folderwatch, "RESCAN_SECONDS", -1.0)
    setup = Setup(tmp_path)
    judge = Judge(Config(setup.games, SENDER), Null())
    made = listings(monkeypatch)
    for _ in range(3):
        assert list(judge.game_paths()) == ["toy-1"]
    assert len(made) == 3
    with open(setup.path, "a") as f:
        f.write("\n")
    judge.game_paths()
    assert judge.take_marked() == {setup.path}  # the next listing saw the change


def test_the_sweep_asks_only_the_games_that_may_be_due() -> None:
    paths = {f"g{i}": Path(f"g{i}.json") for i in range(5)}
    order = {p: i for i, p in enumerate(paths.values())}
    t0 = (dt.datetime(2026, 1, 1, tzinfo=dt.UTC), 1000)
    later = (t0[0] + dt.timedelta(hours=2), 2000)
    looks = Looks()
    assert looks.candidates(paths, order, set(), t0) == list(paths.values())  # the first
    for i, p in enumerate(paths.values()):
        looks.done(p, Look((i, 0, 0), t0, t0[0] + dt.timedelta(hours=1) if i == 1 else None,
                           1500 if i == 3 else None))
    assert looks.candidates(paths, order, set(), t0) == []
    looks.missed(Path("g4.json"))
    assert looks.candidates(paths, order, {Path("g2.json"), Path("x.json")}, t0) == [
        Path("g2.json"), Path("g4.json")]  # changed, to try again; not served: not asked
    assert looks.candidates(paths, order, set(), later) == [
        Path("g1.json"), Path("g3.json"), Path("g4.json")]  # their moments came
    assert looks.candidates(paths, order, set(), t0) == list(paths.values())  # went back
    looks.clear()
    assert looks.candidates(paths, order, set(), later) == list(paths.values())
