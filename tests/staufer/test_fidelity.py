"""Rules departures fixed after a rules-lawyer review: purple chests at any time, start
player, Noble payment spaces, the partially random deck, texts, privilege 14 with 3
players, the interpretations list and the data pin. Each test quotes its rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.engine.rng import Rng
from referee.errors import MalformedMove, UsageError
from referee.games.staufer import GAME, current_files, data_digest, gamesetup, rounds
from referee.games.staufer.views import describe_contract

from .helpers import (
    give,
    legal_texts,
    occupy,
    play,
    pos,
    position,
    round_over,
    set_court,
    turn_of,
)

RING = ["nijmegen", "strasbourg", "palermo", "aachen", "milano", "augsburg"]


def chests_on_top(state: object, *ctypes: str) -> None:
    """Put chests of these types on top of the face-down stack (the next draws)."""
    for ctype in ctypes:
        cid = next(c for c in state.stack  # type: ignore[attr-defined]
                   if GAME.data.chest_kind[c][1] == ctype)
        state.stack.remove(cid)  # type: ignore[attr-defined]
        state.stack.append(cid)  # type: ignore[attr-defined]


def last_round_augsburg_then_king(n: int = 3) -> object:
    """Round 5; A tile Augsburg, B tile King's Region (Nijmegen): two Regions scored."""
    s = position(n, RING, "nijmegen")
    s.round = 5
    s.rows[4] = ("augsburg", "king", 0)
    round_over(s)
    return s


# ------------------------------------------------------------ A1 purple at any time


def test_purple_from_a_round_five_bonus_buys_the_vp_privilege_before_final_scoring() -> None:
    """Supplement, Purple Chests: "If at any time you have 2 purple Chests in front of
    you, you may discard them both and take one Privilege card of your choice." The
    second purple chest comes from Augsburg's bonus in round 5; the exchange is offered
    before the Final Scoring, where the chests would be worth only 1 point each."""
    s = last_round_augsburg_then_king()
    occupy(s, "rudi", "augsburg", 1)
    give(s, "rudi", "purple")
    chests_on_top(s, "purple", "purple")
    rounds.begin_scoring(s)
    assert GAME.to_move(s) == ["rudi"] and s.phase == "purple"
    assert legal_texts(s, "rudi") == [
        "privilege 1", "privilege 5", "privilege 7", "privilege 10", "privilege 14",
        "privilege 15", "done"]
    score = s.score[1]
    play(s, "rudi", "privilege 1")
    assert GAME.finished(s)
    assert s.vp_card[1] == 6  # 3 players: values 4, 5, 6; the highest on top
    assert s.final["rudi"]["turquoise+purple"] == 0
    assert s.score[1] == score + 6 + sum(s.final["rudi"].values())


def test_privilege_taken_between_two_scored_regions_counts_for_the_second() -> None:
    """Supplement, privilege 15: "Whenever you have occupied at least 1 office seat in a
    scored Region, you gain 2 extra points." Taken at the checkpoint after Augsburg, it
    pays in Nijmegen, scored next."""
    s = last_round_augsburg_then_king()
    occupy(s, "rudi", "augsburg", 1)
    occupy(s, "rudi", "nijmegen", 3)
    give(s, "rudi", "purple")
    chests_on_top(s, "purple", "purple")
    rounds.begin_scoring(s)
    play(s, "rudi", "privilege 15")
    assert "rudi +2 (privilege 15)" in s.events
    assert s.events.index("rudi +2 (privilege 15)") > next(
        i for i, e in enumerate(s.events) if "Augsburg place 1" in e)


def test_checkpoint_before_the_first_region_and_done_declines() -> None:
    """Purple Chests "at any time": a player holding 2 purple chests is asked before the
    first Region is scored (privileges 14/15 would apply); `done` keeps the chests and
    the scoring goes on; the next checkpoint asks again."""
    s = last_round_augsburg_then_king()
    give(s, "gabi", "purple", 2)
    rounds.begin_scoring(s)
    assert GAME.to_move(s) == ["gabi"] and s.to_score == [pos(s, "augsburg"), pos(s, "nijmegen")]
    play(s, "gabi", "done")
    assert GAME.to_move(s) == ["gabi"] and s.to_score == [pos(s, "nijmegen")]
    play(s, "gabi", "done")
    play(s, "gabi", "done")  # after the last Region: before the Final Scoring
    assert GAME.finished(s) and s.final["gabi"]["turquoise+purple"] == 2


