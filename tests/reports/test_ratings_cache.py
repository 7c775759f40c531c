"""The reports' cache (referee/reports/filecache.py on referee/ledger/cachedb.py) for
`ratings`, and what it keys on for `pending` too: the same output with the cache as
without it, a changed file read again, a sealed game's result never served without (or
with another) secret; a cache folder or database that is not the user's own (others may
write it, another user's, a link) is never read, whatever it holds; a garbled database
is made anew; no usable folder: no cache, the same output."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

import msgspec
import pytest

from referee.ledger import cachedb, replay
from tests.conftest import ok, run
from tests.reports.test_ratings import EXAMPLES, ROOT, TOY_GAMES, sealed_toy, toy
from tests.support.games import new_game


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The examples, the toy games, a copy, an unfinished game and a file that is no game."""
    games = tmp_path / "g"
    games.mkdir()
    for name in EXAMPLES:
        shutil.copy(ROOT / "examples" / name, games / name)
    for name, moves in TOY_GAMES.items():
        toy(games, name, moves)
    shutil.copy(games / "t1.json", games / "t1-copy.json")
    toy(games, "open", TOY_GAMES["t1"][:1])
    (games / "junk.json").write_text("{")
    return games


def no_replay(*args: object, **kwargs: object) -> None:
    raise AssertionError("replayed although cached")


def uncached(monkeypatch: pytest.MonkeyPatch, *args: object) -> str:
    with monkeypatch.context() as m:
        m.setenv("REFEREE_CACHE_DIR", "off")
        return ok(*args).stdout


def database() -> Path:
    return Path(os.environ["REFEREE_CACHE_DIR"]) / cachedb.FILE_NAME


