"""Tests for referee.mail: tokens, composing, delivery (a real local SMTP server) and
parsing players' replies as real mail programs write them."""

from __future__ import annotations

import base64
import email
import email.policy
import hashlib
import hmac
import io
import mailbox
import os
import re
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from referee import mail
from referee.errors import RefereeError
from referee.mail import MailError, Outgoing, Reply
from tests.conftest import Collector, free_port, missing, require_tool

KEY = b"0123456789abcdef-test-key"
GAME = "game-42"
DATE = datetime(2025, 1, 6, 10, 0, tzinfo=UTC)
SENDER = "Referee <referee@example.org>"
TOKEN_SHAPE = re.compile(r"^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$")


def is_authentic(reply: Reply, key: bytes) -> bool:
    """The token check alone (referee.mail.intake makes the whole one): the reply names
    a game and a player, is no auto-reply, and carries that player's token."""
    return (
        not reply.automatic
        and reply.game_id is not None
        and reply.player is not None
        and mail.check_token(key, reply.game_id, reply.player, reply.token)
    )


def tok(player: str, game: str = GAME) -> str:
    return mail.player_token(KEY, game, player)


# --------------------------------------------------------------------------- tokens


def test_token_matches_the_specification() -> None:
    mac = hmac.new(KEY, b"referee-token\0game-42\0ann", hashlib.sha256).digest()
    raw = base64.b32encode(mac[:10]).decode().lower()
    assert tok("ann") == "-".join([raw[0:4], raw[4:8], raw[8:12], raw[12:16]])
    assert TOKEN_SHAPE.match(tok("ann"))


def test_token_is_deterministic_and_differs_by_player_game_and_key() -> None:
    assert tok("ann") == tok("ann")
    others = {
        tok("bob"),
        tok("ann", "game-43"),
        mail.player_token(b"another key", GAME, "ann"),
        # the NUL separator keeps ("game-4", "2ann") apart from ("game-42", "ann")
        mail.player_token(KEY, "game-4", "2ann"),
    }
    assert tok("ann") not in others
    assert len(others) == 4


def test_token_for_non_ascii_ids() -> None:
    assert TOKEN_SHAPE.match(mail.player_token(KEY, "partie-ä", "jörg"))
    assert mail.check_token(KEY, "partie-ä", "jörg", mail.player_token(KEY, "partie-ä", "jörg"))


@pytest.mark.parametrize(
    "variant",
    [
        lambda t: t,
        lambda t: t.upper(),
        lambda t: t.replace("-", ""),
        lambda t: t.replace("-", " "),
        lambda t: f"  {t.upper().replace('-', '')}  ",
    ],
)
def test_check_token_accepts_formatting_variants(variant: Callable[[str], str]) -> None:
    assert mail.check_token(KEY, GAME, "ann", variant(tok("ann")))


@pytest.mark.parametrize("wrong", ["", None, "aaaa-bbbb-cccc-dddd", "ann", "é" * 16])
def test_check_token_rejects_wrong_tokens(wrong: str | None) -> None:
    assert not mail.check_token(KEY, GAME, "ann", wrong)


def test_check_token_rejects_other_players_and_games_tokens() -> None:
    assert not mail.check_token(KEY, GAME, "ann", tok("bob"))
    assert not mail.check_token(KEY, GAME, "ann", tok("ann", "game-43"))
    assert not mail.check_token(KEY, GAME, "ann", tok("ann")[:-1])


def test_empty_key_is_a_referee_error() -> None:
    with pytest.raises(MailError) as info:
        mail.player_token(b"", GAME, "ann")
    assert isinstance(info.value, RefereeError)


# --------------------------------------------------------------------------- compose


def test_subject_lists_who_is_to_move() -> None:
    assert mail.subject("staufer", GAME, ["ann"]) == "[referee] staufer game-42: ann to move"
    assert mail.subject("staufer", GAME, ["ann", "bob"]).endswith("ann and bob to move")
    assert mail.subject("staufer", GAME, ["a", "b", "c"]).endswith(": a, b and c to move")
    assert mail.subject("staufer", GAME, []).endswith(": game over")


