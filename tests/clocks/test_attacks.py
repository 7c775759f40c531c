"""Time nobody can forge (docs/clocks.md): the cheats on a clock, played through the CLI.

The game is set up as in a git repository: the secret is not beside the game file, so a
player appends without it (no MAC), and the referee (the CI job, `referee tick`) holds it
in REFEREE_SECRET_FILE. A player writing a timeout, a stamp or a time control, a player
backdating ``at``, granting themselves vacation beyond the allowance or for another, and
a game master writing a timeout without the secret (or a MAC'd one before the time ran
out) are all refused by `check` with the secret, or gain nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.clocks import clock
from referee.ledger import gamefile, secret, vouch
from tests.conftest import ok, run
from tests.support.games import new_game

DAY, HOUR = clock.DAY, clock.HOUR
T0 = "2026-12-01T09:00:00Z"


class Game:
    """A clocked sealed game whose secret only the referee holds."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 pace: str = "1d+12h/2d", vacation: int = 1) -> None:
        self.mp = monkeypatch
        self.dir = tmp_path / "games"
        self.dir.mkdir()
        self.path = self.dir / "g.json"
        self.secret = tmp_path / "ci" / "g.secret"
        self.secret.parent.mkdir()
        monkeypatch.setenv("REFEREE_NOW", T0)
        new_game(self.path, "staufer", "--sealed", "--secret-out", self.secret, "--clock", pace,
                 "--vacation", str(vacation), players="ann,ben")

    def player(self, when: str, *args: str) -> Any:
        """A player's command, without the secret, at ``when``."""
        self.mp.setenv("REFEREE_NOW", when)
        self.mp.delenv("REFEREE_SECRET_FILE", raising=False)
        return run(*args)

    def referee(self, when: str, *args: str) -> Any:
        """The referee's command (CI with the secret) at ``when``."""
        self.mp.setenv("REFEREE_NOW", when)
        self.mp.setenv("REFEREE_SECRET_FILE", str(self.secret))
        return run(*args)

    def seed(self) -> str:
        found = secret.read_secret(self.secret, gamefile.read(self.path).game_id)
        assert found is not None
        return found

    def append(self, entry: dict[str, Any], *, mac: bool = False,
               at: str | None = None) -> None:
        """Append ``entry`` by hand with the hash chain recomputed (what anyone holding
        the file can do), with the referee's MAC only if ``mac`` (a referee gone wrong)."""
        data = json.loads(self.path.read_text())
        gamefile.append_raw(data, {"n": len(data["log"]) + 1, **entry})
        if at is not None:
            data["log"][-1]["at"] = at
        if mac:
            data["log"][-1]["mac"] = vouch.entry_mac(self.seed(), data["log"][-1])
        self.path.write_text(gamefile.dumps(data))

    def check(self, when: str = "2026-12-10T00:00:00Z") -> Any:
        return self.referee(when, "check", self.path)

    def banks(self, when: str) -> dict[str, int]:
        rep = json.loads(self.referee(when, "clock", self.path, "--json").output)
        return {p: r["bank"] for p, r in rep["seats"].items()}


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Game:
    return Game(tmp_path, monkeypatch)


def refused(result: Any, why: str) -> None:
    assert result.exit_code == 1, result.output
    assert why in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("kind", [{"kind": "timeout", "player": "ben"},
                                  {"kind": "stamp"},
                                  {"kind": "clock", "control": None}])
def test_a_player_cannot_write_a_timeout_a_stamp_or_a_time_control(
        game: Game, kind: dict[str, Any]) -> None:
    game.append({"by": "ann", "meta": kind})
    refused(game.check(), "only the game master may write it")


def test_a_players_move_counts_when_the_referee_saw_it_not_at_its_own_at(
        game: Game) -> None:
    """ann moves at 15:00 but writes 09:05 into her entry; the referee's tick sees it at
    21:00: her clock ran until 21:00."""
    moved = game.player("2026-12-01T09:05:00Z", "move", game.path, "--as", "ann",
                        "supply", "2", "--unchecked")
    assert moved.exit_code == 0, moved.output
    assert "mac" not in gamefile.read(game.path).log[-1]
    assert "stamped at entry 2" in game.referee("2026-12-01T21:00:00Z", "tick",
                                                game.dir).output
    assert game.banks("2026-12-01T21:00:00Z") == {"ann": DAY - 12 * HOUR + 12 * HOUR,
                                                  "ben": DAY}
    assert game.check().exit_code == 0


