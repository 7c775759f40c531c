"""Bot seats through the CLI: a bot from the start, a seat handed to a bot and back,
bots that move by themselves and reproducibly, and the attacks on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from referee.ledger import gamefile, replay, seats
from referee.play.submit import play_bots
from tests.conftest import run
from tests.support.games import new_game_result


def new(path: Path, players: str, *extra: object, game: str = "staufer",
        seed: str = "bots-1") -> Result:
    return new_game_result(path, game, *extra, players=players, seed=seed)


def legal(path: Path, player: str) -> list[str]:
    result = run("status", path, "--as", player, "--json")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.output)["legal"])


def entries(path: Path) -> list[dict[str, object]]:
    return list(gamefile.read(path).log)


def test_new_with_bot_seats_records_them_in_the_header(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    out = new(path, "ann,bot:ben=greedy,bot:cat,bot:dan=mcts:7").output
    assert out.splitlines()[0] == (
        f"created {path}: The Staufer Dynasty, players ann, ben (bot: greedy), "
        "cat (bot: mcts, 100 it.), dan (bot: mcts, 7 it.)")
    players = gamefile.read(path).data["players"]
    assert players == [
        {"id": "ann", "name": "ann"},
        {"id": "ben", "name": "ben", "bot": {"level": "greedy"}},
        {"id": "cat", "name": "cat", "bot": {"level": "mcts", "iterations": 100}},
        {"id": "dan", "name": "dan", "bot": {"level": "mcts", "iterations": 7}},
    ]
    assert entries(path) == []  # ann begins: no bot has anything to do yet
    status = json.loads(run("status", path, "--json").output)
    assert status["bots"] == {"ben": {"level": "greedy"},
                              "cat": {"level": "mcts", "iterations": 100},
                              "dan": {"level": "mcts", "iterations": 7}}
    text = run("status", path).output
    assert text.splitlines()[-1] == ("players: ann, ben (bot: greedy), "
                                     "cat (bot: mcts, 100 it.), dan (bot: mcts, 7 it.)")


@pytest.mark.parametrize("players, message", [
    ("ann,bot:", "'bot:': a bot seat needs an id"),
    ("ann,bot:=greedy", "'bot:=greedy': a bot seat needs an id"),
    ("ann,bot:cat=wizard", "bot level 'wizard': unknown bot level 'wizard'"),
    ("ann,bot:cat=greedy:5", "bot level 'greedy:5': only mcts takes a number of iterations"),
    ("ann,bot:cat=mcts:0", "iterations must be a whole number 1-1000, not 0"),
    ("ann,bot:cat=mcts:lots", "bad bot level 'mcts:lots': mcts:N takes a whole number N"),
    ("ann,bot:cat=mcts:1001", "iterations must be a whole number 1-1000, not 1001"),
    ("ann,bot:cat,cat", "player listed twice: cat"),
    ("ann,bot:cat,bot:cat=random", "player listed twice: cat"),
    ("ann,bot:Cat", "bad player id 'Cat'"),
    ("ann,bot:gm", "bad player id"),
])
def test_bad_bot_seat_syntax_is_one_message_and_writes_nothing(
        tmp_path: Path, players: str, message: str) -> None:
    path = tmp_path / "g.json"
    result = run("new", "staufer", path, "--players", players, "--seed", "x")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not path.exists()


def test_a_bot_that_starts_moves_at_once_and_moves_are_marked(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    out = new(path, "bot:ann=greedy,ben,cat").output
    log = entries(path)
    assert [e["by"] for e in log] == ["ann"] * len(log) and len(log) >= 2
    assert all(e["bot"] is True for e in log)
    for e in log:
        text = replay.entry_text(gamefile.read(path), int(e["n"]) - 1)  # type: ignore[call-overload]
        assert f"move {e['n']}: ann: {text} (bot, greedy)" in out
    assert json.loads(run("status", path, "--json").output)["to_move"] == ["ben"]
    shown = run("log", path).output.splitlines()
    assert shown[0] == "players: ann (bot: greedy), ben, cat"
    moves = [line for line in shown if line[:4].strip().isdigit()]  # (not marks, events)
    assert len(moves) == len(log) and all(line.endswith("  (bot)") for line in moves)
    rows = json.loads(run("log", path, "--json").output)
    assert [r["bot"] for r in rows] == [True] * len(log)


def test_bots_move_after_a_persons_move_until_a_person_must_move(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,bot:ben=greedy,bot:cat=random")
    result = run("move", path, "--as", "ann", "supply 2")
    assert result.exit_code == 0, result.output
    log = entries(path)
    assert log[0]["by"] == "ann" and "bot" not in log[0]
    bots = log[1:]
    assert {e["by"] for e in bots} == {"ben", "cat"} and all(e["bot"] is True for e in bots)
    lines = result.output.splitlines()
    assert lines[0] == "move 1: ann: supply 2"
    assert [line.split(":")[1].strip() for line in lines[1:1 + len(bots)]] == \
        [e["by"] for e in bots]
    assert all(line.endswith(("(bot, greedy)", "(bot, random)"))
               for line in lines[1:1 + len(bots)])
    assert json.loads(run("status", path, "--json").output)["to_move"] == ["ann"]
    as_json = run("move", path, "--as", "ann", legal(path, "ann")[0], "--json")
    moved = json.loads(as_json.output)["bot_moves"]
    assert moved and {m["player"] for m in moved} <= {"ben", "cat"}
    assert [m["n"] for m in moved] == list(range(moved[0]["n"], moved[0]["n"] + len(moved)))


def test_bot_seat_moves_are_reproducible(tmp_path: Path) -> None:
    """The same file gives the same bot moves anywhere: a fixed iteration budget and a
    key from the game's generator and the entry number (here mcts, the costly level)."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        new(path, "ann,bot:ben=mcts:12,bot:cat=random", game="dynasties", seed="same")
    first = legal(a, "ann")[0]
    for path in (a, b):
        assert run("move", path, "--as", "ann", first).exit_code == 0
    moves_a = [e["move"] for e in entries(a)]
    assert moves_a == [e["move"] for e in entries(b)] and len(moves_a) >= 2
    other = tmp_path / "c.json"
    new(other, "ann,bot:ben=mcts:12,bot:cat=random", game="dynasties", seed="same")
    key = gamefile.rng_key(gamefile.read(other))
    assert seats.seat_rng_key(key, 2) != seats.seat_rng_key(key, 3)


