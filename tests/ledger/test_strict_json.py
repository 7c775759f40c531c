"""Strict JSON, safe ids, escaped output, and the msgspec canonical form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli.common import escape_text
from referee.errors import GameFileError
from referee.ledger import gamefile
from tests.conftest import run
from tests.support.games import new_game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = new_game(tmp_path / "g.json", "toy", seed="s1", game_id="g1")
    assert run("move", path, "--as", "ann", "take 1").exit_code == 0
    return path


def rejected(path: Path, command: str = "check") -> str:
    before = path.read_bytes()
    result = run(command, path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert path.read_bytes() == before
    return result.output


# --- JSON edge cases --------------------------------------------------------------------


def test_a_duplicate_log_key_is_refused_naming_key_and_path(game: Path) -> None:
    text = game.read_text().rstrip()
    game.write_text(text[:-1] + ', "log": []}\n')
    out = rejected(game)
    assert f"FAIL {game}: {game} breaks the schema: $: duplicate key 'log'" in out
    assert "duplicate key 'log'" in rejected(game, "status")


def test_a_duplicate_key_inside_a_move_is_refused(game: Path) -> None:
    game.write_text(game.read_text().replace('"n": 1}', '"n": 1, "n": 2}', 1))
    assert "$.log[0].move: duplicate key 'n'" in rejected(game)


@pytest.mark.parametrize(("number", "problem"), [
    ("1" * 5000, "$.log[0].move.n: an integer outside the signed 64-bit range"),
    ("9223372036854775808", "$.log[0].move.n: an integer outside the signed 64-bit range"),
    ("1.0", "$.log[0].move.n: a number with a fraction or exponent"),
    ("1e3", "$.log[0].move.n: a number with a fraction or exponent"),
])
def test_numbers_that_are_not_64_bit_integers_are_refused(
        game: Path, number: str, problem: str) -> None:
    game.write_text(game.read_text().replace('"n": 1}', f'"n": {number}}}', 1))
    assert problem in rejected(game)


@pytest.mark.parametrize(("payload", "problem"), [
    ("NaN", "is not valid JSON: JSON is malformed: invalid character at line"),
    ("Infinity", "is not valid JSON: JSON is malformed: invalid character at line"),
    ('"\\ud800"', "is not valid JSON"),
    ("[" * 100000 + "]" * 100000, "is not valid JSON: arrays or objects nested too deeply"),
])
def test_json_edge_cases_are_clean_errors(game: Path, payload: str, problem: str) -> None:
    game.write_text(game.read_text().replace('"n": 1}', f'"n": {payload}}}', 1))
    assert problem in rejected(game)


def test_not_utf8_is_refused(game: Path) -> None:
    game.write_bytes(game.read_bytes().replace(b'"ann"', b'"\xff"', 1))
    assert "is not valid JSON: invalid UTF-8 encoded string" in rejected(game)


# --- ids --------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../etc/x", ".hidden", "a" * 65, "a/b", "a b", "a\n"])
def test_new_refuses_an_unsafe_game_id(tmp_path: Path, bad: str) -> None:
    result = run("new", "toy", tmp_path / "g.json", "--players", "a,b", "--id", bad)
    assert result.exit_code == 2, result.output
    assert f"error: bad game id {bad!r}" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_file_with_an_unsafe_game_id_is_refused(game: Path) -> None:
    game.write_text(game.read_text().replace('"id": "g1"', '"id": "../x"'))
    assert "$.id: expected `str` matching regex" in rejected(game)


def test_player_ids_that_differ_by_a_line_break_cannot_coexist(game: Path) -> None:
    data = json.loads(game.read_text())
    data["players"].append({"id": "ann\n", "name": "x"})
    game.write_text(gamefile.dumps(data))
    assert "$.players[2].id: an id may not end with a line break" in rejected(game)


@pytest.mark.parametrize(("players", "message"), [
    ("Ann,ben", "bad player id 'Ann'"),
    ("ann,ANN", "bad player id 'ANN'"),
    ("ann=A\x1b[2Jnn,ben", "player ann: control characters in the name or address"),
])
def test_new_refuses_unsafe_player_ids_and_names(tmp_path: Path, players: str,
                                                 message: str) -> None:
    result = run("new", "toy", tmp_path / "g.json", "--players", players)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_upper_case_ids_get_a_hint(tmp_path: Path) -> None:
    result = run("new", "toy", tmp_path / "g.json", "--players", "Ann,ben")
    assert "ids are lower-case: use 'ann'" in result.output


def test_player_ids_are_nfc_normalised(tmp_path: Path) -> None:
    """A decomposed id is normalised first (then refused: ids are ASCII)."""
    result = run("new", "toy", tmp_path / "g.json", "--players", "jose\u0301,ben")
    assert "bad player id 'jos\u00e9'" in result.output


# --- escaped output ---------------------------------------------------------------------


def test_terminal_escapes_from_a_file_never_reach_the_terminal(game: Path) -> None:
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e\x9b"
    data = json.loads(game.read_text())
    # (an `at` must be an RFC 3339 time: tests/ledger/test_bounds.py)
    data["players"][0]["name"] = evil
    data["log"][0]["prev"] = gamefile.header_hash(data)  # a valid file, hash chain and all
    game.write_text(gamefile.dumps(data))
    for args in (["pending", game.parent], ["pending", game.parent, "--json"],
                 ["status", game], ["status", game, "--json"], ["log", game, "--json"],
                 ["check", game]):
        out = run(*args).output
        for c in "\x1b\x07\u202e\x9b":
            assert c not in out, (args, out)
    shown = run("git-textconv", game).output
    assert 'ann "\\u001b]0;pwned\\u0007\\u001b[2J\\u202e\\u009b"' in shown


def test_escape_text_keeps_ordinary_text() -> None:
    assert escape_text("café ☕ 😀 a\tb\nc") == "café ☕ 😀 a\tb\nc"
    assert escape_text("\U000e0001") == "\\udb40\\udc01"


# --- canonical(): msgspec gives exactly what json.dumps gave -----------------------------


def old_canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_canonical_equals_json_dumps_for_every_code_point() -> None:
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for i in range(0, len(chars), 4096):
        chunk = "".join(chars[i:i + 4096])
        obj = {chunk: [chunk, {c: c for c in chunk[:64]}]}
        assert gamefile.canonical(obj) == old_canonical(obj)


@pytest.mark.parametrize("value", [0, 1, -1, 2**31, -2**31 - 1, 2**63 - 1, -2**63, True,
                                   False, None, [], {}, "", [[{}]]])
def test_canonical_equals_json_dumps_for_scalars(value: object) -> None:
    assert gamefile.canonical({"v": value, "w": [value]}) == old_canonical(
        {"v": value, "w": [value]})


def test_canonical_equals_json_dumps_for_every_example() -> None:
    files = sorted((ROOT / "examples").glob("*.json"))
    assert len(files) >= 4
    for path in files:
        data = gamefile.parse(path.read_bytes()).data
        header = {k: v for k, v in data.items() if k != "log"}
        for obj in [header, data, *data["log"]]:
            assert gamefile.canonical(obj) == old_canonical(obj)


def test_parse_refuses_text_that_is_not_utf8() -> None:
    with pytest.raises(GameFileError, match="is not UTF-8 text"):
        gamefile.parse("\ud800")
