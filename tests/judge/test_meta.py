"""Meta entries and the game master by mail; deadlines and reminders."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox, MaildirOutbox
from referee.errors import UsageError
from referee.judge import Config, meta
from referee.judge.gmlines import gm_meta
from referee.ledger import gamefile, replay, roster
from tests.conftest import GM_ADDRESS, judge_game
from tests.judge.support import Clock, body_text, reply
from tests.judge.test_maildir_loop import Setup


@pytest.fixture
def gm_game(tmp_path: Path) -> Setup:
    return judge_game(tmp_path, GM_ADDRESS, mails=False)  # (each test marks its mails)


def gm_mail(setup: Setup):  # type: ignore[no-untyped-def]
    return setup.latest("gm")


def test_settings_from_header_and_meta_entries(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    meta.append(setup.path, "gm", {"kind": "address", "player": "ann",
                                   "emails": ["ann@work.example", "ann@example.org"]})
    meta.append(setup.path, "gm", {"kind": "replace", "player": "ben", "name": "Dan",
                                   "email": "dan@example.org"})
    meta.append(setup.path, "gm", {"kind": "deadline", "hours": 48})
    meta.append(setup.path, "gm", {"kind": "watcher", "email": "kim@example.org"})
    meta.append(setup.path, "cat", {"kind": "notify", "player": "cat", "mode": "every"})
    gf = gamefile.read(setup.path)
    found = roster.settings(gf.data)
    assert found.to("ann") == "Ann <ann@work.example>"
    assert found.accepts("ann", "ANN@example.org") and not found.accepts("ann", "x@y.org")
    assert found.to("ben") == "Dan <dan@example.org>" and found.token_name("ben") == "ben#1"
    assert found.deadline_hours == 48 and found.watchers == ["kim@example.org"]
    assert found.notify == {"ann": "turn", "ben": "turn", "cat": "every"}
    assert [e["by"] for e in gf.log] == ["gm", "gm", "gm", "gm", "cat"]
    assert all("mac" in e for e in gf.log)  # sealed game: the referee vouches for each
    replay.replay(gf, "judge-seed")  # meta entries do not touch the state


@pytest.mark.parametrize("bad, message", [
    ({"kind": "deadline", "hours": 0}, "hours must be a whole number 1-8760"),
    ({"kind": "replace", "player": "zed", "email": "z@example.org"}, "'zed' is not a player"),
    ({"kind": "address", "player": "ann", "emails": ["nope"]}, "'nope' is not an e-mail"),
    ({"kind": "notify", "player": "ann", "mode": "hourly"}, "mode must be one of"),
    ({"kind": "colour"}, "unknown meta kind 'colour'"),
])
def test_bad_meta_is_refused_and_changes_nothing(tmp_path: Path, bad: dict[str, object],
                                                 message: str) -> None:
    setup = Setup(tmp_path)
    before = setup.path.read_bytes()
    with pytest.raises(UsageError, match=message):
        meta.append(setup.path, "gm", bad)
    assert setup.path.read_bytes() == before


def test_gm_command_lines() -> None:
    players = ["ann", "ben"]
    assert gm_meta("replace ben Dan Brown <dan@example.org>", players) == {
        "kind": "replace", "player": "ben", "name": "Dan Brown", "email": "dan@example.org"}
    assert gm_meta("deadline 72h", players) == {"kind": "deadline", "hours": 72}
    assert gm_meta("address ann a@x.org b@x.org", players) == {
        "kind": "address", "player": "ann", "emails": ["a@x.org", "b@x.org"]}
    assert gm_meta("unwatch kim@example.org", players) == {
        "kind": "watcher", "email": "kim@example.org", "on": False}
    assert gm_meta("status", players) is None
    with pytest.raises(UsageError, match="not a game master command"):
        gm_meta("delete everything", players)


def test_gm_replaces_a_player_by_mail(gm_game: Setup) -> None:
    welcome = gm_mail(gm_game)
    assert str(welcome["To"]) == GM_ADDRESS
    assert "You are the game master of toy-1" in body_text(welcome)
    old_ben = gm_game.latest("ben")
    gm_game.new_mail()
    out = gm_game.send(reply(welcome, "replace ben Dan <dan@example.org>"))
    log = json.loads(gm_game.path.read_text())["log"]
    assert log[-1]["by"] == "gm" and log[-1]["meta"]["kind"] == "replace"
    to = sorted(str(m["To"]) for m in out)
    assert "Dan <dan@example.org>" in to and GM_ADDRESS in to
    dan = next(m for m in out if str(m["To"]) == "Dan <dan@example.org>")
    assert dan["In-Reply-To"] is None  # a new thread for the new person
    assert dan["Subject"] != old_ben["Subject"]  # a new token
    # the old player's replies no longer count, even from a registered address
    gm_game.send(reply(gm_game.latest("ann"), "take 1"))
    out = gm_game.send(reply(old_ben, "take 1"))
    assert "not registered" in body_text(out[0])
    out = gm_game.send(reply(gm_game.latest("ben"), "take 1"))
    assert [e["by"] for e in json.loads(gm_game.path.read_text())["log"] if "move" in e] == [
        "ann", "ben"]


def test_gm_commands_need_the_gm_address_and_token(gm_game: Setup) -> None:
    welcome = gm_mail(gm_game)
    gm_game.new_mail()
    out = gm_game.send(reply(welcome, "deadline 1", sender="ann@example.org"))
    assert "need the game master's address and token" in body_text(out[0])
    bad = str(welcome["Subject"]).rsplit("[#", 1)[0] + "[#aaaa-bbbb-cccc-dddd]"
    gm_game.send(reply(welcome, "deadline 1", subject=bad))
    assert all("meta" not in e for e in json.loads(gm_game.path.read_text())["log"])
    out = gm_game.send(reply(welcome, "deadline forever"))
    assert "Not done: not a game master command" in body_text(out[0])


def test_player_sets_notify_every(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    out = setup.send(reply(setup.latest("cat"), "notify every"))
    assert "Your mail setting is now every." in body_text(out[-1])
    out = setup.send(reply(setup.latest("ann"), "take 1"))
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben", "cat"]



def test_reminder_and_deadline(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    clock = Clock()
    judge = Judge(Config(setup.games, "Referee <referee@example.org>", gm=GM_ADDRESS,
                         deadline_hours=10, clock=clock), MaildirOutbox(setup.outbox))
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    clock.now += dt.timedelta(hours=7)
    run_once(judge, inbox)
    assert setup.new_mail() == []
    clock.now += dt.timedelta(hours=1)
    run_once(judge, inbox)
    out = setup.new_mail()
    assert [m["X-Referee-Player"] for m in out] == ["ann"]
    assert "Reminder: the deadline is 2026-01-01 10:00 UTC" in body_text(out[0])
    run_once(judge, inbox)
    assert setup.new_mail() == []
    clock.now += dt.timedelta(hours=2)
    run_once(judge, inbox)
    out = setup.new_mail()
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben", "cat", "gm"]
    assert all("has passed; still waiting for ann" in body_text(m) for m in out)
    run_once(judge, inbox)
    assert setup.new_mail() == []


def test_watchers_get_public_mails_only(gm_game: Setup) -> None:
    welcome = gm_mail(gm_game)
    gm_game.send(reply(welcome, "watch kim@example.org"))
    out = gm_game.send(reply(gm_game.latest("ann"), "take 2"))
    kim = [m for m in out if str(m["To"]) == "kim@example.org"]
    assert len(kim) == 1 and kim[0]["X-Referee-Player"] == "watcher"
    text = body_text(kim[0])
    assert text.splitlines()[0] == "Waiting for ben: ben to take from a pile of 8"
    assert "2. ann played: take 2" in text and "pile: 8" in text
    assert "your card" not in text and "[#" not in str(kim[0]["Subject"])
    # a watcher's reply is not read as a move
    answer = gm_game.send(reply(kim[0], "take 1"))
    assert "only players move" in body_text(answer[0])
    # the game master's latest mail was written before ann's move: stale, not done;
    # the answer is a fresh mail, and the command replying to it counts
    out = gm_game.send(reply(gm_mail(gm_game), "unwatch kim@example.org"))
    assert "this answers an old mail; reply to the latest one" in body_text(out[0])
    assert "kim@example.org" in roster.settings(gamefile.read(gm_game.path).data).watchers
    gm_game.send(reply(gm_mail(gm_game), "unwatch kim@example.org"))
    out = gm_game.send(reply(gm_game.latest("ben"), "take 1"))
    assert all(str(m["To"]) != "kim@example.org" for m in out)


def test_gm_extends_the_deadline_and_the_warnings_start_again(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    clock = Clock()
    judge = Judge(Config(setup.games, "Referee <referee@example.org>", gm=GM_ADDRESS,
                         deadline_hours=10, clock=clock), MaildirOutbox(setup.outbox))
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    clock.now += dt.timedelta(hours=11)
    run_once(judge, inbox)
    setup.new_mail()
    from tests.judge.support import deliver

    deliver(setup.inbox, reply(setup.latest("gm"), "deadline 20"))
    run_once(judge, inbox)
    assert roster.settings(gamefile.read(setup.path).data).deadline_hours == 20
    setup.new_mail()
    run_once(judge, inbox)
    assert setup.new_mail() == []  # 11 h of 20: not yet the reminder (15 h)
    clock.now += dt.timedelta(hours=5)
    run_once(judge, inbox)
    out = setup.new_mail()
    assert [m["X-Referee-Player"] for m in out] == ["ann"]
    assert "Reminder: the deadline is 2026-01-01 20:00 UTC (20 h" in body_text(out[0])
