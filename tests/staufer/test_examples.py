"""Every worked example of the rulebook, built from real states."""

from __future__ import annotations

from referee.games.staufer import GAME, rounds, scoring
from referee.games.staufer.scoring import brown_points, chest_points

from .helpers import (
    figures_in_payment,
    give,
    occupy,
    pi,
    play,
    pos,
    position,
    set_court,
    turn_of,
    under_seat,
    under_space,
)

# King in Nijmegen; clockwise: Strasbourg, Palermo, Aachen, Milano, Augsburg
RING = ["nijmegen", "strasbourg", "palermo", "aachen", "milano", "augsburg"]

BROWN = GAME.data.brown_points  # 2/5/9/14/20 per tally of five


def test_gabi_moves_to_aachen_paying_two_regions_and_the_target() -> None:
    s = position(4, RING, "nijmegen")
    set_court(s, "gabi", 8, 0)
    turn_of(s, "gabi", "rudi")
    play(s, "gabi", "deploy aachen 4")  # cost 3
    play(s, "gabi", "seat envoy")  # first Move/Deploy space shows an Envoy: declined
    for region in ("strasbourg", "palermo"):
        assert figures_in_payment(s, region, "gabi") == 1
    # Aachen: 1 for the move; deploy payment goes to Milano and Augsburg
    assert figures_in_payment(s, "aachen", "gabi") == 1
    assert figures_in_payment(s, "milano", "gabi") == 1
    assert figures_in_payment(s, "augsburg", "gabi") == 1
    assert figures_in_payment(s, "nijmegen", "gabi") == 0
    assert s.seats[pos(s, "aachen")][3] == [(pi(s, "gabi"), "E")]
    assert s.court[pi(s, "gabi")] == [2, 0]


def test_cost_five_deploy_pays_the_next_four_regions() -> None:
    s = position(4, RING, "nijmegen")
    set_court(s, "gabi", 5, 0)
    turn_of(s, "gabi", "rudi")
    play(s, "gabi", "deploy nijmegen 2")  # cost 5 in the King's Region: no move
    play(s, "gabi", "seat envoy")
    for region in ("strasbourg", "palermo", "aachen", "milano"):
        assert figures_in_payment(s, region, "gabi") == 1
    assert figures_in_payment(s, "augsburg", "gabi") == 0
    assert s.court[pi(s, "gabi")] == [0, 0]


def test_rudi_full_move_deploy_two_regions_and_cost_six_noble_seat() -> None:
    s = position(4, RING, "nijmegen")
    set_court(s, "rudi", 7, 1)
    under_seat(s, "palermo", 1, "purple")
    turn_of(s, "rudi", "gabi")
    assert "deploy palermo 1" in [t for t in _legal(s, "rudi")]
    play(s, "rudi", "deploy palermo 1")
    play(s, "rudi", "seat noble")
    assert s.seats[pos(s, "palermo")][0] == [(pi(s, "rudi"), "N")]
    # move: Strasbourg, Palermo; deploy: 5 more from Palermo clockwise
    expected = {"strasbourg": 2, "palermo": 1, "aachen": 1, "milano": 1, "augsburg": 1,
                "nijmegen": 1}
    for region, count in expected.items():
        assert figures_in_payment(s, region, "rudi") == count, region
    assert s.court[pi(s, "rudi")] == [0, 0]
    assert any(c.startswith("purple") for c in s.held[pi(s, "rudi")])


def _legal(s, name):  # type: ignore[no-untyped-def]
    from .helpers import legal_texts

    return legal_texts(s, name)


def test_majority_example_1() -> None:
    s = position(4, RING, "nijmegen")
    occupy(s, "bettina", "milano", 2)
    occupy(s, "bettina", "milano", 4)
    occupy(s, "rudi", "milano", 3)
    assert scoring.majority(s, pos(s, "milano")) == [pi(s, "bettina"), pi(s, "rudi")]


def _example_2(region: str) -> object:
    s = position(4, RING, "nijmegen")
    occupy(s, "rudi", region, 5)
    occupy(s, "gabi", region, 2)
    occupy(s, "gabi", region, 4)
    occupy(s, "guenter", region, 3, "N")
    return s


def test_majority_example_2_tie_goes_to_the_leftmost_seat() -> None:
    s = _example_2("strasbourg")
    ranking = scoring.majority(s, pos(s, "strasbourg"))
    assert ranking == [pi(s, "gabi"), pi(s, "guenter"), pi(s, "rudi")]


