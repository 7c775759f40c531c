"""The picture cache (referee/pages/cache.py) and the board's tiles for mails
(referee/pictures/tiles.py): a cached picture is byte for byte a fresh render, a picture
seen before is not rendered again (in memory, or from the folder in a new process), and
a damaged cache file is rendered anew instead of being mailed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.ledger import gamefile
from referee.pages import cache as cachemod
from referee.pages.cache import PictureCache, whole_png
from referee.pages.positions import view_at
from referee.pictures import draw_svg, svg_to_png
from referee.pictures.tiles import Tile, tiles

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

#: (example, viewer, log entries): several views of both games
VIEWS = [("staufer-3p", None, 0), ("staufer-3p", "ann", 20), ("staufer-5p", "eve", 117),
         ("dynasties-3p", None, 5), ("dynasties-3p", "ben", 40), ("dynasties-5p", "ann", 90)]


def pictures(view: dict[str, object]) -> list[Tile]:
    """The tiles of ``view`` that are pictures (a region's payment space is words)."""
    return [t for t in tiles(view) if t.svg]


def view(example: str, viewer: str | None, upto: int) -> dict[str, object]:
    gf = gamefile.read(EXAMPLES / f"{example}.json")
    return view_at(gf, None, viewer, min(upto, len(gf.log)))


class Counting:
    """resvg's svg_to_bytes, counting its calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import resvg_py

        self.calls = 0
        real = resvg_py.svg_to_bytes

        def counted(**kwargs: object) -> object:
            self.calls += 1
            return real(**kwargs)

        monkeypatch.setattr(resvg_py, "svg_to_bytes", counted)


@pytest.fixture
def resvg(monkeypatch: pytest.MonkeyPatch) -> Counting:
    return Counting(monkeypatch)


@pytest.mark.parametrize("example, viewer, upto", VIEWS)
def test_a_cached_tile_is_the_fresh_render(tmp_path: Path, example: str, viewer: str | None,
                                           upto: int) -> None:
    board = pictures(view(example, viewer, upto))
    cache = PictureCache(tmp_path / "c")
    first = [cache.png(t.svg) for t in board]
    again = [PictureCache(tmp_path / "c").png(t.svg) for t in board]  # from the files
    assert first == again == [svg_to_png(t.svg) for t in board]
    assert all(whole_png(p) for p in first)
    assert len({t.name for t in tiles(view(example, viewer, upto))}) == len(board) + (
        6 if example.startswith("staufer") else 0)  # and six payment spaces in words


def test_a_second_identical_view_does_not_call_resvg(tmp_path: Path, resvg: Counting) -> None:
    board = pictures(view("staufer-3p", "ben", 30))
    cache = PictureCache(tmp_path / "c")
    for t in board:
        cache.png(t.svg)
    assert resvg.calls == cache.renders == len(board) and cache.hits == 0
    same = pictures(view("staufer-3p", "ben", 30))  # drawn again from the same view
    assert [t.svg for t in same] == [t.svg for t in board]
    for t in same:
        cache.png(t.svg)
    assert resvg.calls == len(board) and cache.hits == len(board)
    later = PictureCache(tmp_path / "c")  # a new judge run: only the folder is left
    for t in same:
        later.png(t.svg)
    assert resvg.calls == len(board) and later.renders == 0


def test_the_next_move_renders_only_the_tiles_it_changed(tmp_path: Path,
                                                         resvg: Counting) -> None:
    cache = PictureCache(tmp_path / "c")
    before = pictures(view("staufer-3p", None, 24))
    for t in before:
        cache.png(t.svg)
    calls = resvg.calls
    after = pictures(view("staufer-3p", None, 25))  # 25: a seat taken
    changed = [t for t, old in zip(after, before, strict=True) if t.svg != old.svg]
    for t in after:
        cache.png(t.svg)
    assert 0 < len(changed) < len(after) and resvg.calls - calls == len(changed)


def test_the_whole_board_is_cached_by_its_svg_too(tmp_path: Path, resvg: Counting) -> None:
    svg = draw_svg(view("dynasties-5p", None, 60))
    cache = PictureCache(tmp_path / "c")
    assert cache.png(svg) == cache.png(svg) == svg_to_png(svg)
    assert resvg.calls == 2  # the cache's one render and the fresh one


@pytest.mark.parametrize("damage", [b"", b"\x89PNG\r\n\x1a\nshort", b"not a png at all"])
def test_a_damaged_cache_file_is_rendered_again(tmp_path: Path, resvg: Counting,
                                                damage: bytes) -> None:
    svg = pictures(view("staufer-3p", None, 3))[0].svg
    good = PictureCache(tmp_path / "c").png(svg)
    key = cachemod.key_of(svg, cachemod.renderer())
    path = tmp_path / "c" / key[:2] / f"{key}.png"
    assert path.read_bytes() == good and (path.stat().st_mode & 0o777) == 0o600
    assert all((p.stat().st_mode & 0o777) == 0o700 for p in (path.parent, path.parent.parent))
    path.write_bytes(damage)  # cut short by a full disk, or tampered with
    again = PictureCache(tmp_path / "c")
    assert again.png(svg) == good and again.renders == 1
    assert path.read_bytes() == good  # replaced


def test_a_cache_folder_that_cannot_be_written_only_costs_renders(tmp_path: Path,
                                                                  resvg: Counting) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    svg = pictures(view("dynasties-3p", None, 2))[-1].svg
    cache = PictureCache(blocked / "c")
    assert cache.png(svg) == svg_to_png(svg) and cache.renders == 1
    assert cache.png(svg) == svg_to_png(svg) and cache.renders == 1  # memory still works


def test_the_key_holds_the_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    import resvg_py

    svg = pictures(view("staufer-3p", None, 0))[0].svg
    now = cachemod.key_of(svg, cachemod.renderer())
    monkeypatch.setattr(resvg_py, "__version__", "99.0", raising=False)
    assert cachemod.key_of(svg, cachemod.renderer()) != now
    assert cachemod.key_of(svg + " ", "x") != cachemod.key_of(svg, "x")


def test_the_judge_keeps_its_pictures_beside_the_games(tmp_path: Path) -> None:
    """A judge run over a Maildir leaves the pictures it drew in GAMES/.referee-pictures
    (not read as a game), and a second judge process draws nothing it has drawn."""
    from tests.doors.mail.test_html import start

    setup = start(tmp_path, "staufer")
    folder = setup.games / ".referee-pictures"
    files = sorted(folder.rglob("*.png"))
    assert len(files) == 7 and all(whole_png(p.read_bytes()) for p in files)
    probe = ("import resvg_py, sys; calls = []; real = resvg_py.svg_to_bytes\n"
             "resvg_py.svg_to_bytes = lambda **k: calls.append(1) or real(**k)\n"
             "from referee.doors.mail import html; from referee.pictures.tiles import tiles\n"
             "from referee.ledger import gamefile, replay\n"
             f"gf = gamefile.read({str(setup.path)!r})\n"
             "m = replay.replay(gf, 'judge-seed')\n"
             f"c = html.cache_for(__import__('pathlib').Path({str(setup.games)!r}))\n"
             "[c.png(t.svg) for t in tiles(m.game.view(m.state, None)) if t.svg]\n"
             "print(len(calls), c.hits)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert out.stdout.split() == ["0", "7"]
