"""`referee site`: the index, the game pages, every position, sealed games, safety of OUT."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.ledger import gamefile, replay
from referee.pictures import draw_svg
from referee.pictures.changes import Marks
from tests.conftest import run
from tests.leaks import assert_no_leaks
from tests.pictures.test_pictures import make_game


def all_text(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    make_game(folder, "staufer", 2, seed="done", file="a-staufer.json")
    make_game(folder, "dynasties", 3, moves=17, seed="open", file="b-dynasties.json")
    return folder


def test_site_index_and_game_pages(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = run("site", games, "-o", out)
    assert result.exit_code == 0, result.output
    assert result.output == f"wrote {out}/index.html: 2 games\n"
    index = (out / "index.html").read_text()
    assert '<a href="staufer-2p-done/index.html">a-staufer.json</a>' in index
    assert '<a href="dynasties-3p-open/index.html">b-dynasties.json</a>' in index
    finished = replay.replay(gamefile.read(games / "a-staufer.json"))
    game = finished.game
    scores = game.scores(finished.state)
    assert ", ".join(f"{p} {s}" for p, s in scores.items()) in index
    assert "finished: 1." in index
    running = replay.replay(gamefile.read(games / "b-dynasties.json"))
    owing = running.game.to_move(running.state)
    assert re.search(rf'<span class="turn">.*{owing[0]}</span> to move', index)
    page = (out / "staufer-2p-done" / "index.html").read_text()  # by game id
    log = gamefile.read(games / "a-staufer.json").log
    assert page.count('<li value="') == len(log)
    for entry, (_, move) in zip(log, finished.log, strict=True):
        assert (f'<li value="{entry["n"]}"><a href="pos-{entry["n"]}.html">{entry["by"]}: '
                f'{game.format_move(move)}</a>') in page
    assert f'src="pos-{len(log)}.svg"' in page
    ranking = game.ranking(finished.state)
    first = ranking[0][0]
    assert f"<td>{first}</td>" not in page  # names carry their colour swatch
    assert re.search(rf'<tr><td class="num">1</td><td><span class="swatch" style="background: '
                     rf'#[0-9a-f]{{6}}"></span>{first}</td><td class="num">{scores[first]}</td>',
                     page)


def test_site_has_every_position_with_steps(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    folder = out / "dynasties-3p-open"
    for n in range(18):
        html = (folder / f"pos-{n}.html").read_text()
        assert f'<img class="board" src="pos-{n}.svg"' in html
        assert (folder / f"pos-{n}.svg").read_text().startswith("<svg ")
        assert ('rel="prev"' in html) == (n > 0)
        assert ('rel="next"' in html) == (n < 17)
        assert f"#m-{n} {{" in html  # the current move is marked in the list
    assert not (folder / "pos-18.html").exists()
    first = (folder / "pos-1.html").read_text()
    gf = gamefile.read(games / "b-dynasties.json")
    match = replay.replay(gf, upto=1)
    text = match.game.format_move(match.log[0][1])
    assert f"<strong>Move 1</strong>: ann: <code>{text}</code>" in first
    events = match.game.view(match.state, None)["events"]
    start = replay.replay(gf, upto=0)
    setup = start.game.view(start.state, None)["events"]
    assert len(events) > len(setup) and events[: len(setup)] == setup
    assert all(f"<li>{e}</li>" in first for e in events[len(setup):])
    assert all(f"<li>{e}</li>" not in first for e in setup)


def test_site_is_the_same_with_one_or_two_workers(games: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert run("site", games, "-o", one, "--workers", 1).exit_code == 0
    assert run("site", games, "-o", two, "--workers", 2).exit_code == 0
    assert all_text(one) == all_text(two)


def test_sealed_game_without_secret_shows_only_its_log(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path = make_game(games, "dynasties", 3, moves=20, seed="sealed", sealed=True)
    (games / f"{path.name}.secret").rename(tmp_path / "kept.secret")
    out = tmp_path / "site"
    result = run("site", games, "-o", out, "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert [g["needs_secret"] for g in info["games"]] == [True]
    folder = out / path.stem
    assert sorted(p.name for p in folder.iterdir()) == ["index.html"]
    page = (folder / "index.html").read_text()
    assert "the positions cannot be rebuilt" in page
    assert page.count('<li value="') == 20
    assert "sealed: the board needs the secret" in (out / "index.html").read_text()
    with_secret = tmp_path / "with"
    assert run("site", games, "-o", with_secret, "--secret", tmp_path / "kept.secret"
               ).exit_code == 0
    assert len(list((with_secret / path.stem).glob("pos-*.svg"))) == 21


def test_sealed_site_with_secret_holds_no_hidden_token(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path = make_game(games, "staufer", 3, moves=40, seed="S3cret-0af9", sealed=True,
                     game_id="staufer-sealed", file="staufer-sealed.json")
    secret_file = games / f"{path.name}.secret"
    secret_file.rename(tmp_path / f"{path.name}.secret")
    monkeypatch.setenv("REFEREE_SECRET", "S3cret-0af9")
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    match = replay.replay(gamefile.read(path), "S3cret-0af9")
    hidden = match.game.hidden_items(match.state, None)
    assert hidden
    site = all_text(out)
    assert len([name for name in site if name.endswith(".svg")]) == 41
    for name, text in site.items():
        assert "S3cret-0af9" not in text, name
    assert_no_leaks(site, hidden, ignore=[str(tmp_path)])
    monkeypatch.delenv("REFEREE_SECRET")
    assert run("site", games, "-o", out, "--secret", tmp_path).exit_code == 0
    assert len(list((out / path.stem).glob("pos-*.svg"))) == 41


def test_site_escapes_what_it_shows(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path = make_game(games, "staufer", 2, moves=0, file="x.json")
    data = json.loads(path.read_text())
    data["players"][1]["name"] = "<script>alert(1)</script>"  # no moves: no hash chain yet
    path.write_text(gamefile.dumps(data))
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    for name, text in all_text(out).items():
        assert "<script>alert" not in text, name
    page = (out / "staufer-2p-pictures" / "index.html").read_text()  # by game id
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_site_refuses_bad_input_and_changes_nothing(games: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    before = all_text(out)
    (games / "c-broken.json").write_text('{"format": "referee/1",')
    result = run("site", games, "-o", out)
    assert result.exit_code == 1
    assert "c-broken.json is not valid JSON" in result.output
    assert "Traceback" not in result.output
    assert all_text(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games", "site"]  # no temp left
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep me")
    (games / "c-broken.json").unlink()
    result = run("site", games, "-o", other)
    assert result.exit_code == 2
    assert "is not a site written by `referee site`" in result.output
    assert (other / "mine.txt").read_text() == "keep me"
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("site", empty, "-o", tmp_path / "s2")
    assert result.exit_code == 2 and "no game files (*.json)" in result.output
    result = run("site", tmp_path / "missing", "-o", tmp_path / "s2")
    assert result.exit_code == 2 and "is not a folder of game files" in result.output
    assert not (tmp_path / "s2").exists()


def test_site_refuses_a_game_with_a_rewritten_history(games: Path, tmp_path: Path) -> None:
    path = games / "b-dynasties.json"
    data = json.loads(path.read_text())
    data["log"][3]["by"] = data["log"][4]["by"] if data["log"][4]["by"] != data["log"][3][
        "by"] else "cat"
    path.write_text(gamefile.dumps(data))
    result = run("site", games, "-o", tmp_path / "site")
    assert result.exit_code == 1
    assert "b-dynasties.json" in result.output and "$.log[3]" in result.output
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize(("name", "n"), [("staufer", 4), ("dynasties", 5)])
def test_site_pictures_equal_pictures_drawn_alone(tmp_path: Path, name: str, n: int) -> None:
    """The site reuses unchanged regions / countries between positions; every picture must
    still be exactly the one drawn from scratch, with what its move changed framed."""
    games = tmp_path / "games"
    games.mkdir()
    path = make_game(games, name, n, moves=60, file="g.json")
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    gf = gamefile.read(path)
    previous = None
    framed = 0
    for k in range(61):
        match = replay.replay(gf, upto=k)
        view = match.game.view(match.state, None)
        alone = draw_svg(view, Marks.between(previous, view), k - 1 if k else None)
        assert (out / f"{name}-{n}p-pictures" / f"pos-{k}.svg").read_text() == alone, k
        framed += alone.count('class="changed"') > 0
        previous = view
    assert framed >= 40  # most moves change the public board (some only a hand or a choice)


def test_site_steps_through_an_undo(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path = games / "u.json"
    assert run("new", "staufer", path, "--players", "ann,ben,cat", "--seed", "u1",
               "--id", "undo-game").exit_code == 0
    for args in (["move", path, "--as", "ann", "deploy aachen 3"], ["undo", path, "--as", "ann"],
                 ["move", path, "--as", "ann", "deploy aachen 4"]):
        assert run(*args).exit_code == 0
    out = tmp_path / "site"
    assert run("site", games, "-o", out).exit_code == 0
    page = (out / "undo-game" / "index.html").read_text()
    assert '<a href="pos-2.html">ann: undo 1</a>' in page
    assert '<a href="pos-3.html">ann: deploy aachen 4</a>' in page
    gf = gamefile.read(path)
    start = replay.replay(gf, upto=0)
    first = replay.replay(gf, upto=1)
    v0 = start.game.view(start.state, None)
    v1 = first.game.view(first.state, None)
    undone = draw_svg(v0, Marks.between(v1, v0), 1)  # after the undo: the start again
    assert (out / "undo-game" / "pos-2.svg").read_text() == undone
    assert 'class="changed"' in undone
    shown = tmp_path / "since.svg"
    assert run("show", path, "--since", 2, "--svg", shown).exit_code == 0
    assert shown.read_text().count('class="changed"') >= 1


@pytest.mark.parametrize(("ci", "outcome"), [("true", "2 errors"), ("", "2 skipped")])
def test_browser_tests_skip_without_chromium_but_fail_under_ci(ci: str, outcome: str) -> None:
    """Without Chromium on PATH the browser tests skip and say why; under CI=true they fail."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PATH": str(Path(sys.executable).parent), "CI": ci}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
         "tests/pages/test_site_browser.py", "-k", "index or missing"],
        cwd=root, env=env, capture_output=True, text=True, check=False, timeout=300,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert outcome in summary and "9 deselected" in summary, summary
    assert "Chromium is not installed" in result.stdout
    if ci == "true":
        assert result.returncode == 1
        assert "Failed: CI=true: Chromium is not installed" in result.stdout
    else:
        assert result.returncode == 0