def outgoing() -> list[Outgoing]:
    return [
        Outgoing(
            "ann",
            "Ann Müller <ann@example.org>",
            "[referee] staufer game-42: ann to move",
            "Grüß Gott, Ann!\nDer Kaiser zieht nach Ulm. ♞\nFrom here on it is your turn.",
        ),
        Outgoing(
            "bob", "bob@example.org", "[referee] staufer game-42: ann to move", "Ann is to move."
        ),
    ]


def composed(**kwargs: Any) -> list[EmailMessage]:
    args: dict[str, Any] = {"sender": SENDER, "game_id": GAME, "move_number": 7, "date": DATE}
    args.update(kwargs)
    return mail.compose(outgoing(), key=args.pop("key", KEY), **args)


def test_compose_headers_and_threading() -> None:
    ann, bob = composed()
    assert ann["From"] == SENDER
    assert ann["To"].addresses[0].addr_spec == "ann@example.org"
    # with a key the Message-ID carries a MAC (a reply must answer one the referee made)
    assert ann["Message-ID"] == mail.make_id(KEY, GAME, "ann", 7, 0)
    assert bob["Message-ID"] == mail.make_id(KEY, GAME, "bob", 7, 0)
    assert mail.check_id(KEY, mail.parse_id(ann["Message-ID"]))  # type: ignore[arg-type]
    for msg in (ann, bob):
        assert msg["In-Reply-To"] == "<referee.game-42@referee.invalid>"
        assert msg["References"] == "<referee.game-42@referee.invalid>"
        assert msg["X-Referee-Game"] == GAME
        assert msg["X-Referee-Move"] == "7"
        assert msg["Auto-Submitted"] == "auto-generated"
        assert msg["Date"] == "Mon, 06 Jan 2025 10:00:00 +0000"
    assert ann["X-Referee-Player"] == "ann"
    assert bob["X-Referee-Player"] == "bob"
    assert ann["Subject"] == f"[referee] staufer game-42: ann to move [#{tok('ann')}]"
    assert bob["Subject"].endswith(f"[#{tok('bob')}]")


def test_compose_utf8_round_trip() -> None:
    ann = composed()[0]
    raw = ann.as_bytes()
    assert raw.isascii()  # 7-bit clean on the wire: RFC 2047 headers, quoted-printable body
    back = email.message_from_bytes(raw, policy=email.policy.default)
    assert back["To"].addresses[0].display_name == "Ann Müller"
    body = back.get_body(("plain",)).get_content()
    assert "Grüß Gott, Ann!\nDer Kaiser zieht nach Ulm. ♞\n" in body
    assert f"token: {tok('ann')}" in body
    assert "game: game-42\nplayer: ann\n" in body


def test_compose_unicode_subject_round_trip() -> None:
    out = Outgoing("ann", "ann@example.org", "[referee] Staufer-Dynastie: Ötzi am Zug", "x")
    msg = mail.compose([out], sender=SENDER, game_id=GAME, move_number=1, date=DATE)[0]
    back = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    assert back["Subject"] == "[referee] Staufer-Dynastie: Ötzi am Zug"
    assert "[#" not in back["Subject"]  # no key, no token


def test_compose_is_deterministic() -> None:
    first = [m.as_bytes() for m in composed()]
    second = [m.as_bytes() for m in composed()]
    assert first == second


def test_message_ids_are_sanitised_and_reversible() -> None:
    game, player = "spiel 7/ä.b", "jörg.m<x>"
    msg = mail.compose(
        [Outgoing(player, "j@example.org", "s", "b")],
        sender=SENDER,
        game_id=game,
        move_number=3,
        date=DATE,
        key=KEY,
    )[0]
    msgid = msg["Message-ID"]
    assert msgid.isascii()
    assert re.fullmatch(r"<[A-Za-z0-9_=.\-]+@referee\.invalid>", msgid)
    assert msg["In-Reply-To"] == mail.thread_id(game)
    reply = mail.parse_reply(
        b"From: j@example.org\r\nSubject: Re: s\r\nIn-Reply-To: "
        + msgid.encode()
        + b"\r\n\r\npass\r\n"
    )
    assert (reply.game_id, reply.player, reply.move_number) == (game, player, 3)


