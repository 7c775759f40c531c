"""Sealed real games leak nothing: every output a non-referee can see is searched for each
hidden card/tile/stack token of the game and for the seed."""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from referee import gamefile
from referee.cli import main
from referee.engine import get_game
from referee.rng import Rng

SEED = "sealed-leak-test-seed-0123456789"


def run(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


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
    match = gamefile.replay(gamefile.read(path), SEED)
    tokens = get_game(name).hidden_tokens(match.state)
    assert any(tokens.values()), "the test needs hidden information to look for"
    seen_by_all = [
        path.read_text(),
        run("status", path, "--secret", secret).output,
        run("status", path, "--json", "--secret", secret).output,
        run("log", path).output,
        run("check", path).output,
        run("check", path, "--json").output,
    ]
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
        p: [run("status", path, "--as", p, "--secret", secret).output,
            run("status", path, "--as", p, "--json", "--secret", secret).output,
            mails[p]]
        for p in players
    }
    for text in seen_by_all + [t for texts in per_player.values() for t in texts]:
        assert SEED not in text
        for token in tokens.get("", []):
            assert token not in text, f"hidden stack/deck token {token!r} leaked"
    for owner in players:
        for token in tokens.get(owner, []):
            for text in seen_by_all:
                assert token not in text, f"{owner}'s {token!r} is public"
            for other in players:
                if other != owner:
                    for text in per_player[other]:
                        assert token not in text, f"{owner}'s {token!r} shown to {other}"


@pytest.mark.parametrize(("name", "n"), [("staufer", 4), ("dynasties", 3)])
def test_the_tokens_searched_for_do_appear_where_allowed(tmp_path: Path, name: str,
                                                         n: int) -> None:
    """Control for the leak test: each player's own view does show their own tokens, so
    the search above looks for strings that the views really use."""
    path = tmp_path / "g.json"
    players = ["ann", "ben", "cat", "dan"][:n]
    run("new", name, path, "--players", ",".join(players), "--seed", SEED)
    match = gamefile.replay(gamefile.read(path))
    tokens = get_game(name).hidden_tokens(match.state)
    for p in players:
        own = run("status", path, "--as", p, "--json").output
        assert tokens[p] and all(token in own for token in tokens[p]), p