def test_editing_at_by_hand_gains_nothing_and_a_vouched_at_cannot_be_edited(
        game: Game) -> None:
    game.player("2026-12-01T12:00:00Z", "move", game.path, "--as", "ann", "supply", "2",
                "--unchecked")
    data = json.loads(game.path.read_text())
    data["log"][-1]["at"] = "2026-12-01T09:00:01Z"  # the last entry: no chain to redo
    game.path.write_text(gamefile.dumps(data))
    ok_tick = game.referee("2026-12-01T20:00:00Z", "tick", game.dir)
    assert ok_tick.exit_code == 0, ok_tick.output
    assert game.banks("2026-12-01T20:00:00Z")["ann"] == DAY + HOUR  # 24 - 11 + 12 h
    data = json.loads(game.path.read_text())
    data["log"][-1]["at"] = "2026-12-01T09:00:02Z"  # the stamp's own (MAC'd) time
    game.path.write_text(gamefile.dumps(data))
    refused(game.check(), "the referee's MAC does not match")


def test_a_player_cannot_grant_themselves_vacation(game: Game) -> None:
    before = game.path.read_bytes()
    asked = game.player(T0, "vacation", game.path, "2", "--as", "ann")
    assert asked.exit_code == 2 and "1 vacation day(s) left, not 2" in asked.output
    assert game.path.read_bytes() == before
    game.append({"by": "ann", "meta": {"kind": "vacation", "player": "ann", "days": 2}})
    refused(game.check(), "asks for 2 vacation day(s) and has 1 left")


def test_vacation_days_used_automatically_are_gone(game: Game) -> None:
    """ann's bank (1 d) runs out at 09:00 on the 2nd and her one vacation day is used at
    once; her vacation record, seen by the referee only at 12:00, grants nothing more."""
    game.player("2026-12-01T10:00:00Z", "vacation", game.path, "1", "--as", "ann")
    tick = game.referee("2026-12-02T12:00:00Z", "tick", game.dir)
    assert "stamped at entry 2" in tick.output, tick.output
    rep = json.loads(game.referee("2026-12-02T12:00:00Z", "clock", game.path,
                                  "--json").output)
    assert rep["seats"]["ann"]["times_out"] == "2026-12-03T09:00:00Z"
    assert game.check().exit_code == 0
    second = game.player("2026-12-02T12:00:00Z", "vacation", game.path, "1", "--as", "ann")
    assert second.exit_code == 2 and "0 vacation day(s) left" in second.output


def test_a_player_cannot_take_vacation_for_another(game: Game) -> None:
    game.append({"by": "ann", "meta": {"kind": "vacation", "player": "ben", "days": 1}})
    refused(game.check(), "only the game master may write it")


def test_a_game_master_without_the_secret_cannot_time_a_player_out(game: Game) -> None:
    no_secret = game.player("2026-12-05T00:00:00Z", "tick", game.dir)
    assert no_secret.exit_code == 1 and "no secret" in no_secret.output
    game.append({"by": "gm", "meta": {"kind": "timeout", "player": "ann"}})
    refused(game.check(), "a game master's entry without the referee's MAC")


def test_a_timeout_before_the_time_ran_out_is_refused_even_with_a_mac(game: Game) -> None:
    """ann has 1 d of bank and 1 vacation day: out of time at 09:00 on 3 December. A
    MAC'd timeout at 12:00 on the 2nd (a referee gone wrong) does not stand."""
    game.mp.setenv("REFEREE_NOW", "2026-12-02T12:00:00Z")
    game.append({"by": "gm", "meta": {"kind": "timeout", "player": "ann"}}, mac=True)
    refused(game.check(), "their time runs out only at 2026-12-03 09:00 UTC")


def test_a_timeout_of_a_player_not_awaited_is_refused(game: Game) -> None:
    game.mp.setenv("REFEREE_NOW", "2026-12-05T12:00:00Z")
    game.append({"by": "gm", "meta": {"kind": "timeout", "player": "ben"}}, mac=True)
    refused(game.check(), "a timeout of ben, who was not awaited")


def test_a_stamp_that_vouches_for_nothing_is_refused(game: Game) -> None:
    game.player("2026-12-01T10:00:00Z", "move", game.path, "--as", "ann", "supply", "2",
                "--unchecked")
    game.referee("2026-12-01T11:00:00Z", "tick", game.dir)
    game.mp.setenv("REFEREE_NOW", "2026-12-01T12:00:00Z")
    game.append({"by": "gm", "meta": {"kind": "stamp"}}, mac=True)
    refused(game.check(), "a stamp that vouches for nothing new")


