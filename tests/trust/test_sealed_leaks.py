"""Sealed real games leak nothing: every output a non-referee can see is searched for each
hidden card/tile/stack token of the game and for the seed."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
from pathlib import Path

import pytest

from referee.engine import get_game
from referee.engine.rng import Rng
from referee.ledger import gamefile, replay
from tests.conftest import run
from tests.leaks import assert_hidden, assert_shows, own_items, words

SEED = "sealed-leak-test-seed-0123456789"


@pytest.mark.parametrize(("name", "n"), [("staufer", 4), ("dynasties", 3)])
def test_sealed_game_outputs_hold_no_secret(tmp_path: Path, name: str, n: int) -> None:
    path, secret = tmp_path / "g.json", tmp_path / "keep.secret"
    players = ["ann", "ben", "cat", "dan"][:n]
    spec = ",".join(f"{p}={p.title()} <{p}@example.org>" for p in players)
    assert run("new", name, path, "--players", spec, "--sealed", "--insecure-seed", "--seed", SEED,
               "--secret-out", secret).exit_code == 0
    chooser = Rng("leak-choices")
    for _ in range(25):  # well into the game: draws, hands and decisions have happened
        public = json.loads(run("status", path, "--json", "--secret", secret).output)
        if public["finished"]:
            break
        player = public["to_move"][0]
        legal = json.loads(run("status", path, "--as", player, "--json", "--secret",
                               secret).output)["legal"]
        assert run("move", path, "--as", player, chooser.choice(legal, "m"), "--secret",
                   secret).exit_code == 0
    match = replay.replay(gamefile.read(path), SEED)
    game = get_game(name)
    assert game.hidden_items(match.state, None), "the test needs hidden state to look for"
    seen_by_all = {
        "the file": path.read_text(),
        "status": run("status", path, "--secret", secret).output,
        "status --json": run("status", path, "--json", "--secret", secret).output,
        "log": run("log", path).output,
        "check": run("check", path).output,
        "check --json": run("check", path, "--json").output,
    }
    mbox = tmp_path / "out.mbox"
    mbox.write_text(run("mail", path, "--from", "ref@example.org", "--secret", secret).output)
    mails = {}
    for message in mailbox.mbox(mbox, factory=None):
        parsed = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
        body = parsed.get_body(("plain",))
        assert body is not None
        mails[parsed["X-Referee-Player"]] = str(parsed["Subject"]) + body.get_content()
    assert sorted(mails) == sorted(players)
    per_player = {
        p: {"status --as": run("status", path, "--as", p, "--secret", secret).output,
            "status --as --json": run("status", path, "--as", p, "--json", "--secret",
                                      secret).output,
            "mail": mails[p]}
        for p in players
    }
    for text in [*seen_by_all.values(), *(t for ts in per_player.values() for t in ts.values())]:
        assert SEED not in text
    assert_hidden(game, match.state, {None: seen_by_all, **per_player}, ignore=[str(tmp_path)])
    for p in players:  # control: each player's own outputs do show their own items
        assert_shows(per_player[p]["status --as --json"], own_items(game, match.state, p))


@pytest.mark.parametrize(("name", "n"), [("staufer", 4), ("dynasties", 3)])
def test_the_tokens_searched_for_do_appear_where_allowed(tmp_path: Path, name: str,
                                                         n: int) -> None:
    """Control for the leak test: each player's own view does show their own tokens, so
    the search above looks for strings that the views really use."""
    path = tmp_path / "g.json"
    players = ["ann", "ben", "cat", "dan"][:n]
    run("new", name, path, "--players", ",".join(players), "--seed", SEED)
    match = replay.replay(gamefile.read(path))
    game = get_game(name)
    for p in players:
        own = own_items(game, match.state, p)
        assert own, p
        assert_shows(run("status", path, "--as", p, "--json").output, own)
        assert_shows(run("status", path, "--as", p).output, own)


def test_hidden_choices_are_sealed_in_the_file_and_every_public_output(tmp_path: Path
                                                                       ) -> None:
    """A kept card (Dynasties `pass ... keep N`, `keep yNN`) is a choice other players may
    not see: the file stores it sealed to the referee, and the file, the public log, every
    other player's log and status, and `check` name only "kept a card"."""
    path, secret = tmp_path / "g.json", tmp_path / "keep.secret"
    players = ["ann", "ben", "cat"]
    assert run("new", "dynasties", path, "--players", ",".join(players), "--sealed",
               "--insecure-seed", "--seed", SEED, "--secret-out", secret).exit_code == 0
    chooser = Rng("hidden-choices")
    for _ in range(200):
        public = json.loads(run("status", path, "--json", "--secret", secret).output)
        if public["finished"]:
            break
        player = public["to_move"][0]
        legal = json.loads(run("status", path, "--as", player, "--json", "--secret",
                               secret).output)["legal"]
        kept = [m for m in legal if "keep" in m]
        move = chooser.choice(kept or legal, "m")
        assert run("move", path, "--as", player, move, "--secret", secret).exit_code == 0
    gf = gamefile.read(path)
    sealed = [i for i, e in enumerate(gf.log) if "sealed" in e]
    assert len(sealed) >= 3, "the game should have made several hidden choices"
    game = get_game("dynasties")
    choices = {}  # the full notation of each hidden choice, and its private field values
    for i in sealed:
        move = replay.entry_move(gf, i, SEED)
        private = {f: getattr(move, f) for f in game.private_fields(move)}
        choices[i] = (gf.log[i]["by"], game.format_move(move), private)
    raw = path.read_text()
    for i, (author, text, private) in choices.items():
        entry_line = next(line for line in raw.splitlines() if f'"n": {i + 1},' in line)
        for name, value in private.items():
            assert f'"{name}"' not in entry_line, f"{name} of entry {i + 1} in clear"
            assert json.dumps(value) not in json.dumps(gf.log[i]["move"])
        public_outputs = [raw, run("log", path).output, run("log", path, "--json").output,
                          run("check", path).output, run("check", path, "--secret",
                                                         secret).output,
                          run("status", path, "--secret", secret).output]
        public_outputs += [run("log", path, "--as", p, "--secret", secret).output
                           for p in players if p != author]
        public_outputs += [run("status", path, "--as", p, "--secret", secret).output
                           for p in players if p != author]
        for out in public_outputs:
            assert text not in out, f"hidden choice {text!r} of {author} leaked"
        own = run("log", path, "--as", author, "--secret", secret).output
        assert text in own, "control: the author does see their own choice"
        assert gf.log[i]["public"] in run("log", path).output


