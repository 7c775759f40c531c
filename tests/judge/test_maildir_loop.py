"""`referee judge` with a Maildir in and a Maildir out: the whole loop without a server."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import Result

from referee.ledger import gamefile, replay
from referee.mail import tokens
from tests.conftest import run
from tests.judge.support import (
    STYLES,
    Player,
    body_text,
    deliver,
    outbox_messages,
    parse,
    reply,
    wrapped,
)
from tests.support.judgestate import read_state

SENDER = "Referee <referee@example.org>"
PLAYERS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>"


class Setup:
    def __init__(self, tmp_path: Path, game: str = "toy", gid: str = "toy-1",
                 players: str = PLAYERS, extra: tuple[str, ...] = ()) -> None:
        self.games = tmp_path / "games"
        self.games.mkdir()
        self.inbox = tmp_path / "in"
        for sub in ("new", "cur", "tmp"):
            (self.inbox / sub).mkdir(parents=True)
        self.outbox = tmp_path / "out"
        self.path = self.games / f"{gid}.json"
        result = run("new", game, self.path, "--sealed", "--seed", "judge-seed",
                     "--insecure-seed", "--id", gid,
                     "--players", players, *extra)
        assert result.exit_code == 0, result.output
        self.seen = 0
        self.options: tuple[str, ...] = ()

    def judge(self, *extra: str) -> Result:
        result = run("judge", self.games, "--maildir", self.inbox, "--outbox", self.outbox,
                     "--from", SENDER, "--once", *self.options, *extra)
        assert result.exit_code == 0, result.output
        return result

    def sent(self) -> list:  # type: ignore[type-arg]
        return outbox_messages(self.outbox) if self.outbox.exists() else []

    def new_mail(self) -> list:  # type: ignore[type-arg]
        everything = self.sent()
        fresh = everything[self.seen:]
        self.seen = len(everything)
        return fresh

    def latest(self, pid: str):  # type: ignore[no-untyped-def]
        mine = [m for m in self.sent() if m["X-Referee-Player"] == pid]
        return max(mine, key=lambda m: tokens.parse_id(str(m["Message-ID"])).counter)

    def send(self, raw: bytes) -> list:  # type: ignore[type-arg]
        deliver(self.inbox, raw)
        self.judge()
        return self.new_mail()


def test_start_mails_are_thread_roots_with_a_fixed_subject(toy: Setup) -> None:
    first = toy.sent()
    assert sorted(str(m["To"]) for m in first) == [
        "Ann <ann@example.org>", "Ben <ben@example.org>", "Cat <cat@example.org>"]
    for msg in first:
        assert msg["In-Reply-To"] is None and msg["References"] is None
        assert str(msg["Subject"]).startswith("[referee] toy-1 Toy Take-Away [#")
        assert msg["Auto-Submitted"] == "auto-generated"
    ann = next(m for m in first if m["X-Referee-Player"] == "ann")
    assert body_text(ann).splitlines()[0] == "Your turn, ann: ann to take from a pile of 10"
    ben = next(m for m in first if m["X-Referee-Player"] == "ben")
    assert body_text(ben).splitlines()[0] == "Waiting for ann: ann to take from a pile of 10"
    assert "Your legal moves, by kind:\n  take: 1, 2, 3\n  peek: peek\n  draw: draw" in \
        body_text(ann)
    toy.judge()
    assert toy.new_mail() == []  # nothing changed: nothing sent


def test_a_move_by_mail_is_played_and_everyone_told_as_they_asked(toy: Setup) -> None:
    toy.new_mail()
    ann = toy.latest("ann")
    out = toy.send(reply(ann, "take 2"))
    log = json.loads(toy.path.read_text())["log"]
    assert [(e["n"], e["by"], e["move"]) for e in log] == [(1, "ann", {"type": "take", "n": 2})]
    assert log[0]["mail"].endswith("@player.example>")
    by = {m["X-Referee-Player"]: m for m in out}
    assert sorted(by) == ["ann", "ben"]  # ann: confirmation; ben: his turn; cat: nothing
    ann_text, ben_text = body_text(by["ann"]), body_text(by["ben"])
    assert ann_text.splitlines()[0] == "Waiting for ben: ben to take from a pile of 8"
    assert "Since your last mail:\n  1. ann played: take 2" in ann_text
    assert "Your legal moves" not in ann_text and "pile: 8" not in ann_text  # short
    assert "your card: card-" in ann_text  # private information every time
    assert ben_text.splitlines()[0] == "Your turn, ben: ben to take from a pile of 8"
    assert "Since your last mail:\n  1. ann played: take 2" in ben_text
    for msg in out:
        assert msg["Subject"] == toy.latest(msg["X-Referee-Player"])["Subject"]
        assert msg["In-Reply-To"] is not None  # threaded under the player's root
    assert all(wrapped(body_text(m)) for m in out)


def test_every_message_id_is_unique_and_carries_a_mac(toy: Setup) -> None:
    for _ in range(3):
        for pid in ("ann", "ben", "cat"):
            mail = toy.latest(pid)
            if body_text(mail).startswith(f"Your turn, {pid}"):
                toy.send(reply(mail, "take 1"))
    sent = toy.sent()
    msgids = [str(m["Message-ID"]) for m in sent]
    assert len(msgids) == len(set(msgids)) and len(msgids) >= 6
    for msgid in msgids:
        jid = tokens.parse_id(msgid)
        assert jid is not None and jid.game == "toy-1"
        forged = msgid.replace(jid.mac, "a" * 13)
        assert tokens.parse_id(forged) is not None
    key = __import__("referee.ledger.secret", fromlist=["mail_key"]).mail_key("judge-seed")
    assert all(tokens.check_id(key, tokens.parse_id(m)) for m in msgids)  # type: ignore[arg-type]
    assert not tokens.check_id(key, tokens.MailId("toy-1", "ann", 0, 1, "a" * 13))


def test_the_same_mail_delivered_again_is_not_played_twice(toy: Setup) -> None:
    ann = toy.latest("ann")
    raw = reply(ann, "take 1", msgid="<once@player.example>")
    toy.send(raw)
    before = toy.path.read_bytes()
    assert toy.send(raw) == []  # re-delivered: recognised, no answer
    assert toy.path.read_bytes() == before


def test_captured_reply_cannot_be_replayed(toy: Setup) -> None:
    ann = toy.latest("ann")
    toy.send(reply(ann, "take 1", msgid="<captured@player.example>"))
    for pid, move in (("ben", "take 1"), ("cat", "take 1")):
        toy.send(reply(toy.latest(pid), move))
    latest = toy.latest("ann")
    before = toy.path.read_bytes()
    # the captured mail, In-Reply-To edited to ann's latest referee mail
    replay = reply(latest, "take 1", msgid="<captured@player.example>")
    assert toy.send(replay) == []
    # the same with a fresh Message-ID but from another address: refused
    forged = reply(latest, "take 1", sender="Mallory <mallory@evil.example>")
    out = toy.send(forged)
    assert [str(m["To"]) for m in out] == ["mallory@evil.example"]
    assert "not registered" in body_text(out[0])
    assert "legal" not in body_text(out[0])
    # an old referee mail answered: the current state comes back, nothing is played
    out = toy.send(reply(ann, "take 3"))
    assert "Not played: your mail answers the referee's mail of move 0" in body_text(out[0])
    assert toy.path.read_bytes() == before


def test_a_reply_to_a_rejection_is_accepted(toy: Setup) -> None:
    ann = toy.latest("ann")
    out = toy.send(reply(ann, "take 9"))
    assert len(out) == 1 and str(out[0]["To"]) == "Ann <ann@example.org>"
    text = body_text(out[0])
    assert text.splitlines()[0] == "Your turn, ann: ann to take from a pile of 10"
    assert "Line 1 `take 9` was not accepted" in text
    assert "Your legal moves, by kind:" in text
    assert out[0]["In-Reply-To"] == ann["Message-ID"] or out[0]["In-Reply-To"]
    out = toy.send(reply(out[0], "take 3"))
    assert [e["move"] for e in json.loads(toy.path.read_text())["log"]] == [
        {"type": "take", "n": 3}]


def test_stale_rejection_reply_is_accepted(toy: Setup) -> None:
    first = toy.latest("ann")
    toy.send(reply(first, "status"))  # a status answer is a newer mail
    rejection = toy.send(reply(first, "take 2"))  # answers the first: still current
    assert [e["move"]["n"] for e in json.loads(toy.path.read_text())["log"]] == [2]
    assert rejection and all("Not played" not in body_text(m) for m in rejection)


def test_wrong_token_and_forward_are_refused(toy: Setup) -> None:
    ann = toy.latest("ann")
    subject = str(ann["Subject"]).rsplit("[#", 1)[0] + "[#aaaa-bbbb-cccc-dddd]"
    out = toy.send(reply(ann, "take 1", subject=subject))
    assert "token is missing or wrong" in body_text(out[0])
    fwd = reply(ann, "take 1", subject="Fwd: " + str(ann["Subject"]))
    out = toy.send(fwd)
    assert "forward" in body_text(out[0])
    assert json.loads(toy.path.read_text())["log"] == []


@pytest.mark.parametrize("header", [("Auto-Submitted", "auto-replied"),
                                    ("Precedence", "bulk"), ("Precedence", "auto_reply"),
                                    ("X-Autoreply", "yes")])
def test_auto_replies_are_ignored_without_an_answer(toy: Setup,
                                                    header: tuple[str, str]) -> None:
    toy.new_mail()
    ann = toy.latest("ann")
    out = toy.send(reply(ann, "I am on vacation until Monday.", headers=dict([header])))
    assert out == []
    assert json.loads(toy.path.read_text())["log"] == []
    assert list((toy.inbox / "new").iterdir()) == []
    assert all(p.name.endswith(":2,S") for p in (toy.inbox / "cur").iterdir())


def test_a_mail_matching_no_game_gets_one_answer_listing_the_senders_games(
        toy: Setup) -> None:
    toy.new_mail()
    stray = reply(toy.latest("ann"), "take 1")
    msg = parse(stray)
    del msg["In-Reply-To"]
    del msg["References"]
    msg.replace_header("Subject", "hello referee")
    out = toy.send(bytes(msg))
    assert len(out) == 1 and str(out[0]["To"]) == "ann@example.org"
    text = body_text(out[0])
    assert "matches no game" in text and "toy-1  Toy Take-Away, as ann" in text
    assert toy.send(bytes(msg)) == []  # one answer only
    msg.replace_header("Message-ID", "<zed-1@elsewhere.example>")
    stranger = bytes(msg).replace(b"ann@example.org", b"zed@example.org")
    out = toy.send(stranger)
    assert "This address plays no game here." in body_text(out[0])


def test_lost_in_reply_to_with_token_gets_the_state(toy: Setup) -> None:
    lost = parse(reply(toy.latest("ann"), "take 1", style="token-line"))
    del lost["In-Reply-To"]
    out = toy.send(bytes(lost))
    assert "Your mail did not answer a referee mail" in body_text(out[0])
    assert json.loads(toy.path.read_text())["log"] == []
    toy.send(reply(out[0], "take 1"))
    assert len(json.loads(toy.path.read_text())["log"]) == 1


def test_commands_status_help_say_undo_notify(toy: Setup) -> None:
    toy.new_mail()
    ann = toy.latest("ann")
    out = toy.send(reply(ann, "status"))
    assert "The current state, as you asked." in body_text(out[0])
    out = toy.send(reply(ann, "help"))
    assert "say TEXT" in body_text(out[0])
    out = toy.send(reply(ann, "say good luck everyone"))
    assert sorted(m["X-Referee-Player"] for m in out) == ["ben", "cat"]
    assert body_text(out[0]).startswith("ann says: good luck everyone")
    toy.send(reply(toy.latest("ann"), "take 1"))
    out = toy.send(reply(toy.latest("ann"), "undo"))
    log = json.loads(toy.path.read_text())["log"]
    assert log[-1]["undo"] == 1 and log[-1]["by"] == "ann"
    assert body_text(toy.latest("ann")).startswith("Your turn, ann")
    assert "Since your last mail:\n  2. ann took back move 1" in body_text(toy.latest("ann"))
    out = toy.send(reply(toy.latest("ann"), "undo"))
    assert "`undo` not done" in body_text(out[0])


def test_multi_move_mail_keeps_the_moves_before_the_failing_line(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    setup.judge()
    out = setup.send(reply(setup.latest("ann"), "move: take 1\nmove: take 2"))
    log = json.loads(setup.path.read_text())["log"]
    assert [e["move"]["n"] for e in log] == [1]
    rejection = next(m for m in out if "was not accepted" in body_text(m))
    assert "Your first 1 move(s) were played" in body_text(rejection)
    assert "Line 2 `take 2` was not accepted: it is not ann's turn" in body_text(rejection)


@pytest.mark.parametrize("style", STYLES)
def test_each_reply_style_is_understood(toy: Setup, style: str) -> None:
    out = toy.send(reply(toy.latest("ann"), "take 2", style=style))
    assert [e["move"]["n"] for e in json.loads(toy.path.read_text())["log"]] == [2], out


def test_whole_game_by_scripted_players_and_mail_count(tmp_path: Path) -> None:
    setup = Setup(tmp_path, extra=("--option", "pile=21"))
    rng = random.Random(7)
    players = [Player(p, f"{p}@example.org", STYLES[i], rng) for i, p in
               enumerate(("ann", "ben", "cat"))]
    setup.judge()
    for _ in range(200):
        messages = setup.sent()
        replies = [r for p in players if (r := p.act(messages, setup.path)) is not None]
        if not replies:
            break
        for raw in replies:
            deliver(setup.inbox, raw)
        setup.judge()
    gf = gamefile.read(setup.path)
    moves = [e for e in gf.log if "move" in e]
    assert moves and gf.game.finished(replay.replay(gf, "judge-seed").state) is True
    sent = setup.sent()
    over = [m for m in sent if body_text(m).startswith("Game over")]
    assert sorted(m["X-Referee-Player"] for m in over) == ["ann", "ben", "cat"]
    assert "Final scoring:" in body_text(over[0]) and "Ranking:" in body_text(over[0])
    # turn: one decision mail per move owed, one confirmation per move, one start, one end
    assert len(sent) <= 2 * len(moves) + 2 * 3


def test_judge_refuses_bad_options(tmp_path: Path) -> None:
    result = run("judge", str(tmp_path), "--from", SENDER, "--once",
                 "--outbox", str(tmp_path / "o"))
    assert result.exit_code == 2 and "exactly one of --imap" in result.output
    result = run("judge", str(tmp_path), "--from", SENDER, "--maildir",
                 str(tmp_path / "nope"), "--outbox", str(tmp_path / "o"))
    assert result.exit_code == 2 and "is not a Maildir" in result.output


def test_a_game_added_later_gets_its_start_mails(toy: Setup, tmp_path: Path) -> None:
    toy.new_mail()
    other = toy.games / "toy-2.json"
    shutil.copy(toy.path, tmp_path / "unused.json")
    result = run("new", "toy", other, "--sealed", "--id", "toy-2", "--players", PLAYERS)
    assert result.exit_code == 0
    toy.judge()
    out = toy.new_mail()
    assert sorted({m["X-Referee-Game"] for m in out}) == ["toy-2"] and len(out) == 3


def test_one_message_on_stdin_for_an_mta_pipe(toy: Setup) -> None:
    raw = reply(toy.latest("ann"), "take 3")
    result = run("judge", str(toy.games), "--stdin", "--outbox",
                 str(toy.outbox), "--from", SENDER, input=raw)
    assert result.exit_code == 0, result.output
    assert [e["move"]["n"] for e in json.loads(toy.path.read_text())["log"]] == [3]
    assert sorted(m["X-Referee-Player"] for m in toy.new_mail()) == ["ann", "ben"]


def test_digest_gets_only_the_decisions(toy: Setup) -> None:
    toy.send(reply(toy.latest("ann"), "notify digest"))
    toy.send(reply(toy.latest("ben"), "notify digest"))
    out = toy.send(reply(toy.latest("ann"), "take 1"))
    assert [m["X-Referee-Player"] for m in out] == ["ben"]  # no confirmation for ann
    out = toy.send(reply(toy.latest("ben"), "take 1"))
    assert [m["X-Referee-Player"] for m in out] == ["cat"]


def test_nonces_by_mail_commit_then_reveal(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players="ann=Ann <ann@example.org>,ben=Ben <ben@example.org>",
                  extra=("--nonces",))
    setup.judge()
    first = setup.new_mail()
    assert all(body_text(m).startswith(f"Your turn, {m['X-Referee-Player']}: a nonce")
               for m in first)
    setup.send(reply(setup.latest("ann"), "nonce blue whale"))
    out = setup.send(reply(setup.latest("ben"), "nonce forty two"))
    rng = json.loads(setup.path.read_text())["rng"]
    assert sorted(rng["nonce_commitments"]) == ["ann", "ben"] and rng["nonces"] == {}
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben"]
    assert all("the nonce revealed (reply: nonce)" in body_text(m) for m in out)
    setup.send(reply(setup.latest("ann"), "nonce"))
    out = setup.send(reply(setup.latest("ben"), "nonce"))
    rng = json.loads(setup.path.read_text())["rng"]
    assert rng["nonces"] == {"ann": "blue whale", "ben": "forty two"}
    assert body_text(setup.latest("ann")).startswith("Your turn, ann: ann to take")


def test_no_mail_shows_another_players_hidden_card(tmp_path: Path) -> None:
    setup = Setup(tmp_path, extra=("--option", "pile=21"))
    rng = random.Random(5)
    players = [Player(p, f"{p}@example.org", "top", rng) for p in ("ann", "ben", "cat")]
    setup.judge()
    for _ in range(30):
        replies = [r for p in players if (r := p.act(setup.sent(), setup.path)) is not None]
        for raw in replies:
            deliver(setup.inbox, raw)
        setup.judge()
    gf = gamefile.read(setup.path)
    start = replay.start_state(gf, "judge-seed")
    cards = dict(start.state.cards)
    sent = setup.sent()
    assert len(sent) > 20
    for msg in sent:
        text = body_text(msg)
        for pid, card in cards.items():
            if pid != msg["X-Referee-Player"] and f"your card: {card}" not in text:
                assert card not in text, (pid, card, text)


def test_a_second_judge_on_the_same_directory_is_refused(toy: Setup) -> None:
    from referee.judge import store

    with store.exclusive(toy.games):
        result = run("judge", str(toy.games), "--maildir",
                     str(toy.inbox), "--outbox", str(toy.outbox),
                     "--from", SENDER)
    assert result.exit_code == 2 and "another judge is running" in result.output


def test_a_broken_state_file_is_a_clear_error(toy: Setup) -> None:
    (toy.games / ".referee-judge.json").write_text("{not json")
    before = toy.path.read_bytes()
    result = run("judge", str(toy.games), "--maildir", str(toy.inbox),
                 "--outbox", str(toy.outbox), "--from", SENDER)
    assert result.exit_code == 2 and "cannot read the judge state" in result.output
    assert "Traceback" not in result.output and toy.path.read_bytes() == before


@pytest.mark.parametrize("junk", [b"", b"\x00\xff\xfe garbage", b"Subject: =?x?q?bad?=\r\n\r\n",
                                  b"From: <>\r\nIn-Reply-To: <rf.toy-1.ann.0.1.aaaaaaaaaaaaa"
                                  b"@referee.invalid>\r\n\r\ntake 1\r\n"])
def test_junk_mail_is_marked_done_without_harm(toy: Setup, junk: bytes) -> None:
    before = toy.path.read_bytes()
    assert toy.send(junk) == []
    assert toy.path.read_bytes() == before
    assert list((toy.inbox / "new").iterdir()) == []


def test_smtp_down_keeps_the_mails_queued_until_a_later_run(tmp_path: Path) -> None:
    from tests.conftest import free_port

    setup = Setup(tmp_path)
    result = run("judge", str(setup.games), "--maildir",
                 str(setup.inbox), "--smtp", f"127.0.0.1:{free_port()}",
                 "--from", SENDER, "--once")
    assert result.exit_code == 1 and "cannot connect to the SMTP server" in result.output
    state = read_state(setup.games)
    assert len(state["queue"]) == 3
    setup.judge()  # the queue goes out through whatever outbox the next run has
    assert sorted(m["X-Referee-Player"] for m in setup.sent()) == ["ann", "ben", "cat"]
