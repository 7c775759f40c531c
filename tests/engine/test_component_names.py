"""Names, not ids, in what players read: Dynasties book tiles, scoring cards played,
hands and personalities, Staufer contract cards, in English and German; a hidden card's
name in either language is found by the leak checker."""

from __future__ import annotations

from typing import Any

import pytest

from referee import i18n
from referee.engine import Match
from referee.games.dynasties import GAME as DYNASTIES
from referee.games.dynasties import moves
from referee.games.dynasties.hidden import hidden_items as dyn_hidden
from referee.games.staufer import GAME as STAUFER
from referee.games.staufer.hidden import hidden_items as st_hidden
from referee.games.staufer.texts import event_text, final_part
from referee.games.staufer.views import describe_contract
from tests.dynasties.helpers import grant_card, idx, new_game, set_goods, turn_of
from tests.i18n_check import DYNASTIES as DYN_CHECK
from tests.i18n_check import STAUFER as ST_CHECK
from tests.i18n_check import english_sentences
from tests.leaks import leaks

COUNTRIES = DYNASTIES.data.country_names


def _german(fn: Any, *args: Any) -> Any:
    with i18n.language("de"):
        return fn(*args)


def test_book_tiles_are_named_in_both_languages() -> None:
    from referee.games.dynasties.words import book_tile

    names = {k: book_tile(k, COUNTRIES) for k in ("card-1", "points-2", "ship-1", "sword-2",
                                                  "arms-sri", "arms-france")}
    assert names == {"card-1": "Card (1 scoring card)", "points-2": "3 Points",
                     "ship-1": "Ship (2 goods)", "sword-2": "Sword/Rose (1 coat of arms)",
                     "arms-sri": "coat of arms of Sacrum Romanum Imperium",
                     "arms-france": "coat of arms of France"}
    german = {k: _german(book_tile, k, COUNTRIES) for k in names}
    assert german == {"card-1": "Karte (1 Wertungskarte)", "points-2": "3 Punkte",
                      "ship-1": "Schiff (2 Waren)", "sword-2": "Schwert/Rose (1 Wappen)",
                      "arms-sri": "Wappen von Sacrum Romanum Imperium",
                      "arms-france": "Wappen von Frankreich"}
    assert book_tile("arms-sri", COUNTRIES, short=True) == "arms SRI"
    assert _german(book_tile, "arms-france", COUNTRIES, True) == "Wappen Frankreich"
    assert _german(book_tile, "ship-2", COUNTRIES, True) == "Schiff"


def test_events_name_the_book_tile_and_the_scoring_card() -> None:
    event = DYNASTIES.event_text
    assert event("cat revealed book tile arms-sri") == \
        "cat revealed a book tile: coat of arms of Sacrum Romanum Imperium"
    assert event("ann scored 5 (scoring card g04)") == \
        "ann scored 5 (scoring card g04: >= 2 figures in 2 Points cities)"
    assert _german(event, "cat revealed book tile points-1") == \
        "cat deckte ein Buchplättchen auf: 3 Punkte"
    assert _german(event, "ann scored 4 (scoring card y07)") == \
        "ann erhielt 4 Punkte (Wertungskarte y07: 2 je Figur im SRI, höchstens 8)"
    assert event("ann scored 2 (points)") == "ann scored 2 (points)"  # other reasons as stored


def _with_tiles() -> Any:
    """Red holds Augsburg's top book tile face down; blue has opened two."""
    s = new_game()
    top = s.cities["augsburg"].books[0]
    set_goods(s, "red", "kk")
    turn_of(s, "red")
    DYNASTIES.apply(s, "red", DYNASTIES.parse_move(
        f"prince augsburg with {grant_card(s, 'red', action='prince')}", []))
    s.players[idx(s, "blue")].books_open = ["arms-britannia", "points-1"]
    return s, top


def test_the_board_names_tiles_cards_and_scoring_cards() -> None:
    from referee.games.dynasties.words import book_tile

    s, top = _with_tiles()
    red = s.players[idx(s, "red")]
    red.scoring = ["g04"]
    lines = DYNASTIES.render(s, "red", 78).splitlines()
    assert f"Your book tiles: {book_tile(top, COUNTRIES)} [{top}]" in lines
    assert "  g04 (>= 2 figures in 2 Points cities)" in lines
    card = red.hand[0]
    text = DYNASTIES.data.action_cards[card].describe()
    assert f"  {card:>2} = a{card:02d} ({text})" in lines
    blue = next(i for i, line in enumerate(lines) if line.startswith("  blue "))
    assert lines[blue:blue + 2] == [
        "  blue   blue        0     17     5       2     0 kwgbp  open books: arms",
        "      Britannia, 3 Points"]
    german = _german(DYNASTIES.render, s, "red", 78).splitlines()
    assert "  g04 (>= 2 Figuren in 2-Punkte-Städten)" in german
    assert f"Deine Buchplättchen: {_german(book_tile, top, COUNTRIES)} [{top}]" in german
    assert "      Wappen Britannia, 3 Punkte" in german
    for text in (DYNASTIES.render(s, "red", 78), DYNASTIES.render(s, None, 78)):
        assert "card:" not in text and "scoring:" not in text and "book:" not in text
        assert "arms-britannia" not in text and "points-1" not in text
    bad = english_sentences("\n".join(german), ignore=["red", "blue", "yellow", "green"],
                            **DYN_CHECK)
    assert bad == []


