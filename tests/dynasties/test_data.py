"""The data files: what the data version pins, readings, labels, scoring cards in play."""

from __future__ import annotations

import copy

import pytest

from referee.engine import Interpretation, Match
from referee.engine.rng import Rng
from referee.errors import GameFileError
from referee.games import dynasties
from referee.games.dynasties import GAME
from referee.games.dynasties import scoring as S

D = GAME.data  # the component data of the current game


def test_data_version_pins_the_loaded_data() -> None:
    files = dynasties.current_files()
    digest = dynasties.data_digest(copy.deepcopy(files))
    assert GAME.data_version() == f"dynasties-2+data.{digest}" == D.digest.join(
        ("dynasties-2+data.", ""))
    assert dynasties.game(copy.deepcopy(files), "dynasties-1").data_version() == \
        f"dynasties-1+data.{digest}"
    assert GAME.rules == dynasties.RULES_VERSIONS[-1] == "dynasties-2"
    assert dynasties.RULES_VERSIONS == ("dynasties-1", "dynasties-2")


def test_a_game_object_is_built_from_its_files_and_rules() -> None:
    """game(files, rules) is a lookup of values: it changes no module and no other game."""
    files = copy.deepcopy(dynasties.current_files())
    files["personalities"]["spaces"]["light_blue_costs"][0] += 1
    dearer = dynasties.game(files, "dynasties-1")
    assert dearer.data.light_blue_costs[0] == D.light_blue_costs[0] + 1
    assert dearer.data.digest != D.digest and dearer.rules == "dynasties-1"
    assert GAME.data is D and dynasties.game().data_version() == GAME.data_version()
    state = dearer.setup(["a", "b", "c"], {}, Rng("built"))
    assert state.data is dearer.data
    assert GAME.view(state, None)["personalities"][0]["cost"].startswith(
        f"{dearer.data.light_blue_costs[0]} ")


@pytest.mark.parametrize("rules", ["dynasties-3", "staufer-2", ""])
def test_an_unknown_rules_version_is_refused(rules: str) -> None:
    with pytest.raises(GameFileError, match="no rules version"):
        dynasties.game(None, rules)


def test_files_with_other_words_than_the_moves_are_refused() -> None:
    files = copy.deepcopy(dynasties.current_files())
    files["cities"]["cities"][0]["key"] = "atlantis"
    with pytest.raises(GameFileError, match="other cards, cities or keys"):
        dynasties.game(files)
    del files["cities"]
    with pytest.raises(GameFileError, match="damaged"):
        dynasties.game(files)


@pytest.mark.parametrize("edit", [
    lambda raw: raw["cities"]["cities"][0].update(source="a photo of the board"),
    lambda raw: raw["tablets"]["tablets"][2].update(confidence="confirmed"),
    lambda raw: raw["cities"]["cities"][3].update(note="renamed"),
    lambda raw: raw["scoring_cards"]["scoring_cards"][0].update(text="reworded"),
    lambda raw: raw["personalities"]["personalities"][2].update(name="Someone"),
    lambda raw: raw["components"]["running_out"].update(bag="reworded"),
    lambda raw: raw["interpretations"]["interpretations"][0].update(reading="reworded"),
])
def test_descriptive_changes_keep_the_data_version(edit) -> None:
    raw = copy.deepcopy(D.files)
    edit(raw)
    assert raw != D.files
    assert dynasties.data_digest(raw) == D.digest


@pytest.mark.parametrize("edit", [
    lambda raw: raw["cities"]["cities"][0].update(prince=2),
    lambda raw: raw["tablets"]["tablets"][2].update(crown=6),
    lambda raw: raw["scoring_cards"]["scoring_cards"][0].update(points=7),
    lambda raw: raw["bonus"]["bonus_spaces"][0]["effects"][0].update(n=4),
    lambda raw: raw["personalities"]["spaces"]["light_blue_costs"].reverse(),
    lambda raw: raw["components"]["goods"]["counts"].__setitem__(0, 17),
])
def test_play_values_change_the_data_version(edit) -> None:
    raw = copy.deepcopy(D.files)
    edit(raw)
    assert dynasties.data_digest(raw) != D.digest


def test_interpretations_come_from_the_data_file() -> None:
    entries = D.files["interpretations"]["interpretations"]
    for rules in dynasties.RULES_VERSIONS:
        readings = dynasties.game(None, rules).interpretations()
        assert all(isinstance(r, Interpretation) for r in readings)
        keys = [r.key for r in readings]
        assert len(set(keys)) == len(keys) == len(
            [e for e in entries if rules in e.get("rules", [rules])])
        assert {"D-SETUP", "D-TWICE", "D-BONUS", "D-ROUND3", "D-KEEP"} <= set(keys)
        assert all(r.topic and r.reading and r.rule for r in readings)
        assert not any("shared/" in r.rule + r.reading for r in readings)
    setup = {rules: next(r.reading for r in dynasties.game(None, rules).interpretations()
                         if r.key == "D-SETUP") for rules in dynasties.RULES_VERSIONS}
    assert "before the 5 goods per ship are drawn" in setup["dynasties-1"]
    assert "drawn first, then" in setup["dynasties-2"]


def test_only_stated_countries_are_labelled_rulebook() -> None:
    """The rulebook names a city's country only for Paris ('Paris is the only crown city
    in France') and gives one extra city per country with 5 players ('1 each in the 4
    country colors'); the others are inferred from geography."""
    labelled = [c["key"] for c in D.files["cities"]["cities"]
                if isinstance(c["confidence"], dict)
                and c["confidence"].get("country") == "rulebook"]
    extra = [k for k, c in D.cities.items() if c.five_players]
    assert labelled == ["paris", *extra]
    assert sorted(D.cities[k].country for k in extra) == sorted(D.countries)
    for key in ("carcassonne", "brest", "london", "madrid", "granada", "barcelona",
                "vienna", "augsburg", "lubeck"):
        entry = next(c for c in D.files["cities"]["cities"] if c["key"] == key)
        assert entry["confidence"]["country"] == "inferred"


def test_every_scoring_card_is_assumed() -> None:
    assert all(c["confidence"] == "assumed" for c in D.files["scoring_cards"]["scoring_cards"])
    listed = {a.key for a in GAME.assumptions()}
    assert {f"scoring_cards.scoring_cards.{k}" for k in D.scoring} <= listed


def test_no_scoring_card_is_practically_dead() -> None:
    """Scoring cards: every one scores for at least 5 % of the players at the end of
    random games (3, 4 and 5 players), had they held it."""
    hits = dict.fromkeys(D.scoring, 0)
    players = 0
    for n in (3, 4, 5):
        for seed in range(16):
            match = Match.start(GAME, [f"p{i}" for i in range(n)], {}, f"cards-{n}-{seed}")
            rng = Rng(f"cards-moves-{n}-{seed}")
            while not GAME.finished(match.state):
                player = GAME.to_move(match.state)[0]
                match.play(player, rng.choice(GAME.legal_moves(match.state, player), "p"))
            for p in range(n):
                players += 1
                for key in D.scoring:
                    hits[key] += S.card_points(match.state, p, key) > 0
    dead = {k: v for k, v in hits.items() if v < 0.05 * players}
    assert dead == {}
