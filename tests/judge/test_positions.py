"""The judge's kept positions (referee/judge/text.py, Positions): a "since your last
mail" timeline that starts from a kept position says exactly what one replayed from the
setup says, and a position is not used once the log before it differs."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from referee.judge import text
from referee.ledger import gamefile, replay, secret

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def prefix(gf: gamefile.GameFile, n: int) -> gamefile.GameFile:
    data = copy.deepcopy(gf.data)
    data["log"] = data["log"][:n]
    return gamefile.GameFile(data, gf.game)


@pytest.mark.parametrize("name", ["staufer-3p.json", "staufer-5p.json", "dynasties-3p.json",
                                  "dynasties-5p.json"])
def test_a_kept_position_tells_what_a_replay_tells(name: str) -> None:
    path = EXAMPLES / name
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    positions = text.Positions(per_game=200)
    for n in range(1, len(gf.log) + 1):  # as the judge after each change
        positions.keep(prefix(gf, n), replay.replay(gf, seed, upto=n))
    used = 0
    for later in (len(gf.log) // 2, len(gf.log)):
        now = prefix(gf, later)
        for since in range(1, later + 1, 3):
            start = positions.after(now, since)
            assert start is not None
            used += 1
            ours = text.Timeline(now, seed, since, start=start)
            assert ours.items == text.Timeline(now, seed, since).items
    assert used
    # the kept positions are copies: using one twice gives the same again
    again = text.Timeline(gf, seed, 1, start=positions.after(gf, 1))
    assert again.items == text.Timeline(gf, seed, 1).items


def test_a_position_of_another_log_is_not_used() -> None:
    path = EXAMPLES / "staufer-3p.json"
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    positions = text.Positions()
    positions.keep(prefix(gf, 5), replay.replay(gf, seed, upto=5))
    assert positions.after(prefix(gf, 9), 5) is not None
    edited = prefix(gf, 9)
    edited.log[4] = {**edited.log[4], "prev": "0" * 64}
    assert positions.after(edited, 5) is None
    struck = prefix(gf, 9)
    struck.log.append({"n": 10, "by": "gm", "void": 3})
    assert positions.after(struck, 5) is None
    assert positions.after(prefix(gf, 9), 6) is None  # never kept
    assert positions.after(prefix(gf, 4), 5) is None  # past the end of the log
