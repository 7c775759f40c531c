"""`referee site` built from what changed: after one move only that game is drawn again,
and the site is byte for byte the one a full build writes; a removed, renamed or sealed
game, a new referee (code digest), an edited or missing output file and a hostile or
damaged manifest are each rebuilt, never trusted."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from referee.ledger import fileio, gamefile, replay
from referee.pages import manifest
from tests.conftest import run
from tests.test_pictures import make_game


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
    monkeypatch.setattr(manifest, "code_digest", lambda: "another template digest")
    assert len(site(games, out)["drawn"]) == 3  # type: ignore[arg-type]
    assert site(games, out)["drawn"] == []
    same_as_full(games, out, tmp_path)


def test_an_edited_or_missing_output_file_is_drawn_again(games: Path,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "site"
    site(games, out)
    folder = out / "dynasties-3p-open"
    original = (folder / "pos-2.svg").read_bytes()
    edits = [
        lambda: (folder / "pos-2.svg").write_bytes(original.replace(b"<svg", b"<SVG", 1)),
        lambda: (folder / "pos-2.svg").write_bytes(original + b"<!-- x -->"),
        lambda: (folder / "pos-2.svg").unlink(),
        lambda: (folder / "extra.html").write_text("planted"),
        lambda: shutil.rmtree(folder),
    ]
    for edit in edits:
        edit()
        assert site(games, out)["drawn"] == ["dynasties-3p-open"]
        assert (folder / "pos-2.svg").read_bytes() == original
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
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    assert (outside / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    same_as_full(games, out, tmp_path)


def manifest_of(out: Path) -> Path:
    path = manifest.path_for(out)
    assert path is not None and path.is_file()
    return path


def test_a_hostile_manifest_writes_nothing_outside_and_skips_no_change(
        games: Path, tmp_path: Path) -> None:
    """The attacker writes the manifest: entries for the old bytes of a game that then
    changes, for ids that are paths out of OUT, and for a game that is gone."""
    out = tmp_path / "site"
    site(games, out)
    path = manifest_of(out)
    data = json.loads(path.read_bytes())
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("keep")
    good = dict(data["games"][0])
    hostile = [dict(good, game_id="../victim", summary=dict(good["summary"], slug="../victim")),
               dict(good, file="gone.json", sha256="0" * 64, game_id="victim")]
    data["games"] += hostile
    path.write_text(json.dumps(data))
    before = (games / "c-staufer.json").read_bytes()
    one_move(games / "c-staufer.json")
    assert (games / "c-staufer.json").read_bytes() != before
    result = site(games, out)
    assert result["incremental"] is True
    assert result["drawn"] == ["staufer-3p-run"]  # the old bytes' entry stands for nothing now
    assert (victim / "index.html").read_text() == "keep"
    assert not (tmp_path / "victim" / "pos-0.svg").exists()
    same_as_full(games, out, tmp_path)


@pytest.mark.parametrize("damage", ["cut", "garbage", "big", "type", "summary", "link"])
def test_a_damaged_manifest_is_a_full_build(games: Path, tmp_path: Path, damage: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    site(games, out)
    path = manifest_of(out)
    raw = path.read_bytes()
    if damage == "cut":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(4096))
    elif damage == "big":
        monkeypatch.setattr(manifest, "MAX_BYTES", len(raw) - 1)
    elif damage == "type":
        data = json.loads(raw)
        data["games"][0]["size"] = "many"
        path.write_text(json.dumps(data))
    elif damage == "summary":
        data = json.loads(raw)
        data["games"][0]["summary"]["moves"] = {"not": "a count"}
        data["games"][1]["summary"]["planted"] = "<script>"
        path.write_text(json.dumps(data))
    else:
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_bytes(raw)
        path.unlink()
        path.symlink_to(elsewhere)
    result = site(games, out)
    assert result["incremental"] is False and len(result["drawn"]) == 3  # type: ignore[arg-type]
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


def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder counts as changed well before the manifest (no racy window): the
    folders' stamps alone decide, as they do for a site built a while ago."""
    monkeypatch.setattr(manifest, "RACY_NS", 0)
    time.sleep(0.05)  # (past a tick of the file system's clock: an edit's times differ)


