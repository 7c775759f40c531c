"""The replay is linear in the log and behaviour-neutral: over random games with random
undos, voids and records at every point, it gives the same state after every entry, the
same final match and the same errors (type, message, hints) as the naive replay it
replaced, which replayed the game from setup for every undo and scanned the whole log
for every undo and void. The naive replay is kept here, verbatim, as the oracle."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from referee.engine import Match, get_game
from referee.engine.rng import Rng
from referee.errors import GameFileError, RefereeError, ReplayError
from referee.ledger import gamefile
from referee.ledger import replay as rp
from referee.ledger import seats as seatsmod

PLAYERS = ["ann", "ben", "cat"]

# --- the oracle: the replay as it was before it was made linear -------------------------


def _naive_check_undo(gf: gamefile.GameFile, i: int, entry: Mapping[str, Any]) -> None:
    target = entry["undo"]
    undone = gf.log[target - 1] if 0 < target <= i else None
    if target != i or undone is None or "move" not in undone or target in rp.voided(gf):
        raise ReplayError(
            f"{rp._where(i)}: undo of move {target} refused: only the move just before "
            "may be undone, and only once"
        )
    if undone["by"] != entry["by"]:
        raise ReplayError(
            f"{rp._where(i)}: undo of move {target} refused: only its author "
            f"{undone['by']} may undo it"
        )


def _naive_check_void(gf: gamefile.GameFile, i: int, entry: Mapping[str, Any]) -> None:
    target = entry["void"]
    struck = gf.log[target - 1] if 0 < target <= i else None
    if struck is None or "move" not in struck:
        raise ReplayError(f"{rp._where(i)}: void of entry {target} refused: only an earlier "
                          "move can be struck")
    if entry["by"] not in (struck["by"], rp.GAME_MASTER):
        raise ReplayError(f"{rp._where(i)}: void of move {target} refused: only its author "
                          f"{struck['by']} or the game master may strike it")
    if [e["void"] for e in gf.log[:i] if "void" in e].count(target):
        raise ReplayError(f"{rp._where(i)}: move {target} was already struck")


def _naive_check_chain(gf: gamefile.GameFile, i: int, entry: Mapping[str, Any],
                       prev: str) -> str:
    if entry["n"] != i + 1:
        raise ReplayError(f"{rp._where(i)}: numbered {entry['n']}, expected {i + 1}")
    if entry["prev"] != prev:
        raise ReplayError(
            f"{rp._where(i)}: the hash chain is broken: history before this entry was edited",
            hints=["a game file is append-only; restore the original log"],
        )
    kind = rp.entry_kind(entry)
    by = entry["by"]
    if by not in gf.players and not (by == rp.GAME_MASTER and kind in ("void", "meta")):
        raise ReplayError(f"{rp._where(i)}: {by!r} is not a player in this game")
    if i == 0 and gamefile.missing_nonces(gf):
        raise ReplayError(
            f"{rp._where(i)}: moves began before every player gave a nonce "
            f"(missing: {', '.join(gamefile.missing_nonces(gf))})"
        )
    if kind == "undo":
        _naive_check_undo(gf, i, entry)
    elif kind == "void":
        _naive_check_void(gf, i, entry)
    elif kind == "meta" and by != rp.GAME_MASTER:
        rp._check_player_meta(i, entry)
    return gamefile.entry_hash(entry)


def naive_replay(gf: gamefile.GameFile, seed: str | None = None, upto: int | None = None,
                 on_entry: Callable[[int, Match], None] | None = None) -> Match:
    match = rp.start_state(gf, seed)
    prev = gamefile.header_hash(gf.data)
    struck = rp.voided(gf)
    for i, entry in enumerate(gf.log[:upto]):
        if "void" in entry:
            _naive_check_void(gf, i, entry)
    seats = seatsmod.seats_at(gf.data, 0)
    for i, entry in enumerate(gf.log[:upto]):
        prev = _naive_check_chain(gf, i, entry, prev)
        rp._check_mac(gf, i, entry, seed)
        rp._check_seat(gf, i, entry, seats)
        kind = rp.entry_kind(entry)
        if kind == "undo":
            before = rp._replay_effective(gf, match.log[:-1], seed)
            refusal = rp.undo_refusal(match, before)
            if refusal:
                raise ReplayError(f"{rp._where(i)}: undo of move {entry['undo']} refused: "
                                  f"{refusal}")
            match = before
        elif kind == "move":
            void_n = struck.get(i + 1)
            try:
                move = rp.entry_move(gf, i, seed)
            except GameFileError:
                if void_n is None:
                    raise
                continue
            rp._replay_move(gf, match, i, move, void_n)
        if on_entry is not None:
            on_entry(i, match)
    return match


# --- random logs ------------------------------------------------------------------------


def _append(data: dict[str, Any], entry: dict[str, Any]) -> None:
    gamefile.append_raw(data, {"n": len(data["log"]) + 1, **entry})


def random_log(name: str, seed: str, steps: int, *, refused_undos: bool = False
               ) -> dict[str, Any]:
    """A game file of ``steps`` random entries: moves, undos of the move just made (only
    those that revealed nothing, unless ``refused_undos``), moves appended unchecked by a
    player whose turn it was not and struck later by their author or the game master,
    and records of the game master. Built with the naive rules (replay from setup)."""
    game = get_game(name)
    data = gamefile.new_data(game, [{"id": p} for p in PLAYERS], {}, {"seed": seed},
                             f"{name}-linear")
    pick = Rng(f"log-{seed}")
    match = Match.start(game, PLAYERS, data["options"], seed)
    unstruck: list[tuple[int, str]] = []  # illegal moves still to strike: (n, author)
    for _ in range(steps):
        if game.finished(match.state):
            break
        player = game.to_move(match.state)[0]
        move = pick.choice(game.legal_moves(match.state, player), "move")
        roll = pick.below(20, "kind")
        if roll < 9 or (roll < 16 and _last_is_undo(data)):
            gamefile.append_entry(data, player, move)
            match.play(player, move)
        elif roll < 16:  # a move, then its undo
            gamefile.append_entry(data, player, move)
            match.play(player, move)
            before = _from_setup(game, data, match.log[:-1], seed)
            if rp.undo_refusal(match, before) is None or refused_undos:
                _append(data, {"by": player, "undo": len(data["log"])})
                match = before
        elif roll < 18:  # appended unchecked out of turn: struck later
            other = next(p for p in PLAYERS if p not in game.to_move(match.state))
            gamefile.append_entry(data, other, move)
            unstruck.append((len(data["log"]), other))
        else:
            _append(data, {"by": "gm", "meta": {"kind": "deadline", "at": "2027-01-01"}})
        if unstruck and pick.below(3, "strike") == 0:
            _strike(data, unstruck.pop(pick.below(len(unstruck), "which")), pick)
    while unstruck:
        _strike(data, unstruck.pop(), pick)
    return data


def _last_is_undo(data: dict[str, Any]) -> bool:
    return bool(data["log"]) and "undo" in data["log"][-1]


def _strike(data: dict[str, Any], target: tuple[int, str], pick: Rng) -> None:
    n, author = target
    _append(data, {"by": author if pick.below(2, "by") else "gm", "void": n})


def _from_setup(game: Any, data: dict[str, Any], moves: list[Any], seed: str) -> Match:
    match = Match.start(game, PLAYERS, data["options"], seed)
    for by, move in moves:
        match.play(by, move)
    return match


def _outcome(replayer: Callable[..., Match], data: dict[str, Any]
             ) -> tuple[list[tuple[int, str, int]], Any]:
    """The fingerprint and effective length after every entry, then the final match's
    fingerprint and log, or the error's type, message and hints."""
    gf = gamefile.GameFile(copy.deepcopy(data), get_game(data["game"]))
    seen: list[tuple[int, str, int]] = []

    def look(i: int, match: Match) -> None:
        seen.append((i, match.game.fingerprint(match.state), len(match.log)))

    try:
        match = replayer(gf, on_entry=look)
    except RefereeError as exc:
        return seen, (type(exc).__name__, str(exc), list(exc.hints))
    return seen, (match.game.fingerprint(match.state), match.log, match.rng.counters)