def test_checkpoint_before_cleanup_for_privilege_13() -> None:
    """Supplement, privilege 13 (Cleanup Phase): "Instead of returning your figures in
    scored Regions back to the Province, you may return them to your Court." A purple
    pair completed by the round's last bonus can still buy it before the Cleanup."""
    s = position(3, RING, "nijmegen", options={"privileges": "raining-points"})
    s.rows[0] = ("augsburg", "king", 1)
    round_over(s)
    occupy(s, "gabi", "augsburg", 2)
    give(s, "gabi", "purple")
    chests_on_top(s, "purple", "purple")
    rounds.begin_scoring(s)
    play(s, "gabi", "done")  # after Augsburg, before Nijmegen
    play(s, "gabi", "privilege 13")  # after Nijmegen: before the Cleanup
    assert GAME.to_move(s) == ["gabi"] and s.phase == "return"
    court = s.court[2][0]
    play(s, "gabi", "return court")
    assert s.court[2][0] == court + 1


def test_checkpoints_ask_in_seating_order_from_the_start_player() -> None:
    """Interpretation S5: several players who can exchange are asked in seating order
    from the start player."""
    s = last_round_augsburg_then_king(4)
    s.start = 2
    for name in ("bettina", "gabi", "guenter"):
        give(s, name, "purple", 2)
    rounds.begin_scoring(s)
    asked = []
    while s.phase == "purple" and s.to_score == [pos(s, "augsburg"), pos(s, "nijmegen")]:
        asked.append(GAME.to_move(s)[0])
        play(s, asked[-1], "done")
    assert asked == ["gabi", "guenter", "bettina"]


# ------------------------------------------------------------ A2 start player


@pytest.mark.parametrize(("value", "start"), [("first", 0), ("gabi", 2), ("guenter", 3)])
def test_start_option_sets_the_first_turn_order(value: str, start: int) -> None:
    """Setup 9: the start player takes space 1; "In clockwise order, the other players
    follow ... Now, beginning with the last player and continuing counterclockwise, each
    player places his second Family Member ... (counterclockwise, starting with the last
    player)." Players sit clockwise in the order listed."""
    s = position(4, options={"start": value})
    assert s.start == start and GAME.to_move(s) == [s.players[start]]
    order = [s.active, *s.turn_track]
    ahead = [(start + i) % 4 for i in range(4)]
    assert order == ahead + ahead[::-1] + ahead[::-1]
    assert gamesetup.first_turn_order(4, 2) == [2, 3, 0, 1, 1, 0, 3, 2, 1, 0, 3, 2]


def test_random_start_player_comes_from_the_seeded_stream() -> None:
    """Setup 9 "last in the Mediterranean" cannot be known to a program: option
    start=random draws the start player from the game's generator (stream 'start')."""
    starts = [position(5, seed=f"s{k}", options={"start": "random"}).start for k in range(12)]
    assert starts == [Rng(f"s{k}").below(5, "start") for k in range(12)]
    assert len(set(starts)) > 1


def test_unknown_start_player_is_a_usage_error_at_new(tmp_path: Path) -> None:
    """An unknown player id for option start: one clear message, exit 2, no file."""
    with pytest.raises(UsageError, match="start cannot be 'zed'"):
        position(3, options={"start": "zed"})
    path = tmp_path / "g.json"
    result = CliRunner().invoke(
        main, ["new", "staufer", str(path), "--players", "ann,ben", "--option", "start=zed"])
    assert result.exit_code == 2 and "start cannot be 'zed'" in result.output
    assert "Traceback" not in result.output and not path.exists()


