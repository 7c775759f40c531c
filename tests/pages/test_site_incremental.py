"""`referee site` built from what changed: after one move only that game is drawn again,
and the site is byte for byte the one a full build writes; a removed, renamed or sealed
game, a new referee (code digest), a game's folder removed or made a link, and a hostile
or damaged record in the cache database are each rebuilt; what is inside a kept game's
folder is never looked at, so a page changed there by hand is kept until `--full` (the
documented limit: OUT is the builder's own, as its cache is)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import msgspec
import pytest

from referee.ledger import cachedb, gamefile, replay
from referee.pages import sitecache
from tests.conftest import run
from tests.pictures.test_pictures import make_game


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder``: a file's bytes, None for a folder."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def site(games: Path, out: Path, *extra: str) -> dict[str, object]:
    result = run("site", games, "-o", out, "--json", *extra)
    assert result.exit_code == 0, result.output
    found: dict[str, object] = json.loads(result.output)
    return found


def same_as_full(games: Path, out: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    shutil.rmtree(fresh, ignore_errors=True)
    assert site(games, fresh, "--full")["incremental"] is False
    assert tree(out) == tree(fresh)


def one_move(path: Path, which: int = 0) -> None:
    """One legal move (the first, or ``which``), played through the CLI as a player
    plays it."""
    match = replay.replay(gamefile.read(path))
    player = match.game.to_move(match.state)[0]
    legal = match.game.format_move(match.game.legal_moves(match.state, player)[which])
    result = run("move", path, "--as", player, legal)
    assert result.exit_code == 0, result.output


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    make_game(folder, "staufer", 2, seed="done", file="a-staufer.json")
    make_game(folder, "dynasties", 3, moves=9, seed="open", file="b-dynasties.json")
    make_game(folder, "staufer", 3, moves=5, seed="run", file="c-staufer.json")
    return folder


def test_one_move_draws_one_game_and_matches_a_full_build(games: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "site"
    first = site(games, out)
    assert first["incremental"] is False
    assert sorted(first["drawn"]) == ["dynasties-3p-open", "staufer-2p-done", "staufer-3p-run"]
    untouched = (out / "staufer-2p-done" / "pos-3.svg").stat().st_mtime_ns
    one_move(games / "c-staufer.json")
    again = site(games, out)
    assert again["incremental"] is True
    assert again["drawn"] == ["staufer-3p-run"]
    assert (out / "staufer-3p-run" / "pos-6.html").is_file()
    assert (out / "staufer-2p-done" / "pos-3.svg").stat().st_mtime_ns == untouched
    same_as_full(games, out, tmp_path)
    assert site(games, out)["drawn"] == []  # nothing changed: nothing drawn
    same_as_full(games, out, tmp_path)


def test_a_removed_and_a_renamed_game(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    (games / "b-dynasties.json").unlink()
    assert site(games, out)["drawn"] == []
    assert not (out / "dynasties-3p-open").exists()
    same_as_full(games, out, tmp_path)
    (games / "c-staufer.json").rename(games / "d-renamed.json")
    assert site(games, out)["drawn"] == ["staufer-3p-run"]  # its page names its file
    assert "d-renamed.json" in (out / "staufer-3p-run" / "index.html").read_text()
    same_as_full(games, out, tmp_path)


def test_a_copy_appearing_is_served_once_as_its_game(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    shutil.copy(games / "c-staufer.json", games / "e-copy.json")
    (games / "c-staufer.views.json").write_text('{"format": "referee-views/1"}\n')
    result = site(games, out)
    assert result["drawn"] == [] and result["not_served"] == []
    assert result["copies"] == [{
        "file": str(games / "e-copy.json"), "copy_of": str(games / "c-staufer.json"),
        "older": False, "message": f"{games / 'e-copy.json'} is a copy of "
                                   f"{games / 'c-staufer.json'}"}]
    same_as_full(games, out, tmp_path)
    one_move(games / "c-staufer.json")  # the game goes on; the copy is left behind
    result = site(games, out)
    assert result["drawn"] == ["staufer-3p-run"]
    assert result["copies"][0]["older"] is True  # type: ignore[index]
    same_as_full(games, out, tmp_path)
    one_move(games / "e-copy.json", -1)  # the copy goes its own way: one game, two files
    result = site(games, out)
    assert {r["file"] for r in result["not_served"]} == {  # type: ignore[attr-defined]
        str(games / "c-staufer.json"), str(games / "e-copy.json")}
    assert "logs that went apart" in result["not_served"][0]["message"]  # type: ignore[index]
    assert not (out / "staufer-3p-run").exists()
    same_as_full(games, out, tmp_path)
    (games / "e-copy.json").unlink()
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    same_as_full(games, out, tmp_path)


def test_a_sealed_game_follows_its_secret(games: Path, tmp_path: Path) -> None:
    sealed = make_game(games, "staufer", 2, moves=4, seed="sealed", sealed=True,
                       file="s-sealed.json")
    secret_file = sealed.with_name(sealed.name + ".secret")
    out = tmp_path / "site"
    site(games, out)
    assert (out / "staufer-2p-sealed" / "pos-4.svg").is_file()
    kept = tmp_path / "kept.secret"
    secret_file.rename(kept)  # the secret is gone: the page may only show the log
    assert site(games, out)["drawn"] == ["staufer-2p-sealed"]
    assert not (out / "staufer-2p-sealed" / "pos-4.svg").exists()
    same_as_full(games, out, tmp_path)
    kept.rename(secret_file)
    assert site(games, out)["drawn"] == ["staufer-2p-sealed"]
    same_as_full(games, out, tmp_path)
    one_move(games / "c-staufer.json")
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    same_as_full(games, out, tmp_path)


def test_a_new_referee_draws_everything(games: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    site(games, out)
    monkeypatch.setattr(sitecache, "code_digest", lambda: "another template digest")
    assert len(site(games, out)["drawn"]) == 3  # type: ignore[arg-type]
    assert site(games, out)["drawn"] == []
    same_as_full(games, out, tmp_path)


@pytest.mark.slow
def test_an_edited_or_missing_output_file_is_drawn_again(games: Path,
                                                         tmp_path: Path) -> None:
    """A game's folder removed: drawn again. A page removed, added or edited inside a kept
    folder: kept until `--full`, which draws it as it was (a build looks inside no kept
    game's folder: docs/pictures.md)."""
    out = tmp_path / "site"
    site(games, out)
    folder = out / "dynasties-3p-open"
    original = (folder / "pos-2.svg").read_bytes()
    shutil.rmtree(folder)
    assert site(games, out)["drawn"] == ["dynasties-3p-open"]
    assert (folder / "pos-2.svg").read_bytes() == original
    same_as_full(games, out, tmp_path)
    edits = [
        lambda: (folder / "pos-2.svg").write_bytes(original.replace(b"<svg", b"<SVG", 1)),
        lambda: (folder / "pos-2.svg").write_bytes(original + b"<!-- x -->"),
        lambda: (folder / "pos-2.svg").unlink(),
        lambda: (folder / "extra.html").write_text("planted"),
    ]
    for edit in edits:
        edit()
        assert site(games, out)["drawn"] == []  # (kept: its folder is not looked into)
        assert site(games, out, "--full")["drawn"] != []
        assert (folder / "pos-2.svg").read_bytes() == original
        assert not (folder / "extra.html").exists()
        same_as_full(games, out, tmp_path)
    (out / "stray.html").write_text("not the site's")
    assert site(games, out)["drawn"] == []
    assert not (out / "stray.html").exists()
    same_as_full(games, out, tmp_path)


def test_a_link_out_of_the_site_is_replaced_never_followed(games: Path,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    folder = out / "dynasties-3p-open"
    shutil.rmtree(folder)
    folder.symlink_to(outside)
    assert site(games, out)["drawn"] == ["dynasties-3p-open"]
    assert not folder.is_symlink() and (outside / "keep.txt").read_text() == "mine"
    (out / "staufer-3p-run" / "pos-1.svg").unlink()
    (out / "staufer-3p-run" / "pos-1.svg").symlink_to(outside / "keep.txt")
    assert site(games, out)["drawn"] == []  # (inside a kept folder: kept until --full)
    assert site(games, out, "--full")["drawn"] != []
    assert not (out / "staufer-3p-run" / "pos-1.svg").is_symlink()
    assert (outside / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    one_move(games / "c-staufer.json")  # (a drawn game's folder with a link: replaced)
    (out / "staufer-3p-run" / "pos-1.svg").unlink()
    (out / "staufer-3p-run" / "pos-1.svg").symlink_to(outside / "keep.txt")
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    assert not (out / "staufer-3p-run" / "pos-1.svg").is_symlink()
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "mine"
    same_as_full(games, out, tmp_path)


def database() -> Path:
    folder = cachedb.cache_dir()
    assert folder is not None
    return folder / cachedb.FILE_NAME


def record_of(out: Path) -> dict[str, sitecache.Entry]:
    """OUT's rows in the cache database, by file name."""
    with contextlib.closing(sqlite3.connect(database())) as conn:
        rows = conn.execute("SELECT file, value FROM site_games WHERE out = ?",
                            (sitecache.out_key(out),)).fetchall()
    where = sitecache.out_key(out)
    return {name: msgspec.msgpack.decode(cachedb.unsealed(where + name.encode(), value) or b"",
                                         type=sitecache.Entry)
            for name, value in rows}


def put_rows(out: Path, rows: dict[str, bytes], seal: bool = True) -> None:
    """Rows written into OUT's record by hand (as someone who can write the cache; each
    with its check, unless not ``seal``: as a disk that damaged it)."""
    where = sitecache.out_key(out)
    with contextlib.closing(sqlite3.connect(database())) as conn, conn:
        conn.executemany("INSERT OR REPLACE INTO site_games (out, file, value) "
                         "VALUES (?, ?, ?)",
                         [(where, name, cachedb.sealed(where + name.encode(), value)
                           if seal else value) for name, value in rows.items()])


def test_the_record_is_in_the_cache_database_never_in_out(games: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    assert sorted(record_of(out)) == ["a-staufer.json", "b-dynasties.json",
                                      "c-staufer.json"]
    folder = cachedb.cache_dir()
    assert folder is not None
    assert sorted(p.name for p in folder.iterdir()) == [cachedb.FILE_NAME]
    assert not [p for p in out.rglob("*") if "manifest" in p.name or p.suffix == ".json"]


def test_a_hostile_record_writes_nothing_outside_and_skips_no_change(
        games: Path, tmp_path: Path) -> None:
    """Rows written into the record by hand: entries for the old bytes of a game that
    then changes, for ids that are paths out of OUT, and for a game that is gone. The
    cache is trusted as the user's files, yet no row names a path the builder writes."""
    out = tmp_path / "site"
    site(games, out)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("keep")
    good = record_of(out)["a-staufer.json"]
    hostile = {"../victim.json": msgspec.structs.replace(good, file="../victim.json",
                                                         game_id="../victim"),
               "gone.json": msgspec.structs.replace(good, file="gone.json",
                                                    sha256="0" * 64, game_id="victim"),
               "a-staufer.json": msgspec.structs.replace(good, game_id="../victim")}
    put_rows(out, {k: msgspec.msgpack.encode(v) for k, v in hostile.items()})
    before = (games / "c-staufer.json").read_bytes()
    one_move(games / "c-staufer.json")
    assert (games / "c-staufer.json").read_bytes() != before
    result = site(games, out)
    assert result["incremental"] is True
    # (the old bytes' entry stands for nothing now; an id out of OUT drops its row)
    assert result["drawn"] == ["staufer-2p-done", "staufer-3p-run"]
    assert (victim / "index.html").read_text() == "keep"
    assert sorted(p.name for p in victim.iterdir()) == ["index.html"]
    same_as_full(games, out, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["cut", "garbage", "big", "type", "summary", "flipped",
                                    "link"])
def test_a_damaged_record_is_a_full_build(games: Path, tmp_path: Path, damage: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    site(games, out)
    path = database()
    raw = path.read_bytes()
    if damage == "cut":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(raw)))
    elif damage == "big":
        monkeypatch.setattr(sitecache, "MAX_GAMES", 2)
    elif damage == "type":
        put_rows(out, {"a-staufer.json": msgspec.msgpack.encode({"size": "many"})})
    elif damage == "flipped":  # (a row damaged on disk: its check fails)
        entry = record_of(out)["c-staufer.json"]
        put_rows(out, {"c-staufer.json": b"\0" * 16 + msgspec.msgpack.encode(
            msgspec.structs.replace(entry, row="<script>planted</script>"))}, seal=False)
    elif damage == "summary":
        entry = record_of(out)["b-dynasties.json"]
        summary = json.loads(entry.summary or b"{}")
        summary["moves"] = {"not": "a count"}
        summary["planted"] = "<script>"
        put_rows(out, {"b-dynasties.json": msgspec.msgpack.encode(msgspec.structs.replace(
            entry, summary=json.dumps(summary).encode()))})
    else:
        elsewhere = tmp_path / "elsewhere.sqlite3"
        elsewhere.write_bytes(raw)
        path.unlink()
        path.symlink_to(elsewhere)
    result = run("site", games, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["incremental"] is False and len(found["drawn"]) == 3
    assert "Traceback" not in result.output
    if damage in ("cut", "garbage"):
        assert "is ignored and made anew" in result.stderr
    if damage == "link":  # (a link is not the user's own database: not used at all)
        assert "is not used: it is not a regular file" in result.stderr
        assert elsewhere.read_bytes() == raw
        path.unlink()
    same_as_full(games, out, tmp_path)


def test_no_cache_folder_means_full_builds(games: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_CACHE_DIR", "off")
    out = tmp_path / "site"
    site(games, out)
    result = site(games, out)
    assert result["incremental"] is False and len(result["drawn"]) == 3  # type: ignore[arg-type]


def test_a_bad_changed_game_leaves_the_site_as_it_was(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    before = tree(out)
    (games / "c-staufer.json").write_text('{"format": 1, "game": "staufer"')
    result = run("site", games, "-o", out)
    assert result.exit_code in (1, 2) and "Traceback" not in result.output
    assert "c-staufer.json" in result.output
    assert tree(out) == before
    assert not any(p.name.startswith(".referee-stage-") for p in out.iterdir())


def test_a_sealed_key_spelt_with_escapes_is_still_sealed(games: Path, tmp_path: Path) -> None:
    sealed = make_game(games, "staufer", 2, moves=3, seed="escaped", sealed=True,
                       file="s-escaped.json")
    text = sealed.read_text()
    assert '"commitment"' in text
    sealed.write_text(text.replace('"commitment"', '"\\u0063ommitment"'))
    assert b'"commitment"' not in sealed.read_bytes()
    out = tmp_path / "site"
    site(games, out)
    assert (out / "staufer-2p-escaped" / "pos-3.svg").is_file()
    sealed.with_name(sealed.name + ".secret").unlink()
    assert site(games, out)["drawn"] == ["staufer-2p-escaped"]
    assert not (out / "staufer-2p-escaped" / "pos-3.svg").exists()
    same_as_full(games, out, tmp_path)


def test_the_league_is_the_one_ratings_computes(games: Path, tmp_path: Path) -> None:
    """The league from kept results is `referee ratings`' league, after a game finishes."""
    from referee.pages.site import _league_page
    from referee.pages.templating import environment
    from referee.reports import ratings

    make_game(games, "staufer", 3, seed="second", file="f-second.json")
    out = tmp_path / "site"
    site(games, out)
    (games / "f-second.json").rename(games / "g-moved.json")
    one_move(games / "c-staufer.json")
    site(games, out)
    expected = _league_page(environment(), ratings.league(games).to_json())
    page = (out / "league.html").read_text()
    assert page == expected
    assert page.count('<table class="league">') == 1 and '<td class="num">2</td>' in page
    same_as_full(games, out, tmp_path)


def test_a_kept_game_costs_no_look_into_its_folder(games: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """No page of a kept game is opened, looked at or listed: OUT is listed once; an
    unchanged game file is read and hashed, never parsed."""
    out = tmp_path / "site"
    site(games, out)
    listed: list[str] = []
    real_scandir, real_listdir = os.scandir, os.listdir
    monkeypatch.setattr(os, "scandir", lambda path=".": listed.append(str(path))
                        or real_scandir(path))
    monkeypatch.setattr(os, "listdir", lambda path=".": listed.append(str(path))
                        or real_listdir(path))
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: stats.append(str(path))
                        or real_stat(path, *a, **k))
    parsed: list[str] = []
    real_parse = gamefile.parse
    monkeypatch.setattr(gamefile, "parse", lambda raw, name, *a, **k: parsed.append(name)
                        or real_parse(raw, name, *a, **k))
    assert site(games, out)["drawn"] == []
    assert [p for p in listed if Path(p).parent == out] == []  # (no game's folder)
    assert [p for p in stats if Path(p).parent.parent == out] == []  # (no page)
    assert parsed == []
    one_move(games / "c-staufer.json")
    listed.clear()
    parsed.clear()
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    assert [p for p in listed if Path(p).parent == out] == []
    assert {Path(p).name for p in parsed} == {"c-staufer.json"}
    same_as_full(games, out, tmp_path)


def replaced_by_rename(folder: Path) -> None:
    """pos-2.svg replaced by a file of the same size, as an editor saves by rename."""
    target = folder / "pos-2.svg"
    raw = target.read_bytes()
    (folder / "new.tmp").write_bytes(raw.replace(b"<svg", b"<SVG", 1))
    os.replace(folder / "new.tmp", target)


@pytest.mark.parametrize("edit", ["folder made a link", "folder made a file"])
def test_a_game_folder_that_is_no_real_folder_is_drawn_again(
        games: Path, tmp_path: Path, edit: str) -> None:
    out = tmp_path / "site"
    site(games, out)
    folder = out / "dynasties-3p-open"
    original = tree(folder)
    shutil.copytree(folder, tmp_path / "elsewhere")
    shutil.rmtree(folder)
    if edit == "folder made a link":
        folder.symlink_to(tmp_path / "elsewhere")
    else:
        folder.write_text("not a folder")
    assert site(games, out)["drawn"] == ["dynasties-3p-open"]
    assert not folder.is_symlink() and tree(folder) == original
    assert tree(tmp_path / "elsewhere") == original  # (a link is never followed)
    same_as_full(games, out, tmp_path)


@pytest.mark.parametrize("edit", ["in place", "in place, longer", "replaced by rename",
                                  "added", "removed", "renamed", "a page made a folder",
                                  "folder replaced"])
def test_a_page_changed_inside_a_kept_folder_is_kept_until_full(
        games: Path, tmp_path: Path, edit: str) -> None:
    """The documented limit: a build looks inside no kept game's folder (OUT is the
    builder's own, as its cache is: docs/security.md), so a page changed there by hand
    is kept until `--full`, which draws it from the game file as a full build does."""
    out = tmp_path / "site"
    site(games, out)
    folder = out / "dynasties-3p-open"
    original = tree(folder)
    page = folder / "pos-2.svg"
    if edit == "in place":
        page.write_bytes(original["pos-2.svg"].replace(b"<svg", b"<SVG", 1))  # type: ignore[union-attr]
    elif edit == "in place, longer":
        page.write_bytes(original["pos-2.svg"] + b"<!-- edited in place -->")  # type: ignore[operator]
    elif edit == "replaced by rename":
        replaced_by_rename(folder)
    elif edit == "added":
        (folder / "planted.html").write_text("planted")
    elif edit == "removed":
        page.unlink()
    elif edit == "renamed":
        page.rename(folder / "pos-2.SVG")
    elif edit == "a page made a folder":
        page.unlink()
        page.mkdir()
    else:
        shutil.copytree(folder, tmp_path / "copy")
        (tmp_path / "copy" / "pos-2.svg").write_bytes(b"<svg/>")
        shutil.rmtree(folder)
        (tmp_path / "copy").rename(folder)
    assert site(games, out)["drawn"] == []
    assert tree(folder) != original
    assert site(games, out, "--full")["drawn"] != []
    assert tree(folder) == original
    same_as_full(games, out, tmp_path)


def same_size_edit(path: Path) -> bytes:
    """The file's bytes with one separator moved: the same game, other bytes."""
    raw = path.read_bytes()
    edited = raw.replace(b', "', b',"', 1) + b" "
    assert edited != raw and len(edited) == len(raw)
    return edited


@pytest.mark.parametrize("edit", ["in place, times set back", "by rename, times set back",
                                  "made a link to an edited copy"])
def test_a_game_file_changed_behind_its_times_is_read_again(
        games: Path, tmp_path: Path, edit: str) -> None:
    """A game file is found by its bytes, never by its size and times: one changed with
    its mtime set back (its owner can) is read, hashed and drawn again."""
    out = tmp_path / "site"
    site(games, out)
    site(games, out)
    path = games / "c-staufer.json"
    before = path.stat()
    edited = same_size_edit(path)
    if edit == "in place, times set back":
        with open(path, "r+b") as handle:
            handle.write(edited)
    elif edit == "by rename, times set back":
        (games / "new.tmp").write_bytes(edited)
        os.replace(games / "new.tmp", path)
    else:
        (tmp_path / "copy.json").write_bytes(edited)
        path.unlink()
        path.symlink_to(tmp_path / "copy.json")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    same_as_full(games, out, tmp_path)
