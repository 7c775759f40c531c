"""Time banks (referee/clocks/clock.py): the arithmetic, whole games of both games with an
injected clock (REFEREE_NOW), and the commands new --clock, clock, vacation, status."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.clocks import clock, clockview
from referee.engine import get_game
from referee.errors import UsageError
from referee.ledger import gamefile, replay, secret
from referee.play import submit
from tests.conftest import ok, require_module, run
from tests.support import games

DAY, HOUR = clock.DAY, clock.HOUR
T0 = "2026-12-01T09:00:00Z"  # a Tuesday


def at(t: int) -> str:
    return clock.utc_json(t)


# --- the arithmetic ------------------------------------------------------------------


def test_pace_and_durations_parse_and_refuse() -> None:
    assert clock.parse_pace("3d+12h/5d") == (3 * DAY, 12 * HOUR, 5 * DAY)
    assert clock.parse_pace("2d") == (2 * DAY, 0, 2 * DAY)
    assert clock.parse_duration("1d12h") == 36 * HOUR
    for bad in ("", "3x", "3d+", "2d/1d", "30s", "0m", "400d", "3d+12h/5d/6d"):
        with pytest.raises(UsageError):
            clock.parse_pace(bad)
    assert clock.parse_timeout("bot:mcts") == ("bot", "mcts")
    assert clock.parse_timeout("forfeit") == ("forfeit", "greedy")
    assert clock.parse_timeout("gm") == ("gm", None)
    with pytest.raises(UsageError):
        clock.parse_timeout("bot:genius")
    assert clock.format_duration(2 * DAY + 3 * HOUR + 59) == "2d 3h"
    assert clock.format_duration(4 * HOUR + 20 * 60) == "4h 20m"


def test_weekends_and_vacations_are_not_charged() -> None:
    friday_noon = clock.seconds("2026-12-04T12:00:00Z")
    assert clock.charged(friday_noon, friday_noon + 3 * DAY) == 3 * DAY
    # Friday 12:00 to Monday 12:00: only Friday afternoon and Monday morning count
    assert clock.charged(friday_noon, friday_noon + 3 * DAY, True) == DAY
    assert clock.run_out(friday_noon, DAY, True) == clock.seconds("2026-12-07T12:00:00Z")
    holiday = [(friday_noon + HOUR, friday_noon + 2 * HOUR)]
    assert clock.charged(friday_noon, friday_noon + 3 * HOUR, False, holiday) == 2 * HOUR
    # a vacation over a weekend is not counted twice
    both = [(friday_noon, friday_noon + 4 * DAY)]
    assert clock.charged(friday_noon, friday_noon + 5 * DAY, True, both) == DAY
    saturday = clock.seconds("2026-12-05T08:00:00Z")
    assert clock.run_out(saturday, 0, True) == clock.seconds("2026-12-07T00:00:00Z")


def test_a_turn_adds_the_increment_up_to_the_cap_and_vacation_comes_before_a_timeout(
        ) -> None:
    ctl = clock.control("1d+12h/30h", vacation=2)
    t0 = clock.seconds(T0)
    events = [clock.Event(1, t0 + 2 * HOUR, "ann", None, ("ben",), True)]
    clocks = clock.fold(ctl, ["ann", "ben"], t0, ("ann",), set(), events)
    assert clocks.seats["ann"].bank == 30 * HOUR  # 24 h - 2 h + 12 h = 34 h, capped at 30
    # ben: 1 day of bank, then 2 vacation days used automatically, then out of time
    assert clocks.due("ben") == t0 + 2 * HOUR + 3 * DAY
    clocks.advance(t0 + 2 * HOUR + DAY + HOUR)
    assert clocks.seats["ben"].bank == 0 and clocks.seats["ben"].vacation_left == 1
    timeout = clock.Event(2, t0 + 2 * HOUR + 3 * DAY, "gm",
                          {"kind": "timeout", "player": "ben"}, ("ben",), True)
    early = clock.Event(2, t0 + 3 * DAY, "gm", {"kind": "timeout", "player": "ben"},
                        ("ben",), True)
    with pytest.raises(clock.ClockError, match="runs out only at"):
        clock.fold(ctl, ["ann", "ben"], t0, ("ann",), set(), [*events, early])
    done = clock.fold(ctl, ["ann", "ben"], t0, ("ann",), set(), [*events, timeout])
    assert done.seats["ben"].timed_out and done.seats["ben"].timeouts == 1


# --- whole games, through the library and an injected clock -------------------------


def play_whole_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                    players: list[str], pace: str, seed: int) -> None:
    """Play a whole game with random legal moves, each after a random delay on the
    injected clock; keep an independent account of each seat's bank (charged while
    awaited, the increment when its turn ends, capped) and hold the referee's clocks
    equal to it at points along the way and at the end."""
    path = tmp_path / f"{name}.json"
    monkeypatch.setenv("REFEREE_NOW", T0)
    games.new_game(path, name, "--sealed", "--clock", pace, players=",".join(players))
    bank, increment, cap = clock.parse_pace(pace)
    mine = dict.fromkeys(players, bank)
    rnd = random.Random(seed)
    t = clock.seconds(T0)
    gf = gamefile.read(path)
    seed_text = secret.find_seed(gf, None, path)
    assert seed_text is not None
    match = replay.replay(gf, seed_text)
    game = get_game(name)
    steps = 0
    while not game.finished(match.state):
        awaited = list(game.to_move(match.state))
        delay = rnd.randrange(0, 5 * HOUR)
        t += delay
        for p in awaited:
            mine[p] -= delay
        mover = awaited[0]
        move = rnd.choice(game.legal_moves(match.state, mover))
        monkeypatch.setenv("REFEREE_NOW", at(t))
        done = submit.submit(path, mover, [game.format_move(move)])
        assert done.match is not None
        match = done.match
        now_awaited = [] if game.finished(match.state) else game.to_move(match.state)
        for p in awaited:
            if p not in now_awaited:
                mine[p] = min(cap, mine[p] + increment)
        steps += 1
        if steps % 40 == 0:
            assert_banks(path, seed_text, t, mine)
    assert steps > 20
    assert_banks(path, seed_text, t, mine)
    report = json.loads(ok("clock", path, "--json").output)
    assert {p: r["bank"] for p, r in report["seats"].items()} == mine
    assert ok("check", path).exit_code == 0


def assert_banks(path: Path, seed: str, t: int, expected: dict[str, int]) -> None:
    clocks = clock.timeline(gamefile.read(path), seed).clocks(t)
    assert {p: s.bank for p, s in clocks.seats.items()} == expected


@pytest.mark.parametrize("players", [["ann", "ben"], ["ann", "ben", "cat", "dan"]])
def test_whole_staufer_games_keep_the_banks_an_independent_account_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: list[str]) -> None:
    play_whole_game(tmp_path, monkeypatch, "staufer", players, "3d+4h/4d", len(players))


@pytest.mark.parametrize("players", [["ann", "ben", "cat"]])
def test_whole_dynasties_games_keep_the_banks_an_independent_account_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: list[str]) -> None:
    play_whole_game(tmp_path, monkeypatch, "dynasties", players, "2d+6h/3d", 7)


# --- the commands ----------------------------------------------------------------------


def new_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Path:
    monkeypatch.setenv("REFEREE_NOW", T0)
    path = tmp_path / "g.json"
    games.new_game(path, "staufer", "--sealed", *extra, players="ann,ben")
    return path


def test_new_records_the_time_control_and_refuses_bad_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "2d+1d/5d", "--vacation", "7",
                    "--pause", "weekends", "--timeout", "bot:greedy")
    assert gamefile.read(path).data["clock"] == {
        "bank": 2 * DAY, "increment": DAY, "cap": 5 * DAY, "vacation": 7,
        "pause": "weekends", "timeout": "bot", "level": "greedy"}
    for bad, why in ((["--clock", "2d/1d"], "less than the bank"),
                     (["--clock", "1y"], "not a duration"),
                     (["--clock", "1d", "--timeout", "bot:genius"], "unknown bot level"),
                     (["--clock", "1d", "--vacation", "400"], "0-365"),
                     (["--vacation", "3"], "go with --clock")):
        other = tmp_path / "bad.json"
        result = run("new", "staufer", other, "--players", "ann,ben", "--sealed", *bad)
        assert result.exit_code == 2 and why in result.output, result.output
        assert "Traceback" not in result.output and not other.exists()
    result = run("new", "staufer", tmp_path / "open.json", "--players", "ann,ben",
                 "--clock", "1d")
    assert result.exit_code == 2 and "--clock needs --sealed" in result.output


def test_clock_status_and_vacation_show_what_everyone_sees(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "1d+12h/2d", "--vacation", "3")
    out = ok("clock", path).output
    assert "1d +12h a turn, at most 2d; 3 vacation days" in out
    assert "ann          bank 1d, vacation 3d, awaited: times out 2026-12-05 09:00 UTC" \
        in out
    assert "clock: ann 4d left (times out 2026-12-05 09:00 UTC); banks ann 1d, ben 1d" \
        in ok("status", path).output
    monkeypatch.setenv("REFEREE_NOW", "2026-12-01T15:00:00Z")
    ok("move", path, "--as", "ann", "supply", "2")
    taken = ok("vacation", path, "2", "--as", "ben").output
    assert "ben takes 2 vacation day(s)" in taken
    monkeypatch.setenv("REFEREE_NOW", "2026-12-02T15:00:00Z")
    rep = json.loads(ok("clock", path, "--json").output)
    ben = rep["seats"]["ben"]
    assert ben["bank"] == DAY and ben["vacation_left"] == 1  # no time ran on vacation
    assert ben["on_vacation_until"] == "2026-12-03T15:00:00Z"
    assert ben["times_out"] == "2026-12-05T15:00:00Z"  # 1 d bank + 1 vacation day after
    assert rep["seats"]["ann"]["bank"] == DAY + 6 * HOUR
    status = json.loads(ok("status", path, "--json").output)
    assert status["clock"]["seats"]["ben"]["left"] == 3 * DAY
    too_many = run("vacation", path, "2", "--as", "ben")
    assert too_many.exit_code == 1 and "1 left" in too_many.output
    before = path.read_bytes()
    for bad in (["vacation", path, "0", "--as", "ben"],
                ["vacation", path, "1", "--as", "zed"]):
        result = run(*bad)
        assert result.exit_code == 2 and "Traceback" not in result.output
    assert path.read_bytes() == before


def test_a_game_without_a_clock_has_no_vacation_and_shows_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch)
    assert ok("clock", path).output.strip() == "clock: none"
    result = run("vacation", path, "1", "--as", "ann")
    assert result.exit_code == 2 and "no clock" in result.output
    assert "clock:" not in ok("status", path).output


def test_the_game_master_changes_the_time_control_and_banks_carry_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "2d+1d/5d")
    monkeypatch.setenv("REFEREE_NOW", "2026-12-01T21:00:00Z")
    ok("move", path, "--as", "ann", "supply", "2")
    refused = run("clock", path, "--set", "1d")
    assert refused.exit_code == 2 and "--as gm" in refused.output
    out = ok("clock", path, "--set", "1d+2h/1d", "--vacation", "1", "--as", "gm").output
    assert "1d +2h a turn, at most 1d; 1 vacation day" in out
    rep = json.loads(ok("clock", path, "--json").output)
    assert rep["seats"]["ann"]["bank"] == DAY  # 2d - 12h + 1d, within the new cap of 1d
    assert rep["seats"]["ben"]["vacation_left"] == 1
    assert gamefile.read(path).log[-1]["meta"]["kind"] == "clock"
    assert "mac" in gamefile.read(path).log[-1]
    ok("clock", path, "--off", "--as", "gm")
    assert ok("clock", path).output.strip() == "clock: none"
    assert ok("check", path).exit_code == 0


def test_tick_times_out_an_empty_bank_and_a_bot_plays_the_owed_decisions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "1d+12h/2d", "--vacation", "1",
                    "--timeout", "bot:random")
    monkeypatch.setenv("REFEREE_NOW", "2026-12-02T09:00:00Z")
    assert "nothing due" in ok("tick", tmp_path).output  # ann on her vacation day
    monkeypatch.setenv("REFEREE_NOW", "2026-12-03T09:00:00Z")
    out = ok("tick", tmp_path, "--out", tmp_path / "views").output
    assert "timeout ann (bot)" in out and "bot move" in out
    log = gamefile.read(path).log
    assert log[0]["meta"] == {"kind": "timeout", "player": "ann"} and "mac" in log[0]
    assert all(e.get("bot") is True for e in log[1:] if e["by"] == "ann")
    view = (tmp_path / "views" / "g.clock.txt").read_text()
    assert "ann          bank 12h, vacation 0d" in view
    assert json.loads((tmp_path / "views" / "g.clock.json").read_text())["seats"]["ann"][
        "timeouts"] == 1
    assert "nothing due" in ok("tick", tmp_path).output  # once a turn
    assert ok("check", path).exit_code == 0


def test_forfeit_hands_the_seat_to_a_bot_for_good_and_gm_is_only_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "1h", "--timeout", "forfeit")
    monkeypatch.setenv("REFEREE_NOW", "2026-12-01T10:00:00Z")
    ok("tick", tmp_path)
    log = gamefile.read(path).log
    assert [e["meta"]["kind"] for e in log[:2]] == ["timeout", "bot"]
    rep = json.loads(ok("clock", path, "--json").output)
    assert rep["seats"]["ann"]["forfeited"] and rep["seats"]["ann"]["bot"]
    assert "forfeited (ranks last)" in ok("clock", path).output
    gm_path = tmp_path / "gm" / "g.json"
    gm_path.parent.mkdir()
    monkeypatch.setenv("REFEREE_NOW", T0)
    games.new_game(gm_path, "staufer", "--sealed", "--clock", "1h", players="ann,ben")
    monkeypatch.setenv("REFEREE_NOW", "2026-12-01T10:00:00Z")
    assert "timeout ann (gm)" in ok("tick", gm_path.parent).output
    assert len(gamefile.read(gm_path).log) == 1  # the game master decides what follows
    assert "OUT OF TIME" in ok("clock", gm_path).output


def test_pending_says_when_the_awaited_seat_times_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = new_game(tmp_path, monkeypatch, "--clock", "1d", "--vacation", "1")
    out = ok("pending", tmp_path).output
    assert "clock: ann times out 2026-12-03T09:00:00Z" in out
    from referee.ledger import replay

    def no_replay(*args: object, **kwargs: object) -> None:
        raise AssertionError("replayed although cached")

    monkeypatch.setattr(replay, "replay", no_replay)  # a row with a clock is cached too
    assert ok("pending", tmp_path).output == out
    rows = json.loads(ok("pending", path, "--json").output)
    assert rows[0]["times_out"] == {"ann": "2026-12-03T09:00:00Z"}


def test_a_seat_that_forfeits_ranks_last_once_the_game_is_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert clockview.ranked([["ann"], ["ben", "cat"], ["dan"]], ["ann", "cat"]) == [
        ["ben"], ["dan"], ["ann", "cat"]]
    path = new_game(tmp_path, monkeypatch, "--clock", "1h", "--timeout", "forfeit:random")
    monkeypatch.setenv("REFEREE_NOW", "2026-12-01T10:00:00Z")
    ok("tick", tmp_path)  # ann forfeits: a bot plays her seat from now on
    gf = gamefile.read(path)
    seed = secret.find_seed(gf, None, path)
    assert seed is not None
    match = replay.replay(gf, seed)
    rnd = random.Random(3)
    game = match.game
    while not game.finished(match.state):
        mover = game.to_move(match.state)[0]
        assert mover == "ben"  # ann's seat is the bot's: it moved on its own
        move = rnd.choice(game.legal_moves(match.state, mover))
        done = submit.submit(path, mover, [game.format_move(move)])
        submit.play_bots(path)
        match = replay.replay(gamefile.read(path), seed)
    own = game.ranking(match.state)
    status = json.loads(ok("status", path, "--json").output)
    assert status["ranking"] == clockview.ranked(own, ["ann"])
    assert status["ranking"][-1] == ["ann"]
    assert "ranking (a forfeit ranks last):" in ok("clock", path).output
    places = ", ".join(f"{i}. {' and '.join(p)}"
                       for i, p in enumerate(clockview.ranked(own, ["ann"]), start=1))
    assert f"ranking (a forfeit ranks last): {places}" in ok("status", path).output
    assert done.match is not None


def test_the_site_shows_the_clocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_module("jinja2")
    path = new_game(tmp_path, monkeypatch, "--clock", "1d", "--vacation", "1")
    ok("site", path.parent, "-o", tmp_path / "site")
    page = next((tmp_path / "site").glob("*/index.html")).read_text()
    assert "<h2>Clocks</h2>" in page
    assert "ann          bank 1d, vacation 1d, awaited: times out 2026-12-03 09:00 UTC" in page