def test_seating_and_start_player_in_view_and_status() -> None:
    s = position(3, options={"start": "rudi"})
    view = GAME.view(s, None)
    assert view["seating"] == ["rudi", "gabi", "bettina"] and view["start_player"] == "rudi"
    assert "Seating (clockwise): rudi, gabi, bettina; start player rudi" in GAME.render(s, None)


# ------------------------------------------------------------ A4 partially random deck


def test_partially_random_deck_with_four_of_your_own_choice() -> None:
    """Supplement, Privilege Cards: "Partially Random Deck: 1, 2, and 4 of your own
    choice"."""
    opts = {"privileges": "partially-random", "privilege_list": "16,5,13,8"}
    assert position(3, options=opts).priv_numbers == [1, 2, 5, 8, 13, 16]
    opts["privilege_list"] = "1,2,5,8,13,16"
    assert position(3, options=opts).priv_numbers == [1, 2, 5, 8, 13, 16]


@pytest.mark.parametrize("bad", ["5,8,13", "2,5,8,13", "5,5,8,13", "5,8,13,17", "a,b,c,d",
                                 "1,3,5,8,13,16"])
def test_partially_random_deck_choice_is_validated(bad: str) -> None:
    with pytest.raises(UsageError):
        position(3, options={"privileges": "partially-random", "privilege_list": bad})


def test_partially_random_without_a_choice_draws_four_and_list_needs_its_deck() -> None:
    """Interpretation S4: nothing chosen -> the four are drawn from the seeded stream."""
    nums = position(3, options={"privileges": "partially-random"}).priv_numbers
    assert nums[:2] == [1, 2] and len(set(nums)) == 6
    with pytest.raises(UsageError, match="only for privileges=custom or partially-random"):
        position(3, options={"privilege_list": "5,8,13,16"})


# ------------------------------------------------------------ A5 texts


def test_turn_order_line_names_the_player_moving_now() -> None:
    """A Player's Turn: "Whenever one of your Action Figures are at the top of the Turn
    Order Track, it is your time to take a turn." That figure is listed first."""
    s = position(3)
    assert GAME.view(s, None)["tracks"]["turn_order"][:4] == ["bettina", "rudi", "gabi", "gabi"]
    assert "Turn order: bettina, rudi, gabi, gabi, rudi, bettina" in GAME.render(s, None)


def test_contract_texts() -> None:
    """Supplement, Contract Cards: Region "12 points ... 2nd place ... 6 points. (No
    points are scored for 2nd place in a 2-player game.)"; All seats: "For each
    additional occupied seat beyond those shown, you gain 5 additional points." """
    region = "contract:region-milano"
    assert describe_contract(GAME.data, region, 2) == (
        "Region Milano: majority 12 (no 2nd place with 2 players)")
    assert describe_contract(GAME.data, region, 3) == "Region Milano: majority 12, 2nd place 6"
    assert describe_contract(GAME.data, "contract:red-all-seats", 3) == (
        "Office seats (all your seats): 1/3/6/10/15 for 1-5 seats, +5 for each further seat")
    assert describe_contract(GAME.data, "contract:red-pairs", 3) == (
        "Office seats (pairs of equal cost): 8 each")


def test_final_line_names_the_winner_of_the_tie_break() -> None:
    """Final Scoring: "In case of a tie for victory points, the winner is the player with
    the most figures remaining in his Court." """
    s = position(3)
    s.finished = True
    s.score = [79, 79, 50]
    s.court = [[2, 1], [4, 0], [9, 3]]
    assert GAME.prompt(s) == (
        "Game over after round 5; bettina, rudi tied on 79 points; winner rudi by the "
        "tie-break most figures in the Court (bettina 3, rudi 4)")
    s.court[0] = [3, 1]
    assert GAME.prompt(s).endswith("shared win bettina, rudi (still tied after the "
                                   "tie-break most figures in the Court (bettina 4, rudi 4))")
    s.score = [80, 79, 50]
    assert GAME.prompt(s) == "Game over after round 5; winner bettina with 80 points"


# ------------------------------------------------------------ A6 privilege 14, 3 players


