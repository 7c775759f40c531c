"""Broken headers are no internal error and never silence a readable move (issue 30,
item 3): every header the referee reads goes through referee/mail/headers.py, decoded
with replacement, and no answer copies a header of the incoming mail into its own.

Played as a player whose mail program (or a hostile sender) writes broken encoded words
(bad base64, bad quoted-printable, unknown charsets, raw 8-bit in and out of encoded
words, words that decode to surrogates), raw 8-bit, 10,000-character lines, NULs and
CR/LF tricks into From, To, Subject, Message-ID, In-Reply-To, References, Content-Type
and Content-Disposition parameters, filenames and charset names: through `referee move
--from-email FILE --reply-out OUT` (in process and as a subprocess) and through the
judge over a Maildir. A legal move is played and answered, an illegal one refused with
an answer to the player (its subject rebuilt from the game and the token), and nothing
prints an internal error or a traceback. The hand-picked cases go into every header at
once; hypothesis draws the junk of each header on its own.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.mail import headers
from referee.mail.replies import parse_reply
from tests.judge.support import body_text, deliver, reply
from tests.judge.test_maildir_loop import SENDER, Setup
from tests.mail.test_fresh import MailGame, log_of

ANN = b"ann@example.org"
# the pieces of broken headers: encoded words opened, closed, with bad payloads and
# unknown charsets; raw 8-bit (a lone byte, UTF-8, a UTF-8 surrogate); NUL, ESC;
# folding; RFC 2231 pieces. No letters that spell a forward ("Fwd:") or "attachment".
ATOMS = [b"=?utf-8?b?", b"=?utf-8?q?", b"?=", b"\xff", b"\xc3\xa9", b"\xed\xa0\x80",
         b"=ED=A0=80", b"7aCA", b"=?x-unknown?q?", b"=?iso-8859-1?q?", b"=?utf-8*de?q?",
         b"=?rot13?b?", b"=?utf\x00-8?q?", b"=FF", b"=Z", b"=00", b"=0D=0A", b"_", b"=",
         b"!!", b"w6", b"\x00", b"\x1b", b"\t", b" ", b"\r\n ", b"x", b"z", b"%FF",
         b"utf-8''", b"*0*=", b"'", b";", b"\\", b'"']
HAND = [  # each goes into every header of one mail
    b"=?utf-8?b?\xff\xfe?=",  # raw 8-bit in a base64 word (the issue's case)
    b"=?utf-8?q?\xff\xc3\xa9?=",  # raw 8-bit in a quoted-printable word
    b"=?iso-8859-1?q?\xe9?= =?utf-8?q?=ED=A0=80?=",  # a latin-1 word, then a surrogate
    b"=?utf-8?b?7aCA?=",  # base64 of a UTF-8 surrogate
    b"=?utf-8?b?!!!?=", b"=?utf-8?b?w6?=", b"=?utf-8?q?=ZZ=?=",  # bad base64, bad q-p
    b"=?x-unknown?q?abc?=", b"=?rot13?q?abc?=", b"=?utf\x00-8?q?a?=",  # no such charset
    b"=?" + b"a" * 200 + b"?q?x?=", b"=?utf-8?q?unclosed", b"?= =?",
    b"\xff\xfe raw \xc3\x28 8-bit", b"a\x00b\x00", b"esc \x1b[31m",
    b"=?utf-8?q?a=0D=0Ab=00c?=",  # CR LF and NUL, encoded
    b"x" * 10000, b"\xc3\xa9" * 5000, b"=?utf-8?q?a?= " * 800,  # overlong
]
FUZZ = settings(max_examples=int(os.environ.get("REFEREE_FUZZ_MAILS", "40")),
                deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
junk = st.lists(st.sampled_from(ATOMS), max_size=14).map(b"".join)
TAG = re.compile(rb"\[#[a-z2-7-]+\]")


# --------------------------------------------------------------------------- the mails


def split(raw: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """A mail's header fields (name, unfolded value) and its body."""
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    fields: list[tuple[bytes, bytes]] = []
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] = (fields[-1][0], fields[-1][1] + b" " + line.strip())
        else:
            name, _, value = line.partition(b":")
            fields.append((name, value.strip()))
    return fields, body