GAMES = [("staufer", s) for s in range(3)] + [("dynasties", s) for s in range(3)]


@pytest.mark.parametrize(("name", "n"), GAMES)
def test_replay_equals_the_naive_replay_after_every_entry(name: str, n: int) -> None:
    data = random_log(name, f"linear-{name}-{n}", 90)
    kinds = {rp.entry_kind(e) for e in data["log"]}
    assert kinds == {"move", "undo", "void", "meta"}, kinds  # the log holds every kind
    new, naive = _outcome(rp.replay, data), _outcome(naive_replay, data)
    assert new == naive
    assert len(new[0]) == len(data["log"])  # a valid log: every entry replayed


@pytest.mark.parametrize(("name", "n"), [("staufer", 0), ("dynasties", 0)])
def test_replay_gives_the_naive_replays_errors(name: str, n: int) -> None:
    """Undos that revealed something, undos by others, of struck moves or of records,
    voids of legal moves or of records, voids struck twice: the same refusal, at the
    same entry, after every prefix of a random log."""
    data = random_log(name, f"refused-{name}-{n}", 45)
    pick = Rng(f"bad-{name}-{n}")
    reasons: set[str] = set()
    for cut in range(1 + pick.below(2, "start"), len(data["log"]) + 1, 2):
        for bad in _bad_entries(data, cut, pick):
            variant = copy.deepcopy(data)
            variant["log"] = variant["log"][:cut]
            _append(variant, bad)
            new, naive = _outcome(rp.replay, variant), _outcome(naive_replay, variant)
            assert new == naive, (cut, bad)
            if new[1][0] == "ReplayError":
                reasons.add(_reason(new[1][1]))
    assert reasons >= {"undo refused: only the move just before", "undo refused: only its "
                       "author", "void refused: only an earlier move", "void refused: that "
                       "move was legal", "already struck"}, reasons


