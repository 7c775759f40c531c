"""The conformance checks: what every game must do, whatever its rules.

Each check takes a game object (``referee.engine.Game``) and raises AssertionError with
a message naming the game, the position and what is wrong; tests/conformance/
test_playouts.py runs them on every registered game, and test_planted_bugs.py runs them
on copies of the Nim plug-in with a bug planted, to show that they fail.

:func:`playout` plays one seeded random game and checks, at every position:

- the turn: the game is over exactly when nobody owes a decision; every player who owes
  one has a legal move, every other player none; the legal moves are distinct, of the
  game's move types, the same when asked twice, and asking does not change the state;
- the game's own invariants (``engine.invariants``: the conservation checks a game
  declares with ``invariants(state)``; none for a game without the hook);
- the notation: ``parse_move(format_move(m), legal) == m`` for every legal move, also in
  capitals between spaces;
- the bounds: every legal move within its declared bounds, and what a player could type
  just outside them refused as malformed (tests/conformance/bounds.py);
- ``engine.is_legal`` (the game's fast check, or its fallback) equal to membership in
  ``legal_moves`` for every player, over the legal moves and a pool of moves that were
  legal in earlier positions;
- at every ``views``-th position: every viewer's view JSON (plain JSON values, string
  keys, no NaN), the board text within 80 columns, one-line prompt, and the view leak-free
  (tests/leaks.py: no hidden item of the viewer in their view, text and prompt, each
  player's own items shown to them; and, for a game with bots, the views unchanged when
  what the viewer cannot see is re-dealt).

At the end: the game finished within its bound of moves, scores and ranking name every
player, and the game written as a file (the file format, the hash chain) and replayed
twice, by the game object itself and by the referee's replay, gives the state of the
play: the same fingerprint (the game's, or the engine's hash of the state) and every
viewer's same view.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from referee import engine
from referee.engine import Game, Match, Move, State
from referee.errors import RefereeError
from referee.ledger import gamefile, replay
from tests import leaks
from tests.conformance.bounds import Probes, check_in_bounds

PLAYERS = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal")
POOL = 40  # moves kept from earlier positions, for the is_legal check
MAX_MOVES = 20_000  # a random game longer than this does not end
WIDTH = 80


def players_for(game: Game, count: int) -> list[str]:
    assert count <= len(PLAYERS), f"{game.name}: {count} players: add names to PLAYERS"
    return list(PLAYERS[:count])


def counts(game: Game) -> list[int]:
    """Every player count the game allows."""
    return list(range(game.min_players, game.max_players + 1))


# --- one position -------------------------------------------------------------------------


def check_turn(game: Game, state: State, players: Sequence[str], where: str
               ) -> dict[str, list[Move]]:
    """Who owes a decision and what they may do: every player's legal moves."""
    owing = game.to_move(state)
    over = game.finished(state)
    assert over == (not owing), (f"{where}: finished() is {over} but to_move() is "
                                 f"{owing}: {game.prompt(state)!r}")
    assert len(set(owing)) == len(owing) and set(owing) <= set(players), (
        f"{where}: to_move() names {owing}, not distinct players of {list(players)}")
    before = engine.fingerprint(game, state)
    legal = {p: game.legal_moves(state, p) for p in players}
    kinds = tuple(getattr(game.move_type, "__args__", (game.move_type,)))
    for p, moves in legal.items():
        if p in owing:
            assert moves, f"{where}: dead end: {p} owes a decision but has no legal move"
        else:
            assert moves == [], (f"{where}: {p} owes nothing but has legal moves "
                                 f"{[game.format_move(m) for m in moves[:5]]}")
        assert len(set(moves)) == len(moves), f"{where}: {p}'s legal moves repeat a move"
        stray = [m for m in moves if not isinstance(m, kinds)]
        assert not stray, f"{where}: legal moves not of the game's move_type: {stray[:3]}"
    again = {p: game.legal_moves(state, p) for p in owing}
    assert again == {p: legal[p] for p in owing}, (
        f"{where}: legal_moves() gives another list when asked again")
    assert engine.fingerprint(game, state) == before, f"{where}: legal_moves() changed the state"
    return legal