def hostile(raw: bytes, given: dict[str, bytes]) -> bytes:
    """``raw`` (an honest reply) with junk in the headers named in ``given``, placed so
    that what authenticates it survives: the subject's token tag after the junk, ann's
    address after a junk display name, the referee's Message-ID after junk in
    In-Reply-To and References. The body becomes the text part of a multipart/mixed
    mail (junk in its charset, parameters and filename) with an attachment (junk in its
    type's parameters, its charset and its filename)."""
    fields, body = split(raw)
    out = []
    own = {name.decode().lower(): value for name, value in fields}
    cte = own.get("content-transfer-encoding", b"7bit")
    found = re.search(rb'charset="?([\w-]+)', own.get("content-type", b""))
    for name, value in fields:
        key = name.decode().lower()
        if key in ("content-type", "content-transfer-encoding", "mime-version"):
            continue
        bad = given.get(key)
        if bad is None:
            out.append(name + b": " + value)
        elif key == "subject":
            tag = TAG.search(value)
            out.append(b"Subject: Re: " + bad + (b" " + tag.group(0) if tag else b""))
        elif key == "from":
            out.append(b"From: " + bad + b" <" + ANN + b">")
        elif key in ("in-reply-to", "references"):
            out.append(name + b": " + bad + b" " + value)
        else:
            out.append(name + b": " + bad)
    ctype, disposition = given.get("content-type", b""), given.get("filename", b"")
    charset = given.get("charset", found.group(1) if found else b"us-ascii")
    parts = [
        b'Content-Type: multipart/mixed; boundary="=b1="; x="' + ctype + b'"',
        b"", b"--=b1=",
        b'Content-Type: text/plain; charset="' + charset + b'"; y=' + ctype,
        b'Content-Disposition: inline; filename="' + disposition + b'"',
        b"Content-Transfer-Encoding: " + cte, b"", body.rstrip(),
        b"--=b1=",
        b'Content-Type: application/octet-stream; charset=' + charset + b'; name="'
        + disposition + b'"',
        b"Content-Disposition: attachment; filename*=utf-8''" + disposition
        + b"; filename*0*=" + ctype,
        b"", b"AAAA", b"--=b1=--", b""]
    return b"\n".join([*out, b"MIME-Version: 1.0", *parts])


HEADERS = ("subject", "from", "to", "message-id", "in-reply-to", "references",
           "content-type", "filename", "charset")


def everywhere(value: bytes) -> dict[str, bytes]:
    return dict.fromkeys(HEADERS, value)


def clean_output(text: str) -> None:
    assert "internal error" not in text and "Traceback" not in text, text


def parsed(data: bytes) -> EmailMessage:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


# --------------------------------------------------------------------------- the checks


class Cli:
    """`referee move --from-email` on a sealed toy game mailed with `referee mail`, the
    game file put back before each mail."""

    def __init__(self, tmp_path: Path) -> None:
        self.game = MailGame(tmp_path)
        self.ann = self.game.mail_round()["ann"]
        self.pristine = self.game.path.read_bytes()

    def check(self, given: dict[str, bytes], legal: bool) -> None:
        self.game.path.write_bytes(self.pristine)
        raw = hostile(reply(self.ann, "take 2" if legal else "take 9"), given)
        result = self.game.move(raw)
        clean_output(result.output)
        answer = self.game.tmp / f"answer-{self.game.count}.mbox"
        if legal:  # played
            assert result.exit_code == 0, result.output
            assert [e["by"] for e in log_of(self.game.path)] == ["ann"]
            assert not answer.exists()
            return
        assert result.exit_code == 1, result.output  # refused, with an answer to ann
        assert self.game.path.read_bytes() == self.pristine
        msg = parsed(answer.read_bytes().split(b"\n", 1)[1])
        assert msg["To"] == "ann@example.org"
        assert TAG.search(str(msg["Subject"]).encode()) and "take 9" in body_text(msg)


