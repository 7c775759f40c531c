"""Hostile input around bot seats (property tests): arbitrary `bot:` specs in --players
and arbitrary `bot` records and header bot fields in a game file. Every command ends
with exit 0, 1 or 2 and one message, never a traceback; a refused `new` writes nothing
and a refused read changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.ledger import gamefile, replay
from tests.conftest import run
from tests.support.games import new_game

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

WORDS = st.sampled_from(["bot:", "bot:cat", "=", ":", "mcts", "greedy", "random", "wizard",
                         "0", "7", "100001", "-1", "cat", "Cat", "gm", ",", " ", "é",
                         "\u202e", "\n", "=mcts:", "bot:bot:", "ann"])


def one_message(result: Any) -> None:
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    if result.exit_code:
        assert result.output.startswith("error: "), result.output


@SETTINGS
@given(st.lists(WORDS, min_size=1, max_size=6).map("".join))
def test_arbitrary_bot_specs_in_players(tmp_path_factory: Any, tail: str) -> None:
    folder = tmp_path_factory.mktemp("spec")
    path = folder / "g.json"
    result = run("new", "staufer", path, "--players", f"ann,ben,{tail}", "--seed", "h")
    one_message(result)
    assert path.exists() == (result.exit_code == 0)
    if result.exit_code == 0:
        gf = gamefile.read(path)
        assert replay.replay(gf) is not None


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 200_000),
                   st.sampled_from(["mcts", "greedy", "random", "wizard", "", "ann", "ben",
                                    "gm", "zed"]),
                   st.lists(st.integers(0, 3), max_size=2), st.dictionaries(
                       st.sampled_from(["level", "x"]), st.sampled_from(["mcts", 1]),
                       max_size=2))


def base_game(folder: Path) -> Path:
    return new_game(folder / "g.json", "staufer", players="ann,ben,cat", seed="hostile")


@SETTINGS
@given(by=st.sampled_from(["gm", "ann", "ben"]),
       record=st.dictionaries(st.sampled_from(["player", "level", "iterations", "extra"]),
                              VALUES, max_size=4),
       header=st.one_of(st.none(), st.dictionaries(st.sampled_from(["level", "iterations",
                                                                    "think"]),
                                                   VALUES, max_size=3)))
def test_arbitrary_bot_records_and_header_fields(tmp_path_factory: Any, by: str,
                                                 record: dict[str, Any],
                                                 header: dict[str, Any] | None) -> None:
    path = base_game(tmp_path_factory.mktemp("rec"))
    data = json.loads(path.read_text())
    if header is not None:
        data["players"][1]["bot"] = header
    gamefile.append_raw(data, {"n": 1, "by": by, "meta": {"kind": "bot", **record}})
    path.write_text(gamefile.dumps(data))
    before = path.read_bytes()
    for args in (("status", path), ("log", path), ("move", path, "--as", "ann", "supply 2"),
                 ("bot", path), ("seat", path, "cat", "--bot", "random", "--as", "gm")):
        result = run(*args)
        one_message(result)
        if result.exit_code:
            assert path.read_bytes() == before
        before = path.read_bytes()
