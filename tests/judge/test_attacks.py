"""Red team: attacks on the judge by mail, played through a Maildir as players do.

Each test plays the cheater (or the curious) and shows the attempt refused, or the hole
it found closed, while the honest path still works."""

from __future__ import annotations

import json
from email.utils import make_msgid
from pathlib import Path

from referee.judge import meta
from referee.ledger import gamefile, replay, roster
from referee.ledger.replay import MAX_PLAYER_RECORDS
from tests.doors.mail.test_html import fresh, images
from tests.judge.support import body_text, deliver, reply
from tests.judge.test_maildir_loop import Setup
from tests.leaks import assert_hidden, own_items

KIM = "kim@example.org"
# a player whose id is the word the judge once used for its watchers' mails
WATCHER_PLAYERS = ("ann=Ann <ann@example.org>,watcher=Wat <wat@example.org>,"
                   "cat=Cat <cat@example.org>")


def test_a_player_called_watcher_is_not_a_watcher(tmp_path: Path) -> None:
    """A seat named ``watcher`` must neither lend its private board to the game's
    watchers nor lose its own token: the watchers' mails are no player's."""
    setup = Setup(tmp_path, game="staufer", gid="staufer-1", players=WATCHER_PLAYERS)
    meta.append(setup.path, meta.GM, {"kind": "watcher", "email": KIM})
    setup.judge()
    sent = setup.new_mail()
    kim = [m for m in sent if str(m["To"]) == KIM]
    assert len(kim) == 1
    _, page, pictures = images(kim[0])
    assert "as watcher sees it" not in page
    match = replay.replay(gamefile.read(setup.path), "judge-seed")
    shown = [png for _, png in pictures]  # the first mail: the whole board
    assert shown == fresh(match.game.view(match.state, None))  # public: nobody's hand
    # the page names none of the seat's hidden contracts (they are its own mail's)
    assert own_items(match.game, match.state, "watcher"), "the test needs hidden items"
    assert_hidden(match.game, match.state, {None: {"the watchers' mail": page}})
    seat = [m for m in sent if "wat@example.org" in str(m["To"])]
    assert len(seat) == 1 and "[#" in str(seat[0]["Subject"])  # the seat's own token
    assert "[#" not in str(kim[0]["Subject"])
    # the watcher's reply is no move of the seat called watcher
    answer = setup.send(reply(kim[0], "supply 2", sender=KIM))
    assert len(answer) == 1 and "only players move" in body_text(answer[0])
    assert gamefile.read(setup.path).log[-1]["meta"]["kind"] == "watcher"


def _meta_count(path: Path, player: str) -> int:
    log = json.loads(path.read_text())["log"]
    return sum(1 for e in log if "meta" in e and e["by"] == player)


def test_a_flood_of_notify_mails_cannot_grow_the_game_file(tmp_path: Path) -> None:
    """A meta record changes no play number, so every mail answering the same referee
    mail stays fresh: a player could add records without end (each a new Message-ID)
    until the file passes the read cap and the game stops. At most a few records of a
    player count between two plays; the rest are refused, and the game goes on."""
    setup = Setup(tmp_path)
    setup.judge()
    ben = setup.latest("ben")  # ben waits: nothing he sends changes the play number
    for i in range(MAX_PLAYER_RECORDS + 6):
        mode = ("every", "turn")[i % 2]
        deliver(setup.inbox, reply(ben, f"notify {mode}", msgid=make_msgid(domain="b.x")))
    setup.judge()
    assert _meta_count(setup.path, "ben") == MAX_PLAYER_RECORDS
    answers = [body_text(m) for m in setup.new_mail() if m["X-Referee-Player"] == "ben"]
    assert sum("not done" in a and "between two plays" in a for a in answers) == 6
    # the game goes on, and after a play ben may change his setting again
    out = setup.send(reply(setup.latest("ann"), "take 2"))
    assert out
    setup.send(reply(setup.latest("ben"), "notify every"))
    assert _meta_count(setup.path, "ben") == MAX_PLAYER_RECORDS + 1


def test_a_seat_toggled_by_hand_is_bounded_too(tmp_path: Path) -> None:
    """The same bound for `referee seat` (a player's own seat to a bot and back, while
    another player is to move): one message, exit 1 or 2, nothing written."""
    from tests.conftest import run

    setup = Setup(tmp_path, game="staufer", gid="staufer-1")
    for i in range(MAX_PLAYER_RECORDS):
        args = ("--bot", "random") if i % 2 == 0 else ("--human",)
        result = run("seat", setup.path, "cat", *args, "--as", "cat")
        assert result.exit_code == 0, result.output
    before = setup.path.read_bytes()
    result = run("seat", setup.path, "cat", "--bot", "random", "--as", "cat")
    assert result.exit_code in (1, 2) and "between two plays" in result.output
    assert "Traceback" not in result.output
    assert setup.path.read_bytes() == before


GM_ADDRESS = "gm@example.org"


