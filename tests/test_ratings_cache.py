"""The reports' cache (referee/reports/filecache.py) for `ratings`, and what it keys on
for `pending` too: the same output with the cache as without it, a changed file read
again, a sealed game's result never served without (or with another) secret, a
tampered or foreign index ignored with a note and never a wrong rating, no cache key at
hand: no cache, the same output."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import msgspec
import pytest

from referee.ledger import replay
from referee.reports import filecache
from tests.conftest import ok, run
from tests.test_ratings import EXAMPLES, ROOT, TOY_GAMES, sealed_toy, toy


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


def index_file() -> Path:
    (found,) = Path(os.environ["REFEREE_CACHE_DIR"]).glob("ratings-2/*.index")
    return found


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
    ok("new", "staufer", game, "--players", "ann,ben,cat", "--seed", "lang")
    german = ok("--lang", "de", "pending", game).stdout
    english = ok("pending", game).stdout
    assert "Runde 1" in german and "Round 1" in english
    assert ok("--lang", "de", "pending", game).stdout == german


def rewritten(index: Path, change: object) -> None:
    """The index with each row's value passed through ``change``, its MAC kept."""
    data = index.read_bytes()
    head = len(filecache.MAGIC) + 32
    body = msgspec.msgpack.decode(data[head:])
    for stored in body["rows"].values():
        stored[0] = change(stored[0])  # type: ignore[operator]
    index.write_bytes(data[:head] + msgspec.msgpack.encode(body))


def places_reversed(entry: list[object]) -> list[object]:
    result = entry[0]
    if isinstance(result, dict):
        result["places"] = result["places"][::-1]
        result["names"] = {who: "Mallory" for who in result["names"]}
    return entry


def test_a_tampered_index_changes_no_rating(folder: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    expected = uncached(monkeypatch, "ratings", folder)
    ok("ratings", folder)
    index = index_file()
    rewritten(index, places_reversed)
    tampered = run("ratings", folder)
    assert tampered.exit_code == 0 and tampered.stdout == expected
    assert "Mallory" not in tampered.stdout
    assert (f"referee: note: the ratings cache {index} is ignored and rebuilt: its MAC "
            "does not match this user's cache key") in tampered.stderr
    assert "Traceback" not in tampered.output
    assert run("ratings", folder).stderr == ""  # rebuilt, signed again
    # an index signed with another key (another user's, or one made up) is no better
    data = index.read_bytes()
    head = len(filecache.MAGIC) + 32
    forged = filecache.Index("ratings", object)
    forged.mac_key = b"\x07" * filecache.KEY_BYTES
    rewritten(index, places_reversed)
    payload = index.read_bytes()[head:]
    index.write_bytes(filecache.MAGIC + forged._mac(payload) + payload)
    assert data != index.read_bytes()
    again = run("ratings", folder)
    assert again.stdout == expected and "is ignored and rebuilt" in again.stderr


def test_a_garbled_index_is_ignored(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = uncached(monkeypatch, "ratings", folder)
    ok("ratings", folder)
    index = index_file()
    for junk in (b"", b"{", index.read_bytes()[:-7], filecache.MAGIC + b"\0" * 40):
        index.write_bytes(junk)
        result = run("ratings", folder)
        assert result.exit_code == 0 and result.stdout == expected
        assert "Traceback" not in result.output


def test_without_a_usable_key_there_is_no_cache(folder: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    expected = uncached(monkeypatch, "ratings", folder)
    filecache.key_path().parent.mkdir(parents=True)
    filecache.key_path().mkdir()  # a folder where the key should be: it can be neither
    first = run("ratings", folder)  # read nor made
    assert first.exit_code == 0 and first.stdout == expected and first.stderr == ""
    assert not list(Path(os.environ["REFEREE_CACHE_DIR"]).rglob("*.index"))
