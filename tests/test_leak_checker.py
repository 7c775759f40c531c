"""The leak checker (tests/leaks.py) can fail: a leak of each kind of hidden state is
planted into a game's public view and text, the CLI's outputs are searched as every leak
test searches them, and the checker names the leaked item; the honest views pass.

Planted leaks use the game's own words for the item (the strings its views write for
their owner or for the public: ``7 = card:a07 (...)``, ``a07`` as in the discard pile,
``book:ship-1``, a contract's id or text, a chest's labels)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.engine import get_game, packaged_games
from referee.games.dynasties import views as dyn_views
from referee.games.staufer import views as st_views
from referee.ledger import gamefile, replay
from tests.conftest import ok
from tests.leaks import (
    assert_hidden,
    assert_views_hide,
    found,
    leaks,
    words,
)
from tests.support import games

PLAYERS = ["ann", "ben", "cat"]
Leak = Callable[[Any, str | None], str | list[str] | dict[str, Any] | None]


def new_game(tmp_path: Path, name: str) -> tuple[Path, Any]:
    path = tmp_path / f"{name}.json"
    games.new_game(path, name, players=",".join(PLAYERS), seed="planted-leaks")
    return path, replay.replay(gamefile.read(path)).state


def cli_outputs(path: Path) -> dict[str | None, dict[str, str]]:
    """What the leak tests search: the public outputs and each player's own."""
    out: dict[str | None, dict[str, str]] = {None: {
        "status": ok("status", path).output,
        "status --json": ok("status", path, "--json").output,
        "status --wide": ok("status", path, "--wide").output,
        "log": ok("log", path).output}}
    for p in PLAYERS:
        out[p] = {"status --as": ok("status", path, "--as", p).output,
                  "status --as --json": ok("status", path, "--as", p, "--json").output}
    return out


def plant(monkeypatch: pytest.MonkeyPatch, module: Any, leak: Leak) -> None:
    """Every view and board text of ``module``'s game also shows ``leak(state, viewer)``
    (None: nothing for this viewer), under a key or a line of its own."""
    view, render = module.view, module.render

    def leaky_view(state: Any, viewer: str | None) -> dict[str, Any]:
        out = view(state, viewer)
        if (shown := leak(state, viewer)) is not None:
            out["debug"] = shown
        return out

    def leaky_render(state: Any, viewer: str | None, width: int = 80) -> str:
        text = render(state, viewer, width)
        shown = leak(state, viewer)
        if shown is None:
            return text
        if isinstance(shown, dict):
            shown = " ".join(f"{k}: {v}" for k, v in shown.items())
        return text + "\ndebug: " + (", ".join(shown) if isinstance(shown, list) else str(shown))

    monkeypatch.setattr(module, "view", leaky_view)
    monkeypatch.setattr(module, "render", leaky_render)
    for game in map(get_game, packaged_games()):  # a class that holds them itself
        for original, leaky in ((view, leaky_view), (render, leaky_render)):
            name = original.__name__
            if getattr(type(game), name, None) is original:
                monkeypatch.setattr(type(game), name, staticmethod(leaky))


def public(leak: Callable[[Any], Any]) -> Leak:
    return lambda state, viewer: leak(state)


def to_ann(leak: Callable[[Any], Any]) -> Leak:
    """Shown only in ann's own view: a leak of another player's secret to ann."""
    return lambda state, viewer: leak(state) if viewer == "ann" else None


def ben_contract(state: Any) -> dict[str, str]:
    c = state.contracts[1][0]
    return {"id": c, "text": st_views.describe_contract(state.data, c, len(state.players))}


def ben_contract_text(state: Any) -> str:
    return st_views.describe_contract(state.data, state.contracts[1][1], len(state.players))


STAUFER = {
    "ben's contract (id and text) in the public view": (
        public(ben_contract), "contract of ben's contracts"),
    "ben's contract (its text only) in the public view": (
        public(ben_contract_text), "contract of ben's contracts"),
    "ben's contract shown to ann": (to_ann(ben_contract), "contract of ben's contracts"),
    "a contract left in the box": (
        public(lambda s: st_views.describe_contract(s.data, s.unused_contracts[0], 3)),
        "contract of the contracts left in the box"),
    "a face-down chest by its id": (
        public(lambda s: f"top {s.stack[-1]}"), "chest of the chest stack, no. 1 from the top"),
    "the stack order as chest labels, top first": (
        public(lambda s: [st_views.chest_label(s.data, c) for c in reversed(s.stack)]),
        "draw of the order of the chest stack"),
    "the stack order as stored (bottom first)": (
        public(lambda s: [st_views.chest_label(s.data, c) for c in s.stack]),
        "draw of the order of the chest stack"),
}


