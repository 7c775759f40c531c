"""Dynasties in German: random games at every player count read in German (board at 78
and 132 columns, prompt, explanations of illegal moves, final scoring, pictures' texts)
contain no English sentence; German names in the notation; ``trade SHIP`` on a turn;
picture texts stay inside their boxes in both languages."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import msgspec
import pytest
from babel.messages.pofile import read_po

from referee import i18n
from referee.engine import Match
from referee.engine.rng import Rng
from referee.errors import AmbiguousMove
from referee.games.dynasties import GAME, moves, words
from referee.games.dynasties.moves import Pass, SecondTrade, Trade
from referee.games.dynasties.pictures import draw
from referee.pictures.svg import fit
from tests.i18n_check import DYNASTIES, english_sentences
from tests.support.games import new_game
from tests.svg_fit import overflows

PO = "referee/games/dynasties/locale/de/LC_MESSAGES/dynasties.po"
def games(n: int) -> list[Match]:
    """Positions of 2 random games with ``n`` players: every 7th and the last."""
    out = []
    for g in range(2):
        match = Match.start(GAME, ["ann", "ben", "cat", "dan", "eve"][:n], {}, f"de-{n}-{g}")
        rng = Rng(f"de-pick-{n}-{g}")
        step = 0
        while not GAME.finished(match.state):
            p = GAME.to_move(match.state)[0]
            legal = GAME.legal_moves(match.state, p)
            GAME.apply(match.state, p, legal[rng.below(len(legal), "pick")])
            step += 1
            if step % 7 == 0:
                out.append(_snap(match))
        out.append(match)
    return out


def _snap(match: Match) -> Match:
    return msgspec.structs.replace(match, state=GAME.copy_state(match.state))


def _illegal_texts(state: Any) -> list[str]:
    """Explanations of a few well-formed moves that are not legal now, for each player."""
    tries = [Trade(1, 1), SecondTrade(2), Pass(3, 0, 0), moves.Done(), moves.Choose("kk"),
             moves.Place(1, "prince", "vienna", "kkk"), moves.Use(1, "drake", "b"),
             moves.Score("g01")]
    out = []
    for pl in state.players:
        legal = GAME.legal_moves(state, pl.id)
        out += [GAME.why_illegal(state, pl.id, m) for m in tries if m not in legal]
    return out


def _svg_texts(svg: str) -> list[str]:
    return [el.text or "" for el in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_german_output_has_no_english_sentence(n: int) -> None:
    bad: list[str] = []
    for match in games(n):
        state = match.state
        with i18n.language("de"):
            texts = [GAME.render(state, "ann", 78), GAME.render(state, None, 132),
                     GAME.prompt(state), *_illegal_texts(state)]
            view = GAME.view(state, "ben")
            texts += _svg_texts(draw(view))
        for text in texts:
            bad += english_sentences(text, **DYNASTIES)
    assert not bad, "\n".join(dict.fromkeys(bad))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_event_has_a_template(n: int) -> None:
    """Each public event the rules log is translated (a template matches it)."""
    untranslated = []
    for match in games(n):
        with i18n.language("de"):
            untranslated += [e for e in match.state.events if words.event(e, match.game.data) == e]
    assert not untranslated


def test_english_is_unchanged_by_the_language_machinery() -> None:
    state = games(3)[-1].state
    assert GAME.render(state, "ann", 78).startswith("DYNASTIES - round 3\nLegend: goods k")
    assert GAME.prompt(state).startswith("game over: ")
    with i18n.language("de"):
        german = GAME.render(state, "ann", 78)
    english = GAME.render(state, "ann", 78)
    with i18n.language("en"):
        assert GAME.render(state, "ann", 78) == english  # no language: English, the same
    assert english != german
    assert "Final scoring:" in english


def test_a_few_exact_german_lines() -> None:
    match = Match.start(GAME, ["ann", "ben", "cat"], {}, "de-exact")
    with i18n.language("de"):
        board = GAME.render(match.state, "ann", 78)
        prompt = GAME.prompt(match.state)
        why = GAME.why_illegal(match.state, "ben", Trade(1, 1))
    lines = board.splitlines()
    assert lines[0] == "DYNASTIES - Runde 1"
    assert lines[1] == "Legende: Waren k schwarz, w weiß, g goldgelb, b hellblau, p rosa;"
    assert "Spieler  Farbe   Punkte Vorrat Karten Wertung Bücher Waren" in lines
    assert any(line.startswith("   Wien        Krone  3k") for line in lines)
    assert " Frankreich  [1. 8, 2. 5, Krone 8]" in lines
    assert "Zuletzt: Runde 1 beginnt; ann (der Bankier) fängt an" in lines
    assert prompt == "Runde 1: ann spielt eine Karte, setzt aus oder passt"
    assert why == "ann ist am Zug"


def test_catalog_is_complete_and_keeps_placeholders() -> None:
    with open(PO, "rb") as f:
        catalog = read_po(f)
    ids = [m for m in catalog if m.id]
    assert len(ids) > 300
    for m in ids:
        sources = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strings), m.id
        wanted = sorted(re.findall(r"\{\w+\}", sources[-1]))
        assert all(sorted(re.findall(r"\{\w+\}", t)) == wanted for t in strings), m.id


def test_every_data_name_is_in_the_catalog() -> None:
    d = GAME.data
    names = [*d.country_names.values(), *(c.name for c in d.cities.values()),
             *(p.name for p in d.personalities.values()), *d.colour_names.values(),
             *(b.text for b in d.bonus.values()), *(c.text for c in d.scoring.values()),
             *d.family_colours]
    missing = [n for n in names if n not in words.COMPONENT_NAMES]
    assert not missing
    assert {k: b.text for k, b in d.bonus.items()} == words.BONUS_TEXT


@pytest.mark.parametrize("city", ["Wien", "Prag", "Köln", "Koeln", "Nürnberg", "Nuernberg"])
def test_german_city_names_parse_to_the_same_move(city: str) -> None:
    english = {"wien": "vienna", "prag": "prague", "köln": "cologne", "koeln": "cologne",
               "nürnberg": "nuremberg", "nuernberg": "nuremberg"}[city.lower()]
    german = GAME.parse_move(f"prince {city} with 6 pay kkk", [])
    assert german == GAME.parse_move(f"prince {english} with 6 pay kkk", [])
    assert GAME.format_move(german) == f"prince {english} with 6 pay kkk"
    assert GAME.parse_move(f"marry {city}", []) == moves.Marry(english)


def test_german_country_personality_and_goods_names_parse() -> None:
    assert GAME.parse_move("wild Frankreich", []) == moves.Country("wild", "france")
    assert GAME.parse_move("upgrade frankreich", []) == moves.Country("upgrade", "france")
    assert GAME.parse_move("use kaufmann with 3 pay b", []) == moves.Use(3, "merchant", "b")
    assert GAME.parse_move("use Chronist with 3 pay b", []) == moves.Use(3, "chronicler", "b")
    assert GAME.parse_move("use heiratsvermittler with 3 pay b", []).personality == "matchmaker"
    # goods: s schwarz = k, r rosa = p
    assert GAME.parse_move("take sr", []) == GAME.parse_move("take kp", [])
    assert GAME.format_move(GAME.parse_move("choose rrs", [])) == "choose kpp"
    with pytest.raises(Exception, match="not a country"):
        GAME.parse_move("wild deutschland", [])


def _turn_with_trades() -> tuple[Any, str, list[Any]]:
    for seed in range(40):
        match = Match.start(GAME, ["ann", "ben", "cat"], {}, f"trade-{seed}")
        p = GAME.to_move(match.state)[0]
        legal = GAME.legal_moves(match.state, p)
        trades = [m for m in legal if type(m) is Trade and m.ship == 1]
        if len(trades) >= 2:
            return match.state, p, legal
    raise AssertionError("no start with two trade cards")


def test_trade_ship_on_a_turn_is_ambiguous_with_the_candidates() -> None:
    _state, _p, legal = _turn_with_trades()
    with pytest.raises(AmbiguousMove) as err:
        GAME.parse_move("trade 1", legal)
    fits = [GAME.format_move(m) for m in legal if type(m) is Trade and m.ship == 1]
    assert err.value.legal == fits
    assert "fits several legal moves" in err.value.message


def test_trade_ship_with_one_card_is_that_trade_and_without_any_explained() -> None:
    state, p, legal = _turn_with_trades()
    one = next(m for m in legal if type(m) is Trade and m.ship == 1)
    assert GAME.parse_move("trade 1", [one]) == one
    assert GAME.parse_move("trade 1", []) == SecondTrade(1)
    assert GAME.why_illegal(state, p, SecondTrade(1)) == \
        "Trade: name the action card you play (trade 1 with CARD)"


def test_trade_ship_through_the_cli(tmp_path: Any) -> None:
    from tests.conftest import run

    game = tmp_path / "g.json"
    new_game(str(game), "dynasties", players="ann,ben,cat", seed="trade-amb")
    before = game.read_bytes()
    res = run("move", str(game), "--as", "ann", "trade 1")
    assert res.exit_code == 1
    assert "'trade 1' fits several legal moves; say which action card" in res.output
    assert "no decision of that kind" not in res.output
    assert "\n  trade 1 with " in res.output and "Traceback" not in res.output
    assert game.read_bytes() == before


# --- pictures: every text inside its box, in English and German --------------------------
@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_picture_texts_fit_their_boxes(n: int, lang: str) -> None:
    bad: list[str] = []
    for match in games(n):
        with i18n.language(lang):
            for viewer in (None, "ann"):
                bad += overflows(draw(GAME.view(match.state, viewer)))
    assert not bad, "\n".join(dict.fromkeys(bad))


def test_the_overflow_check_finds_a_long_text() -> None:
    view = GAME.view(games(3)[0].state, "ann")
    assert overflows(draw(view)) == []  # (the finding below is the long text's own)
    view["personalities"][0]["cost"] = "a cost far too long for its box " * 3
    found = overflows(draw(view))
    assert found and all(b.startswith(("cut: ", "out of its")) and "a cost far too" in b
                         for b in found)
    assert fit("x" * 50, 30) != "x" * 50  # (what the pictures cut with)