def test_a_display_name_cannot_add_a_recipient(tmp_path: Path) -> None:
    """The game master replaces ann with a new person whose display name (as the
    newcomer gave it) reads ``Ann, eve@evil.example``. Written unquoted into To, the
    name would be a second recipient of ann's private mails, token included."""
    setup = Setup(tmp_path)
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    gm = setup.latest("gm")
    setup.send(reply(gm, "replace ann Ann, eve@evil.example <ann2@example.org>"))
    assert roster.settings(gamefile.read(setup.path).data).names["ann"] == \
        "Ann, eve@evil.example"
    setup.judge()
    mails = [m for m in setup.sent() if m["X-Referee-Player"] == "ann"]
    latest = mails[-1]
    assert [a.addr_spec for a in latest["To"].addresses] == ["ann2@example.org"]
    assert all("eve@evil.example" not in [a.addr_spec for a in m["To"].addresses]
               for m in setup.sent())


def test_referee_mail_quotes_the_display_name_too(tmp_path: Path) -> None:
    """`referee mail` built the same unquoted To (and then refused to mail the game at
    all); now each player's mail goes to the player's address only."""
    from tests.conftest import run
    from tests.judge.support import outbox_messages

    setup = Setup(tmp_path, game="staufer", gid="staufer-1")
    meta.append(setup.path, meta.GM, {"kind": "replace", "player": "ann",
                                      "name": "Ann <eve@evil.example>",
                                      "email": "ann2@example.org"})
    out = tmp_path / "mailed"
    result = run("mail", setup.path, "--from", "Referee <ref@example.org>", "--maildir", out)
    assert result.exit_code == 0, result.output
    recipients = [a.addr_spec for m in outbox_messages(out) for a in m["To"].addresses]
    assert sorted(recipients) == ["ann2@example.org", "ben@example.org", "cat@example.org"]


def test_reply_out_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    """`move --from-email` answers a rejected mail into --reply-out. A player who can
    put a symlink at that path (a shared checkout) must not get the answer, whose text
    they choose in part (its address; an answer to an authenticated player quotes their
    move), written into the file it points to (an authorized_keys): the answer replaces
    the link instead."""
    from email.message import EmailMessage

    from tests.conftest import run

    game = tmp_path / "g.json"
    assert run("new", "staufer", game, "--sealed", "--players",
               "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>").exit_code == 0
    target = tmp_path / "authorized_keys"
    target.write_text("ssh-ed25519 AAAAgood gm@host\n")
    answer = tmp_path / "answer.mbox"
    answer.symlink_to(target)
    msg = EmailMessage()
    msg["From"] = "eve@evil.example"
    msg["To"] = "ref@example.org"
    msg["Subject"] = "hello"
    msg["Message-ID"] = make_msgid(domain="evil.example")
    msg.set_content("ssh-ed25519 AAAAevil eve@evil\n")
    eml = tmp_path / "in.eml"
    eml.write_bytes(bytes(msg))
    result = run("move", game, "--from-email", eml, "--reply-out", answer)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert target.read_text() == "ssh-ed25519 AAAAgood gm@host\n"
    # the answer replaces the link; it quotes nothing of the mail (docs/judge.md), but
    # what it holds (the To address) is still the sender's choice
    assert not answer.is_symlink() and "To: eve@evil.example" in answer.read_text()
    assert "AAAAevil" not in answer.read_text()


def test_a_replaced_player_with_a_re_registered_address_still_cannot_move(
        tmp_path: Path) -> None:
    """The game master replaces ben with dan and then also accepts ben's old address for
    the seat (a shared household address). ben's last mail is still fresh (meta records
    change no play number) and comes from a registered address: his old token is what
    refuses it."""
    setup = Setup(tmp_path)
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    old_ben = setup.latest("ben")
    setup.send(reply(setup.latest("gm"), "replace ben Dan <dan@example.org>"))
    setup.send(reply(setup.latest("gm"), "address ben dan@example.org ben@example.org"))
    assert roster.settings(gamefile.read(setup.path).data).accepts("ben", "ben@example.org")
    setup.send(reply(setup.latest("ann"), "take 1"))  # now ben's seat is to move
    before = setup.path.read_bytes()
    stale = setup.send(reply(old_ben, "take 1", sender="ben@example.org"))
    assert setup.path.read_bytes() == before and len(stale) == 1
    assert "token is missing or wrong" in body_text(stale[0])
    # even on a fresh ID of the seat (one sent to dan, quoted to ben): the old token fails
    dan = setup.latest("ben")
    subject = str(old_ben["Subject"])
    out = setup.send(reply(dan, "take 1", sender="ben@example.org", subject=subject))
    assert setup.path.read_bytes() == before
    assert "token is missing or wrong" in body_text(out[0])
    # dan, with his own token, plays
    setup.send(reply(setup.latest("ben"), "take 1", sender="dan@example.org"))
    assert json.loads(setup.path.read_text())["log"][-1]["by"] == "ben"
