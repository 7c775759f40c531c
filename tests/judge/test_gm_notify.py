"""The game master changes a player's mail setting (`notify PLAYER turn|every|digest`):
that player is told in one short mail, in their language, and nobody else hears of it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import GM_ADDRESS
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup


@pytest.fixture
def gm_game(gm_toy: Setup) -> Setup:
    return gm_toy


def _lines(msg) -> list[str]:  # type: ignore[no-untyped-def]
    return body_text(msg).splitlines()


def test_the_player_is_told_and_nobody_else(gm_game: Setup) -> None:
    out = gm_game.send(reply(gm_game.latest("gm"), "notify cat digest"))
    assert sorted(str(m["To"]) for m in out) == ["Cat <cat@example.org>", GM_ADDRESS]
    cat = next(m for m in out if m["X-Referee-Player"] == "cat")
    told = body_text(cat).split("Since your last mail:\n", 1)[1].split("\n\n", 1)[0]
    assert told.splitlines() == [
        "  1. the game master set how often you get mail: digest (only the full mail",
        "      when you must decide)"]
    assert json.loads(gm_game.path.read_text())["log"][-1]["meta"] == {
        "kind": "notify", "player": "cat", "mode": "digest"}
    # the setting holds: ann's move gets cat no mail (digest, cat does not decide)
    out = gm_game.send(reply(gm_game.latest("ann"), "take 1"))
    assert "cat" not in [m["X-Referee-Player"] for m in out]
    for m in out:
        text = body_text(m)
        assert "mail setting" not in text and "how often" not in text and "notify" not in \
            text.split("Commands")[0], text


def test_every_is_told_and_the_next_full_mail_keeps_it_to_its_player(gm_game: Setup
                                                                      ) -> None:
    out = gm_game.send(reply(gm_game.latest("gm"), "notify ben every"))
    assert sorted(m["X-Referee-Player"] for m in out) == ["ben", "gm"]
    ben = next(m for m in out if m["X-Referee-Player"] == "ben")
    lines = _lines(ben)
    at = lines.index("Since your last mail:")
    assert lines[at + 1:at + 3] == [
        "  1. the game master set how often you get mail: every (a full mail after",
        "      every change)"]
    out = gm_game.send(reply(gm_game.latest("ann"), "take 1"))
    assert sorted(m["X-Referee-Player"] for m in out) == ["ann", "ben"]
    assert all("how often" not in body_text(m) for m in out)  # told once, to ben only


def test_the_note_is_in_the_players_language(gm_game: Setup) -> None:
    gm_game.send(reply(gm_game.latest("ben"), "lang de"))
    out = gm_game.send(reply(gm_game.latest("gm"), "notify ben turn"))
    ben = next(m for m in out if m["X-Referee-Player"] == "ben")
    assert "der Spielleiter hat eingestellt, wie oft du Mail bekommst: turn (eine volle " \
        "Mail, wenn du entscheiden musst, eine kurze, wenn dein Zug angenommen wurde)" in \
        " ".join(body_text(ben).split())


def test_a_refused_notify_tells_nobody(gm_game: Setup) -> None:
    out = gm_game.send(reply(gm_game.latest("gm"), "notify cat hourly"))
    assert [m["X-Referee-Player"] for m in out] == ["gm"]
    assert "Not done: notify: mode must be one of turn, every, digest" in body_text(out[0])


def test_the_players_record_of_the_change() -> None:
    from referee.judge import text

    change = {"kind": "notify", "player": "cat", "mode": "every"}
    assert text.changed_for_you(4, change) == \
        "4. the game master set how often you get mail: every (a full mail after every change)"
    assert text.is_personal({"by": "gm", "meta": change})
    assert text.is_personal({"by": "cat", "meta": change})
    assert not text.is_personal({"by": "ann", "meta": change})