def test_german_personalities_are_named_as_the_notation_accepts_them() -> None:
    s = new_game()
    s.personalities = ["matchmaker", "envoy", "drake", "chronicler", "merchant", "reformer",
                       "diplomat", "leonardo"]
    german = _german(DYNASTIES.render, s, None, 78).splitlines()
    start = next(i for i, line in enumerate(german) if line.startswith("Persönlichkeiten: "))
    assert german[start:start + 3] == [
        "Persönlichkeiten: 1:Heiratsvermittler(2b), 2:Freistadt-Gesandter(2b),",
        "  3:drake(1b), 4:Chronist(1b), 5:Kaufmann(1b), 6:Reformator(0b),",
        "  7:Diplomat(1g), 8:Leonardo(1g)"]
    english = DYNASTIES.render(s, None, 78)
    assert "Personalities: 1:matchmaker(2b), 2:envoy(2b), 3:drake(1b)," in english
    for word, key in (("Heiratsvermittler", "matchmaker"), ("Freistadt-Gesandter", "envoy"),
                      ("Reformator", "reformer"), ("Leonardo", "leonardo")):
        assert DYNASTIES.parse_move(f"use {word} with 3 pay b", []) == moves.Use(3, key, "b")


CONTRACTS = {
    "contract:blue-2-opposite": ("Pattern (2 opposite regions, offsets [0, 3]): 5 each",
                                 "Muster (2 gegenüberliegende Regionen, Abstände [0, 3]): je 5"),
    "contract:blue-2-gap": ("Pattern (2 regions with 1 between, offsets [0, 2]): 5 each",
                            "Muster (2 Regionen mit 1 dazwischen, Abstände [0, 2]): je 5"),
    "contract:red-pairs": ("Office seats (pairs of equal cost): 8 each",
                           "Amtssitze (Paare gleicher Kosten): je 8"),
    "contract:red-series": ("Office seats (series 3-4-5): 15 each",
                            "Amtssitze (Serie 3-4-5): je 15"),
    "contract:red-cost4": (
        "Office seats (payment cost 4): 2/6/12/20/30 for 1-5 cost-4 seats, +10 for each "
        "further seat",
        "Amtssitze (Bezahlkosten 4): 2/6/12/20/30 für 1-5 Sitze mit Kosten 4, +10 für "
        "jeden weiteren Sitz"),
}


@pytest.mark.parametrize("cid", sorted(CONTRACTS))
def test_staufer_contracts_are_named_not_numbered(cid: str) -> None:
    english, german = CONTRACTS[cid]
    assert describe_contract(STAUFER.data, cid, 3) == english
    assert _german(describe_contract, STAUFER.data, cid, 3) == german
    assert english_sentences(german, **ST_CHECK) == []


def test_every_staufer_contract_has_a_german_name() -> None:
    from referee.games.staufer.texts import CONTRACT_NAMES

    ids = [c.split("-", 1)[1] for c in [*STAUFER.data.blue, *STAUFER.data.red]]
    assert sorted(ids) == sorted(CONTRACT_NAMES)
    for cid in [*STAUFER.data.blue, *STAUFER.data.red]:
        text = _german(describe_contract, STAUFER.data, cid, 4)
        assert cid.split("-", 1)[1] not in text, text
        assert english_sentences(text, **ST_CHECK) == []


def test_staufer_scoring_names_contracts() -> None:
    assert final_part("contract:blue-3-alternating") == "pattern: 3 alternating regions"
    assert event_text("ben +15 (contract:red-series)") == "ben +15 (office seats: series 3-4-5)"
    assert _german(event_text, "ben +6 (contract:red-all-seats)") == \
        "ben +6 (Amtssitze: alle deine Sitze)"


def test_a_hidden_contract_is_found_by_its_german_text() -> None:
    match = Match.start(STAUFER, ["ann", "ben", "cat"], {}, "names-staufer")
    state = match.state
    theirs = state.contracts[1]
    text = "\n".join(_german(describe_contract, state.data, c, 3) for c in theirs)
    found = leaks(text, st_hidden(state, "ann"))
    assert len(found) == len(theirs) and all("ben's contracts" in f for f in found)


def test_a_hidden_card_is_found_by_its_german_text() -> None:
    from referee.games.dynasties.words import card_text, name

    match = Match.start(DYNASTIES, ["ann", "ben", "cat"], {}, "names-dynasties")
    state = match.state
    d = state.data
    ben = state.players[1]
    unique = [n for n in ben.hand
              if d.card_text_counts[d.action_cards[n].describe()] == 1]
    assert unique
    said = _german(card_text, d.action_cards[unique[0]], d.cities)
    assert said != d.action_cards[unique[0]].describe()
    assert leaks(f"Karte: {said}", dyn_hidden(state, "ann")) == [
        f"card of ben's hand ({said!r})"]
    key = "g10"
    if key in state.green_box:
        state.green_box.remove(key)
    ben.scoring = [key]
    scoring = _german(name, d.scoring[key].text)
    assert scoring == ">= 2 Figuren in Hispania"
    assert leaks(scoring, dyn_hidden(state, "ann")) == [
        f"card of ben's scoring cards ({scoring!r})"]