def _reason(message: str) -> str:
    for reason in ("only the move just before", "only its author", "only an earlier move",
                   "that move was legal", "it used the random generator",
                   "it changed hidden information"):
        if reason in message:
            return f"{message.split(' of ')[0].split(': ')[-1]} refused: {reason}"
    return "already struck" if "already struck" in message else message


def _bad_entries(data: dict[str, Any], cut: int, pick: Rng) -> list[dict[str, Any]]:
    """Entries to append after the first ``cut``: undos of the last entry by its author
    and by another player, an undo of the entry before it, voids of a random earlier
    entry by the game master and by its author, and a second void of a struck move."""
    log = data["log"][:cut]
    author = log[-1]["by"] if log[-1]["by"] in PLAYERS else "ann"
    other = PLAYERS[(PLAYERS.index(author) + 1) % len(PLAYERS)]
    target = 1 + pick.below(cut, "target")
    struck = [e["void"] for e in log if "void" in e]
    return [
        {"by": author, "undo": cut},
        {"by": other, "undo": cut},
        {"by": author, "undo": max(1, cut - 1)},
        {"by": "gm", "void": target},
        {"by": log[target - 1]["by"], "void": target},
        *([{"by": "gm", "void": struck[-1]}] if struck else []),
    ]


def _pairs_log(name: str, pairs: int) -> dict[str, Any]:
    """Seeded random moves up to the first position where a move can be undone, then
    that move and its undo ``pairs`` times, each pair followed by another player's record."""
    game = get_game(name)
    data = gamefile.new_data(game, [{"id": p} for p in PLAYERS], {}, {"seed": "pairs"},
                             "pairs")
    match, pick = Match.start(game, PLAYERS, data["options"], "pairs"), Rng("pairs")
    while True:
        player = game.to_move(match.state)[0]
        legal = game.legal_moves(match.state, player)
        undoable = [m for m in legal if rp.undo_refusal(
            _from_setup(game, data, [*match.log, (player, m)], "pairs"), match) is None]
        if undoable:
            break
        move = pick.choice(legal, "walk")
        gamefile.append_entry(data, player, move)
        match.play(player, move)
    other = next(p for p in PLAYERS if p != player)
    for k in range(pairs):
        gamefile.append_entry(data, player, undoable[0])
        _append(data, {"by": player, "undo": len(data["log"])})
        # another player's entry between the take-backs: a player may take back at most
        # replay.MAX_TAKEBACKS moves in a row (a record changes nothing else)
        _append(data, {"by": other, "meta": {"kind": "notify", "player": other,
                                             "mode": ("every", "turn")[k % 2]}})
    return data


def test_an_undo_never_replays_from_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both games keep the position before a move that is undone (Game.copy_state): the
    replay from setup is not called, and the result is the naive one."""
    for name in ("staufer", "dynasties"):
        data = _pairs_log(name, 100)
        game = get_game(name)
        calls: list[str] = []  # (a fresh list per game: the lambdas bind it below)
        real_replay, real_copy = rp._replay_effective, type(game).copy_state
        monkeypatch.setattr(rp, "_replay_effective",
                            lambda *a, real=real_replay, calls=calls:
                            calls.append("setup") or real(*a))
        monkeypatch.setattr(type(game), "copy_state", staticmethod(
            lambda state, real=real_copy, calls=calls: calls.append("copy") or real(state)))
        gf = gamefile.GameFile(data, game)
        match = rp.replay(gf)
        assert calls == ["copy"] * 100  # one copy per undo, no replay from setup
        assert len(match.log) == len(data["log"]) - 300
        monkeypatch.undo()
        assert _outcome(rp.replay, data) == _outcome(naive_replay, data)


@pytest.mark.parametrize("shallow", [False, True])
def test_a_game_without_a_cheap_copy_replays_the_same(shallow: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy game copies with its copy_state (a deep copy of its state); one
    whose copy_state gives back the same state (no real copy) makes the replay copy the
    state and its generator together instead. Either way: the naive replay's result."""
    game = get_game("toy")
    if shallow:
        monkeypatch.setattr(type(game), "copy_state", lambda self, state: state)
    undone = 0
    for n in range(12):
        data = random_log("toy", f"toy-{n}", 40)
        undone += sum("undo" in e for e in data["log"])
        assert _outcome(rp.replay, data) == _outcome(naive_replay, data)
    assert undone > 5
