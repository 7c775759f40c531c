"""The prompt at the start of a turn names `first` and `privilege N` only when the legal
moves hold one (a group's finding: the first prompt offered them when neither was legal)."""

from __future__ import annotations

from referee.engine import Match, get_game
from referee.engine.rng import Rng


def test_the_turn_prompt_offers_only_what_is_legal() -> None:
    game = get_game("staufer")
    seen = {"first": 0, "privilege": 0, "neither": 0}
    for i in range(12):
        players = ["ann", "ben", "cat", "dan"][: 2 + i % 3]
        match = Match.start(game, players, {}, f"prompt-{i}")
        rng = Rng(f"prompt-choices-{i}")
        while not game.finished(match.state):
            player = game.to_move(match.state)[0]
            legal = game.legal_moves(match.state, player)
            if match.state.phase == "turn":
                kinds = {type(m).__name__ for m in legal}
                prompt = game.prompt(match.state)
                assert ("use your first-position chest (first)" in prompt) == (
                    "First" in kinds), prompt
                assert ("take a privilege card (privilege N)" in prompt) == (
                    "Privilege" in kinds), prompt
                seen["first"] += "First" in kinds
                seen["privilege"] += "Privilege" in kinds
                seen["neither"] += not {"First", "Privilege"} & kinds
            match.play(player, rng.choice(legal, "playout"))
    assert all(seen.values()), seen  # every case came up