def ben_card(state: Any) -> str:
    return dyn_views._card(state, state.players[1].hand[0])  # "12 = card:a12 (...)"


DYNASTIES = {
    "ben's action card as his own view writes it": (
        public(ben_card), "card of ben's hand"),
    "ben's action card as the discard pile writes it": (
        public(lambda s: [f"a{s.players[1].hand[2]:02d}"]), "card of ben's hand"),
    "ben's action card shown to ann": (to_ann(ben_card), "card of ben's hand"),
    "ben's scoring card": (
        public(lambda s: f"scoring:{s.players[1].scoring[0]}"), "card of ben's scoring cards"),
    "ben's scoring card by its text": (
        public(lambda s: s.data.scoring[s.players[1].scoring[1]].text),
        "card of ben's scoring cards"),
    "a face-down book tile of a city": (
        public(lambda s: f"book:{s.cities['toledo'].books[0]}"),
        "tile of the book tiles of Toledo"),
    "a book tile in the box, as the open tiles are written": (
        public(lambda s: s.book_box[-1]), "tile of the book tiles in the box"),
    "the next action card": (
        public(lambda s: f"next a{s.deck[0]:02d}"), "draw of the action deck, no. 1 from"),
    "the action deck's order": (
        public(lambda s: [f"a{n:02d}" for n in s.deck]), "draw of the action deck"),
    "the next yellow scoring card": (
        public(lambda s: s.yellow[0]), "draw of the yellow scoring deck, no. 1 from"),
    "a green scoring card left in the box": (
        public(lambda s: f"scoring:{s.green_box[0]}"),
        "card of the green scoring cards in the box"),
}
CASES = [("staufer", st_views, k, *v) for k, v in STAUFER.items()] + \
    [("dynasties", dyn_views, k, *v) for k, v in DYNASTIES.items()]


@pytest.mark.parametrize(("name", "module", "what", "leak", "named"), CASES,
                         ids=[f"{c[0]}: {c[2]}" for c in CASES])
def test_a_planted_leak_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                                 module: Any, what: str, leak: Leak, named: str) -> None:
    path, state = new_game(tmp_path, name)
    game = get_game(name)
    assert_hidden(game, state, cli_outputs(path), ignore=[str(tmp_path)])  # honest: passes
    plant(monkeypatch, module, leak)
    with pytest.raises(AssertionError, match="hidden state leaked") as failure:
        assert_hidden(game, state, cli_outputs(path), ignore=[str(tmp_path)])
    message = str(failure.value)
    assert named in message, message
    if leak(state, None) is None:  # a leak to ann only: her outputs are the ones named
        assert "status --as (read by ann)" in message
        assert "status --as --json (read by ann)" in message
        assert "(read by everyone)" not in message and "(read by ben)" not in message
    else:  # found in the board as text, in the JSON, and by everyone's view
        for label in ("status", "status --json", "status --wide"):
            assert f"\n  {label} (read by everyone): {named}" in message, label
        assert "status --as (read by cat)" in message


