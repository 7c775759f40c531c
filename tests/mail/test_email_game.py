"""A whole game played through e-mail against a real SMTP server on localhost.

The referee mails the players (`referee mail --smtp`), each player answers the mail they
got with a plain reply, and `referee move --from-email` takes the move. Forged, foreign,
stale and replayed mails are rejected and change nothing.
"""

from __future__ import annotations

import email
import email.policy
import json
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.conftest import Collector, run

SENDER = "Referee <referee@example.org>"


def received(handler: Collector) -> list[EmailMessage]:
    out = []
    for env in handler.envelopes:
        msg = email.message_from_bytes(env.original_content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        out.append(msg)
    handler.envelopes.clear()
    return out


def reply_to(msg: EmailMessage, text: str, subject: str | None = None) -> bytes:
    """A player's ordinary reply: the move on top, the referee's mail quoted below."""
    body = msg.get_body(("plain",))
    assert body is not None
    quoted = "\n".join("> " + line for line in body.get_content().splitlines())
    reply = EmailMessage()
    reply["From"] = msg["To"]
    reply["To"] = msg["From"]
    reply["Subject"] = subject or "Re: " + msg["Subject"]
    reply["In-Reply-To"] = msg["Message-ID"]
    reply["References"] = f"{msg['References']} {msg['Message-ID']}"
    reply["Message-ID"] = f"<{abs(hash(text + str(msg['Message-ID'])))}@player.example>"
    reply.set_content(f"{text}\n\nCheers\n-- \nsent by a player\n\nOn Jan 1, Referee wrote:\n"
                      f"{quoted}\n")
    return bytes(reply)


def mail_round(path: Path, port: int, handler: Collector) -> list[EmailMessage]:
    result = run("mail", path, "--from", SENDER, "--smtp", f"127.0.0.1:{port}")
    assert result.exit_code == 0, result.output
    return received(handler)


def test_full_game_by_email(tmp_path: Path, smtp_server: Callable[..., tuple[Collector, int]]
                            ) -> None:
    handler, port = smtp_server()
    path = tmp_path / "pbem.json"
    result = run("new", "toy", path, "--sealed", "--insecure-seed", "--seed", "mail-seed",
                 "--id", "pbem-1",
                 "--players", "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    assert result.exit_code == 0, result.output
    plan = ["take 3", "take 2", "take 3", "take 2"]
    for move in plan:
        messages = mail_round(path, port, handler)
        assert len(messages) == 2
        waiting = json.loads(run("status", path, "--json").output)["to_move"][0]
        mine = next(m for m in messages if m["X-Referee-Player"] == waiting)
        other = next(m for m in messages if m["X-Referee-Player"] != waiting)
        text = mine.get_body(("plain",)).get_content()
        assert f"legal moves for {waiting}" in text
        assert "legal moves" not in other.get_body(("plain",)).get_content()
        assert "mail-seed" not in mine.as_string() + other.as_string()
        raw = tmp_path / "reply.eml"
        raw.write_bytes(reply_to(mine, move))
        result = run("move", path, "--from-email", raw)
        assert result.exit_code == 0, result.output
        assert f"{waiting}: {move}" in result.output
        # the same mail again (a replay) is refused and changes nothing
        before = path.read_bytes()
        again = run("move", path, "--from-email", raw, "--reply-out", tmp_path / "r.mbox")
        assert again.exit_code == 1 and "game is at move" in again.output
        assert path.read_bytes() == before
    status = json.loads(run("status", path, "--json").output)
    assert status["finished"] and status["ranking"][0] == ["ben"]
    final = mail_round(path, port, handler)
    assert all("game over" in m["Subject"] for m in final)


@pytest.fixture
def game(tmp_path: Path, smtp_server: Callable[..., tuple[Collector, int]]
         ) -> tuple[Path, EmailMessage, EmailMessage]:
    handler, port = smtp_server()
    path = tmp_path / "g.json"
    run("new", "toy", path, "--sealed", "--insecure-seed", "--seed", "s", "--id", "g-1",
        "--players", "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    messages = mail_round(path, port, handler)
    ann = next(m for m in messages if m["X-Referee-Player"] == "ann")
    ben = next(m for m in messages if m["X-Referee-Player"] == "ben")
    return path, ann, ben


def rejected(path: Path, raw: bytes, tmp_path: Path, *fragments: str) -> EmailMessage:
    before = path.read_bytes()
    eml, out = tmp_path / "in.eml", tmp_path / "out.mbox"
    eml.write_bytes(raw)
    result = run("move", path, "--from-email", eml, "--reply-out", out)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.output
    assert path.read_bytes() == before
    answer = email.message_from_bytes(out.read_bytes().split(b"\n", 1)[1],
                                      policy=email.policy.default)
    assert isinstance(answer, EmailMessage)
    return answer


def test_forged_token_is_rejected_without_revealing_moves(
        game: tuple[Path, EmailMessage, EmailMessage], tmp_path: Path) -> None:
    path, ann, _ = game
    subject = ann["Subject"].rsplit("[#", 1)[0] + "[#aaaa-bbbb-cccc-dddd]"
    answer = rejected(path, reply_to(ann, "take 3", subject=subject), tmp_path,
                      "not authenticated")
    assert "take 1" not in answer.get_body(("plain",)).get_content()


def test_ben_cannot_move_for_ann_with_his_own_token(
        game: tuple[Path, EmailMessage, EmailMessage], tmp_path: Path) -> None:
    path, ann, ben = game
    forged = reply_to(ann, "take 3", subject="Re: " + ben["Subject"])
    rejected(path, forged, tmp_path, "not authenticated")


def test_illegal_move_by_mail_gets_an_answer_with_legal_moves(
        game: tuple[Path, EmailMessage, EmailMessage], tmp_path: Path) -> None:
    path, ann, _ = game
    answer = rejected(path, reply_to(ann, "take 9"), tmp_path, "'take 9' is not legal")
    assert answer["To"] == "ann@example.org"
    assert answer["In-Reply-To"]
    assert "take 3" in answer.get_body(("plain",)).get_content()


def test_out_of_turn_mail_is_rejected(game: tuple[Path, EmailMessage, EmailMessage],
                                      tmp_path: Path) -> None:
    path, _, ben = game
    rejected(path, reply_to(ben, "take 1"), tmp_path, "not ben's turn")


def test_mail_for_another_game_is_rejected(game: tuple[Path, EmailMessage, EmailMessage],
                                           tmp_path: Path) -> None:
    _, ann, _ = game
    other = tmp_path / "other.json"
    run("new", "toy", other, "--sealed", "--insecure-seed", "--seed", "x", "--id", "other-1",
        "--players", "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    rejected(other, reply_to(ann, "take 1"), tmp_path, "for game 'g-1', not 'other-1'")


def test_auto_reply_gets_no_answer_and_a_mail_without_a_game_says_so(
        game: tuple[Path, EmailMessage, EmailMessage], tmp_path: Path) -> None:
    path, ann, _ = game
    vacation = email.message_from_bytes(reply_to(ann, "I am away"), policy=email.policy.default)
    vacation["Auto-Submitted"] = "auto-replied"
    eml, out = tmp_path / "auto.eml", tmp_path / "auto.mbox"
    eml.write_bytes(bytes(vacation))
    result = run("move", path, "--from-email", eml, "--reply-out", out)
    assert result.exit_code == 1 and "automatic reply" in result.output
    assert not out.exists()
    stray = email.message_from_bytes(reply_to(ann, "take 1"), policy=email.policy.default)
    del stray["In-Reply-To"]
    del stray["References"]
    answer = rejected(path, bytes(stray), tmp_path, "reply to the latest mail")
    assert "None" not in answer.get_body(("plain",)).get_content()