class JudgeRun:
    """The judge over a Maildir, its whole folder put back before each mail."""

    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "judge").mkdir()
        self.setup = Setup(tmp_path / "judge")
        self.setup.judge()
        self.ann = self.setup.latest("ann")
        self.root = tmp_path / "judge"
        self.pristine = tmp_path / "pristine"
        shutil.copytree(self.root, self.pristine)

    def check(self, given: dict[str, bytes], legal: bool | None) -> None:
        """``legal``: the mail holds a legal move (it must be played), an illegal one
        (refused), or None: a legal move that may be refused, but with an answer."""
        shutil.rmtree(self.root)
        shutil.copytree(self.pristine, self.root)
        self.setup.seen = len(self.setup.sent())
        before = self.setup.path.read_bytes()
        move = "take 9" if legal is False else "take 2"
        deliver(self.setup.inbox, hostile(reply(self.ann, move), given))
        result = self.setup.judge()
        clean_output(result.output)
        assert "quarantined: mail" not in result.output, result.output
        to_ann = [m for m in self.setup.new_mail() if "ann@example.org" in str(m["To"])]
        assert to_ann, result.output  # answered: the confirmation, or the refusal
        if legal is None:
            return
        if legal:
            assert "played: toy-1 take 2" in result.output, result.output
            assert [e["by"] for e in log_of(self.setup.path)] == ["ann"]
        else:
            assert "rejected: toy-1" in result.output, result.output
            assert self.setup.path.read_bytes() == before
            assert "`take 9` was not accepted" in " ".join(body_text(to_ann[0]).split())


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


@pytest.fixture
def judge(tmp_path: Path) -> JudgeRun:
    return JudgeRun(tmp_path)


@pytest.mark.parametrize("value", HAND, ids=lambda v: repr(v[:24]))
def test_cli_hand_picked_broken_headers(cli: Cli, value: bytes) -> None:
    cli.check(everywhere(value), legal=True)
    cli.check(everywhere(value), legal=False)


@pytest.mark.parametrize("value", HAND, ids=lambda v: repr(v[:24]))
def test_judge_hand_picked_broken_headers(judge: JudgeRun, value: bytes) -> None:
    judge.check(everywhere(value), legal=True)
    judge.check(everywhere(value), legal=False)


def drawn(data: st.DataObject) -> dict[str, bytes]:
    """Junk for some of the headers, each drawn on its own."""
    names = data.draw(st.lists(st.sampled_from(HEADERS), min_size=1, unique=True))
    return {name: data.draw(junk, label=name) for name in names}


def test_cli_fuzzed_headers(cli: Cli) -> None:
    @FUZZ
    @given(st.data(), st.booleans())
    def check(data: st.DataObject, legal: bool) -> None:
        cli.check(drawn(data), legal)

    check()


@pytest.mark.slow
def test_judge_fuzzed_headers(judge: JudgeRun) -> None:
    @FUZZ
    @given(st.data(), st.booleans())
    def check(data: st.DataObject, legal: bool) -> None:
        judge.check(drawn(data), legal)

    check()


# --------------------------------------------------------------------------- one by one


@given(st.sampled_from(HEADERS[:6]), st.lists(st.sampled_from(ATOMS), max_size=30))
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
def test_every_header_reads_as_clean_text(name: str, atoms: list[bytes]) -> None:
    """The reading itself, fast, on many more mails: each header the referee reads is
    text without a surrogate or a control character, whatever its bytes."""
    value = b"".join(atoms)
    rest = [b"From: ann@example.org", b"Subject: s", b"Message-ID: <m@x>"]
    raw = b"\n".join([name.encode() + b": " + value, *rest, b"", b"take 1", b""])
    got = parse_reply(raw)
    for text in (got.subject, got.sender, *(got.references), got.message_id or "",
                 *got.replies_to, got.game_id or "", got.player or ""):
        assert text == headers.clean(text), repr(text)
        text.encode("utf-8")  # no lone surrogate


def test_the_issues_subject_through_a_subprocess(tmp_path: Path) -> None:
    """The issue's case as a player meets it: `referee move --from-email` run as its own
    process on a Staufer game, with `=?utf-8?b?<raw 8-bit bytes>?=` (and a latin-1 word
    beside one that decodes to a surrogate) in the Subject."""
    exe = [sys.executable, "-m", "referee"]
    game, box = tmp_path / "g.json", tmp_path / "box"
    for args in (["new", "staufer", str(game), "--sealed", "--insecure-seed", "--seed", "s",
                  "--id", "g-1", "--players",
                  "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>"],
                 ["mail", str(game), "--from", SENDER, "--maildir", str(box)]):
        subprocess.run(exe + args, check=True, capture_output=True)
    msgs = [parsed(m.as_bytes()) for _, m in mailbox.Maildir(box, create=False).items()]
    ann = next(m for m in msgs if m["X-Referee-Player"] == "ann")
    pristine = game.read_bytes()
    for subject in (b"=?utf-8?b?\xff\xfe\xc3?=", b"=?iso-8859-1?q?\xe9?= =?utf-8?q?=ED=A0=80?="):
        for move, code in (("supply 9", 1), ("supply 2", 0)):
            eml, out = tmp_path / "in.eml", tmp_path / "out.mbox"
            eml.write_bytes(hostile(reply(ann, move), {"subject": subject}))
            done = subprocess.run([*exe, "move", str(game), "--from-email", str(eml),
                                   "--reply-out", str(out)], capture_output=True)
            clean_output(done.stdout.decode() + done.stderr.decode())
            assert done.returncode == code, done.stderr
            if code:
                answer = parsed(out.read_bytes().split(b"\n", 1)[1])
                assert str(answer["Subject"]).startswith("Re: [referee] g-1: move not acc")
                out.unlink()
        game.write_bytes(pristine)


