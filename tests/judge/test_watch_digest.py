"""Watchers with a digest: the game master's `watch ADDRESS digest [N]` gives a watcher
one mail per N decisions (or per round) telling everything since their last mail,
instead of one mail per change; over a Maildir, as the other judge tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.judge import meta
from referee.judge.gmlines import gm_meta
from referee.ledger import gamefile, roster
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup

GM_ADDRESS = "gm@example.org"
KIM, LEE = "kim@example.org", "lee@example.org"


@pytest.fixture
def game(tmp_path: Path) -> Setup:
    setup = Setup(tmp_path, extra=("--option", "pile=21"))
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    return setup


def to(setup: Setup, address: str) -> list:  # type: ignore[type-arg]
    return [m for m in setup.sent() if str(m["To"]) == address]


def play(setup: Setup, decisions: int) -> None:
    """``decisions`` moves by mail, each by the player whose turn it is (take 1)."""
    for _ in range(decisions):
        mover = next(p for p in ("ann", "ben", "cat")
                     if body_text(setup.latest(p)).startswith(f"Your turn, {p}"))
        setup.send(reply(setup.latest(mover), "take 1"))


def played(mail) -> list[int]:  # type: ignore[no-untyped-def]
    """The log entries a mail reports as moves ("  7. ben played: take 1")."""
    return [int(n) for n in re.findall(r"^\s+(\d+)\. \w+ played:", body_text(mail), re.M)]


def test_a_digest_watcher_gets_one_mail_per_three_decisions(game: Setup) -> None:
    game.send(reply(game.latest("gm"), f"watch {KIM} digest 3"))
    game.send(reply(game.latest("gm"), f"watch {LEE}"))
    assert len(to(game, KIM)) == 1  # the first mail when the watch begins
    play(game, 7)
    kim, lee = to(game, KIM), to(game, LEE)
    assert len(lee) == 1 + 7  # the control: a watcher without digest, a mail per change
    assert len(kim) == 1 + 2  # after decisions 3 and 6; the 7th waits for two more
    reported = [played(m) for m in kim[1:]]
    assert [len(r) for r in reported] == [3, 3]
    moves = [e["n"] for e in gamefile.read(game.path).log if "move" in e]
    assert [n for r in reported for n in r] == moves[:6]  # every decision told once
    assert all(m["X-Referee-Player"] == "watcher" and "your card" not in body_text(m)
               for m in kim)
    play(game, 2)
    moves = [e["n"] for e in gamefile.read(game.path).log if "move" in e]
    assert len(to(game, KIM)) == 4 and played(to(game, KIM)[-1]) == moves[6:9]


def test_unwatch_then_watch_ends_the_digest(game: Setup) -> None:
    game.send(reply(game.latest("gm"), f"watch {KIM} digest 5"))
    game.send(reply(game.latest("gm"), f"unwatch {KIM}"))
    game.send(reply(game.latest("gm"), f"watch {KIM}"))
    before = len(to(game, KIM))
    play(game, 2)
    assert len(to(game, KIM)) == before + 2
    assert roster.settings(gamefile.read(game.path).data).digests == {}


def test_a_round_digest_in_a_game_without_rounds_mails_each_decision(game: Setup) -> None:
    game.send(reply(game.latest("gm"), f"watch {KIM} digest"))
    found = roster.settings(gamefile.read(game.path).data)
    assert found.digests == {KIM: "round"} and found.watchers == [KIM]
    before = len(to(game, KIM))
    play(game, 2)
    assert len(to(game, KIM)) == before + 2


def test_the_game_over_mail_reaches_a_digest_watcher(tmp_path: Path) -> None:
    setup = Setup(tmp_path, extra=("--option", "pile=5"))
    setup.options = ("--gm", GM_ADDRESS)
    setup.judge()
    setup.send(reply(setup.latest("gm"), f"watch {KIM} digest 100"))
    play(setup, 5)
    last = to(setup, KIM)[-1]
    assert len(to(setup, KIM)) == 2 and body_text(last).startswith("Game over:")
    assert len(played(last)) == 5


@pytest.mark.parametrize("line, message", [
    (f"watch {KIM} digest 0", "digest must be `round` or a number of decisions 1-1000"),
    (f"watch {KIM} digest 1001", "not 1001"),
    (f"watch {KIM} digest often", "not 'often'"),
])
def test_a_bad_digest_is_refused_by_mail_and_changes_nothing(game: Setup, line: str,
                                                             message: str) -> None:
    with pytest.raises(UsageError, match=message):
        gm_meta(line, ["ann", "ben", "cat"])
    before = game.path.read_bytes()
    answer = game.send(reply(game.latest("gm"), line))
    assert any(message in " ".join(body_text(m).split()) for m in answer), answer
    assert game.path.read_bytes() == before


def test_a_hand_written_digest_entry_is_checked(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    before = setup.path.read_bytes()
    with pytest.raises(UsageError, match="digest must be"):
        meta.append(setup.path, "gm", {"kind": "watcher", "email": KIM, "digest": True})
    assert setup.path.read_bytes() == before
    assert gm_meta(f"watch {KIM} digest 4", ["ann"]) == {
        "kind": "watcher", "email": KIM, "on": True, "digest": 4}