def check_invariants(game: Game, state: State, where: str) -> None:
    broken = engine.invariants(game, state)
    assert broken == [], f"{where}: invariants broken: {broken}"


def check_notation(game: Game, legal: Sequence[Move], where: str) -> None:
    """``parse_move(format_move(m), legal) == m`` for every legal move, also written in
    capitals between spaces (as a mail may bring it)."""
    for move in legal:
        text = game.format_move(move)
        assert isinstance(text, str) and text.strip(), f"{where}: {move!r} has no notation"
        for typed in (text, f"  {text.upper()} "):
            try:
                back = game.parse_move(typed, legal)
            except RefereeError as exc:
                raise AssertionError(f"{where}: the notation {typed!r} of a legal move is "
                                     f"refused: {exc}") from None
            assert back == move, f"{where}: {typed!r} parses to {back!r}, not {move!r}"


def check_is_legal(game: Game, state: State, legal: dict[str, list[Move]],
                   pool: Sequence[Move], where: str) -> None:
    """``engine.is_legal`` agrees with ``legal_moves`` for every player and candidate."""
    for player, moves in legal.items():
        for move in [*moves, *pool]:
            fast = engine.is_legal(game, state, player, move)
            assert fast == (move in moves), (
                f"{where}: is_legal({player}, {game.format_move(move)!r}) is {fast}, "
                f"legal_moves says {move in moves}")