def test_nobody_moves_for_a_bot_seat_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,bot:ben=greedy,cat")
    run("move", path, "--as", "ann", "supply 2")
    before = path.read_bytes()
    for who in ("ben", "ben --json"):
        result = run("move", path, "--as", *who.split(), "supply 2")
        assert result.exit_code == 2
        assert "ben's seat is played by a bot (greedy): its moves are the bot's" \
            in result.output
        assert path.read_bytes() == before


def test_a_forged_unmarked_move_for_a_bot_seat_is_refused_on_every_read(
        tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,ben,cat")
    run("seat", path, "ben", "--bot", "greedy", "--as", "gm")
    run("move", path, "--as", "ann", "supply 2")
    data = json.loads(path.read_text())
    data["log"] = data["log"][:2]  # ann's move, and keep ben's turn open
    ben_move = legal_after(tmp_path, data, "ben")
    gamefile.append_entry(data, "ben", ben_move)  # no "bot": true: a person's hand
    path.write_text(gamefile.dumps(data))
    result = run("status", path)
    assert result.exit_code == 1
    assert ("$.log[2] (entry 3): a move for ben's seat, which a bot plays (greedy), not "
            "marked as the bot's: nobody may move for a bot seat") in result.output


def legal_after(tmp_path: Path, data: dict[str, object], player: str) -> object:
    """``player``'s first legal move (as a move object) in the game ``data``."""
    gf = gamefile.GameFile(data, gamefile.validate(data))
    match = replay.replay(gf)
    return match.game.legal_moves(match.state, player)[0]


def test_seat_handed_to_a_bot_and_back_recorded_in_the_log(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,ben,cat")
    result = run("seat", path, "ben", "--bot", "greedy", "--as", "ben")
    assert result.exit_code == 0, result.output
    assert result.output == "entry 1: ben handed ben's seat to a bot (greedy)\n"
    assert entries(path)[0]["meta"] == {"kind": "bot", "player": "ben", "level": "greedy"}
    run("move", path, "--as", "ann", "supply 2")
    assert any(e.get("bot") and e["by"] == "ben" for e in entries(path))
    back = run("seat", path, "ben", "--human", "--as", "ben")
    assert back.exit_code == 0, back.output
    assert "ben handed ben's seat back to a person" in back.output
    assert entries(path)[-1]["meta"] == {"kind": "bot", "player": "ben", "level": None}
    assert "players: ann, ben, cat" not in run("status", path).output
    log = run("log", path).output
    assert "   1. ben: [bot] ben: greedy\n" in log
    assert f"{len(entries(path)):>4}. ben: [bot] ben: back to a person\n" in log


def test_seat_to_a_bot_whose_turn_it_is_plays_at_once(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,ben,cat")
    result = run("seat", path, "ann", "--bot", "random", "--as", "gm", "--json")
    out = json.loads(result.output)
    assert out["n"] == 1 and out["bot"] == {"level": "random"}
    assert out["bot_moves"] and all(m["player"] == "ann" for m in out["bot_moves"])
    assert json.loads(run("status", path, "--json").output)["to_move"] == ["ben"]


@pytest.mark.parametrize("args, message", [
    (("ben", "--bot", "greedy", "--as", "ann"),
     "ann may not hand ben's seat to a bot or back: only ben or the game master may"),
    (("ben", "--human", "--as", "ben"), "ben's seat is already played by a person"),
    (("ben", "--bot", "wizard", "--as", "gm"), "unknown bot level 'wizard'"),
    (("ben", "--as", "gm"), "give exactly one of --bot LEVEL and --human"),
    (("ben", "--bot", "greedy", "--human", "--as", "gm"), "give exactly one of"),
    (("zed", "--bot", "greedy", "--as", "gm"), "'zed' is not a player"),
    (("ben", "--bot", "greedy", "--as", "zed"), "'zed' is not a player"),
])
def test_seat_refusals_change_nothing(tmp_path: Path, args: tuple[str, ...],
                                      message: str) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,ben,cat")
    before = path.read_bytes()
    result = run("seat", path, *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert path.read_bytes() == before


def test_a_player_may_not_take_back_a_seat_the_game_master_gave_a_bot(
        tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,bot:ben=greedy,cat")
    before = path.read_bytes()
    result = run("seat", path, "ben", "--human", "--as", "ben")
    assert result.exit_code == 2
    assert "ben's seat was made a bot seat by the header: only the game master may change " \
           "it" in result.output
    assert path.read_bytes() == before
    assert run("seat", path, "ben", "--human", "--as", "gm").exit_code == 0


def test_forged_bot_records_in_the_file_are_refused(tmp_path: Path) -> None:
    """Hand-written `bot` records: another player's seat, a seat the game master gave,
    a bad level. Each is refused by the replay that every read does."""
    path = tmp_path / "g.json"
    new(path, "ann,bot:ben=greedy,cat")
    clean = json.loads(path.read_text())
    cases = [
        ("ann", {"kind": "bot", "player": "cat", "level": "random"},
         "a 'bot' record by ann: only the game master may write it"),
        ("ben", {"kind": "bot", "player": "ben", "level": None},
         "ben's seat was made a bot seat by the header: only the game master may change it"),
        ("gm", {"kind": "bot", "player": "cat", "level": "wizard"},
         "$.log[0].meta.level: invalid enum value 'wizard'"),  # the file format's
        ("gm", {"kind": "bot", "player": "cat", "level": "random", "iterations": 3},
         "only mcts takes a number of iterations"),
        ("gm", {"kind": "bot", "player": "zed", "level": "random"},
         "bot: 'zed' is not a player"),
    ]
    for by, meta, message in cases:
        data = json.loads(json.dumps(clean))
        gamefile.append_raw(data, {"n": 1, "by": by, "meta": meta})
        path.write_text(gamefile.dumps(data))
        result = run("status", path)
        assert result.exit_code == 1, (by, meta)
        assert message in result.output, result.output


def test_bot_command_plays_the_bot_seats_and_refuses_options_for_them(
        tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new(path, "ann,ben,cat")
    # a seat handed to a bot in a file edited by someone without the referee at hand
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": 1, "by": "gm",
                               "meta": {"kind": "bot", "player": "ann", "level": "greedy"}})
    path.write_text(gamefile.dumps(data))
    before = path.read_bytes()
    refused = run("bot", path, "--as", "ann", "--level", "random")
    assert refused.exit_code == 2 and "a bot seat plays with its own level" in refused.output
    assert path.read_bytes() == before
    result = run("bot", path)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("move 2: ann: ")
    assert result.output.splitlines()[0].endswith("(bot, greedy)")
    assert run("bot", path).output.splitlines()[0] == "no bot seat owes a decision now."


def test_a_persons_bot_still_plays_a_persons_seat(tmp_path: Path) -> None:
    """`referee bot --as ann` for a person's seat is ann's own choice of bot, as before;
    the bot seats then follow."""
    path = tmp_path / "g.json"
    new(path, "ann,bot:ben=random,cat")
    result = run("bot", path, "--as", "ann", "--level", "random", "--seed", "s")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].endswith("(bot, random)")
    log = entries(path)
    assert log[0]["by"] == "ann" and log[0]["bot"] is True


def test_play_bots_without_the_secret_of_a_sealed_game_does_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    result = run("new", "staufer", path, "--players", "bot:ann=random,ben", "--sealed")
    assert result.exit_code == 0, result.output
    n = len(entries(path))
    assert n >= 1  # with the secret beside it, ann's bot moved at once
    secret = path.with_name("g.json.secret")
    secret.rename(tmp_path / "away.secret")
    assert play_bots(path) == []
    assert len(entries(path)) == n


def test_a_game_the_bots_cannot_play_gets_no_bot_seat(tmp_path: Path) -> None:
    """The toy game has no determinize: a bot seat is refused before anything is
    written, and so is handing a seat to a bot."""
    path = tmp_path / "t.json"
    result = run("new", "toy", path, "--players", "ann,bot:ben", "--seed", "x")
    assert result.exit_code == 2 and "toy cannot be played by bots" in result.output
    assert not path.exists()
    new(path, "ann,ben", game="toy")
    before = path.read_bytes()
    result = run("seat", path, "ben", "--bot", "random", "--as", "gm")
    assert result.exit_code == 2 and "toy cannot be played by bots" in result.output
    assert path.read_bytes() == before


def test_a_move_stands_when_the_bots_cannot_go_on(tmp_path: Path) -> None:
    """A file whose bot seat the bots cannot play (written by hand): the person's move
    is played and kept, and the bots' failure is a warning, not a failed command."""
    path = tmp_path / "t.json"
    new(path, "ann,ben", game="toy")
    data = json.loads(path.read_text())
    data["players"][1]["bot"] = {"level": "random"}
    path.write_text(gamefile.dumps(data))
    result = run("move", str(path), "--as", "ann",
                                 "take 1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "move 1: ann: take 1"
    assert result.stderr == ("warning: the bots could not move: toy cannot be played by "
                             "bots: it has no determinize\n")
    assert [e["by"] for e in entries(path)] == ["ann"]


def test_sealed_game_master_seat_entries_carry_the_mac_and_forgeries_fail(
        tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    result = run("new", "staufer", path, "--players", "ann,ben,cat", "--sealed")
    assert result.exit_code == 0, result.output
    secret = path.with_name("g.json.secret")
    away = tmp_path / "kept.secret"
    secret.rename(away)
    before = path.read_bytes()
    refused = run("seat", path, "ben", "--bot", "greedy", "--as", "gm")
    assert refused.exit_code == 1
    assert "the game master's entries need the game's secret" in refused.output
    assert path.read_bytes() == before
    # a player without the secret hands over their own seat: appended, not yet vouched
    assert run("seat", path, "ben", "--bot", "greedy", "--as", "ben").exit_code == 0
    assert "mac" not in entries(path)[-1]
    ok = run("seat", path, "cat", "--bot", "random", "--as", "gm", "--secret", away)
    assert ok.exit_code == 0, ok.output
    assert entries(path)[-1]["by"] == "gm" and "mac" in entries(path)[-1]
    # a forged game-master entry (no MAC) handing ann's seat to a bot is refused
    data = json.loads(path.read_text())
    gamefile.append_raw(data, {"n": len(data["log"]) + 1, "by": "gm",
                               "meta": {"kind": "bot", "player": "ann", "level": "random"}})
    path.write_text(gamefile.dumps(data))
    result = run("status", path, "--secret", away)
    assert result.exit_code == 1
    assert "a game master's entry without the referee's MAC" in result.output


def test_bot_seat_moves_are_the_same_in_other_processes(tmp_path: Path) -> None:
    """Reproducible across processes: `referee move` in two processes with different
    string hashing (PYTHONHASHSEED) writes the same bot moves (mcts and greedy seats)."""
    import os
    import subprocess
    import sys

    logs = []
    for hash_seed in ("1", "2"):
        path = tmp_path / f"g{hash_seed}.json"
        new(path, "ann,bot:ben=mcts:16,bot:cat=greedy", game="dynasties", seed="procs")
        first = legal(path, "ann")[0]
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-m", "referee", "move", str(path), "--as",
                               "ann", first], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        logs.append([(e["by"], e["move"]) for e in entries(path)])
    assert logs[0] == logs[1] and {by for by, _ in logs[0]} == {"ann", "ben", "cat"}


def test_seat_levels_are_the_bots_levels() -> None:
    """referee/ledger/seats.py names the levels without importing the bots: the same ones."""
    from referee.bots import LEVELS

    assert seats.LEVELS == LEVELS


def test_pending_names_a_bot_seat_that_owes_a_decision(tmp_path: Path) -> None:
    """A sealed game moved on without the secret (`--unchecked`): the bot seat waits
    for whoever holds the secret, and `pending` says so."""
    path = tmp_path / "g.json"
    assert run("new", "staufer", str(path), "--players",
               "ann,bot:ben=greedy,cat", "--sealed").exit_code == 0
    kept = tmp_path / "kept.secret"
    (tmp_path / "g.json.secret").rename(kept)
    moved = run("move", str(path), "--as", "ann", "supply 2",
                "--unchecked")
    assert moved.exit_code == 0, moved.output
    kept.rename(tmp_path / "g.json.secret")
    result = run("pending", str(path))
    assert result.exit_code == 0, result.output
    assert "waiting for ben (bot) since" in result.output
    assert f"`referee bot {path}` (with the game's secret) plays it" in result.output
    rows = json.loads(run("pending", str(path), "--json").output)
    assert rows[0]["waiting"] == ["ben"] and rows[0]["bots"] == ["ben"]
    played = run("bot", str(path))
    assert played.exit_code == 0, played.output
    after = run("pending", str(path)).output
    assert "(bot)" not in after and "waiting for cat since" in after


def test_git_textconv_shows_bot_seats_and_bot_moves(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    assert run("new", "staufer", str(path), "--players",
               "ann,bot:ben=greedy,bot:cat", "--seed",
               "textconv-bots").exit_code == 0
    assert run("move", str(path), "--as", "ann",
               "supply 2").exit_code == 0
    text = run("git-textconv", str(path)).output
    assert "ben (bot: greedy)" in text and "cat (bot: mcts, 100 it.)" in text
    lines = [line for line in text.splitlines() if line[:5].strip().rstrip(".").isdigit()]
    assert lines[0].startswith("   1. ann: supply 2")
    assert lines[1].startswith("   2. ben (bot): ") and lines[2].startswith("   3. cat (bot): ")