# --------------------------------------------------------------------------- CR, LF


INJECTED: list[tuple[str, bytes]] = [
    ("subject", b"=?utf-8?q?hi=0D=0ABcc:_victim@example.com?="),
    ("from", b"=?utf-8?q?Ann=0D=0ABcc:_victim@example.com?="),
    ("subject", b"=?utf-8?b?" + __import__("base64").b64encode(
        b"x\r\nBcc: victim@example.com\r\n\r\nbody") + b"?="),
]


@pytest.mark.parametrize(("name", "value"), INJECTED)
def test_an_encoded_line_break_adds_no_header_to_an_answer(cli: Cli, judge: JudgeRun,
                                                           name: str, value: bytes) -> None:
    for check in (cli.check, judge.check):
        check({name: value}, legal=True)
        check({name: value}, legal=False)
    answers = [parsed(p.read_bytes().split(b"\n", 1)[1])
               for p in cli.game.tmp.glob("answer-*.mbox")]
    answers += judge.setup.sent()
    assert answers and all(m["Bcc"] is None and "victim" not in str(m["To"])
                           for m in answers)


def test_a_bare_cr_or_an_early_blank_line_is_answered_or_refused_cleanly(
        cli: Cli, judge: JudgeRun) -> None:
    """A bare CR ends a header line for the parser: what follows is a header of its own
    (here it takes the token tag out of the Subject), or after two the body. The mail
    is then not authenticated: refused with an answer to its sender, not an error."""
    judge.setup.new_mail()
    for value in (b"hi\rX-Injected: 1", b"hi\r\rtake 3"):
        raw = hostile(reply(cli.ann, "take 2"), {"subject": value})
        result = cli.game.move(raw)
        clean_output(result.output)
        assert result.exit_code == 1 and cli.game.path.read_bytes() == cli.pristine
        answer = parsed(cli.game.tmp.joinpath(f"answer-{cli.game.count}.mbox").read_bytes()
                        .split(b"\n", 1)[1])
        assert answer["To"] == "ann@example.org" and answer["X-Injected"] is None
        deliver(judge.setup.inbox, hostile(reply(judge.ann, "take 2"), {"subject": value}))
        out = judge.setup.judge()
        clean_output(out.output)
        assert "quarantined: mail" not in out.output and "played:" not in out.output, \
            out.output
        answers = judge.setup.new_mail()
        assert [str(m["To"]) for m in answers] == ["ann@example.org"], out.output
        assert answers[0]["X-Injected"] is None


def test_an_encoded_comma_in_a_players_name_is_no_second_address(cli: Cli,
                                                                 judge: JudgeRun) -> None:
    """``=?utf-8?q?M=C3=BCller=2C_Ann?= <ann@example.org>`` is one address: the comma
    is in the encoded name (read before as "Müller, Ann <ann@...>": two addresses, the
    first without a domain, and the honest move refused)."""
    name = {"from": b"=?utf-8?q?M=C3=BCller=2C_Ann?="}
    for check in (cli.check, judge.check):
        check(name, legal=True)
        check(name, legal=False)


@pytest.mark.parametrize("where", ["subject", "from", "references", "content-type"])
def test_a_megabyte_header_is_read_in_time(judge: JudgeRun, where: str) -> None:
    """Read in time (no quarantine for taking more than 5 s) and answered. A header is
    read up to its first 16 KiB: a token tag after that is lost, and the mail refused
    with an answer to its sender."""
    value: Callable[[], bytes] = {
        "subject": lambda: b"=?utf-8?q?a?= " * 60000,
        "from": lambda: b"\xc3\xa9" * 300000,
        "references": lambda: b"<x@y> " * 120000,
        "content-type": lambda: b"a=b; " * 50000}[where]  # (three times in the mail)
    judge.check({where: value()}, legal=None if where == "subject" else True)
