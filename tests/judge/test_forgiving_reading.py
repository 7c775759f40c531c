"""Tolerant reading of a reply, through a judge game (issue 21, item 6): everyday typing
(`take 2.`, `"take 2"`, backticks, list bullets) is read as meant; after chat the first
line that reads as a move is the move, and the answer says so; a line that is no move is
never played; an ambiguous reading says "ambiguous" with its candidates; the judge's log
counts a mail whose first move was played as played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.engine import legal_strings
from referee.games.staufer import GAME
from referee.ledger import gamefile, replay
from referee.mail.replies import parse_reply
from referee.play.lines import clean_line
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup


def moves(setup: Setup) -> list[str]:
    return [f"{e['by']} {e['move']['type']} {e['move'].get('n', '')}".strip()
            for e in json.loads(setup.path.read_text())["log"] if "move" in e]


@pytest.mark.parametrize("typed", ["take 2.", '"take 2"', "`take 2`", "- take 2",
                                   "* take 2", "1. take 2", "\u201ctake 2\u201d", "take 2!",
                                   '- "take 2".'])
def test_everyday_typing_is_read_as_meant(toy: Setup, typed: str) -> None:
    toy.send(reply(toy.latest("ann"), typed))
    assert moves(toy) == ["ann take 2"]


@pytest.mark.parametrize("line, tidy", [
    ("say Hello there!", "say Hello there!"),  # a say keeps its words
    ("nonce apples, pears.", "nonce apples, pears."),
    ("- status.", "status"),
    ("...", ""),
])
def test_clean_line(line: str, tidy: str) -> None:
    assert clean_line(line) == tidy


def test_after_chat_the_first_line_that_reads_as_a_move_is_played(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "Ha, I will take this one!\ntake 3\ntake 1"))
    assert moves(toy) == ["ann take 3"]
    ann = [m for m in out if m["X-Referee-Player"] == "ann"]
    assert len(ann) == 1
    text = body_text(ann[0])
    assert ("Took line 2 of your mail: `take 3`; the text before it is not read as a move\n"
            "    or a command.") in text
    assert "1. ann played: take 3" in text
    out = toy.send(reply(toy.latest("ben"), "Well played.\nHmm, let me think\n- take 1"))
    assert moves(toy) == ["ann take 3", "ben take 1"]
    assert ("Took line 3 of your mail: `take 1`; the text before it is not read as a move\n"
            "    or a command.") in body_text(next(m for m in out
                                                    if m["X-Referee-Player"] == "ben"))


def test_a_mail_of_chat_only_plays_nothing(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "Ha, I will think about it!\nSee you soon"))
    assert moves(toy) == []
    text = body_text(out[0])
    assert "Line 1 `Ha, I will think about it` was not accepted: cannot read" in text
    assert "No line of your mail reads as a move, so nothing was played." in text


def test_an_illegal_move_after_chat_is_refused_and_named(toy: Setup) -> None:
    out = toy.send(reply(toy.latest("ann"), "Oh well\ntake 9"))
    assert moves(toy) == []
    text = body_text(out[0])
    assert ("Took line 2 of your mail: `take 9`; the text before it is not read as a move\n"
            "    or a command.") in text
    assert "Line 1 `take 9` was not accepted" in text


def test_a_command_after_chat_is_not_run_and_keyed_moves_are_cleaned() -> None:
    raw = (b"From: ann@example.org\r\nTo: r@example.org\r\nSubject: x\r\n"
           b"Message-ID: <a@player.example>\r\n\r\nmove: take 2.\r\nmove: `peek`\r\n")
    found = parse_reply(raw)
    assert found.moves == ("take 2", "peek") and found.lines == ()


def test_an_ambiguous_reading_says_ambiguous_with_its_candidates(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="st-1")
    setup.judge()
    setup.new_mail()
    out = setup.send(reply(setup.latest("ann"), "Let me see.\ndeploy a 3"))
    text = body_text(out[0])
    assert "Took line 2 of your mail: `deploy a 3`" in text
    assert "Line 1 `deploy a 3` is ambiguous: 'a' could be aachen or augsburg" in text
    said = text.split("It could be: ", 1)[1].split("\nReply", 1)[0].replace("\n    ", " ")
    legal = [m for m in legal_strings(GAME, replay.replay(gamefile.read(setup.path),
                                                         "judge-seed").state, "ann")
             if m.split()[0] == "deploy" and m.split()[1] in ("aachen", "augsburg")
             and m.split()[2] == "3"]
    assert legal and said.split(", ") == legal  # the legal readings, not the closest texts
    assert all("move" not in e for e in json.loads(setup.path.read_text())["log"])


def test_the_log_counts_a_mail_whose_first_move_was_played(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    setup.judge()
    from tests.judge.support import deliver

    deliver(setup.inbox, reply(setup.latest("ann"), "move: take 1\nmove: take 2"))
    result = setup.judge()
    assert "processed 1 mail, 1 played, 0 quarantined" in result.output
    deliver(setup.inbox, reply(setup.latest("ben"), "take 1"))
    deliver(setup.inbox, reply(setup.latest("ben"), "take 2"))
    result = setup.judge()
    assert "processed 2 mails, 1 played, 0 quarantined" in result.output


@pytest.mark.parametrize(("line", "found"), [
    ("7", 7), ("12", 12), ("999", 999), ("1000", None), ("", None), ("-1", None),
    ("\u00b2", None),  # (a superscript two: str.isdigit() says yes, int() fails)
    ("\u0661\u0662", None),  # (Arabic-Indic digits: not a number of a numbered post)
    (" 3", None), ("3.", None),
])
def test_a_move_number_is_one_to_three_ascii_digits(line: str, found: int | None) -> None:
    """One reading of a move's number for every door: the chat door that keeps a number's
    post and the core that plays it both ask :func:`referee.judge.readings.number`."""
    from referee.judge.readings import number

    assert number(line) == found