def test_the_cache_gives_exactly_the_output_without_it(folder: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for extra in ([], ["--json"], ["--with-bots", "--json"]):
        expected = uncached(monkeypatch, "ratings", folder, *extra)
        assert ok("ratings", folder, *extra).stdout == expected  # cold: the cache filled
        with monkeypatch.context() as m:
            m.setattr(replay, "replay", no_replay)
            warm = ok("ratings", folder, *extra)  # warm: every file from the cache
        assert warm.stdout == expected and warm.stderr == ""
    text = uncached(monkeypatch, "ratings", folder)  # what was cached: every kind of row
    assert "counted once: t1.json is a copy of t1-copy.json" in text
    assert "skipped: open.json: not finished" in text and "skipped: junk.json:" in text


def test_a_changed_file_is_read_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "skipped: open.json: not finished" in ok("ratings", folder).stdout
    for player, n in TOY_GAMES["t1"][1:]:  # the open game played to its end
        ok("move", folder / "open.json", "--as", player, f"take {n}")
    after = ok("ratings", folder).stdout
    assert "open.json: not finished" not in after
    assert after == uncached(monkeypatch, "ratings", folder)


def test_a_sealed_game_is_never_served_across_secrets(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder = sealed_toy(tmp_path / "g")
    rated = ok("ratings", folder).stdout
    assert "toy: 1 game rated" in rated
    secret = folder / "s.json.secret"
    secret.rename(tmp_path / "kept.secret")
    assert "skipped: s.json: a sealed game without its secret" in ok("ratings", folder).stdout
    monkeypatch.setenv("REFEREE_SECRET_FILE", str(tmp_path / "kept.secret"))
    assert ok("ratings", folder).stdout == rated  # the secret named instead: replayed
    monkeypatch.delenv("REFEREE_SECRET_FILE")
    from referee.ledger import gamefile
    from referee.ledger import secret as secretmod

    game_id = gamefile.read(folder / "s.json").game_id
    seed = secretmod.read_secret(tmp_path / "kept.secret", game_id)
    monkeypatch.setenv("REFEREE_SECRET", seed)  # the game's seed in the environment
    assert ok("ratings", folder).stdout == rated
    monkeypatch.setenv("REFEREE_SECRET", "0" * 64)  # another secret: never the row above
    wrong = ok("ratings", folder).stdout
    assert "skipped: s.json: the secret does not match" in wrong, wrong
    monkeypatch.delenv("REFEREE_SECRET")
    (tmp_path / "kept.secret").rename(secret)
    with monkeypatch.context() as m:
        m.setattr(replay, "replay", no_replay)
        assert ok("ratings", folder).stdout == rated  # the secret back beside: cached


def test_pending_rows_are_kept_per_language(tmp_path: Path) -> None:
    game = tmp_path / "g.json"
    new_game(game, "staufer", players="ann,ben,cat", seed="lang")
    german = ok("--lang", "de", "pending", game).stdout
    english = ok("pending", game).stdout
    assert "Runde 1" in german and "Round 1" in english
    assert ok("--lang", "de", "pending", game).stdout == german


def rewritten(change: object) -> None:
    """Each `ratings` row's value passed through ``change``, in place in the database."""
    with contextlib.closing(sqlite3.connect(database())) as conn, conn:
        rows = conn.execute("SELECT key, value FROM rows WHERE kind = 'ratings'").fetchall()
        for key, value in rows:
            plain = cachedb.unsealed(b"ratings" + key, value)
            assert plain is not None
            entry = change(msgspec.msgpack.decode(plain))  # type: ignore[operator]
            conn.execute("UPDATE rows SET value = ? WHERE kind = 'ratings' AND key = ?",
                         (cachedb.sealed(b"ratings" + key, msgspec.msgpack.encode(entry)),
                          key))


def places_reversed(entry: list[object]) -> list[object]:
    result = entry[0]
    if isinstance(result, dict):
        result["places"] = result["places"][::-1]
        result["names"] = {who: "Mallory" for who in result["names"]}
    return entry


@pytest.mark.parametrize("whose", ["others may write the folder", "others may write "
                                   "the database", "the database is a link"])
def test_a_cache_that_is_not_the_users_own_is_never_read(
        folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, whose: str) -> None:
    """Someone else can write the cache (a shared REFEREE_CACHE_DIR, a folder made by
    another tool with other modes, a database linked from elsewhere): it is not used,
    with a note, so what they planted changes no rating; the output is the one without a
    cache."""
    expected = uncached(monkeypatch, "ratings", folder)
    ok("ratings", folder)
    rewritten(places_reversed)  # (a planted row: the user's own cache would use it)
    cache = database().parent
    if whose == "others may write the folder":
        cache.chmod(0o777)
        why = f"the cache {cache} is not used: others may write its folder"
    elif whose == "others may write the database":
        database().chmod(0o666)
        why = f"the cache {database()} is not used: others may write its database"
    else:
        elsewhere = tmp_path / "planted.sqlite3"
        shutil.copy(database(), elsewhere)
        database().unlink()
        database().symlink_to(elsewhere)
        why = f"the cache {database()} is not used: it is not a regular file"
    result = run("ratings", folder)
    assert result.exit_code == 0 and result.stdout == expected
    assert "Mallory" not in result.stdout and "Traceback" not in result.output
    assert f"referee: note: {why} (the cache is trusted as your own files)" in result.stderr
    replayed: list[str] = []  # (nothing of it read: every game replayed, as without one)
    real = replay.replay
    with monkeypatch.context() as m:
        m.setattr(replay, "replay", lambda gf, *a, **k: replayed.append(gf.game_id)
                  or real(gf, *a, **k))
        assert run("ratings", folder).stdout == expected
        cold = len(replayed)
        m.setenv("REFEREE_CACHE_DIR", "off")
        replayed.clear()
        ok("ratings", folder)
    assert cold == len(replayed) > 0


def test_the_users_own_cache_is_used_as_it_is(folder: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The trust model, shown: a row the user (or anyone who can write the user's files)
    rewrites is used; a row planted for other bytes is never found (keyed by content)."""
    expected = uncached(monkeypatch, "ratings", folder)
    ok("ratings", folder)
    rewritten(places_reversed)
    assert "Mallory" in ok("ratings", folder).stdout  # (as trusted as the user's files)
    for name in ("t1.json", "t2.json", "t3.json"):  # other bytes: other keys
        path = folder / name
        if path.exists():
            path.write_bytes(path.read_bytes() + b"\n")
    database().unlink()
    assert ok("ratings", folder).stdout == uncached(monkeypatch, "ratings", folder)
    assert "Mallory" not in expected


def test_a_garbled_database_is_made_anew(folder: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    expected = uncached(monkeypatch, "ratings", folder)
    ok("ratings", folder)
    for junk in (b"", b"{", database().read_bytes()[:-7], b"SQLite format 3\0" + b"\0" * 80,
                 os.urandom(4096)):
        database().write_bytes(junk)
        result = run("ratings", folder)
        assert result.exit_code == 0 and result.stdout == expected
        assert "Traceback" not in result.output
        assert ok("ratings", folder).stdout == expected  # (made anew, usable)


def test_without_a_usable_folder_there_is_no_cache(folder: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    expected = uncached(monkeypatch, "ratings", folder)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(blocker / "cache"))  # cannot be made
    first = run("ratings", folder)
    assert first.exit_code == 0 and first.stdout == expected and first.stderr == ""
    assert blocker.read_text() == ""
