"""The Staufer Dynasty in German: the play guide's words everywhere a player reads,
the German city names read by the notation, English unchanged, picture texts that stay
in their boxes (both languages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee import i18n
from referee.errors import AmbiguousMove, MalformedMove
from referee.games.staufer import GAME, pictures
from referee.games.staufer.moves import format_move, parse_move
from tests.i18n_check import STAUFER, english_sentences
from tests.staufer_texts import NAMES, positions
from tests.svg_fit import overflows

CANDIDATES = ["supply 1", "supply 5 chests 2", "supply 2 +envoy", "supply 3 +draw",
              "deploy aachen 1", "deploy milano 3 free-move", "deploy palermo 2 free-pay",
              "deploy nijmegen 5", "seat noble", "seat envoy nobles milano",
              "seat envoy double", "seat envoy bonus", "first", "privilege 5", "privilege 1",
              "done", "take milano", "pick vp3", "keep aachen 1 envoy", "keep none",
              "return court"]
PO = Path(pictures.__file__).parent / "locale" / "de" / "LC_MESSAGES" / "staufer.po"


def _texts(state, viewer):  # type: ignore[no-untyped-def]
    """Every text a player reads of ``state`` (in the current language)."""
    out = [GAME.render(state, viewer, 78), GAME.render(state, viewer, 132), GAME.prompt(state)]
    if not GAME.finished(state):
        who = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, who)
        out += [GAME.why_illegal(state, who, parse_move(c)) for c in CANDIDATES
                if parse_move(c) not in legal]
    return out


def _svg_texts(svg: str) -> str:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    return "\n".join(el.text or "" for el in root.iter() if el.tag.rsplit("}", 1)[-1]
                     in ("text", "title", "desc"))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_german_output_has_no_english_sentence(players: int) -> None:
    seen = 0
    with i18n.language("de"):
        for state in positions(players):
            for viewer in (None, "ann"):
                text = "\n".join(_texts(state, viewer))
                view = GAME.view(state, viewer)
                text += "\n" + _svg_texts(pictures.draw(view))
                text += "\n" + "\n".join(t.title for t in pictures.tiles(view))
                bad = english_sentences(text, ignore=NAMES, **STAUFER)
                assert bad == [], bad[:5]
                seen += 1
            if GAME.finished(state):
                assert "Schlusswertung:" in GAME.render(state, None, 78)
                assert GAME.prompt(state).startswith("Spielende nach Runde 5")
    assert seen > 20


def test_the_check_finds_english() -> None:
    """The stop-word check is not blind: the English board fails it."""
    state = next(positions(3))
    assert english_sentences(GAME.render(state, "ann", 78), **STAUFER)
    assert english_sentences("jetzt musst du choose an action", **STAUFER) != []
    assert english_sentences("eine Aktion wählen (supply/deploy); Truhe [vp3]", **STAUFER) == []


def test_german_exact_lines() -> None:
    state = next(positions(4))
    with i18n.language("de"):
        board = GAME.render(state, "ann", 78).splitlines()
        prompt = GAME.prompt(state)
        why = GAME.why_illegal(state, "ann", parse_move("keep none"))
        bad = GAME.why_illegal(state, "ben", parse_move("supply 1"))
    assert board[0] == "Die Staufer - Runde 1"
    assert board[1].startswith("Legende: [9/7/5] Punkte für 1./2./3. Mehrheit; 7N! kostet 7,")
    assert prompt == "Runde 1: ann ist am Zug und muss eine Aktion wählen (supply/deploy)"
    assert why == "jetzt musst du eine Aktion wählen (supply/deploy)"
    assert bad == "ann ist mit der Entscheidung dran, nicht ben"
    assert any(line.startswith("Mailand [") for line in board)
    assert any(line.startswith("Straßburg [") for line in board)
    assert any(line.startswith("Nimwegen [") for line in board)
    assert "Nachschub-Tableau (Feld: Figuren [Truhen]): " in "\n".join(board)


def test_english_is_unchanged() -> None:
    """English is the source: the same text with and without the context, and the
    English words where German has its own."""
    state = next(positions(4))
    plain = GAME.render(state, "ann", 78)
    with i18n.language("en"):
        assert GAME.render(state, "ann", 78) == plain
    assert plain.startswith("The Staufer Dynasty - round 1\nLegend: [9/7/5] points")
    assert "Milano [" in plain and "Mailand" not in plain
    assert GAME.prompt(state) == "Round 1: ann to choose an action (supply/deploy)"


@pytest.mark.parametrize(("german", "english"), [
    ("deploy Mailand 3", "deploy milano 3"),
    ("deploy mailand 3", "deploy milano 3"),
    ("deploy Straßburg 2", "deploy strasbourg 2"),
    ("deploy Strassburg 2", "deploy strasbourg 2"),
    ("deploy STRASSBURG 2", "deploy strasbourg 2"),
    ("deploy Nimwegen 1 free-move", "deploy nijmegen 1 free-move"),
    ("take nimw", "take nijmegen"),
    ("take mai", "take milano"),
    ("seat envoy nobles Mailand Nimwegen", "seat envoy nobles milano nijmegen"),
    ("seat envoy nobles straßb", "seat envoy nobles strasbourg"),
    ("keep Straßburg 2 envoy", "keep strasbourg 2 envoy"),
    ("deploy Aachen 1", "deploy aachen 1"),
])
def test_german_names_parse_to_the_same_move(german: str, english: str) -> None:
    assert parse_move(german) == parse_move(english)
    assert format_move(parse_move(german)) == english
    with i18n.language("de"):
        assert format_move(parse_move(german)) == english


def test_region_names_still_refused_and_ambiguous() -> None:
    with pytest.raises(MalformedMove, match="is not a region"):
        parse_move("deploy köln 1")
    with pytest.raises(AmbiguousMove):
        parse_move("deploy a 1")
    with i18n.language("de"), pytest.raises(MalformedMove, match="ist keine Region"):
        parse_move("deploy köln 1")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_picture_texts_stay_in_their_boxes(lang: str) -> None:
    with i18n.language(lang):
        for players in (2, 3, 4, 5):
            for state in positions(players, games=1, every=6):
                for viewer in (None, "ann"):
                    view = GAME.view(state, viewer)
                    assert overflows(pictures.draw(view)) == []
                    for t in pictures.tiles(view):
                        if t.svg:
                            assert overflows(t.svg) == [], t.name


def test_the_box_check_sees_an_overflow() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200"><style></style>'
           '<rect x="0" y="0" width="40" height="20" /><text x="20" y="12" class="m">'
           'a word much too long for its box</text></svg>')
    assert overflows(svg)


def test_the_catalog_is_complete_and_compiled() -> None:
    from babel.messages.mofile import read_mo
    from babel.messages.pofile import read_po

    with PO.open("rb") as f:
        po = read_po(f)
    with PO.with_suffix(".mo").open("rb") as f:
        mo = read_mo(f)
    ids = [m.id for m in po if m.id]
    assert len(ids) > 150
    assert [m.id for m in po if m.id and not m.string] == []
    assert {m.id: m.string for m in mo if m.id} == {m.id: m.string for m in po if m.id}


def test_tiles_are_drawn_per_language() -> None:
    """A tile drawn in English is not served to a German reader (Aachen has one name)."""
    state = next(positions(3))
    view = GAME.view(state, None)
    english = {t.name: t.svg for t in pictures.tiles(view)}
    with i18n.language("de"):
        german = {t.name: t.svg for t in pictures.tiles(GAME.view(state, None))}
    assert english["region-aachen"] != german["region-aachen"]
    assert "Kosten" in german["region-aachen"] and "Kosten" not in english["region-aachen"]
