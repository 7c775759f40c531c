"""Pictures of positions: SVG structure, what they show, leaks, highlights, `referee show`."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from referee.engine import Match, get_game
from referee.engine import rng as rngmod
from referee.engine.rng import Rng
from referee.ledger import fileio, gamefile, replay, vouch
from referee.ledger import secret as secretmod
from referee.pictures import draw_svg, svg_to_png
from referee.pictures.changes import Marks, changed_paths, new_events
from referee.play import writecore
from tests.conftest import run
from tests.leaks import assert_hidden, assert_shows, own_items

NS = "{http://www.w3.org/2000/svg}"
PLAYERS = ["ann", "ben", "cat", "dan", "eve"]
ROOT = Path(__file__).resolve().parents[2]


def make_game(folder: Path, name: str, n: int, moves: int | None = None,
              seed: str = "pictures", sealed: bool = False, file: str | None = None,
              game_id: str | None = None) -> Path:
    """A game file of ``n`` players after ``moves`` seeded random legal moves (None: to
    the end). Sealed games get their secret beside them (FILE.secret)."""
    game = get_game(name)
    players = [{"id": p, "name": p.capitalize()} for p in PLAYERS[:n]]
    rng: dict[str, str] = {"seed": seed}
    if sealed:
        rng = {"commitment": rngmod.commitment(seed), "recipient": vouch.recipient(seed)}
    game_id = game_id or f"{name}-{n}p-{seed}"
    data = gamefile.new_data(game, players, {}, rng, game_id)
    match = Match.start(game, PLAYERS[:n], data["options"], seed)
    chooser = Rng(f"choices-{seed}")
    while not game.finished(match.state) and (moves is None or len(match.log) < moves):
        player = game.to_move(match.state)[0]
        match.play(player, chooser.choice(game.legal_moves(match.state, player), "playout"))
    for player, move in match.log:
        gamefile.append_entry(data, player, move, seed=seed)
    path = folder / (file or f"{game_id}.json")
    writecore.create(path, data)
    if sealed:
        fileio.write_atomic(secretmod.default_secret_path(path),
                            secretmod.secret_text(game_id, seed).encode(), mode=0o600,
                            exclusive=True, what="secret file")
    return path


def svg_of(path: Path, viewer: str | None = None, upto: int | None = None,
           seed: str | None = None) -> tuple[str, dict]:
    gf = gamefile.read(path)
    match = replay.replay(gf, seed, upto=upto)
    view = match.game.view(match.state, viewer)
    return draw_svg(view), view


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [el.text or "" for el in root.iter(f"{NS}text")]


GAMES = [("staufer", n) for n in (2, 3, 4, 5)] + [("dynasties", n) for n in (3, 4, 5)]


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_svg_has_title_desc_and_real_text(tmp_path: Path, name: str, n: int) -> None:
    path = make_game(tmp_path, name, n, moves=30)
    svg, view = svg_of(path, "ann")
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert [root[0].tag, root[1].tag] == [f"{NS}title", f"{NS}desc"]
    assert root[1].text == view["prompt"]
    assert "as seen by ann" in (root[0].text or "")
    words = " ".join(texts(svg))
    for player in PLAYERS[:n]:
        assert player in words  # every player's row is real, searchable text
    assert view["prompt"] in words
    width, height = int(root.get("width", "0")), int(root.get("height", "0"))
    assert width == 1200
    for el in root.iter():  # nothing is drawn below the bottom edge
        y = el.get("y")
        if y is not None:
            assert float(y) <= height, (el.tag, y, height)


def test_staufer_picture_shows_the_board(tmp_path: Path) -> None:
    path = make_game(tmp_path, "staufer", 3, moves=40)
    svg, view = svg_of(path)
    words = texts(svg)
    for region in view["regions"]:
        assert region["title"] in words
        assert "/".join(map(str, region["scoring_tile"])) in words
        for seat in region["seats"]:
            assert f"cost {seat['cost']}" in words
    assert words.count("King") == 1
    king = next(r for r in view["regions"] if r["king"])
    group = ET.fromstring(svg).find(f".//{NS}g[@id='region-{king['region']}']")
    assert group is not None and "King" in [t.text for t in group.iter(f"{NS}text")]
    titles = [t.text for t in ET.fromstring(svg).iter(f"{NS}title")]
    placed = [(f.partition(":")[0], f.partition(":")[2]) for r in view["regions"]
              for s in r["seats"] for f in s["figures"]]
    assert placed, "the test needs figures on the board"
    for who, kind in placed:
        assert f"{who}'s {'Noble' if kind == 'N' else 'Envoy'}" in titles
    for who, pv in view["players"].items():
        row = ET.fromstring(svg).find(f".//{NS}g[@id='player-{who}']")
        assert row is not None
        row_words = [t.text for t in row.iter(f"{NS}text")]
        assert str(pv["score"]) in row_words
        assert f"{pv['court']['envoys']} E, {pv['court']['nobles']} N" in row_words


def test_dynasties_picture_counts_many_goods() -> None:
    from referee.games.dynasties.pictures import draw

    gf = gamefile.read(ROOT / "examples" / "dynasties-3p.json")
    match = replay.replay(gf, upto=10)
    view = match.game.view(match.state, None)
    view["players"][0]["goods"] = "kkkwwgbbbbbppp"  # 14 goods: too many for one square each
    row = ET.fromstring(draw(view)).find(f".//{NS}g[@id='player-{view['players'][0]['id']}']")
    assert row is not None
    words = [t.text for t in row.iter(f"{NS}text")]
    assert [w for w in words if w in tuple("kwgbp")] == list("kwgbp")
    assert [w for w in words if (w or "").startswith("×")] == ["×3", "×2", "×1", "×5", "×3"]
    assert ("goods: 3 black, 2 white, 1 gold, 5 light blue, 3 pink"
            in [t.text for t in row.iter(f"{NS}title")])


def test_dynasties_picture_shows_the_board(tmp_path: Path) -> None:
    path = make_game(tmp_path, "dynasties", 4, moves=60)
    svg, view = svg_of(path)
    root = ET.fromstring(svg)
    words = texts(svg)
    titles = [t.text for t in root.iter(f"{NS}title")]
    for city in view["cities"]:
        assert city["name"] in words
        for role in ("prince", "princess"):
            holder = city[role]["player"]
            if holder != "-":
                assert f"{holder}'s {role.capitalize()} in {city['name']}" in titles
    assert any(city[r]["player"] != "-" for city in view["cities"]
               for r in ("prince", "princess")), "the test needs figures in cities"
    for ship in view["ships"]:
        assert f"Ship {ship['ship']}" in words
    for p in view["personalities"]:
        assert any(p["name"].startswith(w.rstrip("…")) for w in words if w)
    for p in view["players"]:
        row = root.find(f".//{NS}g[@id='player-{p['id']}']")
        assert row is not None
        assert str(p["score"]) in [t.text for t in row.iter(f"{NS}text")]
        chips = [t.text for t in row.iter(f"{NS}text") if t.text in tuple("kwgbp")]
        assert "".join(chips) == p["goods"]
        counts = ", ".join(f"{p['goods'].count(k)} {name}" for k, name in
                           (("k", "black"), ("w", "white"), ("g", "gold"),
                            ("b", "light blue"), ("p", "pink")) if k in p["goods"])
        assert f"goods: {counts or 'none'}" in [t.text for t in row.iter(f"{NS}title")]


@pytest.mark.parametrize(("name", "n", "moves"), [("staufer", 4, 50), ("dynasties", 3, 70)])
def test_pictures_show_only_what_the_view_allows(tmp_path: Path, name: str, n: int,
                                                 moves: int) -> None:
    path = make_game(tmp_path, name, n, moves=moves)
    gf = gamefile.read(path)
    match = replay.replay(gf)
    game, state = match.game, match.state
    pictures: dict[str | None, dict[str, str]] = {
        v: {"svg": draw_svg(game.view(state, v))} for v in [None, *PLAYERS[:n]]}
    assert_hidden(game, state, pictures)
    for viewer in PLAYERS[:n]:  # control: each picture shows its viewer's own items
        assert_shows(pictures[viewer]["svg"], own_items(game, state, viewer))


def test_changes_between_views() -> None:
    old = {"a": [{"x": 1, "y": [1, 2]}, {"x": 2}], "prompt": "p", "b": 1}
    new = {"a": [{"x": 1, "y": [1, 3]}, {"x": 5}], "prompt": "q", "b": 1, "c": 0}
    assert sorted(changed_paths(old, new)) == [("a", 0, "y"), ("a", 1, "x"), ("c",)]
    marks = Marks.between(old, new)
    assert marks.hit("a") and marks.hit("a", 0) and marks.hit("a", 0, "y")
    assert not marks.hit("b") and not marks.hit("a", 0, "x") and not marks.hit("prompt")
    assert not Marks.between(None, new) and not Marks.between(new, new)
    assert new_events(["a", "b", "c"], ["b", "c", "d", "e"]) == ["d", "e"]
    assert new_events(["a", "b"], ["a", "b"]) == []
    assert new_events([], ["x"]) == ["x"]


def changed_count(svg: str) -> int:
    return sum(1 for el in ET.fromstring(svg).iter() if el.get("class") == "changed")


@pytest.mark.parametrize("name", ["staufer", "dynasties"])
def test_show_since_frames_what_the_moves_changed(tmp_path: Path, name: str) -> None:
    path = make_game(tmp_path, name, 3, moves=40)
    out = tmp_path / "since.svg"
    assert run("show", path, "--since", 37, "--svg", out).exit_code == 0
    svg = out.read_text()
    assert changed_count(svg) > 0
    assert "changed since move 37" in texts(svg)
    assert run("show", path, "--since", 40, "--svg", out).exit_code == 0
    assert changed_count(out.read_text()) == 0
    assert "nothing changed since move 40" in texts(out.read_text())
    assert run("show", path, "--svg", out).exit_code == 0
    assert changed_count(out.read_text()) == 0
    assert not any("since move" in t for t in texts(out.read_text()))


def test_show_since_marks_the_seat_that_was_taken(tmp_path: Path) -> None:
    path = make_game(tmp_path, "staufer", 3, moves=60)
    gf = gamefile.read(path)
    for n in range(len(gf.log), 0, -1):  # the latest deploy in the log
        if gf.log[n - 1]["move"]["type"] == "seat":
            break
    before = replay.replay(gf, upto=n - 1)
    after = replay.replay(gf, upto=n)
    game = before.game
    v0, v1 = game.view(before.state, None), game.view(after.state, None)
    taken = [(p, i) for p, r in enumerate(v1["regions"]) for i, s in enumerate(r["seats"])
             if s["figures"] != v0["regions"][p]["seats"][i]["figures"]]
    assert taken
    marks = Marks.between(v0, v1)
    for p, i in taken:
        assert marks.hit("regions", p, "seats", i, "figures")
    assert changed_count(draw_svg(v1, marks, n - 1)) >= len(taken)


def test_show_png_is_the_svg_rendered(tmp_path: Path) -> None:
    path = make_game(tmp_path, "dynasties", 3, moves=20)
    out = tmp_path / "board.png"
    result = run("show", path, "--as", "ben", "--png", out, "--json")
    assert result.exit_code == 0
    info = json.loads(result.output)
    assert info["format"] == "png" and info["as"] == "ben"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and info["bytes"] == len(data)
    width, height = struct.unpack(">II", data[16:24])
    svg, _ = svg_of(path, "ben")
    root = ET.fromstring(svg)
    assert (width, height) == (int(root.get("width", 0)), int(root.get("height", 0)))
    assert svg_to_png(svg)[:8] == data[:8]


def test_show_svg_to_stdout_equals_the_drawing(tmp_path: Path) -> None:
    path = make_game(tmp_path, "staufer", 2, moves=10)
    result = run("show", path, "--as", "ann", "--svg", "-")
    assert result.exit_code == 0
    assert result.output == svg_of(path, "ann")[0] + "\n"


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--svg", "OUT", "--png", "OUT"], 2, "exactly one of --svg OUT, --png OUT or --md OUT"),
    ([], 2, "exactly one of --svg OUT, --png OUT or --md OUT"),
    (["--as", "zed", "--svg", "OUT"], 2, "'zed' is not a player in this game"),
    (["--since", "99", "--svg", "OUT"], 2, "--since 99: this game has moves 0 to 12"),
    (["--since", "-1", "--svg", "OUT"], 2, "--since -1: this game has moves 0 to 12"),
    (["--png", "-"], 2, "--png needs a file name"),
    (["--svg", "NODIR/x.svg"], 2, "no such folder"),
])
def test_show_refuses_bad_input(tmp_path: Path, args: list[str], code: int,
                                message: str) -> None:
    path = make_game(tmp_path, "staufer", 3, moves=12)
    args = [a.replace("OUT", str(tmp_path / "out.svg")).replace("NODIR", str(tmp_path / "no"))
            for a in args]
    result = run("show", str(path), *args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out.svg").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_show_sealed_game_needs_the_secret(tmp_path: Path) -> None:
    path = make_game(tmp_path, "dynasties", 3, moves=15, sealed=True)
    secret = secretmod.default_secret_path(path)
    hidden = tmp_path / "elsewhere.secret"
    secret.rename(hidden)
    out = tmp_path / "b.svg"
    result = run("show", str(path), "--svg", str(out))
    assert result.exit_code == 1
    assert "sealed" in result.output and not out.exists()
    assert run("show", path, "--svg", out, "--secret", hidden).exit_code == 0
    assert ET.fromstring(out.read_text()).tag == f"{NS}svg"


def test_status_and_move_do_not_import_the_picture_libraries(tmp_path: Path) -> None:
    path = make_game(tmp_path, "staufer", 3, moves=5)
    match = replay.replay(gamefile.read(path))
    player = match.game.to_move(match.state)[0]
    legal = match.game.format_move(match.game.legal_moves(match.state, player)[0])
    moving = ["move", str(path), "--as", player, legal]
    code = (
        "import sys\n"
        "from referee.cli import main\n"
        f"for args in (['status', {str(path)!r}], ['log', {str(path)!r}], {moving!r}):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit as exc:\n"
        "        assert not exc.code, exc.code\n"
        "loaded = [m for m in ('jinja2', 'resvg_py', 'referee.pictures') if m in sys.modules]\n"
        "print('loaded:', loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("loaded: []")
    assert len(gamefile.read(path).log) == 6  # the move was played


@pytest.mark.parametrize(("content", "message"), [
    (None, "no game file at"),
    ("{}", "breaks the schema: $: object missing required field `format`"),
])
def test_show_refuses_a_missing_or_broken_game(tmp_path: Path, content: str | None,
                                               message: str) -> None:
    path = tmp_path / "g.json"
    if content is not None:
        path.write_text(content)
    result = run("show", str(path), "--svg", str(tmp_path / "b.svg"))
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "b.svg").exists()


def test_staufer_picture_shows_the_pending_deploy_and_revealed_chests() -> None:
    from referee.pages.positions import positions

    gf = gamefile.read(ROOT / "examples" / "staufer-5p.json")
    steps = positions(gf, None)
    seat = next(p.view for p in steps if p.view["pending"].get("phase") == "seat")
    root = ET.fromstring(draw_svg(seat))
    target = root.find(f".//{NS}g[@id='region-{seat['pending']['region']}']")
    assert target is not None
    assert "deploying here" in [t.text for t in target.iter(f"{NS}text")]
    assert texts(ET.tostring(root, encoding="unicode")).count("deploying here") == 1
    pick = next(p.view for p in steps if p.view["pending"].get("revealed"))
    svg = draw_svg(pick)
    pickers = ", ".join(pick["pending"]["pickers"])
    assert f"Revealed chests (picking in this order: {pickers}):" in texts(svg)
    titles = [t.text for t in ET.fromstring(svg).iter(f"{NS}title")]
    for chest in pick["pending"]["revealed"]:
        assert f"{chest} chest" in titles
    assert not any("Revealed chests" in t for t in texts(draw_svg(seat)))


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _elementtree_text(canvas: object) -> str:
    """What Canvas.finish wrote before its own writer: ElementTree's text with each
    piece put in for its placeholder."""
    from referee.pictures.svg import Canvas

    assert isinstance(canvas, Canvas)
    text = ET.tostring(canvas.root, encoding="unicode", xml_declaration=False)
    for i, piece in enumerate(canvas._placed):
        text = text.replace(f'<piece n="{i}" />', piece, 1)
    return text


@pytest.mark.slow
def test_the_svg_writer_writes_elementtree_s_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every picture and tile of both games (English and German, several positions and
    viewers, the site's shared pieces too) is the text ElementTree wrote."""
    from referee import i18n
    from referee.pictures import Pieces, svg
    from referee.pictures import tiles as tilesmod

    compared: list[int] = []
    finish = svg.Canvas.finish

    def both(self: svg.Canvas, height: float) -> str:
        ours = finish(self, height)
        assert ours == _elementtree_text(self)
        compared.append(1)
        return ours

    monkeypatch.setattr(svg.Canvas, "finish", both)
    monkeypatch.setattr(tilesmod, "_DRAWN", type(tilesmod._DRAWN)())
    for example in ("staufer-3p", "dynasties-3p", "staufer-5p", "dynasties-5p"):
        gf = gamefile.read(EXAMPLES / f"{example}.json")
        pieces = Pieces()

        def each(i: int, match: Match, pieces: Pieces = pieces) -> None:
            if i % 9:
                return
            for lang in ("en", "de"):
                with i18n.language(lang):
                    for viewer in [None, *match.players[:2]]:
                        view = dict(match.game.view(match.state, viewer))
                        tilesmod.tiles(view)
                        draw_svg(view)
                        draw_svg(view, pieces=pieces)

        replay.replay(gf, on_entry=each)
    assert len(compared) > 900  # (946 pictures and tiles)


def test_the_svg_writer_escapes_as_elementtree_does() -> None:
    from referee.pictures.svg import write_xml

    root = ET.Element("svg", {"a": 'x & y < z > "q"\n\t\r', "b": "plain"})
    ET.SubElement(root, "text", {"x": "1"}).text = "Fish & <chips> \"'\n"
    ET.SubElement(root, "g").tail = "after & <"
    title = ET.SubElement(ET.SubElement(root, "g", {"id": "é ♛"}), "title")
    title.text = "Straßburg"
    out: list[str] = []
    write_xml(root, out)
    assert "".join(out) == ET.tostring(root, encoding="unicode")
    assert "".join(out) == (
        '<svg a="x &amp; y &lt; z &gt; &quot;q&quot;&#10;&#09;&#13;" b="plain">'
        '<text x="1">Fish &amp; &lt;chips&gt; "\'\n</text><g />after &amp; &lt;'
        '<g id="é ♛"><title>Straßburg</title></g></svg>')
