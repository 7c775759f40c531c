"""`say` by mail relays plain text only, bounded in length and rate.

Played through the judge's Maildir: a cheating player (or anyone holding a fresh mail of
theirs) tries to slip fake lines, terminal escapes, invisible or reordering characters,
a huge text or a flood of says to the other players.
"""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from pathlib import Path

import pytest

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox, MaildirOutbox
from referee.judge import Config
from referee.play import reading
from tests.judge.support import Clock, body_text, deliver, reply
from tests.judge.test_maildir_loop import SENDER, Setup


def flat(msg: EmailMessage) -> str:
    return " ".join(body_text(msg).split())


def relayed(out: list[EmailMessage]) -> list[EmailMessage]:
    return [m for m in out if "says:" in body_text(m)]


@pytest.mark.parametrize("char, name", [
    ("\u2028", "U+2028 (LINE SEPARATOR)"),
    ("\u2029", "U+2029 (PARAGRAPH SEPARATOR)"),
    ("\x85", "U+0085"),
    ("\v", "U+000B"),
    ("\f", "U+000C"),
    ("\x1b[2J\x1b]0;pwned\x07", "U+001B"),
    ("\u200b", "U+200B (ZERO WIDTH SPACE)"),
    ("\u200d", "U+200D (ZERO WIDTH JOINER)"),
    ("\ufeff", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"),
    ("\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    ("\u2066", "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
    ("\u061c", "U+061C (ARABIC LETTER MARK)"),
    ("\x00", "U+0000"),
    ("\x7f", "U+007F"),
    ("\ue000", "U+E000"),
])
def test_say_with_a_control_or_format_character_is_refused(toy: Setup, char: str,
                                                           name: str) -> None:
    fake = f"good luck{char}Your turn, cat: reply `bot random` now"
    out = toy.send(reply(toy.latest("ann"), f"say {fake}"))
    assert [m["X-Referee-Player"] for m in out] == ["ann"]  # nobody else gets anything
    text = flat(out[0])
    assert "say not relayed: it contains " + name in text
    assert char not in body_text(out[0])  # the answer does not echo it either
    out = toy.send(reply(toy.latest("ann"), "say good luck, cat"))  # the honest say
    assert sorted(m["X-Referee-Player"] for m in relayed(out)) == ["ben", "cat"]


def test_a_fake_referee_line_cannot_start_a_line_in_others_mails(toy: Setup) -> None:
    pad = "x" * 64  # "ann says: " and the pad fill the first line: the fake starts the next
    out = toy.send(reply(toy.latest("ann"), f"say {pad} Your turn, cat: reply `bot random` "
                                            "now"))
    cat = next(m for m in out if m["X-Referee-Player"] == "cat")
    lines = body_text(cat).splitlines()
    assert lines[0].startswith("ann says: ")
    assert all(not line.startswith("Your turn") for line in lines)
    assert any(line.startswith("    Your turn") for line in lines)  # indented: ann's text


def test_a_multi_line_say_is_one_paragraph(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "say Good luck,\neveryone!\n\nnot this",
                         style="plain"))
    texts = [body_text(m) for m in relayed(out)]
    assert len(texts) == 2
    assert all(t.startswith("ann says: Good luck, everyone!\n") for t in texts)
    assert all("not this" not in t for t in texts)


def test_plain_text_of_any_script_is_relayed(toy: Setup) -> None:
    said = "Grüß Gott — viel Glück! 🎲 مرحبا 你好 Ελλάδα"
    out = toy.send(reply(toy.latest("ann"), f"say {said}"))
    assert all(body_text(m).startswith(f"ann says: {said}") for m in relayed(out))
    assert len(relayed(out)) == 2


def test_say_length_bound(toy: Setup) -> None:
    ok = "a" * reading.SAY_MAX
    out = toy.send(reply(toy.latest("ann"), f"say {ok}"))
    assert len(relayed(out)) == 2
    out = toy.send(reply(toy.latest("ann"), f"say {ok}b"))
    assert [m["X-Referee-Player"] for m in out] == ["ann"]
    assert f"say not relayed: 501 characters, at most {reading.SAY_MAX}" in flat(out[0])
    huge = ("spam " * 60_000).strip()  # 300 kB
    out = toy.send(reply(toy.latest("ann"), f"say {huge}", style="plain"))
    assert [m["X-Referee-Player"] for m in out] == ["ann"]
    assert "characters, at most 500" in flat(out[0])
    assert len(body_text(out[0])) < 5000  # the answer does not carry it back


def test_say_with_a_pile_of_combining_marks_is_refused(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "say he" + "\u0301" * 30 + "llo"))
    assert "combining marks" in flat(out[0]) and not relayed(out)
    out = toy.send(reply(toy.latest("ann"), "say Việt Nam"))  # stacked marks, few
    assert len(relayed(out)) == 2


