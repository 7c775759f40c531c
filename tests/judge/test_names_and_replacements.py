"""The group's findings about the judge's human side (issue 21, item 6), each played
through a judge game over Maildir: a replaced player is told and the new one welcomed by
name, with no address sent to others; names with addresses (and commas) for `watch`,
`replace` and `--players`."""

from __future__ import annotations

import json
from email.utils import getaddresses
from pathlib import Path

import pytest

from referee.errors import UsageError
from referee.judge.gmlines import gm_meta
from referee.ledger import gamefile, roster
from tests.conftest import GM_ADDRESS
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup

GM = GM_ADDRESS
YUKI = "yuki@example.org"


@pytest.fixture
def game(gm_toy: Setup) -> Setup:
    return gm_toy


def gm(game: Setup, line: str) -> list:  # type: ignore[type-arg]
    """The game master's command, answering a fresh game master mail (after moves the
    game master's mails are stale: a ``status`` first gets a fresh one)."""
    game.send(reply(game.latest("gm"), "status"))
    return game.send(reply(game.latest("gm"), line))


def _raw(msg) -> str:  # type: ignore[no-untyped-def]
    return bytes(msg).decode("utf-8", "replace")


def _to(msg) -> list[str]:  # type: ignore[no-untyped-def]
    return [a for _, a in getaddresses([str(v) for v in msg.get_all("To", [])])]


def test_a_replaced_player_is_told_and_the_new_one_welcomed_by_name(game: Setup) -> None:
    game.send(reply(game.latest("gm"), "watch Wendy Watcher <wendy@example.org>"))
    game.send(reply(game.latest("ann"), "take 2"))
    game.send(reply(game.latest("ben"), "take 1"))
    old_cat = game.latest("cat")
    out = gm(game, f'replace cat "Yuki, the Second" <{YUKI}>')
    log = json.loads(game.path.read_text())["log"]
    assert log[-1]["meta"] == {"kind": "replace", "player": "cat",
                               "name": "Yuki, the Second", "email": YUKI}
    by_address = {a: m for m in out for a in _to(m)}
    # the person who leaves: a notice at the old address, in the old thread
    farewell = body_text(by_address["cat@example.org"])
    assert "You no longer play seat cat in toy-1 (Toy Take-Away): the game master has\n" \
           "handed it to Yuki, the Second." in farewell
    assert "no longer count" in farewell and YUKI not in _raw(by_address["cat@example.org"])
    assert by_address["cat@example.org"]["Subject"] == old_cat["Subject"]  # its thread
    # the new person: one recipient, their own name, the history and their position
    new = by_address[YUKI]
    assert _to(new) == [YUKI] and str(new["To"]) == f'"Yuki, the Second" <{YUKI}>'
    text = body_text(new)
    assert text.splitlines()[0] == ("Your turn, Yuki, the Second (seat cat): cat to take "
                                    "from a pile of 7")
    assert "Welcome, Yuki, the Second! The game master has given you seat cat" in text
    assert "which Cat played until now" in text
    history = text[text.index("The last decisions, in words:"):]
    assert "  2. ann played: take 2\n  3. ben played: take 1\n" in history
    assert "4. Yuki, the Second now plays seat cat (the game master's change)" in history
    assert "your card:" in text and "Your legal moves, by kind:" in text
    # everyone else hears who plays the seat now, never the address
    for who in ("ann@example.org", "ben@example.org", "wendy@example.org"):
        assert "Yuki, the Second now plays seat cat" in body_text(by_address[who]), who
    everyone_else = [m for m in game.sent() if YUKI not in _to(m) and GM not in _to(m)]
    assert everyone_else and all(YUKI not in _raw(m) for m in everyone_else)
    # the new person plays; the old one's replies no longer count
    answer = game.send(reply(old_cat, "take 1"))
    assert "not registered" in body_text(answer[0])
    game.send(reply(game.latest("cat"), "take 3"))
    assert [e["by"] for e in json.loads(game.path.read_text())["log"] if "move" in e] == [
        "ann", "ben", "cat"]
    later = body_text(game.latest("ann"))
    assert "cat played: take 3" in later and YUKI not in later


def test_a_replacement_by_the_same_address_sends_no_farewell(game: Setup) -> None:
    out = game.send(reply(game.latest("gm"), "replace ben Benjamin <ben@example.org>"))
    to_ben = [m for m in out if _to(m) == ["ben@example.org"]]
    assert len(to_ben) == 1  # the welcome only: the same person is not told they left
    assert "Welcome, Benjamin!" in body_text(to_ben[0])
    assert "No decision has been made yet." in body_text(to_ben[0])
    assert body_text(to_ben[0]).splitlines()[0].startswith("Waiting for ann:")


