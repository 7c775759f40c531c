"""Red team: what the write core now refuses, appended by hand (a player in git, who
holds the file and recomputes the hash chain) and read by `referee check`.

The write side bounds a player's meta records between two plays, a player's undos and
voids in a row, and refuses an undo of a bot seat's move (tests/play/test_write_attacks.py).
Every read makes the same checks (referee/ledger/replay.py), so a pull request that adds them by
hand fails `check` too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.ledger import gamefile
from referee.ledger.replay import MAX_PLAYER_RECORDS, MAX_TAKEBACKS
from tests.conftest import run
from tests.support.games import new_game

SUPPLY_2 = {"type": "supply", "space": 2, "chests": 0, "envoy": False, "draw": False}


def game(tmp_path: Path, *setup: tuple[str, ...]) -> Path:
    path = new_game(tmp_path / "g.json", "staufer", seed="red")
    for args in setup:
        result = run(*args[:1], path, *args[1:])
        assert result.exit_code == 0, result.output
    return path


def append_by_hand(path: Path, *entries: dict[str, Any]) -> None:
    """What a player can do with an editor: append entries with a right hash chain."""
    data = json.loads(path.read_text())
    for entry in entries:
        data["log"].append({"n": len(data["log"]) + 1, **entry,
                            "prev": gamefile.next_prev(data), "at": gamefile.now()})
    path.write_text(gamefile.dumps(data))


def test_the_write_side_refuses_what_is_appended_by_hand_here(tmp_path: Path) -> None:
    """The honest baseline of the xfails below: the same entries through the CLI are
    refused, and the file as it is before the hand edit passes `check`."""
    path = game(tmp_path, ("move", "--as", "ann", "supply 2"))
    for i in range(MAX_PLAYER_RECORDS):
        assert run("seat", path, "ann", *(("--bot", "random") if i % 2 == 0 else
                                           ("--human",)), "--as", "ann").exit_code == 0
    assert run("seat", path, "ann", "--bot", "random", "--as", "ann").exit_code != 0
    assert run("check", path).exit_code == 0


def test_check_refuses_a_flood_of_notify_records(tmp_path: Path) -> None:
    path = game(tmp_path, ("move", "--as", "ann", "supply 2"))
    modes = ("every", "turn")
    append_by_hand(path, *({"by": "ann", "meta": {"kind": "notify", "player": "ann",
                                                  "mode": modes[i % 2]}}
                           for i in range(MAX_PLAYER_RECORDS + 1)))
    result = run("check", path)
    assert result.exit_code == 1 and "records" in result.output


def test_check_refuses_a_move_undo_loop(tmp_path: Path) -> None:
    path = game(tmp_path)
    for _ in range(MAX_TAKEBACKS + 1):
        n = len(json.loads(path.read_text())["log"])
        append_by_hand(path, {"by": "ann", "move": SUPPLY_2}, {"by": "ann", "undo": n + 1})
    result = run("check", path)
    assert result.exit_code == 1 and "taken back" in result.output


def test_check_refuses_an_undo_of_a_bot_seats_move(tmp_path: Path) -> None:
    path = game(tmp_path, ("seat", "ben", "--bot", "random", "--as", "gm"),
                ("move", "--as", "ann", "supply 2"))
    last = json.loads(path.read_text())["log"][-1]
    assert last["by"] == "ben" and last["bot"] is True
    append_by_hand(path, {"by": "ben", "undo": last["n"]})
    result = run("check", path)
    assert result.exit_code == 1 and "bot" in result.output