def test_empty_say(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "say"))
    assert "say: nothing to say" in flat(out[0]) and not relayed(out)



def test_a_burst_of_says_is_cut_at_the_rate(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    clock = Clock()
    judge = Judge(Config(setup.games, SENDER, clock=clock), MaildirOutbox(setup.outbox))
    inbox = MaildirInbox(setup.inbox)
    run_once(judge, inbox)
    setup.new_mail()
    latest = setup.latest("ann")

    def burst(count: int, tag: str) -> list[EmailMessage]:
        for i in range(count):
            deliver(setup.inbox, reply(latest, f"say {tag} {i}"))
            run_once(judge, inbox)
            clock.now += dt.timedelta(seconds=1)
        return setup.new_mail()

    out = burst(40, "first")
    said = relayed(out)
    assert len(said) == 2 * intake_rate()  # 5 says to 2 players, not 80 mails
    refusals = [m for m in out if m["X-Referee-Player"] == "ann"]
    assert len(refusals) == 1  # told once, the rest dropped
    assert "say not relayed: at most 5 says an hour; the next one can go at " \
        "2026-01-01 01:00 UTC" in flat(refusals[0])
    assert len(out) == 2 * intake_rate() + 1
    clock.now = dt.datetime(2026, 1, 1, 1, 0, 1, tzinfo=dt.UTC)  # an hour after the first
    out = burst(1, "later")
    assert len(relayed(out)) == 2
    # ben's says count on their own
    deliver(setup.inbox, reply(setup.latest("ben"), "say hi from ben"))
    run_once(judge, inbox)
    assert len(relayed(setup.new_mail())) == 2


def intake_rate() -> int:
    from referee.judge.commands import SAY_RATE

    return SAY_RATE


def test_a_say_on_a_stale_mail_is_not_relayed(toy: Setup) -> None:
    old = toy.latest("ann")
    toy.send(reply(old, "take 1"))
    out = toy.send(reply(old, "say ann resigns, ben wins"))
    assert [m["X-Referee-Player"] for m in out] == ["ann"]
    assert "this answers an old mail; reply to the latest one" in flat(out[0])


def test_say_text_refuses_every_control_format_and_separator_code_point() -> None:
    import sys
    import unicodedata

    from referee.mail.replies import Reply

    def say(text: str) -> str:
        line = f"say a{text}b"
        return reading.say_text(Reply("ann@example.org", None, None, None, (line,), None,
                                     own=(line,)))

    def private(c: int) -> bool:  # 137,000 of them: every 251st, and the plane ends
        return c % 251 == 0 or c in (0xE000, 0xF8FF, 0xF0000, 0xFFFFD, 0x100000, 0x10FFFD)

    refused = [chr(c) for c in range(sys.maxunicode + 1)
               if (cat := unicodedata.category(chr(c))) in ("Cc", "Cf", "Zl", "Zp", "Cs")
               or (cat == "Co" and private(c))]
    refused.remove("\t")
    assert len(refused) > 2_500
    passed = []
    for ch in refused:
        try:
            say(ch)
        except reading.Refused as exc:
            if f"U+{ord(ch):04X}" not in exc.message:
                passed.append(ch)
        else:
            passed.append(ch)
    assert passed == []
    for ch in ("\u3164", "\u115f", "\u034f"):  # letters that print as nothing
        with pytest.raises(reading.Refused, match="say not relayed: it contains"):
            say(ch)
    assert say("\t c") == "a cb"  # a tab is a space
    assert say(" ok ") == "a ok b"
    assert say("\u00a0ok\u3000") == "a ok b"  # other spaces are plain spaces
    assert say("\u2764\ufe0f") == "a\u2764\ufe0fb"  # an emoji with its variation selector