def test_a_settled_folder_is_kept_by_its_stamp_alone(games: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    site(games, out)
    site(games, out)  # (stamps every folder: the first build's were racy, then scanned)
    settled(monkeypatch)
    looked: list[Path] = []
    scan = manifest.folder_state
    monkeypatch.setattr(manifest, "folder_state",
                        lambda folder, *a: looked.append(folder) or scan(folder, *a))
    assert site(games, out)["drawn"] == []
    assert looked == []  # (no folder looked at file by file)
    one_move(games / "c-staufer.json")
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    # (only the drawn game's new folder is listed, to record what it holds)
    assert [(p.parent.name[:15], p.name) for p in looked] == [(".referee-stage-",
                                                               "staufer-3p-run")]
    looked.clear()
    assert site(games, out)["drawn"] == []
    # (racy at most: drawn just before)
    assert {Path(p) for p in looked} <= {out / "staufer-3p-run"}
    same_as_full(games, out, tmp_path)


def replaced_by_rename(folder: Path) -> None:
    """pos-2.svg replaced by a file of the same size, as an editor saves by rename."""
    target = folder / "pos-2.svg"
    raw = target.read_bytes()
    (folder / "new.tmp").write_bytes(raw.replace(b"<svg", b"<SVG", 1))
    os.replace(folder / "new.tmp", target)


@pytest.mark.parametrize("edit", ["added", "removed", "renamed", "replaced by rename",
                                  "folder replaced", "folder made a link"])
def test_a_settled_folder_changed_in_its_names_is_drawn_again(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    out = tmp_path / "site"
    site(games, out)
    site(games, out)
    folder = out / "dynasties-3p-open"
    original = tree(folder)
    settled(monkeypatch)
    if edit == "added":
        (folder / "planted.html").write_text("planted")
    elif edit == "removed":
        (folder / "pos-2.svg").unlink()
    elif edit == "renamed":
        (folder / "pos-2.svg").rename(folder / "pos-2.SVG")
    elif edit == "replaced by rename":
        replaced_by_rename(folder)
    elif edit == "folder replaced":
        shutil.copytree(folder, tmp_path / "copy")
        (tmp_path / "copy" / "pos-2.svg").write_bytes(b"<svg/>")
        shutil.rmtree(folder)
        (tmp_path / "copy").rename(folder)
    else:
        shutil.copytree(folder, tmp_path / "elsewhere")
        shutil.rmtree(folder)
        folder.symlink_to(tmp_path / "elsewhere")
    assert site(games, out)["drawn"] == ["dynasties-3p-open"]
    assert not folder.is_symlink() and tree(folder) == original
    same_as_full(games, out, tmp_path)


def test_a_settled_file_rewritten_in_place_is_not_noticed_and_full_draws_it(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented limit of the stamp: a file rewritten in place, its folder
    untouched, is kept until `--full` (the folders' times are what a build checks)."""
    out = tmp_path / "site"
    site(games, out)
    site(games, out)
    settled(monkeypatch)
    page = out / "dynasties-3p-open" / "pos-2.svg"
    original = page.read_bytes()
    page.write_bytes(original + b"<!-- edited in place -->")
    assert site(games, out)["drawn"] == []
    assert page.read_bytes() != original
    assert site(games, out, "--full")["drawn"] != []
    assert page.read_bytes() == original


def test_a_settled_game_file_is_not_read_again(games: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A game file whose device, inode, size and times are those its bytes were hashed
    at (changed well before that build) is trusted by them: not opened."""
    out = tmp_path / "site"
    site(games, out)
    site(games, out)
    settled(monkeypatch)
    opened: list[str] = []
    real = fileio.open_regular
    monkeypatch.setattr(fileio, "open_regular",
                        lambda path, *a: opened.append(Path(path).name) or real(path, *a))
    assert site(games, out)["drawn"] == []
    assert [n for n in opened if n.endswith(".json")] == []
    one_move(games / "c-staufer.json")
    opened.clear()
    assert site(games, out)["drawn"] == ["staufer-3p-run"]
    assert sorted({n for n in opened if n.endswith(".json")}) == ["c-staufer.json"]
    same_as_full(games, out, tmp_path)


def same_size_edit(path: Path) -> bytes:
    """The file's bytes with one separator moved: the same game, other bytes."""
    raw = path.read_bytes()
    edited = raw.replace(b', "', b',"', 1) + b" "
    assert edited != raw and len(edited) == len(raw)
    return edited


@pytest.mark.parametrize("edit", ["in place, times set back", "by rename, times set back",
                                  "made a link to an edited copy"])
def test_a_settled_game_file_changed_behind_its_times_is_read_again(
        games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    """mtime can be set back by the file's owner; ctime and the inode cannot: the file
    is read and hashed again, and its game drawn again."""
    out = tmp_path / "site"
    site(games, out)
    site(games, out)
    settled(monkeypatch)
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