def test_compose_rejects_a_bad_address() -> None:
    with pytest.raises(MailError, match="bob"):
        mail.compose(
            [Outgoing("bob", "not an address", "s", "b")],
            sender=SENDER,
            game_id=GAME,
            move_number=1,
            date=DATE,
        )
    with pytest.raises(MailError):
        mail.compose(
            [Outgoing("bob", "bob@example.org", "s\r\nBcc: x@y.org", "b")],
            sender=SENDER,
            game_id=GAME,
            move_number=1,
            date=DATE,
        )


# --------------------------------------------------------------------------- local output


def test_write_stdout_is_an_mbox(tmp_path: Path) -> None:
    msgs = composed()
    stream = io.StringIO()
    mail.write_stdout(msgs, stream)
    text = stream.getvalue()
    assert text.startswith("From referee@referee.invalid Mon Jan  6 10:00:00 2025\n")
    assert "\n>From here on it is your turn." in text  # mboxo escaping
    path = tmp_path / "out.mbox"
    path.write_text(text)
    box = mailbox.mbox(str(path))
    got = [m["Message-ID"] for m in box]
    assert got == [m["Message-ID"] for m in msgs]
    box.close()


def test_write_maildir_creates_and_is_readable(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "Maildir"
    keys = mail.write_maildir(composed(), target)
    assert len(keys) == 2
    assert (target / "new").is_dir() and (target / "cur").is_dir()
    box = mailbox.Maildir(str(target), create=False)
    ids = sorted(box[k]["Message-ID"] for k in keys)
    assert ids == sorted(m["Message-ID"] for m in composed())
    # append to an existing maildir
    mail.write_maildir(composed()[:1], target)
    assert len(mailbox.Maildir(str(target), create=False)) == 3


def test_write_maildir_error_is_a_mail_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(MailError, match="maildir"):
        mail.write_maildir(composed(), blocker / "Maildir")


# --------------------------------------------------------------------------- parse_reply

ANN_ID = "<referee.game-42.7.ann@referee.invalid>"
ROOT_ID = "<referee.game-42@referee.invalid>"


def referee_body(player: str = "ann") -> str:
    msg = composed()[0 if player == "ann" else 1]
    return msg.get_body(("plain",)).get_content()


def quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def raw_mail(
    body: str,
    *,
    subject: str | None = None,
    sender: str = "Ann Müller <ann@example.org>",
    in_reply_to: str | None = ANN_ID,
    references: str | None = f"{ROOT_ID} {ANN_ID}",
    content_type: str = "text/plain; charset=UTF-8",
    extra: str = "",
) -> bytes:
    if subject is None:
        subject = f"Re: [referee] staufer game-42: ann to move [#{tok('ann')}]"
    headers = [
        f"From: {sender}",
        "To: Referee <referee@example.org>",
        f"Subject: {subject}",
        "Date: Mon, 6 Jan 2025 12:00:00 +0100",
        "Message-ID: <CAF1234abcd@mail.example.org>",
    ]
    if in_reply_to:
        headers.append(f"In-Reply-To: {in_reply_to}")
    if references:
        headers.append(f"References: {references}")
    headers += [
        "MIME-Version: 1.0",
        f"Content-Type: {content_type}",
        "Content-Transfer-Encoding: 8bit",
    ]
    if extra:
        headers.append(extra)
    return ("\r\n".join(headers) + "\r\n\r\n" + body.replace("\n", "\r\n")).encode("utf-8")


def test_plain_top_posted_reply_with_signature_and_quote() -> None:
    body = (
        "Hi referee,\n\n"
        "place knight Augsburg\n\n"
        "Cheers,\nAnn\n"
        "-- \nAnn Müller · move: this is my signature\n\n"
        "On Mon, Jan 6, 2025 at 11:00 AM Referee <referee@example.org> wrote:\n"
        + quote(referee_body())
    )
    reply = mail.parse_reply(raw_mail(body))
    assert reply.sender == "ann@example.org"
    assert (reply.game_id, reply.player, reply.move_number) == (GAME, "ann", 7)
    assert reply.moves == ("place knight Augsburg",)
    assert reply.token == tok("ann")
    assert reply.in_reply_to == ANN_ID
    assert reply.message_id == "<CAF1234abcd@mail.example.org>"
    assert not reply.forwarded and not reply.automatic
    assert is_authentic(reply, KEY)


def test_bottom_posted_reply_with_wrapped_attribution_and_mobile_signature() -> None:
    body = (
        "On Mon, 6 Jan 2025 at 11:00, Referee <\n"
        "referee@example.org> wrote:\n"
        + quote(referee_body())
        + "\n\nHello!\n\nmove: buy 2 grain\n\nSent from my iPhone\n"
    )
    reply = mail.parse_reply(raw_mail(body))
    assert reply.moves == ("buy 2 grain",)
    assert is_authentic(reply, KEY)


def test_quoted_token_is_not_a_token_and_quoted_lines_are_not_moves() -> None:
    # the subject lost its tag; the token is only in the quoted referee mail
    body = "\n" + quote(referee_body()) + "\n"
    reply = mail.parse_reply(raw_mail(body, subject="Re: your turn"))
    assert reply.token is None
    assert reply.moves == ()
    assert (reply.game_id, reply.player) == (GAME, "ann")  # identified, not authenticated
    assert not is_authentic(reply, KEY)


def test_own_token_line_when_the_subject_was_lost() -> None:
    body = f"place knight Ulm\ntoken: {tok('ann').upper()}\n\n" + quote(referee_body())
    reply = mail.parse_reply(raw_mail(body, subject="my move"))
    assert reply.moves == ("place knight Ulm",)
    assert is_authentic(reply, KEY)


def test_several_moves_and_a_bare_move_line() -> None:
    body = "Hi,\nmove: buy 2\nI think this is it.\nmove:\n\npass\nmove: Ölmühle bauen\n"
    reply = mail.parse_reply(raw_mail(body))
    assert reply.moves == ("buy 2", "pass", "Ölmühle bauen")


GMAIL_HTML = """\
<div dir="ltr">Hallo Schiri,<div><br></div><div>place knight Augsburg &amp; pass</div></div>
<br><div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">On Mon,
Jan 6, 2025 at 11:00 AM Referee &lt;<a href="mailto:referee@example.org">referee@example.org</a>
&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">
Your turn.<br>--&nbsp;<br>    token: {token}<br>game: game-42<br>player: ann<br>
</blockquote></div>
"""


def test_html_only_reply() -> None:
    html_body = GMAIL_HTML.format(token=tok("ann"))
    reply = mail.parse_reply(raw_mail(html_body, content_type="text/html; charset=UTF-8"))
    assert reply.moves == ("place knight Augsburg & pass",)
    assert reply.token == tok("ann")  # from the subject
    assert is_authentic(reply, KEY)
    # the token inside the <blockquote> does not count
    bare = mail.parse_reply(
        raw_mail(html_body, subject="Re: turn", content_type="text/html; charset=UTF-8")
    )
    assert bare.token is None
    assert (bare.game_id, bare.player) == (GAME, "ann")


def test_html_to_text_marks_quotes() -> None:
    text = mail.html_to_text("<p>a<br>b</p><blockquote>c<blockquote>d</blockquote></blockquote>")
    assert [line for line in text.splitlines() if line] == ["a", "b", "> c", "> > d"]


OUTLOOK_HTML = """\
<html><body><div>place knight Ulm</div><div><br></div><hr style="display:inline-block">
<div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Referee &lt;referee@example.org&gt;<br>
<b>Sent:</b> Monday, January 6, 2025 11:00<br><b>Subject:</b> [referee] game-42</div>
<div>Your turn.<br>token: {token}<br>game: game-42<br>player: ann</div></body></html>
"""


def test_outlook_html_reply_with_unquoted_original() -> None:
    html_body = OUTLOOK_HTML.format(token=tok("ann"))
    reply = mail.parse_reply(
        raw_mail(html_body, subject="RE: turn", content_type="text/html; charset=UTF-8")
    )
    assert reply.moves == ("place knight Ulm",)
    assert reply.token is None  # the original below the reply marker is not the player's
    assert (reply.game_id, reply.player) == (GAME, "ann")


def test_multipart_alternative_prefers_plain() -> None:
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg["Subject"] = f"Re: x [#{tok('ann')}]"
    msg["In-Reply-To"] = ANN_ID
    msg.set_content("pass\n")
    msg.add_alternative("<p>something else</p>", subtype="html")
    reply = mail.parse_reply(msg.as_bytes())
    assert reply.moves == ("pass",)
    assert is_authentic(reply, KEY)


def test_outlook_top_post_with_unquoted_original() -> None:
    body = (
        "move: buy 2\r\nmove: pass\r\n\r\n"
        "________________________________\r\n"
        "From: Referee <referee@example.org>\r\n"
        "Sent: Monday, January 6, 2025 11:00\r\n"
        "To: Ann Müller\r\n"
        "Subject: [referee] staufer game-42: ann to move\r\n\r\n" + referee_body()
    )
    reply = mail.parse_reply(raw_mail(body, subject="RE: [referee] staufer game-42"))
    assert reply.moves == ("buy 2", "pass")
    assert reply.token is None  # the unquoted copy of the referee's mail gives no token
    # without the separator line, the header block alone ends the player's text
    body2 = body.replace("________________________________\r\n", "")
    reply2 = mail.parse_reply(raw_mail(body2, subject="RE: x", in_reply_to=None, references=None))
    assert reply2.token is None
    assert (reply2.game_id, reply2.player) == (GAME, "ann")


def test_forwarded_mail_does_not_authenticate_the_receiver() -> None:
    # Ann forwarded the referee's mail to Bob; Bob mails the referee his idea of a move
    forwarded = mail.compose(
        outgoing()[:1], sender=SENDER, game_id=GAME, move_number=7, date=DATE, key=KEY
    )[0]
    body = (
        "place knight Ulm\n\n"
        "---------- Forwarded message ---------\n"
        f"From: {SENDER}\n"
        "Date: Mon, Jan 6, 2025 at 11:00 AM\n"
        f"Subject: {forwarded['Subject']}\n"
        "To: Ann Müller <ann@example.org>\n\n" + referee_body()
    )
    for subj in (
        f"Fwd: {forwarded['Subject']}",
        f"Re: Fwd: {forwarded['Subject']}",
        f"WG: {forwarded['Subject']}",
    ):
        reply = mail.parse_reply(
            raw_mail(
                body, subject=subj, sender="bob@example.org", in_reply_to=None, references=None
            )
        )
        assert reply.forwarded
        assert reply.token is None
        assert reply.moves == ("place knight Ulm",)
        assert (reply.game_id, reply.player) == (GAME, "ann")
        assert not is_authentic(reply, KEY)
        assert reply.warnings
    # even with the subject edited, the forwarded-message marker in the body counts
    reply = mail.parse_reply(
        raw_mail(
            body,
            subject=forwarded["Subject"],
            sender="bob@example.org",
            in_reply_to=None,
            references=None,
        )
    )
    assert reply.forwarded and not is_authentic(reply, KEY)


def test_forward_as_attachment_identifies_but_does_not_authenticate() -> None:
    original = composed()[0]
    outer = EmailMessage()
    outer["From"] = "bob@example.org"
    outer["To"] = "referee@example.org"
    outer["Subject"] = f"{original['Subject']}"  # subject copied verbatim, tag included
    outer["Message-ID"] = "<fwd1@example.org>"
    outer.set_content("pass\n")
    outer.add_attachment(original)
    reply = mail.parse_reply(outer.as_bytes())
    assert (reply.game_id, reply.player, reply.move_number) == (GAME, "ann", 7)
    assert reply.forwarded
    assert reply.moves == ("pass",)
    assert not is_authentic(reply, KEY)


def test_missing_token() -> None:
    body = "game: game-42\nplayer: ann\n\nplace knight Ulm\n"
    reply = mail.parse_reply(raw_mail(body, subject="my move", in_reply_to=None, references=None))
    assert (reply.game_id, reply.player) == (GAME, "ann")
    assert reply.token is None
    assert reply.moves == ("place knight Ulm",)
    assert not is_authentic(reply, KEY)


def test_forged_from_with_a_wrong_token() -> None:
    # From says Ann, but the tag is Bob's own token (or made up): not Ann's reply
    for fake in (tok("bob"), "aaaa-bbbb-cccc-dddd"):
        reply = mail.parse_reply(
            raw_mail("pass\n", subject=f"Re: [referee] staufer game-42: ann to move [#{fake}]")
        )
        assert reply.sender == "ann@example.org"
        assert reply.player == "ann"
        assert reply.token == fake
        assert not is_authentic(reply, KEY)


def test_auto_reply_is_never_authentic() -> None:
    reply = mail.parse_reply(
        raw_mail(
            "I am on holiday until 20 January.\n",
            subject=f"Automatic reply: [referee] staufer game-42: ann to move [#{tok('ann')}]",
            extra="Auto-Submitted: auto-replied",
        )
    )
    assert reply.automatic
    assert reply.token == tok("ann")
    assert not is_authentic(reply, KEY)


def test_reply_without_references_uses_the_thread_root() -> None:
    reply = mail.parse_reply(raw_mail("pass\n", in_reply_to=ROOT_ID, references=ROOT_ID))
    assert reply.game_id == GAME and reply.player is None


def test_garbage_does_not_crash() -> None:
    for raw in (
        b"",
        b"\xff\xfe\x00garbage",
        b"From: <<<\r\n\r\n",
        b"Subject: x\r\n\r\n-- \r\n",
        b"Content-Type: text/plain; charset=x-unknown\r\n\r\npass\xff\r\n",
        # crashes the structured Message-ID parser of Python 3.11's email package
        b"Message-ID: <)AF@x>\r\nIn-Reply-To: <(x@y>\r\nFrom: a@b.org\r\n\r\npass\r\n",
    ):
        reply = mail.parse_reply(raw)
        assert isinstance(reply, Reply)
        assert not is_authentic(reply, KEY)


# --------------------------------------------------------------------------- rejection


def rejected(reply: Reply) -> EmailMessage:
    return mail.rejection(reply, "Rome is not on the board.", ["place knight Ulm", "pass"],
                          sender=SENDER, to="ann@example.org", game_id=GAME, player="ann",
                          token=tok("ann"), date=DATE)


def test_rejection_is_threaded_to_the_players_mail() -> None:
    reply = mail.parse_reply(raw_mail("place knight Rome\n"))
    msg = rejected(reply)
    assert msg["To"] == "ann@example.org"
    assert msg["In-Reply-To"] == "<CAF1234abcd@mail.example.org>"
    assert msg["References"].split() == [ROOT_ID, ANN_ID, "<CAF1234abcd@mail.example.org>"]
    # rebuilt from the game and the token, not copied from the player's subject
    assert msg["Subject"] == f"Re: [referee] {GAME}: move not accepted [#{tok('ann')}]"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["X-Referee-Player"] == "ann"
    body = msg.get_body(("plain",)).get_content()
    assert "place knight Rome" in body and "Rome is not on the board." in body
    assert "    place knight Ulm\n    pass\n" in body
    assert msg.as_bytes() == rejected(reply).as_bytes()
    # the player answers the rejection: still identified through References
    again = mail.parse_reply(
        raw_mail(
            "place knight Ulm\n",
            subject=msg["Subject"],
            in_reply_to=msg["Message-ID"],
            references=msg["References"] + " " + msg["Message-ID"],
        )
    )
    assert (again.game_id, again.player) == (GAME, "ann")
    assert is_authentic(again, KEY)


def test_rejection_subject_never_carries_the_players_subject() -> None:
    for subject in ("Re: hi", "=?iso-8859-1?q?\xe9?= =?utf-8?q?=ED=A0=80?= [#" + tok("ann") + "]",
                    "=?utf-8?b?7aCA?= \x00 " + "x" * 10000):
        raw = raw_mail("pass\n").replace(
            b"Subject: Re: [referee] staufer game-42: ann to move [#" + tok("ann").encode()
            + b"]", b"Subject: " + subject.encode("utf-8", "surrogateescape"))
        msg = rejected(mail.parse_reply(raw))
        assert msg["Subject"] == f"Re: [referee] {GAME}: move not accepted [#{tok('ann')}]"
        assert b"[#" + tok("ann").encode() + b"]" in msg.as_bytes()


def test_an_answer_to_a_stranger_quotes_nothing_of_their_mail() -> None:
    raw = raw_mail("BUY-PILLS-BODY\n", subject="Re: BUY-PILLS-SUBJECT",
                   sender="BUY-PILLS-NAME <mallory@example.com>")
    reply = mail.parse_reply(raw)
    msg = mail.stranger_answer(reply.sender, "Not accepted: the mail is not authenticated.",
                               sender=SENDER, msgid=str(reply.message_id), date=DATE)
    assert msg["To"] == "mallory@example.com"
    ref = mail.reference(str(reply.message_id))
    assert msg["Subject"] == f"[referee] your mail (ref {ref})"
    assert msg["In-Reply-To"] is None and msg["References"] is None
    assert b"BUY-PILLS" not in msg.as_bytes() and b"CAF1234abcd" not in msg.as_bytes()
    assert "not authenticated" in msg.get_body(("plain",)).get_content()


# --------------------------------------------------------------------------- SMTP


def envelope_messages(handler: Collector) -> list[EmailMessage]:
    out = []
    for env in handler.envelopes:
        msg = email.message_from_bytes(env.original_content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        out.append(msg)
    return out


def test_send_smtp_delivers_every_message(
    smtp_server: Callable[..., tuple[Collector, int]],
) -> None:
    handler, port = smtp_server()
    msgs = composed()
    sent = mail.send_smtp(msgs, "127.0.0.1", port, starttls=False, timeout=5)
    assert sent == [m["Message-ID"] for m in msgs]
    assert [e.rcpt_tos for e in handler.envelopes] == [["ann@example.org"], ["bob@example.org"]]
    assert all(e.mail_from == "referee@example.org" for e in handler.envelopes)
    got = envelope_messages(handler)
    assert [m["X-Referee-Player"] for m in got] == ["ann", "bob"]
    assert "Der Kaiser zieht nach Ulm. ♞" in got[0].get_body(("plain",)).get_content()


def test_send_smtp_refused_recipient_does_not_stop_the_others(
    smtp_server: Callable[..., tuple[Collector, int]],
) -> None:
    handler, port = smtp_server()
    outs = [
        Outgoing("ann", "ann@example.org", "s", "b"),
        Outgoing("zed", "nobody@example.org", "s", "b"),
        Outgoing("bob", "bob@example.org", "s", "b"),
    ]
    msgs = mail.compose(outs, sender=SENDER, game_id=GAME, move_number=2, date=DATE)
    with pytest.raises(MailError) as info:
        mail.send_smtp(msgs, "127.0.0.1", port, starttls=False, timeout=5)
    assert "nobody@example.org" in info.value.message
    assert "recipient refused" in info.value.message and "550" in info.value.message
    assert "2 of 3" in " ".join(info.value.hints)
    assert [e.rcpt_tos for e in handler.envelopes] == [["ann@example.org"], ["bob@example.org"]]


def _authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"ref", b"s3cret")
    return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_send_smtp_with_auth(smtp_server: Callable[..., tuple[Collector, int]]) -> None:
    handler, port = smtp_server(
        authenticator=_authenticator, auth_required=True, auth_require_tls=False
    )
    msgs = composed()
    mail.send_smtp(
        msgs, "127.0.0.1", port, starttls=False, username="ref", password="s3cret", timeout=5
    )
    assert len(handler.envelopes) == 2

    with pytest.raises(MailError, match="refused the login of ref") as info:
        mail.send_smtp(
            msgs, "127.0.0.1", port, starttls=False, username="ref", password="wrong", timeout=5
        )
    assert "535" in info.value.message
    with pytest.raises(MailError, match="refused the sender"):
        mail.send_smtp(msgs, "127.0.0.1", port, starttls=False, timeout=5)  # no login
    with pytest.raises(MailError, match="without a password"):
        mail.send_smtp(msgs, "127.0.0.1", port, starttls=False, username="ref", password=None)
    assert len(handler.envelopes) == 2


def test_send_smtp_starttls_not_offered(smtp_server: Callable[..., tuple[Collector, int]]) -> None:
    handler, port = smtp_server()
    with pytest.raises(MailError, match="does not offer STARTTLS"):
        mail.send_smtp(composed(), "127.0.0.1", port, starttls=True, timeout=5)
    assert handler.envelopes == []


@pytest.fixture
def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1, made with the openssl tool (no Python dependency)."""
    openssl = require_tool("openssl")  # to make a self-signed certificate
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    done = subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        missing(f"openssl cannot make a certificate: {done.stderr.decode()[:200]}")
    return cert, key


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_send_smtp_starttls_and_auth(
    smtp_server: Callable[..., tuple[Collector, int]], self_signed: tuple[Path, Path]
) -> None:
    cert, key = self_signed
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(str(cert), str(key))
    handler, port = smtp_server(
        tls_context=server_ctx,
        require_starttls=True,
        authenticator=_authenticator,
        auth_required=True,
    )
    client_ctx = ssl.create_default_context(cafile=str(cert))
    msgs = composed()
    mail.send_smtp(
        msgs,
        "127.0.0.1",
        port,
        starttls=True,
        username="ref",
        password="s3cret",
        timeout=5,
        ssl_context=client_ctx,
    )
    assert len(handler.envelopes) == 2
    # the system trust store does not know the self-signed certificate
    with pytest.raises(MailError, match="TLS"):
        mail.send_smtp(msgs, "127.0.0.1", port, starttls=True, timeout=5)
    # the server requires STARTTLS: plain text is refused, with a message, no traceback
    with pytest.raises(MailError):
        mail.send_smtp(msgs, "127.0.0.1", port, starttls=False, timeout=5)
    assert len(handler.envelopes) == 2


def test_send_smtp_connection_refused() -> None:
    port = free_port()  # nothing listens there
    with pytest.raises(MailError, match="cannot connect") as info:
        mail.send_smtp(composed(), "127.0.0.1", port, starttls=False, timeout=5)
    assert "refused" in info.value.message
    assert info.value.hints


def test_send_smtp_silent_server_times_out() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)  # accepts the TCP connection, never greets
        port = listener.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(MailError, match="timed out"):
            mail.send_smtp(composed(), "127.0.0.1", port, starttls=False, timeout=0.5)
        assert time.monotonic() - started < 5


def test_send_smtp_server_hangs_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]

        def hang_up() -> None:
            conn, _ = listener.accept()
            conn.close()

        thread = threading.Thread(target=hang_up, daemon=True)
        thread.start()
        with pytest.raises(MailError):
            mail.send_smtp(composed(), "127.0.0.1", port, starttls=False, timeout=5)
        thread.join(5)


def test_one_maildir_for_referee_mail_and_the_judge(tmp_path: Path) -> None:
    from referee.mail.delivery import Maildir

    target = tmp_path / "box"
    keys = mail.write_maildir(composed(), target)
    assert (target.stat().st_mode & 0o777) == 0o700  # the mails carry players' tokens
    box = Maildir(target)
    assert box.pending() == sorted(keys)
    box.mark_seen(keys[0])
    assert (target / "cur" / f"{keys[0]}:2,S").exists() and box.pending() == [keys[1]]
    moved = box.quarantine(keys[1])
    assert moved == target / ".Quarantine" / "new" / keys[1] and box.pending() == []
    assert isinstance(mailbox.Maildir(str(target)).get_folder("Quarantine"), mailbox.Maildir)
    # a mail added under its own name is written once, wherever it is now
    assert box.add_once("m1.referee", b"Subject: one\n\nbody\n") is True
    assert box.add_once("m1.referee", b"Subject: two\n\nbody\n") is False
    box.mark_seen("m1.referee")
    assert box.add_once("m1.referee", b"Subject: three\n\nbody\n") is False
    assert box.read("m1.referee", 100) == b"Subject: one\n\nbody\n"
    assert box.read("m1.referee", 10) is None  # larger than the bound: not read
    assert list((target / "tmp").iterdir()) == []


def test_the_maildir_never_waits_on_a_fifo_or_follows_a_symlink(tmp_path: Path) -> None:
    from referee.mail.delivery import Maildir

    box = Maildir(tmp_path / "box", create=True)
    os.mkfifo(tmp_path / "box" / "new" / "1.fifo")
    (tmp_path / "secret").write_text("not a mail")
    os.symlink(tmp_path / "secret", tmp_path / "box" / "new" / "2.link")
    started = time.monotonic()
    for key in box.pending():
        with pytest.raises(OSError):
            box.read(key, 1000)
    assert time.monotonic() - started < 2


def test_a_missing_maildir_is_a_usage_error(tmp_path: Path) -> None:
    from referee.errors import UsageError
    from referee.mail.delivery import Maildir

    (tmp_path / "half" / "new").mkdir(parents=True)
    with pytest.raises(UsageError, match="is not a Maildir"):
        Maildir(tmp_path / "half")