def test_points_7_4_3_and_strasbourg_bonus() -> None:
    s = _example_2("strasbourg")
    p = pos(s, "strasbourg")
    s.tiles[p] = [7, 4, 3]
    courts = [list(c) for c in s.court]
    rounds.score_region(s, p)
    assert s.score == [0, 3, 7, 4]  # bettina, rudi, gabi, guenter
    assert s.court[pi(s, "gabi")][0] == courts[pi(s, "gabi")][0] + 2
    assert s.court[pi(s, "guenter")][0] == courts[pi(s, "guenter")][0] + 1
    assert s.court[pi(s, "rudi")] == courts[pi(s, "rudi")]


def test_rudi_contracts_6_14_12() -> None:
    ring = ["augsburg", "nijmegen", "palermo", "aachen", "milano", "strasbourg"]
    s = position(4, ring, "augsburg")
    occupy(s, "gabi", "augsburg", 2)
    occupy(s, "gabi", "augsburg", 3)
    occupy(s, "rudi", "augsburg", 5)  # cost 3, 2nd place
    for region, seats in (("nijmegen", (2, 3)), ("palermo", (2, 3)), ("aachen", (3, 4))):
        for seat in seats:
            occupy(s, "rudi", region, seat)
    r = pi(s, "rudi")
    s.contracts[r] = ["contract:region-augsburg", "contract:blue-3-adjacent", "contract:red-cost4"]
    parts = scoring.final_breakdown(s, r)
    assert parts["contract:region-augsburg"] == 6
    assert parts["contract:blue-3-adjacent"] == 14
    assert parts["contract:red-cost4"] == 12
    assert sum(parts[c] for c in s.contracts[r]) == 32


def test_rudi_seven_brown_chests_25_and_28_with_three_more() -> None:
    s = position(4)
    assert brown_points(7, BROWN) == 25
    give(s, "rudi", "brown", 7)
    give(s, "rudi", "first", 1)
    give(s, "rudi", "keep", 1)
    give(s, "rudi", "purple", 1)
    points = chest_points(s, s.held[pi(s, "rudi")])
    assert points == {"brown": 25, "turquoise+purple": 3}
    assert sum(points.values()) == 28


def test_brown_three_chests_9() -> None:
    assert brown_points(3, BROWN) == 9
    assert [brown_points(k, BROWN) for k in range(1, 6)] == [2, 5, 9, 14, 20]


def test_bettina_two_series_30() -> None:
    s = position(4, RING, "nijmegen")
    for region, seat in (("aachen", 4), ("aachen", 5), ("nijmegen", 4), ("palermo", 3),
                         ("milano", 2), ("augsburg", 2)):
        occupy(s, "bettina", region, seat)  # two each of cost 3, 4 and 5
    costs = [c for _, c in scoring.seat_figures(s, pi(s, "bettina"))]
    assert sorted(costs) == [3, 3, 4, 4, 5, 5]
    assert scoring.contract_points(s, pi(s, "bettina"), "contract:red-series") == 30


def test_guenter_three_pairs_24() -> None:
    s = position(4, RING, "nijmegen")
    for region, seat in (("nijmegen", 3), ("nijmegen", 4), ("palermo", 3), ("palermo", 4)):
        occupy(s, "guenter", region, seat)
    occupy(s, "guenter", "aachen", 1, "N")
    occupy(s, "guenter", "milano", 1, "N")
    assert scoring.contract_points(s, pi(s, "guenter"), "contract:red-pairs") == 24


def test_bettina_supplies_chest_takes_the_purple_chest_of_another_space() -> None:
    s = position(4, RING, "nijmegen")
    give(s, "bettina", "supplies")
    under_space(s, 1, "brown")
    under_space(s, 3, "purple")
    turn_of(s, "bettina", "rudi")
    court = list(s.court[0])
    play(s, "bettina", "supply 1 chests 3")
    assert s.court[0] == [court[0] + 1, court[1] + 1]
    held = s.held[0]
    assert any(c.startswith("purple") for c in held)
    assert not any(c.startswith("brown") for c in held)
    assert len(s.supply_chests[0]) == 1 and s.supply_chests[2] == []
    assert not any("supplies" in c for c in held)
