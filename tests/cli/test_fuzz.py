"""Property test through the CLI: whatever a game file or a move text holds, every
command ends with exit 0, 1 or 2, one message, no traceback, and the file unchanged on
failure.

Game files are valid ones of every registered game (found as the referee finds them,
the Nim plug-in installed: tests/conformance/registry.py; the toys, Staufer, Dynasties),
partway through a seeded random game, mutated three ways: byte flips; crafted move
objects (a field set to any JSON value, the hash chain recomputed so that the move
reaches decoding and replay); JSON edge cases spliced in (huge integers, deep nesting,
lone surrogates, NaN, duplicate keys, terminal escapes). Move texts are
the words of each game's notation (those of the legal moves met on the way to the base
file, and numbers past the edges) and arbitrary text.

CI runs the profile ``referee-ci`` (a few hundred inputs, well under a minute);
``HYPOTHESIS_PROFILE=referee-long`` runs thousands. The test prints how many inputs it
tried and how many reached the CLI's last line of defence ("internal error": a bug in a
game's code, reported without a traceback).
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import DrawFn

from referee.engine import get_game
from referee.ledger import gamefile, replay
from scripts import make_examples
from tests.conformance.registry import GAMES, plugin_on_path
from tests.conftest import run

settings.register_profile(
    "referee-ci", max_examples=250, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "referee-long", max_examples=3000, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "referee-ci")
                               if os.environ.get("HYPOTHESIS_PROFILE", "").startswith(
                                   "referee-") else "referee-ci")

STATS: Counter[str] = Counter()
PLACEHOLDER = "\u0000fuzz-placeholder\u0000"
EDGE_TOKENS = [
    "1" * 5000, "-" + "9" * 30, "18446744073709551616", "1.5", "1e400", "NaN", "-Infinity",
    '"\\ud800"', '"\\udc00x"', "[" * 5000 + "]" * 5000, '{"a": 1, "a": 2}',
    '"\\u001b]0;x\\u0007\\u001b[2J"', "null", "true", '""', "[]", "{}", "-1", "0",
    '"' + "x" * 100000 + '"',
]
EDGE_NUMBERS = ["0", "-1", "99", "99999999999999999999"]


@contextmanager
def fixed_clock() -> Iterator[None]:
    """REFEREE_NOW set while a base file is made (its times the same on every run)."""
    old = os.environ.get("REFEREE_NOW")
    os.environ["REFEREE_NOW"] = make_examples.CREATED
    try:
        yield
    finally:
        if old is None:
            del os.environ["REFEREE_NOW"]
        else:
            os.environ["REFEREE_NOW"] = old


def _base(name: str) -> tuple[dict[str, Any], list[str]]:
    """A valid game file of game ``name`` partway through (30 moves into a seeded random
    game, or half of a shorter one), and the words of its notation: every word of the
    legal moves met on the way, and numbers at and past the edges."""
    game = get_game(name)
    with fixed_clock():
        data = make_examples.play(name, make_examples.counts(game)[0], f"fuzz-{name}")
    data["log"] = data["log"][:min(30, len(data["log"]) // 2)]
    seen: set[str] = set(EDGE_NUMBERS)
    replay.replay(gamefile.GameFile(data, game), on_entry=lambda i, match: seen.update(
        word for p in game.to_move(match.state)
        for m in game.legal_moves(match.state, p) for word in game.format_move(m).split()))
    return data, sorted(seen)


BASES: dict[str, dict[str, Any]] = {}
WORDS: dict[str, list[str]] = {}
with plugin_on_path():  # every registered game, the Nim plug-in included
    for _name in GAMES:
        BASES[_name], WORDS[_name] = _base(_name)


@pytest.fixture(scope="module", autouse=True)
def plugin_installed() -> Iterator[Path]:
    """The plug-in's game found through its entry point while the module runs."""
    with plugin_on_path() as site:
        yield site


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
    st.integers(-3, 40), st.text(max_size=12),
    st.sampled_from([w for words in WORDS.values() for w in words]),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=8,
)


def rechain(data: dict[str, Any]) -> None:
    """Recompute every ``prev`` so that a crafted entry passes the hash chain."""
    prev = gamefile.header_hash(data)
    for entry in data["log"]:
        if isinstance(entry, dict):
            entry["prev"] = prev
            prev = gamefile.entry_hash(entry)