def test_a_leak_no_string_can_name_is_found_by_re_dealing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The label of the next chest ("purple") is shared by public chests, so no string
    names it as hidden; the view does change when the stack is re-dealt, and the
    second check (assert_views_hide) fails on that."""
    _, state = new_game(tmp_path, "staufer")
    game = get_game("staufer")
    assert_views_hide(game, state)
    plant(monkeypatch, st_views,
          public(lambda s: f"next chest {st_views.chest_label(s.data, s.stack[-1])}"))
    with pytest.raises(AssertionError, match=r"re-dealt: \$\.debug"):
        assert_views_hide(game, state, viewers=[None])


def test_re_dealing_finds_another_players_card_shown_to_ann(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    _, state = new_game(tmp_path, "dynasties")
    game = get_game("dynasties")
    assert_views_hide(game, state)
    plant(monkeypatch, dyn_views,
          to_ann(lambda s: f"ben low cards {sum(n < 18 for n in s.players[1].hand)}"))
    with pytest.raises(AssertionError, match="the view of ann changes"):
        assert_views_hide(game, state, viewers=["ann"], seeds=6)


def test_whole_tokens_only() -> None:
    assert not found("4", "/tmp/pytest-of-root/pytest-4/test_x0/g.json")
    assert found("4", "trade 4 with 17")
    assert not found("ship-1", "open books ship-10")
    assert found("a07", "sat out (next:a07)") and found("card:a07", '["7 = card:a07 (x)"]')
    assert not found("a07", "a070 xa07")
    assert found("Region Aachen: majority 12", "region  aachen:\n   majority 12, 2nd 6")
    assert found("purple, brown", '["purple",\n "Brown"]')
    assert found("Prüm", json.dumps("in Prüm"))  # read through JSON's \u00fc
    assert found("Prüm", "in Pr&uuml;m")  # and through HTML entities
    assert not found("4", "/tmp/pytest-4/x", ignore=["/tmp/pytest-4"])
    assert words("/tmp/pytest-4/g.json: entry 2") == ["tmp", "pytest-4", "g", "json",
                                                      "entry", "2"]


def _old_staufer_tokens(state: Any) -> dict[str, list[str]]:
    """What undo compared before Game.reveals (the old per-owner token lists), for the
    test below."""
    out: dict[str, list[str]] = {p: ([] if state.finished else list(state.contracts[i]))
                                 for i, p in enumerate(state.players)}
    out[""] = ["stack:" + ",".join(state.stack), "box:" + ",".join(state.unused_contracts)]
    return out


def _old_dynasties_tokens(state: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pl in state.players:
        out[pl.id] = ([f"card:a{n:02d}" for n in pl.hand]
                      + [f"scoring:{c}" for c in pl.scoring + pl.looking]
                      + [f"book:{b}" for b in pl.books])
    secret = [f"card:a{n:02d}" for n in state.deck]
    secret += [f"scoring:{c}" for c in state.yellow + state.green_box]
    secret += [f"book:{b}" for b in state.book_box + state.free_books]
    secret += [f"book:{b}" for c in state.cities.values() for b in c.books]
    secret.append("bag:" + ",".join(str(n) for n in state.bag))
    out[""] = secret
    return out


@pytest.mark.parametrize(("name", "old"), [("staufer", _old_staufer_tokens),
                                           ("dynasties", _old_dynasties_tokens)])
def test_undo_refuses_the_same_moves_as_before(name: str, old: Callable[[Any], Any]) -> None:
    """Game.reveals (what undo asks now) agrees, move by move of random games, with the
    comparison of hidden tokens that undo made before it had its own function."""
    from referee.engine import Match
    from referee.engine.rng import Rng

    game = get_game(name)
    answers = {True: 0, False: 0}
    for seed in range(2):
        match = Match.start(game, PLAYERS, {}, f"undo-{seed}")
        rng = Rng(f"undo-moves-{seed}")
        while not game.finished(match.state):
            before = game.copy_state(match.state)
            player = game.to_move(match.state)[0]
            match.play(player, rng.choice(game.legal_moves(match.state, player), "m"))
            was = old(before) != old(match.state)
            assert game.reveals(before, match.state) == was, match.log[-1]
            answers[was] += 1
    assert answers[True] and answers[False], answers  # both answers occur


def test_an_id_seen_in_the_events_leaks_only_with_its_place(tmp_path: Path) -> None:
    """Cards discarded in view of everyone and shuffled back into the deck: their plain
    ids in the events are no leak, but the deck's order in those ids is, and so is the
    own-view form of a card another player holds."""
    _, state = new_game(tmp_path, "dynasties")
    game = get_game("dynasties")
    top = [f"a{n:02d}" for n in state.deck[:3]]
    state.events += [f"ann sat out (discarded {card}, drew 1 good)" for card in top]
    ben = state.players[1].hand[0]
    state.events.append(f"cat sat out (discarded a{ben:02d}, drew 1 good)")
    hidden = game.hidden_items(state, None)
    assert not leaks(json.dumps(game.view(state, None)), hidden)
    assert leaks(f"next {top[0]}", hidden) == []  # which card is next is not told
    assert leaks(", ".join(top), hidden) == [
        f"draw of the order of the action deck (next 3 draws) ({', '.join(top)!r})"]
    assert leaks(f"a{ben:02d}", hidden) == []
    assert leaks(f"ben: card:a{ben:02d}", hidden) == [
        f"card of ben's hand ('card:a{ben:02d}')"]