def test_an_open_game_cannot_carry_a_clock(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "open.json"
    new_game(path, "staufer", players="ann,ben")
    data = json.loads(path.read_text())
    data["clock"] = clock.control("1d")
    data["log"] = []
    path.write_text(gamefile.dumps(data))
    refused(run("check", path), "a time control needs a sealed game")


def test_a_move_and_its_undo_earn_no_increment(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A player who moves and takes it back, again and again, to refill her bank with
    the increment gains nothing: her turn never ended."""
    monkeypatch.setenv("REFEREE_NOW", T0)
    path = tmp_path / "u.json"
    new_game(path, "staufer", "--sealed", "--clock", "1d+12h/2d", players="ann,ben")
    for hour in range(1, 4):
        monkeypatch.setenv("REFEREE_NOW", f"2026-12-01T{9 + hour:02d}:00:00Z")
        ok("move", path, "--as", "ann", "supply", "2")
        ok("undo", path, "--as", "ann")
    rep = json.loads(ok("clock", path, "--json").output)
    assert rep["seats"]["ann"]["bank"] == DAY - 3 * HOUR and rep["seats"]["ann"]["awaited"]
    assert ok("check", path).exit_code == 0


def test_a_hand_made_time_control_out_of_bounds_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "g.json"
    monkeypatch.setenv("REFEREE_NOW", T0)
    new_game(path, "staufer", "--sealed", "--clock", "1d", players="ann,ben")
    clean = json.loads(path.read_text())
    for change, why in (({"cap": 60}, "the cap (60 s) is less than the bank"),
                        ({"bank": 10}, "$.clock.bank"),
                        ({"vacation": 9999}, "$.clock.vacation"),
                        ({"timeout": "ignore"}, "$.clock.timeout"),
                        ({"extra": 1}, "$.clock")):
        data = json.loads(json.dumps(clean))
        data["clock"].update(change)
        path.write_text(gamefile.dumps(data))
        refused(run("check", path), why)


def test_a_late_move_is_refused_and_no_write_of_the_referee_vouches_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ann's bank (1 d, no vacation) runs out at 09:00 on 2 December; at 10:00 she
    appends a move without the secret (her entry says 10:00). `check` refuses it; and a
    write with the referee's MAC would vouch for it at the write's time, so every such
    write is refused until it is gone: a stamp, a game master's time control or seat."""
    game = Game(tmp_path, monkeypatch, vacation=0)
    moved = game.player("2026-12-02T10:00:00Z", "move", game.path, "--as", "ann", "supply",
                        "2", "--unchecked")
    assert moved.exit_code == 0, moved.output  # (no secret: nothing to judge it with)
    late = "entry 1: ann's move came after their time ran out at 2026-12-02 09:00 UTC"
    refused(game.check(), late)
    before = game.path.read_bytes()
    for args in (("tick", game.dir), ("clock", game.path, "--set", "2d", "--as", "gm"),
                 ("seat", game.path, "ben", "--bot", "random", "--as", "gm")):
        refused(game.referee("2026-12-02T11:00:00Z", *args), late)
        assert game.path.read_bytes() == before, args


def test_a_turn_that_began_at_a_pending_entry_gets_the_benefit_of_the_doubt(
        game: Game) -> None:
    """ann moves at 09:30 and nobody stamps it; ben answers the next day at 12:00. Had
    ben's turn begun at 09:30, his day would have run out, but no vouched time says when
    it began: his move stands, and the stamp vouches for both at once."""
    game.player("2026-12-01T09:30:00Z", "move", game.path, "--as", "ann", "supply", "2",
                "--unchecked")
    legal = json.loads(game.referee(T0, "status", game.path, "--as", "ben",
                                    "--json").output)["legal"]
    game.player("2026-12-02T12:00:00Z", "move", game.path, "--as", "ben", legal[0],
                "--unchecked")
    assert game.check().exit_code == 0
    assert "stamped at entry 3" in game.referee("2026-12-02T12:05:00Z", "tick",
                                                game.dir).output
    assert game.check().exit_code == 0


def test_a_late_move_marked_as_a_bots_is_still_late(game_without_vacation: Game) -> None:
    """ann's pending move after her time ran out, written by hand with the ``bot`` field
    of the referee's stand-ins: a pending entry's fields are its author's word, and
    exempt nothing from the clock. (A planned move must follow the move that raised its
    decision, with an older plan: the replay holds that.)"""
    game = game_without_vacation
    gf = gamefile.read(game.path)
    move = gf.game.parse_move("supply 2", [])
    game.mp.setenv("REFEREE_NOW", "2026-12-02T10:00:00Z")
    game.append({**gamefile.move_entry(gf.data, "ann", move), "bot": True})
    refused(game.check(), "entry 1: ann's move came after their time ran out at "
            "2026-12-02 09:00 UTC")


@pytest.fixture
def game_without_vacation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Game:
    return Game(tmp_path, monkeypatch, vacation=0)