def test_watch_takes_a_name_and_address_and_a_quoted_name_with_a_comma(game: Setup) -> None:
    out = game.send(reply(game.latest("gm"), 'watch "Watcher, Wendy" <wendy@example.org>'))
    assert "Done." in body_text(out[0])
    found = roster.settings(gamefile.read(game.path).data)
    assert found.watchers == ["wendy@example.org"]
    assert found.watcher_to("wendy@example.org") == '"Watcher, Wendy" <wendy@example.org>'
    out = game.send(reply(game.latest("ann"), "take 2"))
    wendy = [m for m in out if "wendy@example.org" in _to(m)]
    assert len(wendy) == 1 and _to(wendy[0]) == ["wendy@example.org"]
    assert str(wendy[0]["To"]) == '"Watcher, Wendy" <wendy@example.org>'
    # the setting's line in the others' mails names no address
    assert "wendy@example.org" not in body_text(game.latest("ann"))


@pytest.mark.parametrize("line, record", [
    ("watch Wendy Watcher <wendy@example.org>",
     {"kind": "watcher", "email": "wendy@example.org", "on": True, "name": "Wendy Watcher"}),
    ('watch "Watcher, Wendy" <w@example.org> digest 3',
     {"kind": "watcher", "email": "w@example.org", "on": True, "name": "Watcher, Wendy",
      "digest": 3}),
    ("watch w@example.org digest",
     {"kind": "watcher", "email": "w@example.org", "on": True, "digest": "round"}),
    ("watch <w@example.org>", {"kind": "watcher", "email": "w@example.org", "on": True}),
    ("unwatch Wendy <w@example.org>", {"kind": "watcher", "email": "w@example.org", "on": False}),
    ('replace ben "Brown, Dan" <dan@example.org>',
     {"kind": "replace", "player": "ben", "name": "Brown, Dan", "email": "dan@example.org"}),
    ("replace ben Dan dan@example.org",
     {"kind": "replace", "player": "ben", "name": "Dan", "email": "dan@example.org"}),
    ("replace ben <dan@example.org>",
     {"kind": "replace", "player": "ben", "name": "ben", "email": "dan@example.org"}),
])
def test_gm_lines_with_names(line: str, record: dict[str, object]) -> None:
    assert gm_meta(line, ["ann", "ben"]) == record


@pytest.mark.parametrize("line, words", [
    (f"watch {'W' * 101} <w@example.org>", "a name has at most 100 characters"),
    ("watch Wendy\u202e <w@example.org>", "control characters in the name"),
    ("unwatch w@example.org digest 3", "unwatch takes an address only"),
    ("watch Wendy <>", "give an address"),
])
def test_gm_lines_with_bad_names_are_refused(line: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        gm_meta(line, ["ann"])


def test_a_name_cannot_add_a_recipient(game: Setup) -> None:
    """A name full of commas and brackets is one display name of one recipient, and an
    address list where an address goes is refused."""
    out = game.send(reply(game.latest("gm"),
                          'watch "Eve, eve@evil.example <x@evil.example>" <kim@example.org>'))
    assert "Done." in body_text(out[0])
    out = game.send(reply(game.latest("gm"),
                          "watch Mallory <a@example.org>, b@evil.example"))
    assert "Not done" in body_text(out[0])
    out = game.send(reply(game.latest("ann"), "take 1"))
    assert not any("evil.example" in a for m in out for a in _to(m))
    assert any(_to(m) == ["kim@example.org"] for m in out)


def test_new_takes_a_quoted_name_with_a_comma(tmp_path: Path) -> None:
    setup = Setup(tmp_path, players='ann="Smith, Ann" <ann@example.org>,ben=Ben,cat')
    players = gamefile.read(setup.path).data["players"]
    assert [(p["id"], p["name"], p.get("email")) for p in players] == [
        ("ann", "Smith, Ann", "ann@example.org"), ("ben", "Ben", None), ("cat", "cat", None)]
    setup.judge()
    assert [str(m["To"]) for m in setup.new_mail()] == ['"Smith, Ann" <ann@example.org>']
    with pytest.raises(UsageError, match="unbalanced quotes"):
        gamefile.parse_players('ann="Smith, Ann <ann@example.org>,ben')


def test_setting_events_name_no_address() -> None:
    from referee.judge.meta import event_line

    assert event_line(3, "the game master", {"kind": "address", "player": "ann",
                                             "emails": ["a@x.org", "b@x.org"]}) == \
        "3. the game master set ann's addresses (2 addresses)"
    assert event_line(4, "the game master", {"kind": "watcher", "email": "w@x.org",
                                             "on": True, "name": "Wendy"}) == \
        "4. the game master added a watcher: Wendy"
    assert event_line(5, "the game master", {"kind": "deadline", "hours": 48}) == \
        "5. the game master set the time for each decision: 48 hours"
    assert event_line(6, "the game master", {"kind": "deadline", "hours": 1,
                                             "bot": "greedy"}) == \
        "6. the game master set the time for each decision: 1 hour; a bot (greedy) plays " \
        "a missed decision"
    assert event_line(7, "ann", {"kind": "vacation", "player": "ann", "days": 3}) == \
        "7. ann is on vacation for 3 days: their clock stops"