def like(value: Any) -> st.SearchStrategy[Any]:
    """Values of the same JSON type as ``value``: they pass decoding and reach replay."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(-5, 60) | st.integers(-(2**63), 2**63 - 1)
    if isinstance(value, str):
        return st.sampled_from([w for words in WORDS.values() for w in words]) | st.text(
            max_size=10)
    if isinstance(value, list):
        return st.lists(like(value[0]) if value else json_values, max_size=6)
    return json_values


@st.composite
def crafted_file(draw: DrawFn, data: dict[str, Any]) -> bytes:
    """A move object with one field set to another value of its type, to any JSON value,
    or replaced entirely; the hash chain is recomputed."""
    data = copy.deepcopy(data)
    moves = [e for e in data["log"] if "move" in e]
    if not moves:
        return gamefile.dumps(data).encode()
    entry = draw(st.sampled_from(moves))
    move = entry["move"]
    fields = [k for k in move if k != "type"]
    how = draw(st.sampled_from(["same type"] * 6 + ["any value"] * 3 + ["whole"]))
    if how == "same type" and fields:
        key = draw(st.sampled_from(fields))
        move[key] = draw(like(move[key]))
    elif how == "whole":
        entry["move"] = draw(st.dictionaries(st.text(max_size=6), json_values, max_size=4))
    else:
        key = draw(st.sampled_from([*move, "type", draw(st.text(max_size=6))]))
        move[key] = draw(json_values)
    rechain(data)
    STATS["crafted move objects"] += 1
    return gamefile.dumps(data).encode()


@st.composite
def edge_file(draw: DrawFn, data: dict[str, Any]) -> bytes:
    """A JSON edge case spliced in as some value of the file."""
    data = copy.deepcopy(data)
    where = draw(st.sampled_from(["move", "header", "entry"]))
    if where == "move" and data["log"]:
        draw(st.sampled_from(data["log"])).setdefault("move", {})["x"] = PLACEHOLDER
    elif where == "entry" and data["log"]:
        draw(st.sampled_from(data["log"]))["at"] = PLACEHOLDER
    else:
        data[draw(st.sampled_from(["id", "created", "rules", "options", "extra"]))] = PLACEHOLDER
    token = draw(st.sampled_from(EDGE_TOKENS))
    STATS["JSON edge cases"] += 1
    return gamefile.dumps(data).replace(json.dumps(PLACEHOLDER), token, 1).encode()


@st.composite
def flipped_file(draw: DrawFn, data: dict[str, Any]) -> bytes:
    raw = bytearray(gamefile.dumps(data).encode())
    for _ in range(draw(st.integers(1, 4))):
        raw[draw(st.integers(0, len(raw) - 1))] ^= draw(st.integers(1, 255))
    STATS["byte flips"] += 1
    return bytes(raw)


@st.composite
def game_file(draw: DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(sorted(BASES)))
    data = BASES[name]
    kind = draw(st.sampled_from([crafted_file, crafted_file, edge_file, flipped_file]))
    return name, draw(kind(data))


@st.composite
def move_text(draw: DrawFn, name: str) -> str:
    if draw(st.booleans()):
        return " ".join(draw(st.lists(st.sampled_from(WORDS[name]), min_size=1, max_size=6)))
    return draw(st.text(min_size=1, max_size=30))


def assert_clean(result: Result, args: tuple[object, ...], name: str) -> None:
    STATS["commands run"] += 1
    out = result.output
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, out)
    assert "Traceback" not in out, (args, out)
    if "internal error" in out:
        STATS[f"internal errors (last line of defence), {name}"] += 1
        INTERNAL.append(f"{name}: {out.splitlines()[0][:300]}")
        # Every game's code is ours to keep clean: an internal error fails the test
        # (REFEREE_FUZZ_LENIENT=1 only counts and prints them, to survey a new game).
        assert name != "toy" and os.environ.get("REFEREE_FUZZ_LENIENT"), (args, out)
    if result.exit_code == 0 or args[0] in ("check", "pending"):
        return
    lines = out.splitlines()
    assert len(lines) >= 1 and lines[0].startswith("error: "), (args, out)
    assert all(line.startswith("  ") or line == "closest legal moves:" for line in lines[1:]), (
        args, out)


INTERNAL: list[str] = []


@st.composite
def scenario(draw: DrawFn) -> tuple[str, bytes, list[str], str]:
    name, raw = draw(game_file())
    players = [p["id"] for p in BASES[name]["players"]]
    player = draw(st.sampled_from([*players, "nobody"]))
    command = draw(st.sampled_from(["status", "status-as", "log", "pending", "move", "undo"]))
    return name, raw, [command, player], draw(move_text(name))


def check_scenario(case: tuple[str, bytes, list[str], str]) -> None:
    name, raw, (command, player), text = case
    STATS["inputs"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.json"
        path.write_bytes(raw)
        assert_clean(run("check", path), ("check",), name)
        args: tuple[object, ...] = {
            "status": ("status", path),
            "status-as": ("status", path, "--as", player),
            "log": ("log", path),
            "pending": ("pending", tmp),
            "move": ("move", path, "--as", player, "--", text),
            "undo": ("undo", path, "--as", player),
        }[command]
        result = run(*args)
        assert_clean(result, args, name)
        if result.exit_code != 0 or command not in ("move", "undo"):
            assert path.read_bytes() == raw, args
        assert sorted(os.listdir(tmp)) == ["g.json"]


@st.composite
def text_case(draw: DrawFn) -> tuple[str, str, str]:
    name = draw(st.sampled_from(sorted(BASES)))
    players = [p["id"] for p in BASES[name]["players"]]
    return name, draw(move_text(name)), draw(st.sampled_from(players))


def check_text(case: tuple[str, str, str]) -> None:
    name, text, player = case
    STATS["move texts"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.json"
        raw = gamefile.dumps(BASES[name]).encode()
        path.write_bytes(raw)
        result = run("move", path, "--as", player, "--", text)
        assert_clean(result, ("move",), name)
        if result.exit_code != 0:
            assert path.read_bytes() == raw


def test_move_texts_on_valid_games() -> None:
    """Arbitrary move texts against the unmutated games: never a crash."""
    given(text_case())(settings(PROFILE, max_examples=max(20, PROFILE.max_examples // 3))(
        check_text))()


def test_mutated_game_files_never_crash_the_cli() -> None:
    settings(PROFILE)(given(scenario())(check_scenario))()
    print(f"\nfuzz: {dict(sorted(STATS.items()))}")
    for line in sorted(set(INTERNAL)):
        print(f"  {line}")
    assert STATS["inputs"] >= min(100, PROFILE.max_examples)
