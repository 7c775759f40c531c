"""Play in chat: a sealed 3-player Staufer game over a real Synapse (docs/chat.md).

The players are matrix-nio clients (tests/matrixclient.py); the judge is `referee judge
--matrix ... --once`, run as a player's game master would run it. What is promised and
shown here: after the first pass each player is invited to the game's room and to a
direct room that shows their own view; moves typed in the game's room are played and
answered there; an out-of-turn move, a stranger's direct message, an edit and a reply to
an old turn change nothing; a second pass replays nothing; no player's private text
reaches the game's room or another player's direct room; `check` passes the file.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from referee import engine
from referee.ledger import gamefile, replay, secret
from tests.conftest import ok, run
from tests.leaks import leaks
from tests.matrixclient import Person

pytestmark = pytest.mark.slow


def judge(synapse: Any, games: Path, referee_user: str) -> str:
    """One pass of the judge in chat; its log."""
    result = run("judge", games, "--matrix", synapse.url, "--matrix-user", referee_user,
                 "--once", env={"REFEREE_MATRIX_PASSWORD": synapse_password(referee_user)})
    assert result.exit_code == 0, result.output
    return result.output


def synapse_password(user: str) -> str:
    from tests.matrixserver import password_for

    return password_for(user[1:].split(":", 1)[0])


def state(path: Path) -> tuple[gamefile.GameFile, Any]:
    gf = gamefile.read(path)
    return gf, replay.replay(gf, secret.find_seed(gf, None, path))


def bodies(person: Person, room: str) -> list[str]:
    return [m.body for m in person.messages(room)]


@pytest.fixture
def table(synapse: Any, tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    """A chat game of ann, ben and cat (and eve, who plays nothing), after the first pass
    of the judge: everyone has joined their rooms."""
    import hashlib

    tag = "t" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:10]
    names = {p: f"{p}{tag}" for p in ("ann", "ben", "cat", "eve")}
    referee_user = synapse.register(f"referee{tag}")
    people = {p: Person(synapse, local) for p, local in names.items()}
    games = tmp_path / "games"
    games.mkdir()
    path = games / "g.json"
    seats = ",".join(f"{p}={people[p].user_id}" for p in ("ann", "ben", "cat"))
    ok("new", "staufer", path, "--players", "ann,ben,cat", "--matrix", seats,
       "--id", f"chat-{tag}")
    judge(synapse, games, referee_user)
    rooms: dict[str, dict[str, str]] = {}
    for p in ("ann", "ben", "cat"):
        joined = people[p].accept_invites()
        assert len(joined) == 2, f"{p} was invited to {joined}"
        names_of = people[p].rooms()
        game_room = [r for r in joined if not names_of[r].endswith(f": {p}")]
        dm = [r for r in joined if names_of[r].endswith(f": {p}")]
        assert len(game_room) == 1 and len(dm) == 1, names_of
        rooms[p] = {"room": game_room[0], "dm": dm[0]}
    yield {"people": people, "rooms": rooms, "games": games, "path": path,
           "referee": referee_user}
    for person in people.values():
        person.close()


def hidden(match: Any, player: str, lines: list[str]) -> bool:
    """Whether one of ``lines`` is a hidden choice of ``player`` now."""
    from referee.judge.readings import hidden_in

    return hidden_in(SimpleNamespace(match=match), player, lines)  # type: ignore[arg-type]


def first_legal(path: Path, player: str) -> str:
    _, match = state(path)
    return engine.legal_strings(match.game, match.state, player)[0]


def to_move(path: Path) -> str:
    _, match = state(path)
    return match.game.to_move(match.state)[0]


def test_a_game_in_chat_plays_and_keeps_secrets(table: dict[str, Any], synapse: Any) -> None:
    people, rooms, path, games = table["people"], table["rooms"], table["path"], \
        table["games"]
    room = rooms["ann"]["room"]
    assert all(r["room"] == room for r in rooms.values())  # one room for the game
    # each direct room shows its player's own view (the headline names them)
    first = to_move(path)
    for p in ("ann", "ben", "cat"):
        shown = "Your legal moves" if p == first else "Waiting for"
        dm = people[p].wait_for(rooms[p]["dm"], lambda m, shown=shown: shown in m.body)
        assert dm.sender == table["referee"]
        assert {m.sender for m in people[p].messages(rooms[p]["dm"])} == {table["referee"]}
    # three turns, each the first legal move typed in the game's room by whoever is to move
    for turn in range(3):
        mover = to_move(path)
        move = first_legal(path, mover)
        before = len(gamefile.read(path).log)
        people[mover].send(room, f"{move}.")  # (a trailing period, as people type)
        judge(synapse, games, table["referee"])
        assert len(gamefile.read(path).log) == before + 1, f"turn {turn}: {move}"
        people[mover].wait_for(room, lambda m, n=before: m.sender == table["referee"] and
                               "Since your last" in m.body)
    # out of turn: nothing changes, the player is answered
    mover = to_move(path)
    other = next(p for p in ("ann", "ben", "cat") if p != mover)
    before = gamefile.read(path).log
    people[other].send(room, first_legal(path, mover))
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == before
    people[other].wait_for(rooms[other]["dm"], lambda m: "not your turn" in m.body or
                           "not accepted" in m.body)
    # a stranger's direct message: declined, nothing changes
    dm = people["eve"].create_dm(table["referee"])
    people["eve"].send(dm, first_legal(path, mover))
    said = judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == before
    assert "declined an invitation from " + people["eve"].user_id in said
    # an edit of a move and chat in the room are never played
    sent = people[mover].send(room, "good luck everyone")
    people[mover].edit(room, sent, first_legal(path, mover))
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == before
    people[mover].wait_for(rooms[mover]["dm"], lambda m: "edited message is not played"
                           in m.body)
    # a reply to a post of an earlier turn is not played
    old = next(m for m in people[mover].messages(room) if m.sender == table["referee"])
    people[mover].reply(room, old.event_id, first_legal(path, mover))
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == before
    people[mover].wait_for(rooms[mover]["dm"], lambda m: "earlier turn" in m.body)
    # a second pass replays nothing
    log_before = gamefile.read(path).log
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == log_before
    # no private text of one player in the room or in another's direct room
    _, match = state(path)
    for p in ("ann", "ben", "cat"):
        hidden = [i for i in engine.hidden_items(match.game, match.state, None)]
        own = [i for i in hidden if i.owner == p]
        room_text = "\n".join(bodies(people[p], room))
        assert not leaks(room_text, hidden), "the game's room shows hidden state"
        for q in ("ann", "ben", "cat"):
            if q != p:
                dm_text = "\n".join(bodies(people[q], rooms[q]["dm"]))
                assert not leaks(dm_text, own), f"{q}'s direct room shows {p}'s secrets"
    assert eve_sees_nothing(people["eve"], room)
    ok("check", path)


def eve_sees_nothing(eve: Person, room: str) -> bool:
    eve.sync()
    return room not in eve.rooms()


def test_a_kill_between_playing_and_answering_neither_loses_nor_doubles(
        table: dict[str, Any], synapse: Any) -> None:
    """The move is in the file but the sync position was not saved (a judge killed after
    playing): the next pass sees the event again and does not play it twice."""

    people, rooms, path, games = table["people"], table["rooms"], table["path"], \
        table["games"]
    from tests.support.judgestate import read_state, write_state

    saved = read_state(games)
    mover = to_move(path)
    before = gamefile.read(path).log
    event = people[mover].send(rooms[mover]["room"], first_legal(path, mover))
    judge(synapse, games, table["referee"])
    after = gamefile.read(path).log
    assert len(after) == len(before) + 1 and after[-1]["matrix"] == event
    # as if killed before the position and the handled ids were saved
    current = read_state(games)
    current["chat"]["since"] = saved["chat"]["since"]
    current["answered"] = saved["answered"]
    write_state(games, current)
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == after  # not played twice


def test_a_hidden_choice_typed_in_the_room_is_refused_unechoed(synapse: Any,
                                                               tmp_path: Path) -> None:
    """Dynasties keeps the card kept when passing secret: typed in the game's room it is
    not played, not repeated by the referee, and removed from the room; typed in the
    direct room it is played."""
    tag = "hidden"
    referee_user = synapse.register(f"referee{tag}")
    people = {p: Person(synapse, f"{p}{tag}") for p in ("ann", "ben", "cat")}
    games = tmp_path / "games"
    games.mkdir()
    path = games / "d.json"
    seats = ",".join(f"{p}={people[p].user_id}" for p in people)
    ok("new", "dynasties", path, "--players", "ann,ben,cat", "--matrix", seats,
       "--id", "hidden-1")
    for _ in range(200):  # first legal moves until the one to move has a hidden choice
        _, match = state(path)
        mover = match.game.to_move(match.state)[0]
        legal = engine.legal_strings(match.game, match.state, mover)
        secrets = [m for m in legal if hidden(match, mover, [m])]
        if secrets:
            break
        ok("move", path, "--as", mover, legal[0])
    else:
        raise AssertionError("no hidden choice in 200 moves")
    judge(synapse, games, referee_user)
    joined = people[mover].accept_invites()
    names_of = people[mover].rooms()
    room = next(r for r in joined if not names_of[r].endswith(f": {mover}"))
    dm = next(r for r in joined if names_of[r].endswith(f": {mover}"))
    before = gamefile.read(path).log
    typed = people[mover].send(room, secrets[0])
    judge(synapse, games, referee_user)
    assert gamefile.read(path).log == before
    people[mover].wait_for(dm, lambda m: "hidden choice" in m.body)
    in_room = people[mover].messages(room)
    assert not any(secrets[0] in m.body for m in in_room), "the hidden choice is in the room"
    assert [m.content for m in in_room if m.event_id == typed] == [{}]  # removed
    people[mover].send(dm, secrets[0])
    judge(synapse, games, referee_user)
    assert len(gamefile.read(path).log) == len(before) + 1
    ok("check", path)
    for person in people.values():
        person.close()


def test_one_judge_serves_a_game_of_mail_and_chat_players(synapse: Any,
                                                          tmp_path: Path) -> None:
    """ann plays by mail, ben and cat in chat; one `referee judge` with the mail options
    and --matrix plays them all: one state, one lock, each told at their own door."""
    from tests.judge.support import deliver, outbox_messages, reply

    referee_user = synapse.register("refereemixed")
    people = {p: Person(synapse, f"{p}mixed") for p in ("ben", "cat")}
    games, inbox, outbox = tmp_path / "games", tmp_path / "in", tmp_path / "out"
    games.mkdir()
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    path = games / "m.json"
    ok("new", "staufer", path, "--players", "ann=Ann <ann@example.org>,ben,cat",
       "--matrix", ",".join(f"{p}={people[p].user_id}" for p in people), "--id", "mixed-1")

    def both() -> None:
        result = run("judge", games, "--maildir", inbox, "--outbox", outbox,
                     "--from", "Referee <referee@example.org>", "--matrix", synapse.url,
                     "--matrix-user", referee_user, "--once",
                     env={"REFEREE_MATRIX_PASSWORD": synapse_password(referee_user)})
        assert result.exit_code == 0, result.output

    both()
    mails = outbox_messages(outbox)
    assert [str(m["To"]) for m in mails] == ["Ann <ann@example.org>"]  # chat seats: no mail
    rooms = {p: people[p].accept_invites() for p in people}
    assert all(len(r) == 2 for r in rooms.values())
    assert to_move(path) == "ann"
    deliver(inbox, reply(mails[-1], first_legal(path, "ann")))
    both()
    assert len(gamefile.read(path).log) == 1
    movers = []
    for _ in range(8):  # the chat players move in the room until ann must decide again
        mover = to_move(path)
        if mover == "ann":
            break
        movers.append(mover)
        room = next(r for r in rooms[mover] if not people[mover].rooms()[r].endswith(mover))
        before = len(gamefile.read(path).log)
        people[mover].send(room, first_legal(path, mover))
        both()
        assert len(gamefile.read(path).log) == before + 1
    assert to_move(path) == "ann"
    told = outbox_messages(outbox)
    assert {str(m["To"]) for m in told} == {"Ann <ann@example.org>"}
    text = str(told[-1].get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert "Your turn, ann" in text and movers
    assert all(f"{m} played" in text for m in movers), text  # the chat moves, by mail
    ok("check", path)
    for person in people.values():
        person.close()


def test_a_long_running_judge_killed_at_once_after_a_move_neither_loses_nor_doubles(
        table: dict[str, Any], synapse: Any) -> None:
    """`judge --matrix ... --poll` runs until stopped; it is killed (SIGKILL) as soon as
    the move is in the file; the next pass plays nothing twice and the move is told in
    the game's room."""
    import os
    import signal
    import subprocess
    import sys
    import time

    people, rooms, path, games = table["people"], table["rooms"], table["path"], \
        table["games"]
    env = {**os.environ, "REFEREE_MATRIX_PASSWORD": synapse_password(table["referee"])}
    judge_process = subprocess.Popen(
        [sys.executable, "-m", "referee", "judge", str(games), "--matrix", synapse.url,
         "--matrix-user", table["referee"], "--poll", "0.2"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        before = len(gamefile.read(path).log)
        mover = to_move(path)
        people[mover].send(rooms[mover]["room"], first_legal(path, mover))
        end = time.monotonic() + 30
        while len(gamefile.read(path).log) == before and time.monotonic() < end:
            time.sleep(0.02)
        assert len(gamefile.read(path).log) == before + 1, "the running judge did not play"
    finally:
        judge_process.send_signal(signal.SIGKILL)
        judge_process.wait(10)
    judge(synapse, games, table["referee"])
    judge(synapse, games, table["referee"])
    assert len(gamefile.read(path).log) == before + 1  # neither lost nor doubled
    people[mover].wait_for(rooms[mover]["room"], lambda m: f"{mover} played" in m.body)
    ok("check", path)


def test_settings_are_taken_in_the_direct_room_only(table: dict[str, Any],
                                                    synapse: Any) -> None:
    """`notify every` in the direct room is a meta entry carrying the event id; in the
    game's room it is refused (a player's own settings are private); `help` answers."""
    people, rooms, path, games = table["people"], table["rooms"], table["path"], \
        table["games"]
    ann = people["ann"]
    before = gamefile.read(path).log
    ann.send(rooms["ann"]["room"], "notify every")
    judge(synapse, games, table["referee"])
    assert gamefile.read(path).log == before
    ann.wait_for(rooms["ann"]["dm"], lambda m: "is for your direct room" in m.body)
    ann.wait_for(rooms["ann"]["room"], lambda m: "ann: answered in your direct room" in m.body)
    event = ann.send(rooms["ann"]["dm"], "notify every")
    judge(synapse, games, table["referee"])
    log = gamefile.read(path).log
    assert log[-1]["meta"] == {"kind": "notify", "player": "ann", "mode": "every"}
    assert log[-1]["matrix"] == event
    ann.wait_for(rooms["ann"]["dm"], lambda m: "setting is now every" in m.body)
    ann.send(rooms["ann"]["dm"], "help")
    judge(synapse, games, table["referee"])
    ann.wait_for(rooms["ann"]["dm"], lambda m: "How to play in chat" in m.body)
    ok("check", path)


@pytest.mark.parametrize("game_name", ["staufer", "dynasties"])
def test_a_whole_game_is_played_in_chat(game_name: str, synapse: Any, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every move of a whole game typed by matrix-nio players: public moves in the game's
    room, hidden choices in the mover's direct room; the judge (in this process, one
    login) plays each once; the game ends, the room tells the result, `check` passes, and
    the game's room never showed a hidden choice."""
    from referee.doors.chat.link import Link
    from referee.doors.mail import html

    monkeypatch.setattr(html, "pictures_available", lambda: False)  # (text is enough here)
    tag = f"whole{game_name[:4]}"
    referee_user = synapse.register(f"referee{tag}")
    people = {p: Person(synapse, f"{p}{tag}") for p in ("ann", "ben", "cat")}
    games = tmp_path / "games"
    games.mkdir()
    path = games / "w.json"
    ok("new", game_name, path, "--players", "ann,ben,cat", "--id", f"{tag}-1",
       "--matrix", ",".join(f"{p}={people[p].user_id}" for p in people))
    link = Link(synapse.url, referee_user, password=synapse_password(referee_user))
    link.connect()
    try:
        _play_whole_game(game_name, link, games, path, people)
    finally:
        link.close()
        for person in people.values():
            person.close()


def _play_whole_game(game_name: str, link: Any, games: Path, path: Path,
                     people: dict[str, Person]) -> None:
    from referee.doors.chat.door import MatrixDoor
    from referee.judge import serve
    from referee.judge.basics import Config
    from referee.judge.core import Judge

    logs: list[str] = []
    # the judge's clock: a minute per move (a whole game inside its rate of 20 events per
    # sender per ten minutes, as players who think between moves would be)
    now = [dt.datetime(2026, 12, 5, 9, 0, tzinfo=dt.UTC)]
    config = Config(games, "", log=logs.append, clock=lambda: now[0])
    judge_core = Judge(config, [MatrixDoor(config, link)])
    serve.run_once(judge_core)
    rooms: dict[str, dict[str, str]] = {}
    for p, person in people.items():
        joined = person.accept_invites()
        names_of = person.rooms()
        rooms[p] = {"room": next(r for r in joined if not names_of[r].endswith(f": {p}")),
                    "dm": next(r for r in joined if names_of[r].endswith(f": {p}"))}
    secrets_typed: list[str] = []
    for turn in range(400):
        _, match = state(path)
        if match.game.finished(match.state):
            break
        mover = match.game.to_move(match.state)[0]
        legal = engine.legal_strings(match.game, match.state, mover)
        secret = [m for m in legal if hidden(match, mover, [m])]
        move = (secret or legal)[0]  # (a hidden choice where there is one)
        private = bool(secret)
        if private:
            secrets_typed.append(move)
        before = len(gamefile.read(path).log)
        people[mover].send(rooms[mover]["dm" if private else "room"], move)
        now[0] += dt.timedelta(minutes=1)
        serve.run_once(judge_core)
        assert len(gamefile.read(path).log) == before + 1, (turn, move, logs[-5:])
    else:
        raise AssertionError("the game did not end")
    _, match = state(path)
    assert match.game.finished(match.state)
    serve.run_once(judge_core)
    judge_core.close()
    room_text = [m.body for m in people["ann"].messages(rooms["ann"]["room"])]
    assert any("Final" in body or "final" in body for body in room_text[-3:]), room_text[-1]
    if game_name == "dynasties":
        assert secrets_typed, "a whole Dynasties game has hidden choices"
    assert not [m for m in secrets_typed if any(m in body for body in room_text)]
    ok("check", path)
