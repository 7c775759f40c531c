"""Determinization: re-dealt states keep the rules' invariants and PLAYER's view, differ in
hidden parts, and depend only on what PLAYER can see (no cheating), for both games."""

from __future__ import annotations

import pytest

from referee.bots import choose, make_bot
from referee.engine import Match, get_game
from referee.engine.rng import Rng
from tests.leaks import tokens_by_owner

GAMES = [("staufer", 4), ("dynasties", 4), ("staufer", 2), ("dynasties", 3)]
STEPS = (0, 7, 40, 80)


def positions(name: str, n: int) -> list[Match]:
    """Matches after STEPS random moves (one random game, copied at each step)."""
    game = get_game(name)
    players = ["ann", "ben", "cat", "dan", "eve"][:n]
    out = []
    for steps in STEPS:
        match = Match.start(game, players, {}, f"det-{name}-{n}")
        rng = Rng("det-moves")
        for _ in range(steps):
            if game.finished(match.state):
                break
            mover = game.to_move(match.state)[0]
            match.play(mover, rng.choice(game.legal_moves(match.state, mover), "m"))
        out.append(match)
    return out


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_redeal_keeps_invariants_view_and_original(name: str, n: int) -> None:
    game = get_game(name)
    for match in positions(name, n):
        before = game.fingerprint(match.state)
        for player in match.players:
            sample = game.determinize(match.state, player, Rng(f"s-{player}"))
            assert game.invariants(sample) == []
            assert game.view(sample, player) == game.view(match.state, player)
            assert game.view(sample, None) == game.view(match.state, None)
            assert sample.rng.counters == match.state.rng.counters
        assert game.fingerprint(match.state) == before  # the true state is untouched


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_redeal_changes_hidden_parts_and_future_draws(name: str, n: int) -> None:
    game = get_game(name)
    match = positions(name, n)[1]
    me, other = match.players[0], match.players[1]
    truth = tokens_by_owner(game, match.state)
    samples = [game.determinize(match.state, me, Rng(f"seed{i}")) for i in range(6)]
    tokens = [tokens_by_owner(game, s) for s in samples]
    assert all(t[me] == truth[me] for t in tokens)  # my own secrets are kept
    assert any(t[other] != truth[other] for t in tokens)  # another's hand is re-dealt
    assert any(t[""] != truth[""] for t in tokens)  # stacks / decks are re-dealt
    future = match.state.rng.copy().block("probe")
    assert all(s.rng.copy().block("probe") != future for s in samples)
    assert len({game.fingerprint(s) for s in samples}) == len(samples)


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_no_cheating_same_input_for_states_differing_only_in_hidden_parts(
        name: str, n: int) -> None:
    """Another world that PLAYER cannot tell apart (a determinization of the truth) gives
    the identical determinization, so every bot plays the same move for the same seed."""
    game = get_game(name)
    for match in positions(name, n)[:3]:
        player = game.to_move(match.state)[0]
        other_world = game.determinize(match.state, player, Rng("another world"))
        assert game.fingerprint(other_world) != game.fingerprint(match.state)
        a = game.determinize(match.state, player, Rng("bot"))
        b = game.determinize(other_world, player, Rng("bot"))
        assert game.fingerprint(a) == game.fingerprint(b)
        for level in ("random", "greedy", "mcts"):
            move_a = choose(game, match.state, player, make_bot(level, iterations=6),
                            Rng("bot seed"))
            move_b = choose(game, other_world, player, make_bot(level, iterations=6),
                            Rng("bot seed"))
            assert move_a == move_b, level


def test_finished_staufer_keeps_open_contracts() -> None:
    game = get_game("staufer")
    match = Match.start(game, ["ann", "ben"], {}, "end")
    rng = Rng("end-moves")
    while not game.finished(match.state):
        mover = game.to_move(match.state)[0]
        match.play(mover, rng.choice(game.legal_moves(match.state, mover), "m"))
    sample = game.determinize(match.state, "ann", Rng("x"))
    assert sample.contracts == match.state.contracts
    assert game.view(sample, "ann") == game.view(match.state, "ann")
