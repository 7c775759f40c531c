"""Every mailed command is as fresh as a move, and `referee mail` + `move --from-email`
have the judge's checks (one intake, referee/mail/intake.py).

The attacks are played as a cheater would: mails put into the judge's Maildir, or files
given to `referee move --from-email`; each is refused with a message naming the reason
and changes nothing, while the honest reply next to it passes.
"""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import Result

from referee import mail
from referee.ledger import gamefile, secret
from referee.mail import tokens
from tests.conftest import run
from tests.judge.support import body_text, parse, reply
from tests.judge.test_maildir_loop import SENDER, Setup
from tests.support.judgestate import read_state, write_state

STALE = "this answers an old mail; reply to the latest one"
GM = "gm@example.org"


def log_of(path: Path) -> list[dict[str, object]]:
    return list(json.loads(path.read_text())["log"])


def flat(msg: EmailMessage) -> str:
    """A mail's text with every run of white space one space (notes are wrapped)."""
    return " ".join(body_text(msg).split())


def mails_to(setup: Setup, pid: str) -> list[EmailMessage]:
    """``pid``'s judge mails, oldest first (by the ID counter)."""
    mine = [m for m in setup.sent() if m["X-Referee-Player"] == pid]
    return sorted(mine, key=lambda m: tokens.parse_id(str(m["Message-ID"])).counter)  # type: ignore[union-attr]


@pytest.fixture
def round_played(tmp_path: Path) -> Setup:
    """A toy game in which ann, ben and cat have each taken 1: ann's mails are her start
    mail (move 0), the confirmation of her move (move 1) and her turn (move 3)."""
    setup = Setup(tmp_path)
    setup.options = ("--gm", GM)
    setup.judge()
    for pid in ("ann", "ben", "cat"):
        setup.send(reply(setup.latest(pid), "take 1"))
    assert [tokens.parse_id(str(m["Message-ID"])).n for m in mails_to(setup, "ann")] == [0, 1, 3]  # type: ignore[union-attr]
    setup.new_mail()
    return setup


# --------------------------------------------------------------------------- the judge


@pytest.mark.parametrize("command", ["bot random", "notify every", "say hello all",
                                     "undo", "status", "help", "take 1"])
def test_judge_refuses_every_command_on_the_second_latest_mail(round_played: Setup,
                                                               command: str) -> None:
    setup = round_played
    second_latest = mails_to(setup, "ann")[-2]
    before = setup.path.read_bytes()
    out = setup.send(reply(second_latest, command))
    assert setup.path.read_bytes() == before  # no bot, no notify, no undo, no move
    assert [str(m["To"]) for m in out] == ["Ann <ann@example.org>"]  # nobody else hears
    text = flat(out[0])
    assert STALE in text and "the referee's mail of move 1, but the game is at move 3" in text
    # the answer is the current state, a fresh mail: the same command replying to it counts
    out = setup.send(reply(out[0], command))
    assert out and all(STALE not in flat(m) for m in out)
    if command == "bot random":  # past the intake; the toy game has no bots
        assert "toy cannot be played by bots" in flat(out[0])
    elif command == "undo":  # past the intake; cat moved last, so ann has nothing to undo
        assert "`undo` not done" in flat(out[0])
    elif command.split()[0] in ("notify", "take"):
        assert setup.path.read_bytes() != before


def test_judge_a_captured_old_mail_cannot_hand_the_seat_to_a_bot(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="stf-1",
                  players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,"
                          "cat=Cat <cat@example.org>")
    setup.judge()
    captured = setup.latest("ann")
    setup.send(reply(captured, "supply 2"))
    before = setup.path.read_bytes()
    out = setup.send(reply(captured, "bot random"))
    assert STALE in flat(out[0]) and setup.path.read_bytes() == before
    setup.send(reply(setup.latest("ann"), "bot random"))
    assert log_of(setup.path)[-1]["meta"] == {"kind": "bot", "player": "ann",
                                              "level": "random"}


