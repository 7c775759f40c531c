"""Backscatter (issue 30, item 5): a mail with a forged From must not make the referee
mail strangers at will. The judge answers a sender who is not authenticated (a
stranger's address, a seat's address without its token, a forged or missing referee
Message-ID, a watcher) at most once an hour per unknown address, three times an hour per
registered address, and 20 times an hour to unknown addresses in all (referee/judge/
store.py, kept in its state file); every such answer has a fixed subject and text and
quotes nothing of the mail. Honest players' answers are not limited. `move --from-email
--reply-out` writes one answer per run, quoting nothing either.

Played as the forger: forged mails put into the judge's Maildir, or given to `referee
move --from-email`, each with a marker in its subject, body, display name and
Message-ID that no answer may contain.
"""

from __future__ import annotations

import datetime as dt
import json
from email.message import EmailMessage
from pathlib import Path

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox, MaildirOutbox
from referee.judge import Config, store
from referee.mail import reference, tokens
from tests.judge.support import Clock, body_text, deliver, parse, reply
from tests.judge.test_maildir_loop import SENDER, Setup
from tests.mail.test_fresh import MailGame, log_of
from tests.support import judgestate

MARK = "QUOTEME"


def forged(latest: EmailMessage, k: int, address: str, kind: str = "sender") -> bytes:
    """A forged mail from ``address``, marked everywhere. ``kind``: ``sender`` answers
    ann's latest mail with her token (captured) from another address; ``no-game``
    answers no referee mail; ``forged-id`` names a referee Message-ID with a bad MAC."""
    raw = reply(latest, f"take 1\n{MARK}-body-{k}", sender=f"{MARK} Name <{address}>",
                msgid=f"<{MARK}-{k}@forger.example>",
                subject=f"{MARK}-subject {latest['Subject']}")
    if kind == "sender":
        return raw
    msg = parse(raw)
    del msg["In-Reply-To"]
    del msg["References"]
    if kind == "forged-id":
        mid = tokens.parse_id(str(latest["Message-ID"]))
        assert mid is not None
        msg["In-Reply-To"] = str(latest["Message-ID"]).replace(mid.mac, "a" * 13)
    return bytes(msg)


def to(messages: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in messages if address in str(m["To"])]


def quotes_nothing(messages: list[EmailMessage]) -> None:
    for msg in messages:
        assert MARK not in msg.as_string(), msg.as_string()
        assert str(msg["Subject"]).startswith("[referee] your mail (ref ")
        assert msg["In-Reply-To"] is None and msg["References"] is None


KINDS = ("sender", "no-game", "forged-id")


def test_fifty_forged_mails_from_one_stranger_get_one_answer(toy: Setup) -> None:
    latest = toy.latest("ann")
    before = toy.path.read_bytes()
    for k in range(50):
        deliver(toy.inbox, forged(latest, k, "zed@stranger.example", KINDS[k % 3]))
    result = toy.judge()
    out = toy.new_mail()
    assert len(out) == store.STRANGER_ANSWERS_EACH == 1, result.output
    assert to(out, "zed@stranger.example") == out
    quotes_nothing(out)
    assert result.output.count("not answered (the rate of answers") == 49
    assert toy.path.read_bytes() == before
    # the next run: the same hour, still nothing (the count is in the judge's state)
    deliver(toy.inbox, forged(latest, 99, "zed@stranger.example"))
    toy.judge()
    assert toy.new_mail() == []


def test_fifty_strangers_get_twenty_answers_and_players_are_not_limited(toy: Setup) -> None:
    latest = toy.latest("ann")
    for k in range(50):
        deliver(toy.inbox, forged(latest, k, f"zed{k}@stranger.example", KINDS[k % 3]))
    toy.judge()
    out = toy.new_mail()
    assert len(out) == store.STRANGER_ANSWERS == 20
    assert len({str(m["To"]) for m in out}) == 20
    quotes_nothing(out)
    # the rate is spent: ann's own mails (authenticated) are answered all the same
    answers = []
    for k in range(5):
        answers += to(toy.send(reply(toy.latest("ann"), "take 9",
                                     msgid=f"<bad-{k}@player.example>")), "ann@example.org")
    answers += to(toy.send(reply(toy.latest("ann"), "status")), "ann@example.org")
    assert len(answers) == 6 and all(m["X-Referee-Player"] == "ann" for m in answers)
    assert "`take 9` was not accepted" in " ".join(body_text(answers[0]).split())
    out = toy.send(reply(toy.latest("ann"), "take 2"))
    assert [e["by"] for e in log_of(toy.path)] == ["ann"] and to(out, "ann@example.org")
    # the state keeps no stranger's address, and at most what the rate allows
    state = judgestate.read_state(toy.games)
    assert "stranger.example" not in json.dumps(state["strangers"])
    assert len(state["strangers"]) == 20


def test_a_registered_address_without_its_token_is_answered_three_times_an_hour(
        toy: Setup) -> None:
    """ann's address with a wrong token (a forger using it, or ann's mail program
    losing the subject): three answers an hour, whatever strangers spent."""
    latest = toy.latest("ann")
    for k in range(50):
        deliver(toy.inbox, forged(latest, k, f"zed{k}@stranger.example"))
    toy.judge()
    assert len(toy.new_mail()) == store.STRANGER_ANSWERS
    wrong = str(latest["Subject"]).rsplit("[#", 1)[0] + "[#aaaa-bbbb-cccc-dddd]"
    for k in range(6):
        deliver(toy.inbox, reply(latest, f"take 1\n{MARK}", msgid=f"<{MARK}-ann-{k}@x>",
                                 subject=f"{MARK} {wrong}"))
    toy.judge()
    out = toy.new_mail()
    assert len(out) == store.KNOWN_ANSWERS_EACH == 3
    assert to(out, "ann@example.org") == out and "token is missing or wrong" in body_text(
        out[0])
    quotes_nothing(out)