def json_problem(value: Any, path: str = "$") -> str | None:
    """Where ``value`` is not plain JSON (dicts with string keys, lists, strings, finite
    numbers, booleans, None; tuples are read as lists), or None."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path}: {value}"
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path}: a key {key!r} that is not a string"
            found = json_problem(item, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        return next((found for i, item in enumerate(value)
                     if (found := json_problem(item, f"{path}[{i}]"))), None)
    return f"{path}: a {type(value).__name__} ({value!r:.60})"


def check_views(game: Game, state: State, players: Sequence[str], where: str,
                text: bool = True) -> None:
    """Every viewer's view is JSON, the board text fits 80 columns, the prompt is one
    line, and none shows what its viewer may not see (tests/leaks.py)."""
    prompt = game.prompt(state)
    assert isinstance(prompt, str) and "\n" not in prompt, f"{where}: prompt {prompt!r}"
    for viewer in [None, *players]:
        who = viewer or "the public"
        view = game.view(state, viewer)
        problem = json_problem(view) if isinstance(view, dict) else "not an object"
        assert problem is None, f"{where}: the view of {who} is not JSON: {problem}"
        json.dumps(view, allow_nan=False)
        board = game.render(state, viewer)
        wide = [line for line in board.split("\n") if len(line) > WIDTH]
        assert not wide, (f"{where}: the board of {who} has a line of {len(wide[0])} "
                          f"columns: {wide[0]!r}")
    try:
        leaks.assert_state_hides(game, state, text, players)
        if text and leaks.has_bots(game):
            leaks.assert_views_hide(game, state, [None, *players], seeds=2)
    except AssertionError as exc:
        raise AssertionError(f"{where}: {exc}") from None


# --- the end and the replay ---------------------------------------------------------------


def check_end(game: Game, match: Match, where: str) -> None:
    state, players = match.state, match.players
    assert game.finished(state) and game.to_move(state) == [], f"{where}: not over"
    assert all(game.legal_moves(state, p) == [] for p in players), (
        f"{where}: legal moves after the end")
    scores = game.scores(state)
    assert set(scores) == set(players) and all(
        isinstance(v, int) for v in scores.values()), f"{where}: scores {scores}"
    ranking = game.ranking(state)
    placed = sorted(p for place in ranking for p in place)
    assert placed == sorted(players) and all(ranking), f"{where}: ranking {ranking}"


def as_file(game: Game, match: Match, seed: str) -> str:
    """The played game as a game file (header, log, hash chain), as `new` and `move`
    write one."""
    data = gamefile.new_data(game, [{"id": p} for p in match.players], match.options,
                             {"seed": seed}, "conformance")
    for player, move in match.log:
        gamefile.append_entry(data, player, move)
    return gamefile.dumps(data)


def outcome(game: Game, match: Match) -> tuple[str, list[str]]:
    """The state's fingerprint and every viewer's view, as JSON."""
    views = [json.dumps(game.view(match.state, v), sort_keys=True)
             for v in [None, *match.players]]
    return engine.fingerprint(game, match.state), views


def replayed(game: Game, gf: gamefile.GameFile) -> Match:
    """The file's log replayed with ``game`` itself (the object under test, which need
    not be the one the referee would load for the file's pin): every move decoded as a
    logged move is, owed by its player and legal."""
    match = Match.start(game, gf.players, gf.data["options"], gamefile.rng_key(gf))
    for i, entry in enumerate(gf.log):
        move = gamefile.decode_move(game, entry["move"], f"$.log[{i}].move")
        by = entry["by"]
        assert by in game.to_move(match.state) and engine.is_legal(
            game, match.state, by, move), f"entry {i + 1}: {entry['move']} by {by} refused"
        match.play(by, move)
    return match


def check_replay(game: Game, match: Match, seed: str, where: str) -> None:
    """The game file of ``match`` read and replayed twice, by ``game`` itself and, when
    ``game`` is the one the referee loads for the file, by the referee's replay: each
    replay reaches the state of the play (same fingerprint, same views)."""
    text = as_file(game, match, seed)
    played = outcome(game, match)
    for attempt in ("first", "second"):
        try:
            gf = gamefile.parse(text)
            again = [replayed(game, gf)]
            if gf.game is game:
                again.append(replay.replay(gf))
        except (RefereeError, AssertionError) as exc:
            raise AssertionError(f"{where}: the {attempt} replay of its file fails: "
                                 f"{exc}") from None
        for got in map(partial(outcome, game), again):
            assert got[0] == played[0], (f"{where}: the {attempt} replay of its file "
                                         "reaches another state (fingerprint)")
            assert got[1] == played[1], f"{where}: the {attempt} replay shows other views"


# --- a playout ----------------------------------------------------------------------------


def playout(game: Game, count: int, seed: str, views: int = 1, texts: int = 1,
            probes: Probes | None = None, options: Mapping[str, str] | None = None
            ) -> Match:
    """One seeded random game of ``count`` players (with ``options``, the others at
    their defaults), every check at every position (the views at every ``views``-th
    position, the text leak checks at every ``texts``-th of those, both at the last)."""
    players = players_for(game, count)
    match = Match.start(game, players, options or {}, f"conformance-{seed}")
    choose = random.Random(f"conformance-moves-{seed}")
    probes = probes or Probes(game)
    pool: list[Move] = []
    for step in range(MAX_MOVES):
        where = f"{game.name} {count}p seed {seed} move {step}"
        state = match.state
        legal = check_turn(game, state, players, where)
        check_invariants(game, state, where)
        owing = game.to_move(state)
        if step % views == 0 or not owing:
            check_views(game, state, players, where, text=step % (views * texts) == 0
                        or not owing)
        for player in owing:
            check_in_bounds(game, legal[player])
            check_notation(game, legal[player], where)
            probes.probe(legal[player])
        check_is_legal(game, state, legal, pool, where)
        if not owing:
            break
        mover = owing[0]
        move = choose.choice(legal[mover])
        pool = [*pool, *(m for m in choose.sample(legal[mover], min(3, len(legal[mover])))
                         if m not in pool)][-POOL:]
        try:
            match.play(mover, move)
        except Exception as exc:  # a bug in the game's apply: named with its position
            raise AssertionError(f"{where}: apply({mover}, {game.format_move(move)!r}) "
                                 f"raised {type(exc).__name__}: {exc}") from exc
    else:
        raise AssertionError(f"{game.name} {count}p seed {seed}: no end within "
                             f"{MAX_MOVES} moves")
    where = f"{game.name} {count}p seed {seed}, the end"
    check_end(game, match, where)
    check_replay(game, match, f"conformance-{seed}", where)
    return match