def test_judge_undo_on_the_mail_before_the_move_is_refused(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.judge()
    start = setup.latest("ann")
    setup.send(reply(start, "take 2"))
    before = setup.path.read_bytes()
    out = setup.send(reply(start, "undo"))  # a captured start mail cannot take it back
    assert "`undo` not done" in flat(out[0]) and STALE in flat(out[0])
    assert setup.path.read_bytes() == before
    setup.send(reply(setup.latest("ann"), "undo"))  # ann's own latest mail can
    assert log_of(setup.path)[-1]["undo"] == 1


def test_judge_nonce_after_the_start_is_stale_first(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>",
                  extra=("--nonces",))
    setup.judge()
    first_ben = setup.latest("ben")
    for word in ("nonce sky", "nonce"):
        for pid in ("ann", "ben"):
            setup.send(reply(setup.latest(pid), word))
    setup.send(reply(setup.latest("ann"), "take 1"))
    before = setup.path.read_bytes()
    out = setup.send(reply(first_ben, "nonce again"))
    assert STALE in flat(out[0]) and setup.path.read_bytes() == before


def test_judge_gm_commands_must_answer_a_fresh_gm_mail(round_played: Setup) -> None:
    setup = round_played
    welcome = setup.latest("gm")
    assert tokens.parse_id(str(welcome["Message-ID"])).n == 0  # type: ignore[union-attr]
    for line in ("bot ben greedy", "deadline 1", "replace ben Eve <eve@example.org>",
                 "address ann ann@evil.example", "watch spy@evil.example", "notify ann digest"):
        before = setup.path.read_bytes()
        out = setup.send(reply(welcome, line, sender=GM))
        assert [str(m["To"]) for m in out] == [GM], line
        assert STALE in flat(out[0])
        assert setup.path.read_bytes() == before, line
    out = setup.send(reply(setup.latest("gm"), "deadline 5", sender=GM))
    assert log_of(setup.path)[-1]["meta"] == {"kind": "deadline", "hours": 5}


def test_judge_forged_or_edited_in_reply_to_is_refused(round_played: Setup) -> None:
    setup = round_played
    latest = setup.latest("ann")
    jid = tokens.parse_id(str(latest["Message-ID"]))
    assert jid is not None
    key = secret.mail_key("judge-seed")
    before = setup.path.read_bytes()
    old = mails_to(setup, "ann")[0]
    old_jid = tokens.parse_id(str(old["Message-ID"]))
    assert old_jid is not None
    edited = str(old["Message-ID"]).replace(".0.", f".{jid.n}.", 1)  # n edited, MAC kept
    guessed = tokens.make_id(b"not the key", "toy-1", "ann", jid.n, jid.counter + 5)
    for fake in (edited, guessed, str(latest["Message-ID"]).replace(jid.mac, "a" * 13)):
        assert not tokens.check_id(key, tokens.parse_id(fake))  # type: ignore[arg-type]
        msg = parse(reply(latest, "bot random"))
        msg.replace_header("In-Reply-To", fake)
        msg.replace_header("References", fake)
        out = setup.send(bytes(msg))
        assert len(out) == 1 and "forged or edited" in flat(out[0])
        assert str(out[0]["To"]) == "Ann <ann@example.org>"  # the state, to ann's address
        assert setup.path.read_bytes() == before


def test_judge_forward_from_a_stranger_sent_as_re_is_refused(round_played: Setup) -> None:
    setup = round_played
    latest = setup.latest("ann")
    before = setup.path.read_bytes()
    for k, command in enumerate(("bot random", "say ann resigns", "notify digest",
                                 "take 1")):
        stranger = f"Zed <zed{k}@stranger.example>"  # (one answer an hour to an address)
        out = setup.send(reply(latest, command, sender=stranger))
        assert [str(m["To"]) for m in out] == [f"zed{k}@stranger.example"]
        assert "not registered for ann" in flat(out[0])
        assert "Your legal moves" not in body_text(out[0])
    assert setup.path.read_bytes() == before
    out = setup.send(reply(latest, "take 1"))  # ann herself: played
    assert log_of(setup.path)[-1]["by"] == "ann"


def test_judge_replayed_accepted_command_mail_is_refused(round_played: Setup) -> None:
    setup = round_played
    latest = setup.latest("ann")
    raw = reply(latest, "notify every", msgid="<notify-1@player.example>")
    setup.send(raw)
    assert log_of(setup.path)[-1]["mail"] == "<notify-1@player.example>"
    setup.send(reply(setup.latest("ann"), "notify turn"))
    before = setup.path.read_bytes()
    assert setup.send(raw) == []  # delivered again: already answered
    # the judge's state lost: the log still knows the Message-ID
    data = read_state(setup.games)
    data["answered"] = []
    write_state(setup.games, data)
    msg = parse(raw)  # and the captured mail pointed at ann's newest referee mail
    newest = str(setup.latest("ann")["Message-ID"])
    msg.replace_header("In-Reply-To", newest)
    assert setup.send(bytes(msg)) == []  # fresh, authentic, but already in the log
    assert setup.path.read_bytes() == before


def test_judge_log_names_a_replayed_mail(round_played: Setup) -> None:
    from tests.judge.support import deliver

    setup = round_played
    raw = reply(setup.latest("ann"), "notify every", msgid="<n-2@player.example>")
    setup.send(raw)
    data = read_state(setup.games)
    data["answered"] = []
    write_state(setup.games, data)
    deliver(setup.inbox, raw)
    result = run("judge", setup.games, "--maildir", setup.inbox, "--outbox", setup.outbox,
                 "--from", SENDER, "--once")
    assert "duplicate: toy-1 replayed: already in the log" in result.output


# --------------------------------------------------------------------------- the CLI


class MailGame:
    """A sealed toy game mailed with `referee mail --maildir`, replies by file."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.path = tmp_path / "g.json"
        self.box = tmp_path / "box"
        result = run("new", "toy", self.path, "--sealed", "--insecure-seed", "--seed", "s",
                     "--id", "g-1", "--players",
                     "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
        assert result.exit_code == 0, result.output
        self.count = 0

    def mail_round(self) -> dict[str, EmailMessage]:
        result = run("mail", self.path, "--from", SENDER, "--maildir", self.box)
        assert result.exit_code == 0, result.output
        out = {}
        for _, m in sorted(mailbox.Maildir(self.box, create=False).items()):
            msg = email.message_from_bytes(m.as_bytes(), policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            out[str(msg["X-Referee-Player"])] = msg
        for key in list(mailbox.Maildir(self.box, create=False).keys()):
            mailbox.Maildir(self.box, create=False).remove(key)
        return out

    def move(self, raw: bytes) -> Result:
        self.count += 1
        eml = self.tmp / f"in-{self.count}.eml"
        eml.write_bytes(raw)
        return run("move", self.path, "--from-email", eml, "--reply-out",
                   self.tmp / f"answer-{self.count}.mbox")

    def refused(self, raw: bytes, *fragments: str) -> str:
        before = self.path.read_bytes()
        result = self.move(raw)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        for fragment in fragments:
            assert fragment in result.output, result.output
        assert self.path.read_bytes() == before
        return result.output


@pytest.fixture
def mailed(tmp_path: Path) -> MailGame:
    return MailGame(tmp_path)


def test_referee_mail_message_ids_carry_a_mac(mailed: MailGame) -> None:
    sent = mailed.mail_round()
    key = secret.mail_key("s")
    for pid, msg in sent.items():
        mid = mail.parse_id(str(msg["Message-ID"]))
        assert mid is not None and (mid.game, mid.player, mid.n) == ("g-1", pid, 0)
        assert mail.check_id(key, mid)


def test_cli_honest_reply_is_played_and_its_message_id_logged(mailed: MailGame) -> None:
    ann = mailed.mail_round()["ann"]
    result = mailed.move(reply(ann, "take 2", msgid="<honest@player.example>"))
    assert result.exit_code == 0, result.output
    assert log_of(mailed.path)[-1]["mail"] == "<honest@player.example>"


def test_cli_replayed_accepted_mail_is_refused(mailed: MailGame) -> None:
    ann = mailed.mail_round()["ann"]
    raw = reply(ann, "take 1", msgid="<once@player.example>")
    assert mailed.move(raw).exit_code == 0
    mailed.refused(raw, "already played", "log entry 1")
    # with its In-Reply-To edited to ann's newest mail (captured too): still the same mail
    mailed.move(reply(mailed.mail_round()["ben"], "take 1"))
    newest = mailed.mail_round()["ann"]
    msg = parse(raw)
    msg.replace_header("In-Reply-To", str(newest["Message-ID"]))
    mailed.refused(bytes(msg), "already played")
    assert mailed.move(reply(newest, "take 1")).exit_code == 0  # ann's own reply counts


def test_cli_edited_or_forged_in_reply_to_is_refused(mailed: MailGame) -> None:
    first = mailed.mail_round()["ann"]
    assert mailed.move(reply(first, "take 1")).exit_code == 0
    mailed.move(reply(mailed.mail_round()["ben"], "take 1"))
    latest = mailed.mail_round()["ann"]
    mid = mail.parse_id(str(latest["Message-ID"]))
    assert mid is not None and mid.n == 2
    old_style = "<referee.g-1.2.ann@referee.invalid>"  # what `referee mail` used to send
    edited = str(first["Message-ID"]).replace(".0.", ".2.", 1)
    bad_mac = str(latest["Message-ID"]).replace(mid.mac, "b" * 13)
    captured = reply(first, "take 3", msgid="<captured-2@player.example>")
    for fake, why in ((old_style, "cannot tell which referee mail"),
                      (edited, "forged or edited"), (bad_mac, "forged or edited")):
        msg = parse(captured)
        msg.replace_header("In-Reply-To", fake)
        msg.replace_header("References", fake)
        mailed.refused(bytes(msg), why)
    assert mailed.move(reply(latest, "take 3")).exit_code == 0


def test_cli_reply_to_the_second_latest_mail_is_stale(mailed: MailGame) -> None:
    first = mailed.mail_round()["ann"]
    assert mailed.move(reply(first, "take 1")).exit_code == 0
    second_latest = mailed.mail_round()
    mailed.move(reply(second_latest["ben"], "take 1"))
    latest = mailed.mail_round()["ann"]
    mailed.refused(reply(second_latest["ann"], "take 1"), STALE,
                   "the referee's mail of move 1, but the game is at move 2")
    answer = (mailed.tmp / f"answer-{mailed.count}.mbox").read_text()
    assert STALE in " ".join(answer.split())
    mailed.refused(reply(first, "take 1"), STALE)
    assert mailed.move(reply(latest, "take 1")).exit_code == 0


def test_cli_forward_from_a_stranger_sent_as_re_is_refused(mailed: MailGame) -> None:
    ann = mailed.mail_round()["ann"]
    stranger = reply(ann, "take 3", sender="Zed <zed@stranger.example>")
    mailed.refused(stranger, "not registered for ann")
    answer = (mailed.tmp / f"answer-{mailed.count}.mbox").read_text()
    assert "To: zed@stranger.example" in answer and "take 1" not in answer.split("\n\n", 1)[1]
    ben_as_ann = reply(ann, "take 3", sender="Ben <ben@example.org>")
    mailed.refused(ben_as_ann, "not registered for ann")
    fwd = reply(ann, "take 3", subject="Fwd: " + str(ann["Subject"]))
    mailed.refused(fwd, "forward")
    assert mailed.move(reply(ann, "take 3")).exit_code == 0


def test_cli_mail_of_the_wrong_player_or_without_referee_id(mailed: MailGame) -> None:
    ann = mailed.mail_round()["ann"]
    eml = mailed.tmp / "x.eml"
    eml.write_bytes(reply(ann, "take 1"))
    result = run("move", mailed.path, "--from-email", eml, "--as", "ben")
    assert result.exit_code == 1 and "the mail is ann's, not ben's" in result.output
    stray = parse(reply(ann, "take 1"))
    del stray["In-Reply-To"]
    del stray["References"]
    mailed.refused(bytes(stray), "cannot tell which referee mail")
    assert gamefile.read(mailed.path).log == []


def test_cli_overlong_or_odd_message_id_is_kept_as_a_digest(mailed: MailGame) -> None:
    ann = mailed.mail_round()["ann"]
    long_id = "<" + "x" * 300 + "@player.example>"
    raw = reply(ann, "take 1", msgid=long_id)
    assert mailed.move(raw).exit_code == 0
    logged = str(log_of(mailed.path)[-1]["mail"])
    assert logged.startswith("<nomid.") and len(logged) <= intake_msgid_max()
    mailed.refused(raw, "already played")  # the same bytes: the same digest


def intake_msgid_max() -> int:
    from referee.mail import intake

    return intake.MSGID_MAX
