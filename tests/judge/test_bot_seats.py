"""Bot seats in the mail judge: bots move by themselves after a mail, a missed deadline
played by a bot, seats handed to a bot by the game master or the player by mail."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox, MaildirOutbox
from referee.judge import Config
from referee.ledger import gamefile, roster
from tests.conftest import run
from tests.judge.support import Clock, body_text, deliver, reply
from tests.judge.test_maildir_loop import SENDER, Setup

GM_ADDRESS = "gm@example.org"
HUMANS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>"



def judge_for(setup: Setup, clock: Clock, **config: object) -> Judge:
    return Judge(Config(setup.games, SENDER, gm=GM_ADDRESS, clock=clock,
                        **config),  # type: ignore[arg-type]
                 MaildirOutbox(setup.outbox))


def log_of(setup: Setup) -> list[dict[str, object]]:
    return list(gamefile.read(setup.path).log)


def test_a_bot_seat_moves_after_a_mailed_move_and_everyone_hears(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-1",
                  players="ann=Ann <ann@example.org>,bot:ben=greedy,cat=Cat <cat@example.org>")
    setup.judge()
    first = setup.new_mail()
    assert sorted(m["X-Referee-Player"] for m in first) == ["ann", "cat"]  # ben has no mail
    out = setup.send(reply(setup.latest("ann"), "supply 2"))
    log = log_of(setup)
    assert log[0]["by"] == "ann" and "mail" in log[0]
    bots = [e for e in log[1:] if e["by"] == "ben"]
    assert bots and all(e["bot"] is True and "mac" in e for e in bots)
    assert all("mail" not in e for e in bots)
    cat = [m for m in out if m["X-Referee-Player"] == "cat"]
    text = body_text(cat[-1])
    assert text.splitlines()[0].startswith("Your turn")
    for e in bots:
        assert f"{e['n']}. ben played: " in text
    assert text.count("(played by a bot)") == len(bots)


def test_a_mailed_move_for_a_seat_a_bot_plays_is_refused(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-2", players=HUMANS)
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    setup.send(reply(setup.latest("gm"), "bot ben greedy"))
    entry = log_of(setup)[-1]
    assert entry["by"] == "gm" and "mac" in entry
    assert entry["meta"] == {"kind": "bot", "player": "ben", "level": "greedy"}
    before = setup.path.read_bytes()
    out = setup.send(reply(setup.latest("ben"), "supply 2"))
    assert "Not played: ben's seat is played by a bot (greedy)" in body_text(out[-1])
    assert setup.path.read_bytes() == before


def test_a_player_hands_their_seat_to_a_bot_by_mail_and_takes_it_back(
        tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-3", players=HUMANS)
    setup.judge()
    setup.new_mail()
    out = setup.send(reply(setup.latest("ann"), "bot random"))
    log = log_of(setup)
    assert log[0]["by"] == "ann" and log[0]["meta"] == {"kind": "bot", "player": "ann",
                                                        "level": "random"}
    assert log[1]["by"] == "ann" and log[1]["bot"] is True  # ann's turn: played at once
    mine = [m for m in out if m["X-Referee-Player"] == "ann"]
    assert "Done: a bot plays your seat." in body_text(mine[-1])
    out = setup.send(reply(setup.latest("ann"), "bot off"))
    assert log_of(setup)[-1]["meta"] == {"kind": "bot", "player": "ann", "level": None}
    assert "Done: you play your seat again." in body_text(out[-1])


def test_a_missed_deadline_is_played_by_the_bot(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-4", players=HUMANS)
    clock = Clock()
    judge = judge_for(setup, clock, deadline_hours=10, deadline_bot="greedy")
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    clock.now += dt.timedelta(hours=9)
    run_once(judge, inbox)
    assert [m["X-Referee-Player"] for m in setup.new_mail()] == ["ann"]  # the reminder
    assert log_of(setup) == []
    clock.now += dt.timedelta(hours=2)
    run_once(judge, inbox)
    log = log_of(setup)
    assert log and all(e["by"] == "ann" and e["bot"] is True and "mac" in e for e in log)
    out = setup.new_mail()
    assert sorted({m["X-Referee-Player"] for m in out}) == ["ann", "ben", "gm"]
    gm = [m for m in out if m["X-Referee-Player"] == "gm"]
    assert body_text(gm[0]).startswith("The deadline (10 h) passed; a bot (greedy) played "
                                       "for ann:")
    ben = [m for m in out if m["X-Referee-Player"] == "ben"]
    assert body_text(ben[-1]).splitlines()[0].startswith("Your turn")
    assert "1. ann played: " in body_text(ben[-1])
    assert "(played by a bot)" in body_text(ben[-1])
    run_once(judge, inbox)
    assert setup.new_mail() == [] and len(log_of(setup)) == len(log)  # ben's clock anew


def test_without_a_deadline_bot_the_deadline_only_mails(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-5", players=HUMANS)
    clock = Clock()
    judge = judge_for(setup, clock, deadline_hours=10)
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    clock.now += dt.timedelta(hours=11)
    run_once(judge, inbox)
    assert log_of(setup) == []
    out = setup.new_mail()
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben", "cat", "gm"]
    assert all("has passed; still waiting for ann" in body_text(m) for m in out)


def test_the_game_master_sets_a_deadline_bot_by_mail(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-6", players=HUMANS)
    clock = Clock()
    judge = judge_for(setup, clock, deadline_hours=10)
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    deliver(setup.inbox, reply(setup.latest("gm"), "deadline 5 bot random"))
    run_once(judge, inbox)
    entry = log_of(setup)[-1]
    assert entry["meta"] == {"kind": "deadline", "hours": 5, "bot": "random"}
    found = roster.settings(gamefile.read(setup.path).data, deadline_bot="greedy")
    assert found.deadline_hours == 5 and found.deadline_bot == "random"
    clock.now += dt.timedelta(hours=6)
    run_once(judge, inbox)
    assert [e["by"] for e in log_of(setup)[1:]] and all(
        e["by"] == "ann" and e["bot"] is True for e in log_of(setup)[1:])


def test_deadline_bot_option_and_commands_refuse_bad_levels(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-7", players=HUMANS)
    result = run("judge", setup.games, "--maildir", setup.inbox, "--outbox", setup.outbox,
                 "--from", SENDER, "--once", "--deadline-bot", "wizard")
    assert result.exit_code == 2 and "'wizard' is not one of" in result.output
    from referee.errors import UsageError
    from referee.judge.gmlines import gm_meta

    assert gm_meta("bot ben mcts:40", ["ann", "ben"]) == {
        "kind": "bot", "player": "ben", "level": "mcts", "iterations": 40}
    assert gm_meta("bot ben off", ["ann", "ben"]) == {"kind": "bot", "player": "ben",
                                                       "level": None}
    assert gm_meta("deadline 24 bot off", ["ann"]) == {"kind": "deadline", "hours": 24,
                                                       "bot": None}
    for line in ("bot ben wizard", "deadline 24 bot wizard", "deadline 24 robot greedy"):
        try:
            gm_meta(line, ["ann", "ben"])
        except UsageError:
            continue
        raise AssertionError(f"{line!r} was accepted")


def test_a_bot_seat_that_starts_moves_before_the_first_mails(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stb-8",
                  players="bot:ann=random,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>")
    log = log_of(setup)
    assert log and all(e["by"] == "ann" and e["bot"] is True for e in log)  # by `new`
    n = len(log)
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    assert len(log_of(setup)) == n
    out = setup.new_mail()
    assert sorted(m["X-Referee-Player"] for m in out) == ["ben", "cat", "gm"]
    ben = body_text(next(m for m in out if m["X-Referee-Player"] == "ben"))
    assert ben.splitlines()[0].startswith("Your turn")
    # the game master hands ben's seat to a bot by mail: it plays ben's turn at once
    setup.send(reply(setup.latest("gm"), "bot ben greedy"))
    after = log_of(setup)
    assert after[n]["meta"] == {"kind": "bot", "player": "ben", "level": "greedy"}
    assert after[n + 1]["by"] == "ben" and after[n + 1]["bot"] is True
    text = body_text(setup.latest("cat"))
    assert f"{n + 1}. the game master handed a seat over: ben: greedy" in text
