"""The suite can fail: copies of the Nim plug-in's game with one bug planted each, in
``legal_moves``, ``apply``, the notation, a view, the board text, ``is_legal`` or an
invariant, and the suite's own check functions run on the broken copy
(tests/conformance/checks.py: the playouts at every player count with the replay of
each game's file; bounds.py). Each bug is found, with a message that names it; the
same copy without the bug passes. Nim hides nothing, so the leaks are planted in copies
of the toy game (tests/toygame.py), which deals each player a secret card."""

from __future__ import annotations

import copy
import itertools
import string
from collections.abc import Callable
from typing import Any

import pytest

from referee.engine import get_game
from tests.conformance.bounds import check_declared_bounds
from tests.conformance.checks import counts, playout
from tests.conformance.registry import PLUGIN_GAME

Game = Any  # the plug-in's Nim object (tests/plugin/referee_nim)


def run_suite(game: Game) -> None:
    """What the conformance suite checks of a game, on this game object."""
    check_declared_bounds(game)
    for count in counts(game):
        for seed in range(2):
            playout(game, count, f"planted-{count}-{seed}")


def nim() -> Game:
    """A copy of the plug-in's game object: planting a bug changes only the copy."""
    return copy.copy(get_game(PLUGIN_GAME))


def takes(game: Game, state: Any, everything: bool = False) -> list[Any]:
    """Nim's takes from every heap: 1 to ``max_take`` counters (``everything``: also
    more than the heap holds)."""
    move = game.move_type
    return [move(string.ascii_lowercase[i], n) for i, count in enumerate(state.heaps)
            for n in range(1, (game.data.max_take if everything else min(
                count, game.data.max_take)) + 1) if count > 0]


def planted(bug: Callable[[Game, Game], None]) -> Game:
    """A copy of Nim with ``bug(copy, honest)`` planted."""
    game = nim()
    bug(game, get_game(PLUGIN_GAME))
    return game


def legal_for_everyone(g: Game, honest: Game) -> None:
    g.legal_moves = lambda state, player: takes(g, state) if not honest.finished(state) else []


def legal_more_than_the_heap(g: Game, honest: Game) -> None:
    g.legal_moves = lambda state, player: (
        takes(g, state, everything=True) if player in honest.to_move(state) else [])


def legal_take_none(g: Game, honest: Game) -> None:
    g.legal_moves = lambda state, player: (
        [g.move_type("a", 0), *honest.legal_moves(state, player)]
        if honest.legal_moves(state, player) else [])


def legal_twice(g: Game, honest: Game) -> None:
    g.legal_moves = lambda state, player: honest.legal_moves(state, player) * 2


def legal_sorts_the_heaps(g: Game, honest: Game) -> None:
    def legal(state: Any, player: str) -> list[Any]:
        state.heaps.sort(reverse=True)  # "only looking": a generator that changes the state
        return honest.legal_moves(state, player)
    g.legal_moves = legal


def legal_order_turns(g: Game, honest: Game) -> None:
    turns = itertools.count()

    def legal(state: Any, player: str) -> list[Any]:
        moves = honest.legal_moves(state, player)
        k = next(turns) % max(len(moves), 1)
        return moves[k:] + moves[:k]  # an order that is not stable
    g.legal_moves = legal


def apply_counts_its_calls(g: Game, honest: Game) -> None:
    calls = itertools.count(1)

    def apply(state: Any, player: str, move: Any) -> None:
        if next(calls) % 7 == 0 and move.n > 1:  # state outside the game state
            move = g.move_type(move.heap, move.n - 1)
        honest.apply(state, player, move)
    g.apply = apply


def apply_crashes_on_the_last_heap(g: Game, honest: Game) -> None:
    def apply(state: Any, player: str, move: Any) -> None:
        if move.heap == "c" and move.n == state.heaps[2]:
            raise IndexError("list index out of range")
        honest.apply(state, player, move)
    g.apply = apply


def view_holds_a_set(g: Game, honest: Game) -> None:
    g.view = lambda state, viewer: {**honest.view(state, viewer), "left": set(state.heaps)}


def view_has_number_keys(g: Game, honest: Game) -> None:
    g.view = lambda state, viewer: {**honest.view(state, viewer),
                                    "by_size": {c: i for i, c in enumerate(state.heaps)}}


def render_too_wide(g: Game, honest: Game) -> None:
    g.render = lambda state, viewer, width=80: (honest.render(state, viewer, width) + "\n"
                                                + "Heaps in a row: " + "o" * 70)


