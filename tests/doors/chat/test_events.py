"""The chat door's reading of events and its seats, without a homeserver (docs/chat.md)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from referee import engine
from referee.doors.chat import events
from referee.judge.door import Doors, Notice
from referee.judge.readings import hidden_in
from referee.ledger import gamefile, replay, secret
from referee.play.reading import read_text, reads_as_move
from tests.conftest import ok, run
from tests.support.games import new_game

ROOM = "!abc:hs.test"


def message(body: object, **content: object) -> dict[str, object]:
    return {"type": "m.room.message", "event_id": "$e1", "sender": "@ann:hs.test",
            "content": {"msgtype": "m.text", "body": body, **content}}


def test_a_text_message_is_read_with_its_sender_and_id() -> None:
    said = events.read(ROOM, message("supply 2."))
    assert said == events.Event(ROOM, "$e1", "@ann:hs.test", "message", "supply 2.")


def test_edits_replies_redactions_and_long_bodies_are_told_apart() -> None:
    edit = events.read(ROOM, message("* supply 3", **{"m.relates_to": {
        "rel_type": "m.replace", "event_id": "$e0"}, "m.new_content": {"body": "supply 3"}}))
    # an edit is never played, but its new text is read: a hidden choice in it is withdrawn
    assert edit is not None and edit.kind == "edit" and edit.text == "supply 3"
    reply = events.read(ROOM, message("> <@ref:hs.test> your turn\n\nsupply 2", **{
        "m.relates_to": {"m.in_reply_to": {"event_id": "$old"}}}))
    assert reply is not None and reply.kind == "reply"
    assert reply.text == "supply 2" and reply.replies_to == "$old"
    redaction = events.read(ROOM, {"type": "m.room.redaction", "event_id": "$e2",
                                   "sender": "@ann:hs.test", "redacts": "$e1"})
    assert redaction is not None and redaction.kind == "redaction"
    long = events.read(ROOM, message("x" * (events.BODY_MAX + 1)))
    # never played; its first BODY_MAX characters looked at for a hidden choice
    assert long is not None and long.kind == "too_long" and long.text == "x" * events.BODY_MAX


def test_malformed_or_foreign_events_are_passed_over() -> None:
    assert events.read(ROOM, message(42)) is None
    assert events.read(ROOM, {**message("supply 2"), "sender": "ann"}) is None
    assert events.read(ROOM, {**message("supply 2"), "event_id": "e1 with space"}) is None
    assert events.read(ROOM, message("hi", msgtype="m.notice")) is None  # a bot's
    assert events.read(ROOM, {"type": "m.room.member", "event_id": "$e", "sender":
                              "@ann:hs.test", "state_key": "@ann:hs.test"}) is None
    joined = events.read(ROOM, {"type": "m.room.member", "event_id": "$e", "sender":
                                "@ann:hs.test", "state_key": "@ann:hs.test",
                                "content": {"membership": "leave"}})
    assert joined == events.Event(ROOM, "$e", "@ann:hs.test", "member", "leave",
                                  member="@ann:hs.test")


def test_a_post_keeps_its_columns_and_is_bounded_in_bytes() -> None:
    content = events.post("a <b>\n  c")
    assert content["msgtype"] == "m.notice" and content["body"] == "a <b>\n  c"
    assert content["formatted_body"] == "<pre><code>a &lt;b&gt;\n  c</code></pre>"
    # bounded in encoded bytes, whatever the characters: ASCII, escaped controls and
    # HTML, and letters of four bytes each
    for text in ("y" * 100_000, "\x01" * 30_000, "<&>" * 20_000, "\U0001f600" * 30_000):
        bounded = events.post(text)
        assert len(json.dumps(bounded).encode()) <= events.POST_BYTES
        assert bounded["body"].endswith(events.CUT)


def test_chat_lines_before_the_move_are_passed_over(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben,cat", seed="chat")
    gf = gamefile.read(path)
    match = replay.replay(gf, secret.find_seed(gf, None, path))
    game, state = match.game, match.state
    mover = game.to_move(state)[0]
    move = engine.legal_strings(game, state, mover)[0]
    reply = read_text(f"Nice one!\n{move}.")
    assert reply.lines == ("Nice one", move)  # (tidied as a mail line is)
    assert reads_as_move(game, state, mover, move)
    other = next(p for p in gf.players if p != mover)
    assert reads_as_move(game, state, other, move)  # out of turn: still a move
    assert not reads_as_move(game, state, mover, "good luck everyone")


def test_chat_says_how_to_answer_in_chat(tmp_path: Path) -> None:
    from referee.doors.chat.words import CHAT_WORDS
    from referee.judge import text
    from referee.ledger import roster

    for name in ("staufer", "dynasties"):
        path = tmp_path / f"{name}.json"
        new_game(path, name, players="ann,ben,cat", seed="chat")
        gf = gamefile.read(path)
        match = replay.replay(gf, secret.find_seed(gf, None, path))
        ok("move", path, "--as", match.game.to_move(match.state)[0],
           engine.legal_strings(match.game, match.state, match.game.to_move(match.state)[0])[0])
        gf = gamefile.read(path)
        match = replay.replay(gf, secret.find_seed(gf, None, path))
        for viewer in gf.players:
            said = text.body(gf, match, None, viewer, 0, roster.settings(gf.data),
                             words=CHAT_WORDS)
            assert "Since your last message:" in said and "mail" not in said.lower()
            assert "direct room" in said
            assert "supply 2" not in said or name == "staufer"  # (no other game's move)


def test_a_notice_for_a_door_the_judge_does_not_run_is_logged_not_sent(tmp_path: Path
                                                                        ) -> None:
    logged: list[str] = []
    doors = Doors([], logged.append)

    class Game:
        path = tmp_path / "g.json"

        class gf:
            game_id = "g1"

    assert doors.prepare(Game, Notice("ann", "matrix:@ann:hs.test", "x")) == []  # type: ignore[arg-type]
    assert doors.prepare(Game, Notice("ann", "matrix:@ann:hs.test", "y")) == []  # type: ignore[arg-type]
    assert doors.prepare(Game, Notice("_watcher", None, "z")) == []  # type: ignore[arg-type]
    assert len(logged) == 1 and "reached by no door this judge runs" in logged[0]


def test_new_binds_seats_to_matrix_ids_and_seals_the_game(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", "--matrix", "ann=@ann:example.org,ben=@ben:example.org:8448",
             players="ann,ben,cat")
    data = json.loads(path.read_text())
    assert [p.get("matrix") for p in data["players"]] == [
        "@ann:example.org", "@ben:example.org:8448", None]
    assert "seed" not in data["rng"] and path.with_name("g.json.secret").exists()
    ok("check", path)


def test_new_refuses_a_bad_or_shared_matrix_id(tmp_path: Path) -> None:
    for spec, said in (("ann=ann:example.org", "not a Matrix user id"),
                       ("ann=@Ann:example.org", "not a Matrix user id"),
                       ("zoe=@zoe:example.org", "for players of this game"),
                       ("ann=@x:example.org,ben=@x:example.org", "given for two seats"),
                       ("ann=@" + "a" * 300 + ":example.org", "not a Matrix user id")):
        result = run("new", "staufer", tmp_path / "g.json", "--players", "ann,ben,cat",
                     "--matrix", spec)
        assert result.exit_code in (1, 2) and said in result.output, (spec, result.output)
        assert "Traceback" not in result.output
        assert not (tmp_path / "g.json").exists()


def test_a_forged_matrix_field_fails_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben,cat", seed="s")
    data = json.loads(path.read_text())
    data["players"][0]["matrix"] = "@ann:example.org\nX-Evil: 1"
    path.write_text(json.dumps(data))
    result = run("check", path)
    assert result.exit_code == 1 and "Matrix user id" in result.output, result.output


def hidden_position(tmp_path: Path) -> tuple[object, str, str, str]:
    """A Dynasties game played by first legal moves until the player to move has a
    hidden choice: (match, player, a hidden move, a public move)."""
    path = tmp_path / "d.json"
    new_game(path, "dynasties", players="ann,ben,cat", seed="hidden")
    for _ in range(200):
        gf = gamefile.read(path)
        match = replay.replay(gf, secret.find_seed(gf, None, path))
        game, state = match.game, match.state
        mover = game.to_move(state)[0]
        legal = engine.legal_strings(game, state, mover)
        secret_moves = [m for m in legal if hidden(match, mover, [m])]  # type: ignore[arg-type]
        if secret_moves:
            public = [m for m in legal if m not in secret_moves]
            return match, mover, secret_moves[0], public[0] if public else ""
        ok("move", path, "--as", mover, legal[0])
    raise AssertionError("no hidden choice in 200 moves")


def hidden(match: object, player: str, lines: list[str]) -> bool:
    return hidden_in(SimpleNamespace(match=match), player, lines)  # type: ignore[arg-type]


def test_a_hidden_choice_is_told_from_a_public_move(tmp_path: Path) -> None:
    match, mover, secret_move, public = hidden_position(tmp_path)
    assert hidden(match, mover, [secret_move])
    assert hidden(match, mover, ["hello", secret_move])  # any line of several
    if public:
        assert not hidden(match, mover, [public])
    assert not hidden(match, mover, ["not a move at all"])
    # inside a line: with words after it or before it, with its punctuation
    assert hidden(match, mover, [f"{secret_move} lol"])
    assert hidden(match, mover, [f"ok I go {secret_move}, sorry"])
    assert hidden(match, mover, [f"{secret_move.upper()}!"])


def test_judge_in_chat_refuses_bad_options_with_one_message(tmp_path: Path,
                                                            monkeypatch: object) -> None:
    games = tmp_path / "games"
    games.mkdir()
    env = {"REFEREE_MATRIX_PASSWORD": "pw"}
    for args, said, environ in (
            (["--matrix", "http://127.0.0.1:9"], "--matrix-user", env),
            (["--matrix", "ftp://x", "--matrix-user", "@r:hs.test"], "http", env),
            (["--matrix", "http://127.0.0.1:9", "--matrix-user", "referee"], "--matrix-user",
             env),
            (["--matrix", "http://127.0.0.1:9", "--matrix-user", "@r:hs.test"],
             "REFEREE_MATRIX_PASSWORD", {}),
            (["--matrix", "http://127.0.0.1:9", "--matrix-user", "@r:hs.test", "--idle"],
             "--idle", env),
            (["--matrix", "http://127.0.0.1:9", "--matrix-user", "@r:hs.test",
              "--maildir", str(tmp_path)], "--smtp", env)):
        result = run("judge", games, *args, env={"REFEREE_MATRIX_PASSWORD": "",
                                                 **environ} if environ else
                     {"REFEREE_MATRIX_PASSWORD": None, "REFEREE_MATRIX_TOKEN": None})
        assert result.exit_code in (1, 2) and said in result.output, (args, result.output)
        assert "Traceback" not in result.output
    assert sorted(p.name for p in games.iterdir()) == []


def test_a_homeserver_that_is_down_is_one_message_and_changes_nothing(tmp_path: Path
                                                                      ) -> None:
    from tests.conftest import free_port, require_module

    require_module("nio")  # (the [matrix] extra: in the test extra, so CI has it)

    games = tmp_path / "games"
    games.mkdir()
    new_game(games / "g.json", "staufer", "--matrix",
             "ann=@ann:hs.test,ben=@ben:hs.test,cat=@cat:hs.test", players="ann,ben,cat")
    before = {p.name: p.read_bytes() for p in games.iterdir()}
    result = run("judge", games, "--matrix", f"http://127.0.0.1:{free_port()}",
                 "--matrix-user", "@referee:hs.test", "--once",
                 env={"REFEREE_MATRIX_PASSWORD": "pw"})
    assert result.exit_code == 1, result.output
    assert "cannot reach the homeserver" in result.output and "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in games.iterdir()} == before


def test_a_homeserver_url_with_more_than_a_host_is_a_usage_error(tmp_path: Path) -> None:
    """The judge's account goes in the environment, never in a URL that logs and
    process lists show: user info, a path, a query or a fragment is refused (exit 2)."""
    games = tmp_path / "games"
    games.mkdir()
    for url in ("http://referee:pw@127.0.0.1:9", "http://user@127.0.0.1:9",
                "https://hs.example/_matrix", "https://hs.example/?x=1",
                "https://hs.example/#f", "https://hs.example:99999"):
        result = run("judge", games, "--matrix", url, "--matrix-user", "@r:hs.test", "--once",
                     env={"REFEREE_MATRIX_PASSWORD": "pw"})
        assert result.exit_code == 2, (url, result.output)
        assert "--matrix" in result.output and "Traceback" not in result.output
        assert "pw@" not in result.output.replace(url, "")
    assert sorted(p.name for p in games.iterdir()) == []


def test_the_chat_judge_without_the_matrix_extra_names_it(tmp_path: Path,
                                                          monkeypatch: object) -> None:
    import importlib.util

    import pytest as _pytest

    games = tmp_path / "games"
    games.mkdir()
    real = importlib.util.find_spec
    patch = _pytest.MonkeyPatch()
    patch.setattr(importlib.util, "find_spec",
                  lambda name, *a: None if name == "nio" else real(name, *a))
    try:
        result = run("judge", games, "--matrix", "http://127.0.0.1:9", "--matrix-user",
                     "@r:hs.test", env={"REFEREE_MATRIX_PASSWORD": "pw"})
    finally:
        patch.undo()
    assert result.exit_code == 2, result.output
    assert "pip install 'referee[matrix]'" in result.output
    assert "internal error" not in result.output


def test_an_internal_error_names_the_step_that_failed(tmp_path: Path) -> None:
    """A bug in `referee judge` names the command and its folder, not a game file it
    was never given."""
    import pytest as _pytest

    from referee.judge import serve

    games = tmp_path / "games"
    games.mkdir()
    for sub in ("new", "cur", "tmp"):
        (tmp_path / "in" / sub).mkdir(parents=True)
    patch = _pytest.MonkeyPatch()
    patch.setattr(serve, "serve", lambda *a: {}["boom"])
    try:
        result = run("judge", games, "--maildir", tmp_path / "in", "--outbox", tmp_path / "out",
                     "--from", "r@example.org", "--once")
    finally:
        patch.undo()
    assert result.exit_code == 1
    assert f"internal error while running `referee judge` on {games}: KeyError" in \
        result.output, result.output
    assert "replaying" not in result.output