def test_privilege_14_pays_third_place_with_three_players() -> None:
    """Supplement, privilege 14: "3 extra points if you are in 1st place, 2 points for
    2nd place, and 1 point for 3rd place. (In a 2-player game, the extra points for 2nd
    and 3rd place are not awarded.)" With 3 players the 3rd place gets no tile points
    but the +1 (interpretation S3)."""
    s = position(3, RING, "nijmegen")
    turn_of(s, "bettina", "rudi")
    s.privileges[2].append(14)
    for seat, name in enumerate(("bettina", "rudi", "gabi"), start=2):
        occupy(s, name, "strasbourg", seat)  # Strasbourg's bonus is Envoys, not points
    s.tiles[pos(s, "strasbourg")] = [7, 4]
    rounds.score_region(s, pos(s, "strasbourg"))
    assert s.score == [7, 4, 1]


# ------------------------------------------------------------ B interpretations


def test_referee_data_lists_the_interpretations() -> None:
    readings = GAME.interpretations()
    keys = [r.key for r in readings]
    assert keys == [f"S{k}" for k in range(1, len(keys) + 1)] and len(keys) >= 15
    assert all(r.topic and r.reading and r.rule for r in readings)
    out = CliRunner().invoke(main, ["data", "staufer"]).output
    assert f"{len(readings)} READINGS where the rulebook is silent" in out
    for r in readings:
        assert f"[{r.key}] {r.topic}: {r.reading}" in out
    data = json.loads(CliRunner().invoke(main, ["data", "staufer", "--json"]).output)
    assert [r["key"] for r in data["interpretations"]] == keys


def test_no_value_is_labelled_rulebook_unless_the_rulebook_states_it() -> None:
    """Audit: the Region contract list (one card per Region) is inferred, not printed;
    the partially random deck's 1 and 2 are printed."""
    files = current_files()
    assert files["contracts"]["region"]["confidence"] == "inferred"
    assert files["privileges"]["partially_random_fixed"]["confidence"] == "rulebook"


# ------------------------------------------------------------ E data pin


def test_data_pin_covers_only_values_that_change_play() -> None:
    raw = current_files()
    pin = data_digest(raw)
    assert pin == GAME.data.digest
    raw["regions"]["regions"]["aachen"]["seats"]["3-5"]["source"] = "a corrected source"
    raw["regions"]["regions"]["aachen"]["seats"]["3-5"]["confidence"] = "confirmed"
    raw["regions"]["regions"]["aachen"]["title"] = "Aix-la-Chapelle"
    raw["figures"]["colours"]["value"] = ["white", "yellow", "green", "blue", "black"]
    raw["interpretations"]["readings"][0]["reading"] = "reworded"
    raw["chests"]["about"] = "reworded"
    assert data_digest(raw) == pin
    raw["regions"]["regions"]["aachen"]["seats"]["3-5"]["value"][1][0] = 6
    assert data_digest(raw) != pin
    raw = current_files()
    raw["privileges"]["vp_values"]["value"][0] = 3
    assert data_digest(raw) != pin
    assert GAME.data_version() == "staufer-2+data." + pin


# ------------------------------------------------------------ A3 Noble spaces: errors


def test_noble_spaces_outside_the_payment_are_explained() -> None:
    """Move/Deploy 2: the figures are placed "in the Payment spaces of adjacent Regions,
    starting clockwise from the target Region, one figure per Region"."""
    s = position(4, RING, "nijmegen")
    turn_of(s, "bettina", "rudi")
    s.deploy_track = [1, 2]  # the next Move/Deploy space shows no Envoy
    for q in (1, 2):
        s.turn_track.remove(q)
    set_court(s, "bettina", 2, 2)
    play(s, "bettina", "deploy nijmegen 5")  # pays Strasbourg and Palermo
    move = GAME.parse_move("seat envoy nobles milano", [])
    assert move not in GAME.legal_moves(s, "bettina")
    assert GAME.why_illegal(s, "bettina", move) == (
        "Move/Deploy: Nobles can only be laid in this action's payment spaces "
        "(palermo, strasbourg), one per figure paid there")
    with pytest.raises(MalformedMove, match="'1' in 'seat envoy nobles 1' is not a region"):
        GAME.parse_move("seat envoy nobles 1", [])