def prompt_two_lines(g: Game, honest: Game) -> None:
    g.prompt = lambda state: honest.prompt(state) + "\n(or resign)"


def format_drops_the_heap(g: Game, honest: Game) -> None:
    g.format_move = lambda move: f"take {move.n}"


def parse_reads_zero(g: Game, honest: Game) -> None:
    def parse(text: str, legal: Any) -> Any:
        words = text.split()
        if len(words) == 4 and words[1] == "0":
            return g.move_type(words[3], 0)  # no bound check: Take(n=0)
        return honest.parse_move(text, legal)
    g.parse_move = parse


def is_legal_too_kind(g: Game, honest: Game) -> None:
    g.is_legal = lambda state, player, move: player in honest.to_move(state)


def invariant_catches_a_negative_heap(g: Game, honest: Game) -> None:
    """The optional invariant hook: with it, the suite finds the bug of
    legal_more_than_the_heap at the first negative heap."""
    legal_more_than_the_heap(g, honest)
    g.invariants = lambda state: [f"heap {h} is negative" for h in state.heaps if h < 0]


BUGS: dict[str, tuple[Callable[[Game, Game], None], str]] = {
    "legal_moves for a player who owes nothing": (
        legal_for_everyone, "owes nothing but has legal moves"),
    "legal_moves taking more than the heap holds": (
        legal_more_than_the_heap, "dead end: .* owes a decision but has no legal move"),
    "legal_moves with a take of 0": (legal_take_none, "outside its declared bounds"),
    "legal_moves listing each move twice": (legal_twice, "legal moves repeat a move"),
    "legal_moves changing the state": (legal_sorts_the_heaps, "legal_moves\\(\\) changed"),
    "legal_moves in an order that turns": (legal_order_turns, "another list when asked"),
    "apply depending on its own call count": (
        apply_counts_its_calls, "replay of its file (fails|reaches another state)"),
    "apply crashing on a legal move": (
        apply_crashes_on_the_last_heap, "apply\\(.*\\) raised IndexError"),
    "a view holding a set": (view_holds_a_set, "is not JSON: \\$.left: a set"),
    "a view with number keys": (view_has_number_keys, "a key 3 that is not a string"),
    "a board line over 80 columns": (render_too_wide, "a line of 86 columns"),
    "a prompt of two lines": (prompt_two_lines, "prompt 'ann to take"),
    "a notation that drops the heap": (format_drops_the_heap, "legal move is refused"),
    "a parser reading a take of 0": (parse_reads_zero, "parses to Take.*outside its "
                                     "declared bounds"),
    "is_legal saying yes to any move of the mover": (
        is_legal_too_kind, "is_legal\\(.*\\) is True, legal_moves says False"),
    "an invariant hook": (invariant_catches_a_negative_heap,
                          "invariants broken: \\['heap -?\\d+ is negative'"),
}


def test_the_honest_copy_passes() -> None:
    run_suite(nim())


@pytest.mark.parametrize("bug", BUGS)
def test_a_planted_bug_fails_the_suite(bug: str) -> None:
    plant, message = BUGS[bug]
    with pytest.raises(AssertionError, match=message):
        run_suite(planted(plant))
    run_suite(nim())  # and the plug-in's own game is untouched


def test_a_view_that_leaks_a_hidden_card_fails_the_suite() -> None:
    """Nim hides nothing; the toy game deals each player a secret card. A copy whose
    public view shows the first player's card, and one whose board shows the next
    player's card to each player, fail the leak checks; the honest toy passes."""
    honest = get_game("toy")
    run_suite(copy.copy(honest))
    public = copy.copy(honest)
    public.view = lambda state, viewer: {**honest.view(state, viewer),
                                         "first": state.cards[state.players[0]]}
    with pytest.raises(AssertionError, match=r"view \(read by everyone\): card of ann's card"):
        run_suite(public)
    board = copy.copy(honest)

    def render(state: Any, viewer: str | None, width: int = 80) -> str:
        if viewer is None:
            return honest.render(state, viewer, width)
        after = state.players[(state.players.index(viewer) + 1) % len(state.players)]
        return honest.render(state, viewer, width) + f"\nnext: {state.cards[after]}"
    board.render = render
    with pytest.raises(AssertionError, match=r"render \(read by ann\): card of ben's card"):
        run_suite(board)