def test_check_of_a_forged_move_names_no_hidden_card(tmp_path: Path) -> None:
    """CI logs are public: `check` with the secret of a sealed game that holds a forged
    move (ann trades with a card she does not hold) says the move is illegal without
    listing ann's hand or anything else hidden. Only the command's own words are searched,
    as whole tokens: the digits of the test's folder (``pytest-4``) are no card."""
    path, secret = tmp_path / "g.json", tmp_path / "keep.secret"
    assert run("new", "dynasties", path, "--players", "ann,ben,cat", "--sealed",
               "--insecure-seed", "--seed", SEED, "--secret-out", secret).exit_code == 0
    match = replay.replay(gamefile.read(path), SEED)
    game = get_game("dynasties")
    held = set(match.state.players[0].hand)
    legal = json.loads(run("status", path, "--as", "ann", "--json", "--secret",
                           secret).output)["legal"]
    assert held == {int(m.split(" with ")[1].split()[0]) for m in legal if " with " in m}
    forged_card = next(c for c in range(1, 35) if c not in held)
    data = json.loads(path.read_text())
    gamefile.append_entry(data, "ann", game.parse_move(f"trade 1 with {forged_card}", []))
    path.write_text(gamefile.dumps(data))
    outputs = {}
    for args in (("check", path, "--secret", secret), ("check", path, "--json", "--secret",
                                                       secret)):
        result = run(*args)
        assert result.exit_code == 1 and "not legal" in result.output
        assert "your cards" not in result.output
        outputs[" ".join(map(str, args[2:]))] = result.output
        numbers = {int(w) for w in words(result.output.replace(str(tmp_path), " "))
                   if w.isdigit()}
        assert not held & numbers - {1}, "a card of ann's hand is named"
    assert_hidden(game, match.state, {None: outputs}, ignore=[str(tmp_path)])