def test_replies_to_a_watchers_mail_are_limited_too(gm_toy: Setup) -> None:
    gm_toy.send(reply(gm_toy.latest("gm"), "watch wat@example.org"))
    watched = next(m for m in gm_toy.sent() if "wat@example.org" in str(m["To"]))
    for k in range(5):
        deliver(gm_toy.inbox, reply(watched, f"take 1 {MARK}", sender="wat@example.org",
                                    msgid=f"<{MARK}-w{k}@x>"))
        deliver(gm_toy.inbox, forged(watched, k, "zed@stranger.example"))
    gm_toy.judge()
    out = gm_toy.new_mail()
    assert len(to(out, "wat@example.org")) == store.KNOWN_ANSWERS_EACH  # a known address
    assert len(to(out, "zed@stranger.example")) == store.STRANGER_ANSWERS_EACH
    assert len(out) == 4 and "Watchers' mails are not read" in body_text(out[0])
    quotes_nothing(out)



def test_a_stranger_is_answered_again_an_hour_later(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    clock = Clock()
    judge = Judge(Config(setup.games, SENDER, clock=clock), MaildirOutbox(setup.outbox))
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    latest = setup.latest("ann")

    def answers(k: int) -> int:
        deliver(setup.inbox, forged(latest, k, "zed@stranger.example"))
        run_once(judge, inbox)
        return len(setup.new_mail())

    assert [answers(1), answers(2)] == [1, 0]
    clock.now += dt.timedelta(minutes=59)
    assert answers(3) == 0
    clock.now += dt.timedelta(minutes=1)  # an hour after the answer
    assert [answers(4), answers(5)] == [1, 0]
    clock.now -= dt.timedelta(days=1)  # a clock set back forgets, it does not block
    assert answers(6) == 1


def test_the_record_stays_bounded_and_a_broken_one_is_read(toy: Setup) -> None:
    data = judgestate.read_state(toy.games)
    data["strangers"] = [["x", "not a time", 0], "junk", [1, 2, 3], ["y" * 16, 1e300, 0]]
    judgestate.write_state(toy.games, data)
    latest = toy.latest("ann")
    for k in range(30):
        deliver(toy.inbox, forged(latest, k, f"zed{k}@stranger.example"))
    toy.judge()
    assert len(toy.new_mail()) == store.STRANGER_ANSWERS
    assert len(judgestate.read_state(toy.games)["strangers"]) == store.STRANGER_ANSWERS


# --------------------------------------------------------------------------- the CLI


def test_cli_answers_a_stranger_once_a_run_and_quotes_nothing(tmp_path: Path) -> None:
    game = MailGame(tmp_path)
    ann = game.mail_round()["ann"]
    before = game.path.read_bytes()
    for k, kind in enumerate(KINDS):
        raw = forged(ann, k, "zed@stranger.example", kind)
        result = game.move(raw)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert game.path.read_bytes() == before
        answer = parse((tmp_path / f"answer-{game.count}.mbox").read_bytes().split(b"\n", 1)[1])
        assert str(answer["To"]) == "zed@stranger.example"
        quotes_nothing([answer])
        assert reference(f"<{MARK}-{k}@forger.example>") in str(answer["Subject"])
    # ann's own illegal move: to her registered address, threaded, the subject rebuilt
    result = game.move(reply(ann, "take 9", subject=f"{MARK} {ann['Subject']}"))
    answer = parse((tmp_path / f"answer-{game.count}.mbox").read_bytes().split(b"\n", 1)[1])
    assert result.exit_code == 1 and str(answer["To"]) == "ann@example.org"
    assert MARK not in str(answer["Subject"]) and answer["In-Reply-To"]
    assert "take 3" in body_text(answer)  # the legal moves, for her


def test_a_from_no_mail_can_go_to_is_logged_not_quarantined(toy: Setup,
                                                            tmp_path: Path) -> None:
    """``é@b=`` reads as an address, but no mail can be written to it: the judge logs
    that it did not answer (no quarantine, no internal error); `move --from-email`
    prints the refusal and writes no answer."""
    def raw_from(raw: bytes) -> bytes:
        head, _, body = raw.partition(b"\n\n")
        lines = [b"From: Eve <\xc3\xa9@b=>" if line.startswith(b"From:") else line
                 for line in head.split(b"\n")]
        return b"\n".join(lines) + b"\n\n" + body

    latest = toy.latest("ann")
    deliver(toy.inbox, raw_from(forged(latest, 1, "eve@example.com")))
    result = toy.judge()
    assert "rejected: toy-1 sender, not answered (no mail can go to that address)" in \
        result.output and "quarantined: mail" not in result.output, result.output
    assert toy.new_mail() == []
    (tmp_path / "cli").mkdir()
    game = MailGame(tmp_path / "cli")
    ann = game.mail_round()["ann"]
    result = game.move(raw_from(forged(ann, 2, "eve@example.com")))
    assert result.exit_code == 1 and "is not registered for ann" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "cli" / f"answer-{game.count}.mbox").exists()
