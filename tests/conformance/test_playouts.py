"""Seeded random games of every registered game at every player count, every position
checked (tests/conformance/checks.py: the turn, the game's invariants, the notation, the
bounds, ``is_legal``, the views and their leaks; at the end the scores, the ranking and
the replay of the game's file), and one game for each choice of each option."""

from __future__ import annotations

import pytest

from referee.engine import get_game
from referee.errors import UsageError
from tests.conformance.bounds import Probes, check_declared_bounds, structs
from tests.conformance.checks import playout
from tests.conformance.registry import CASES, GAMES, PLUGIN_GAME

SEEDS = 4  # random games per game and player count
VIEWS, TEXTS = 3, 4  # the views at every 3rd position, the text leak checks at every 12th


def test_the_suite_plays_every_game_the_referee_finds() -> None:
    """The plug-in is among them: the suite is never run without it."""
    from referee import engine

    assert PLUGIN_GAME in GAMES and set(engine.packaged_games()) <= set(GAMES)
    assert set(engine.game_names()) == set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_every_move_field_declares_its_bound(name: str) -> None:
    check_declared_bounds(get_game(name))


@pytest.mark.slow
@pytest.mark.parametrize(("name", "count"), CASES, ids=[f"{n}-{c}p" for n, c in CASES])
def test_random_games_keep_every_promise(name: str, count: int) -> None:
    game = get_game(name)
    probes = Probes(game)
    lengths = [len(playout(game, count, f"{count}-{seed}", VIEWS, TEXTS, probes).log)
               for seed in range(SEEDS)]
    assert min(lengths) > 0
    kinds = {kind for kind, _, _ in probes.done}
    assert probes.count > 0 and kinds <= {s.cls.__name__ for s in structs(game)}


def choices(name: str) -> list[tuple[str, str]]:
    game = get_game(name)
    return [(o.name, c) for o in game.options for c in o.choices if c != o.default]


@pytest.mark.parametrize("name", GAMES)
def test_every_option_choice_plays_to_the_end(name: str) -> None:
    """One game for each choice of each option (the others at their defaults), at a
    player count that turns with the choice."""
    game = get_game(name)
    played = 0
    for k, (option, choice) in enumerate(choices(name)):
        count = game.min_players + k % (game.max_players - game.min_players + 1)
        try:
            playout(game, count, f"option-{k}", views=6, texts=4, options={option: choice})
        except UsageError as exc:  # a choice that needs another option (a custom list)
            assert "option" in exc.message or "list" in exc.message, exc.message
            continue
        played += 1
    assert played >= len(choices(name)) // 2
