"""Rules tests: special cases (? boxes), chests, privileges, bonuses, scoring, cleanup."""

from __future__ import annotations

import pytest

from referee.errors import AmbiguousMove, MalformedMove, UsageError
from referee.games.staufer import GAME, basics, gamesetup, rounds, rules
from referee.games.staufer.moves import Deploy, Privilege, Seat

from .helpers import (
    chest_of,
    figures_in_payment,
    give,
    legal_texts,
    occupy,
    play,
    pos,
    position,
    round_over,
    set_court,
    turn_of,
    under_seat,
    under_space,
)

RING = ["nijmegen", "strasbourg", "palermo", "aachen", "milano", "augsburg"]


def fresh(n: int = 4) -> object:
    s = position(n, RING, "nijmegen")
    turn_of(s, "bettina", "rudi")
    return s


# ------------------------------------------------------------ setup and turn order


def test_first_round_turn_order_clockwise_then_counterclockwise_twice() -> None:
    assert gamesetup.first_turn_order(4) == [0, 1, 2, 3, 3, 2, 1, 0, 3, 2, 1, 0]
    assert gamesetup.first_turn_order(2) == [0, 1, 1, 0, 1, 0]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup(n: int) -> None:
    s = position(n, empty_chests=False)
    seats = 4 if n == 2 else 5
    assert all(len(row) == seats for row in s.seats)
    assert all(len(c) == 1 for row in s.seat_chests for c in row)
    assert all(len(c) == 1 for c in s.supply_chests)
    assert s.court == [[4, 1]] * n and s.province == [[11, 2]] * n
    assert all(len(c) == 3 for c in s.contracts)
    assert [c.split("-")[0] for c in s.contracts[0]] == [
        "contract:region", "contract:blue", "contract:red"]
    assert len(s.vp_stack) == (5 if n == 5 else n) and s.vp_stack == sorted(s.vp_stack)
    copies = 1 if n == 2 else 2
    assert all(s.priv_left[x] == copies for x in s.priv_numbers if x != 1)
    assert s.ring[s.king] == s.unused_a and s.unused_a not in [r[0] for r in s.rows]
    assert [r[2] for r in s.rows][4] == 0 and len(s.tiles[0]) == (3 if n >= 4 else 2)


def test_custom_deck_is_validated() -> None:
    with pytest.raises(UsageError):
        position(3, options={"privileges": "custom", "privilege_list": "2,3,4,5,6,7"})
    s = position(3, options={"privileges": "custom", "privilege_list": "1,3,5,8,10,16"})
    assert s.priv_numbers == [1, 3, 5, 8, 10, 16]


def test_next_round_turn_order_supply_top_down_then_deploy_top_down() -> None:
    s = fresh()
    round_over(s)
    s.supply_track = [2, 0, 1, 3, 1, 0]  # top first
    s.deploy_track = [3, 2, 0, 1, 3, 2]  # bottom first
    s.scored = []
    rounds.finish_cleanup(s)
    assert s.active == 2
    assert [s.active, *s.turn_track] == [2, 0, 1, 3, 1, 0, 2, 3, 1, 0, 2, 3]


# ------------------------------------------------------------ Supply action


def test_supply_takes_figures_and_all_chests_under_the_space() -> None:
    s = fresh()
    under_space(s, 3, "brown")
    under_space(s, 3, "purple")
    play(s, "bettina", "supply 3")
    assert s.court[0] == [6, 1]
    assert len(s.held[0]) == 2 and s.supply_chests[2] == []
    assert s.supply_track == [0]


def test_supply_space_without_chest_and_chests_not_refilled_until_cleanup() -> None:
    s = fresh()
    play(s, "bettina", "supply 5")
    assert s.court[0] == [4, 1] and s.held[0] == []
    assert s.supply_chests == [[], [], [], [], []]


def test_supply_with_empty_province_takes_from_a_chosen_payment_space() -> None:
    s = fresh()
    set_court(s, "bettina", 15, 3)
    for region in ("milano", "aachen"):
        s.court[0][0] -= 1
        s.payment[pos(s, region)].append((0, "E"))
    assert s.province[0] == [0, 0]
    play(s, "bettina", "supply 4")
    assert GAME.to_move(s) == ["bettina"]
    assert legal_texts(s, "bettina") == ["take aachen", "take milano"]
    play(s, "bettina", "take mil")
    assert figures_in_payment(s, "milano", "bettina") == 0
    assert figures_in_payment(s, "aachen", "bettina") == 1


def test_supply_noble_nowhere_gives_an_envoy_instead() -> None:
    s = fresh()
    set_court(s, "bettina", 4, 3)
    play(s, "bettina", "supply 2")
    assert s.court[0] == [5, 3]


# ------------------------------------------------------------ Move/Deploy action


def test_noble_icon_seat_only_for_a_noble() -> None:
    s = fresh()
    set_court(s, "bettina", 10, 0)
    assert "deploy nijmegen 1" not in legal_texts(s, "bettina")
    why = GAME.why_illegal(s, "bettina", Deploy("nijmegen", 1))
    assert "Noble icon" in why
    set_court(s, "bettina", 10, 1)
    play(s, "bettina", "deploy nijmegen 1")
    assert "seat envoy" not in legal_texts(s, "bettina")


def test_must_pay_move_and_deploy_in_full() -> None:
    s = fresh()
    set_court(s, "bettina", 2, 0)
    s.deploy_track = []
    texts = legal_texts(s, "bettina")
    # track Envoy makes 3: cost 3 in the King's Region or cost... at distance 0
    assert "deploy nijmegen 5" in texts  # cost 3 with the track Envoy
    assert "deploy strasbourg 5" not in texts  # 1 move + 3 = 4 figures
    why = GAME.why_illegal(s, "bettina", Deploy("strasbourg", 5))
    assert "pay both steps in full" in why


def test_track_envoy_is_usable_at_once_and_optional() -> None:
    s = fresh()
    set_court(s, "bettina", 2, 0)
    play(s, "bettina", "deploy nijmegen 5")
    # exactly one way: the Envoy must be taken, so no decision is asked
    assert s.seats[0][4] == [(0, "E")] and s.court[0] == [0, 0]
    s2 = fresh()
    set_court(s2, "bettina", 5, 0)
    play(s2, "bettina", "deploy nijmegen 5")
    assert legal_texts(s2, "bettina") == ["seat envoy", "seat envoy bonus"]
    play(s2, "bettina", "seat envoy")
    assert s2.court[0] == [2, 0]


def test_third_deploy_has_no_track_envoy() -> None:
    s = fresh()
    s.deploy_track = [1, 2]
    for q in (1, 2):
        s.turn_track.remove(q)
    assert not rules.bonus_available(s, 0)


def test_choice_of_nobles_paying_and_figure_on_seat() -> None:
    """Move/Deploy ?: "Can I use Nobles to pay for both the Move and the Deploy steps?
    Yes, you may use Nobles in either case." The payer chooses which payment spaces get
    the Nobles (interpretation S6): it decides when they come back (the King's travel)."""
    s = fresh()
    s.deploy_track = [1, 2]
    for q in (1, 2):
        s.turn_track.remove(q)
    set_court(s, "bettina", 2, 2)
    play(s, "bettina", "deploy nijmegen 5")  # cost 3: Strasbourg and Palermo get one each
    assert legal_texts(s, "bettina") == [
        "seat envoy nobles palermo",
        "seat envoy nobles strasbourg",
        "seat envoy nobles palermo strasbourg",
        "seat noble",
        "seat noble nobles palermo",
        "seat noble nobles strasbourg",
    ]
    play(s, "bettina", "seat envoy nobles pa")
    assert s.payment[pos(s, "strasbourg")] == [(0, "E")]
    assert s.payment[pos(s, "palermo")] == [(0, "N")]


def test_nobles_in_a_payment_space_paid_twice() -> None:
    """Move 1 + Deploy 2: a cost-7 seat wraps onto the target's own payment space, which
    the Move step also paid; two Nobles may go there ("one figure per Region")."""
    s = fresh()
    set_court(s, "bettina", 9, 3)
    play(s, "bettina", "deploy strasbourg 1")  # move 1 (Strasbourg) + cost 7 (6 payers)
    legal = legal_texts(s, "bettina")
    assert "seat noble nobles strasbourg strasbourg" in legal
    assert "seat noble nobles strasbourg strasbourg strasbourg" not in legal
    play(s, "bettina", "seat noble nobles strasbourg strasbourg")
    assert s.payment[pos(s, "strasbourg")] == [(0, "N"), (0, "N")]
    assert s.court[0] == [9 - 5, 0]


def test_cost_seven_wraps_onto_the_target_payment_space() -> None:
    assert rules.pay_spaces(3, 7) == [4, 5, 0, 1, 2, 3]


def test_several_chests_under_a_seat_are_all_taken() -> None:
    s = fresh()
    under_seat(s, "nijmegen", 5, "brown")
    under_seat(s, "nijmegen", 5, "purple")
    play(s, "bettina", "deploy nijmegen 5")
    play(s, "bettina", "seat envoy")
    assert len(s.held[0]) == 2


# ------------------------------------------------------------ chests


@pytest.mark.parametrize(
    ("ctype", "score", "court"),
    [("vp2", 2, [4, 1]), ("vp5", 5, [4, 1]), ("envoy1", 0, [5, 1]), ("envoy3", 0, [7, 1]),
     ("noble", 0, [4, 2])],
)
def test_orange_chests_act_at_once(ctype: str, score: int, court: list[int]) -> None:
    s = fresh()
    under_space(s, 5, ctype)
    play(s, "bettina", "supply 5")
    assert s.score[0] == score and s.court[0] == court
    assert s.held[0] == [] and any(ctype in c for c in s.discard)


def test_turquoise_first_position_on_the_supply_track() -> None:
    s = fresh()
    s.supply_track = [2]
    s.turn_track.remove(2)
    give(s, "bettina", "first")
    play(s, "bettina", "first")
    assert "first" not in legal_texts(s, "bettina")
    play(s, "bettina", "deploy nijmegen 5")
    assert s.supply_track == [0, 2] and s.deploy_track == []


def test_turquoise_free_move_and_free_pay_together() -> None:
    s = fresh()
    set_court(s, "bettina", 1, 0)
    give(s, "bettina", "free-move")
    give(s, "bettina", "free-pay")
    s.deploy_track = [1, 2]
    for q in (1, 2):
        s.turn_track.remove(q)
    texts = legal_texts(s, "bettina")
    assert "deploy milano 2 free-move free-pay" in texts
    assert "deploy milano 2 free-move" not in texts
    play(s, "bettina", "deploy milano 2 free-move free-pay")
    assert s.seats[pos(s, "milano")][1] == [(0, "E")] and s.held[0] == []
    assert all(not p for p in s.payment)


def test_turquoise_keep_figure_at_cleanup() -> None:
    s = fresh()
    occupy(s, "bettina", "nijmegen", 2)
    occupy(s, "bettina", "nijmegen", 3)
    give(s, "bettina", "keep")
    s.scored = [0]
    round_over(s)
    rounds.begin_cleanup(s)
    assert GAME.to_move(s) == ["bettina"]
    assert legal_texts(s, "bettina") == ["keep none", "keep nijmegen 2 envoy",
                                         "keep nijmegen 3 envoy"]
    play(s, "bettina", "keep nijmegen 3 envoy")
    assert s.seats[0][2] == [(0, "E")] and s.seats[0][1] == []
    assert len(s.seat_chests[0][2]) == 1  # replenished although occupied


def test_purple_exchange_limits() -> None:
    s = fresh()
    give(s, "bettina", "purple", 6)
    texts = legal_texts(s, "bettina")
    assert [t for t in texts if t.startswith("privilege")] == [
        f"privilege {x}" for x in s.priv_numbers]
    play(s, "bettina", "privilege 1")
    assert s.score[0] == max([*s.vp_stack, s.vp_card[0]]) == s.vp_card[0]
    assert "privilege 1" not in legal_texts(s, "bettina")
    play(s, "bettina", f"privilege {s.priv_numbers[1]}")
    assert f"privilege {s.priv_numbers[1]}" not in legal_texts(s, "bettina")
    why = GAME.why_illegal(s, "bettina", Privilege(s.priv_numbers[1]))
    assert "only 1" in why


def test_purple_exchange_after_the_action_then_done() -> None:
    s = fresh()
    give(s, "bettina", "purple")
    under_space(s, 4, "purple")
    play(s, "bettina", "supply 4")
    assert GAME.to_move(s) == ["bettina"] and "done" in legal_texts(s, "bettina")
    play(s, "bettina", "done")
    assert GAME.to_move(s) == ["rudi"]


def test_reshuffle_discards_when_stack_is_empty() -> None:
    s = fresh()
    s.discard.extend(s.stack)
    s.stack = []
    cid = basics.draw_chest(s)
    assert cid is not None and len(s.stack) == 71 - len(s.held[0])


# ------------------------------------------------------------ privileges 1-16


def with_priv(number: int, n: int = 4) -> object:
    s = fresh(n)
    s.privileges[0].append(number)
    return s


def test_privilege_2_second_figure_on_an_occupied_seat() -> None:
    s = with_priv(2)
    occupy(s, "rudi", "nijmegen", 5)
    play(s, "bettina", "deploy nijmegen 5")
    play(s, "bettina", "seat envoy")
    assert s.seats[0][4] == [(1, "E"), (0, "E")]
    assert scoring_counts(s, 0) == 2  # counts as two seats for the majority


def scoring_counts(s: object, p: int) -> int:
    from referee.games.staufer.scoring import majority
    return len(majority(s, p))


def test_privilege_3_second_envoy_free() -> None:
    s = with_priv(3)
    play(s, "bettina", "deploy nijmegen 5")
    assert "seat envoy double" in legal_texts(s, "bettina")
    play(s, "bettina", "seat envoy double")
    assert s.seats[0][4] == [(0, "E"), (0, "E")] and s.court[0] == [0, 1]


@pytest.mark.parametrize(("privs", "cost"), [((4,), 3), ((5,), 6), ((4, 5), 2)])
def test_privileges_4_and_5_deploy_cost(privs: tuple[int, ...], cost: int) -> None:
    s = fresh()
    s.privileges[0].extend(privs)
    assert rules.deploy_cost(s, 0, pos(s, "aachen"), 0, False) == cost  # printed 7


def test_privilege_6_three_points_per_figure_in_kings_region() -> None:
    s = with_priv(6)
    s.privileges[0].append(3)
    play(s, "bettina", "deploy nijmegen 5")
    play(s, "bettina", "seat envoy double")
    assert s.score[0] == 6


def test_privilege_7_8_9_supply() -> None:
    s = fresh()
    s.privileges[0].extend([7, 8, 9])
    assert "supply 5 +envoy +draw" in legal_texts(s, "bettina")
    assert "supply 5" in legal_texts(s, "bettina")
    stack = len(s.stack)
    play(s, "bettina", "supply 5 +envoy +draw")
    assert s.court[0][0] >= 5 and len(s.stack) == stack - 1 and s.score[0] >= 2


@pytest.mark.parametrize(
    ("privs", "target", "spaces"),
    [((), "aachen", ["strasbourg", "palermo", "aachen"]),
     ((10,), "aachen", ["aachen"]),
     ((11,), "milano", ["aachen", "milano"]),
     ((10, 11), "milano", []),
     ((12,), "strasbourg", []),
     ((12,), "augsburg", []),
     ((12,), "palermo", ["strasbourg", "palermo"])],
)
def test_privileges_10_11_12_movement(privs: tuple[int, ...], target: str,
                                      spaces: list[str]) -> None:
    s = fresh()
    s.privileges[0].extend(privs)
    got = rules.move_spaces(s, 0, pos(s, target), False)
    assert [s.ring[x] for x in got] == spaces


def test_privilege_13_figures_return_to_court() -> None:
    s = with_priv(13)
    occupy(s, "bettina", "nijmegen", 2)
    occupy(s, "rudi", "nijmegen", 3)
    s.scored = [0]
    round_over(s)
    court = list(s.court[0])
    rounds.begin_cleanup(s)
    assert legal_texts(s, "bettina") == ["return court", "return province"]
    play(s, "bettina", "return court")
    assert s.court[0][0] == court[0] + 1 and s.seats[0][2] == []


def test_privileges_14_15_region_scoring() -> None:
    s = fresh()
    s.privileges[0].extend([14, 15])
    s.privileges[1].extend([14, 15])
    occupy(s, "bettina", "milano", 2)
    occupy(s, "rudi", "milano", 3)
    p = pos(s, "milano")
    s.tiles[p] = [7, 4, 3]
    rounds.score_region(s, p)
    assert s.score[:2] == [7 + 3 + 2 + 2, 4 + 2 + 2 + 2]


def test_privilege_14_no_second_place_extra_with_two_players() -> None:
    s = fresh(2)
    s.privileges[1].append(14)
    occupy(s, "bettina", "milano", 2)
    occupy(s, "rudi", "milano", 3)
    p = pos(s, "milano")
    s.tiles[p] = [7, 4]
    rounds.score_region(s, p)
    assert s.score == [7 + 2, 4 + 2]


def test_privilege_16_orange_chest_two_more() -> None:
    s = with_priv(16)
    under_space(s, 5, "vp3")
    play(s, "bettina", "supply 5")
    assert s.score[0] == 5


def test_privilege_1_vp_stack_highest_first() -> None:
    s = fresh(2)
    assert s.vp_stack == [4, 5]
    give(s, "bettina", "purple", 2)
    play(s, "bettina", "privilege 1")
    assert s.score[0] == 5 and s.vp_stack == [4]


# ------------------------------------------------------------ Region Scoring


def test_third_place_only_with_four_or_five_players() -> None:
    for n, third in ((3, 0), (4, 3)):
        s = position(n, RING, "nijmegen")
        occupy(s, "bettina", "milano", 2)
        occupy(s, "bettina", "milano", 3)
        occupy(s, "rudi", "milano", 4)
        occupy(s, "gabi", "milano", 5)
        p = pos(s, "milano")
        s.tiles[p] = [7, 4, 3][:len(s.tiles[p])]
        rounds.score_region(s, p)
        assert s.score[2] == third + 2  # Milano: +2 to everyone present


@pytest.mark.parametrize(
    ("region", "first", "second", "third"),
    [("strasbourg", (2, 0), (1, 0), (0, 0)), ("nijmegen", (1, 0), (1, 0), (1, 0)),
     ("palermo", (0, 3), (0, 1), (0, 0)), ("milano", (0, 2), (0, 2), (0, 2))],
)
def test_region_bonuses(region: str, first: tuple[int, int], second: tuple[int, int],
                        third: tuple[int, int]) -> None:
    s = position(3, RING, "nijmegen")
    occupy(s, "bettina", region, 2)
    occupy(s, "bettina", region, 3)
    occupy(s, "rudi", region, 4)
    occupy(s, "gabi", region, 5)
    p = pos(s, region)
    s.tiles[p] = [0, 0]
    envoys = [c[0] for c in s.court]
    rounds.score_region(s, p)
    for q, (env, pts) in enumerate((first, second, third)):
        assert (s.court[q][0] - envoys[q], s.score[q]) == (env, pts)


def test_augsburg_first_then_second_pick() -> None:
    s = position(3, RING, "nijmegen")
    occupy(s, "bettina", "augsburg", 5)
    occupy(s, "rudi", "augsburg", 2)
    occupy(s, "rudi", "augsburg", 3)
    s.stack.append(chest_of(s, "brown"))
    s.stack.append(chest_of(s, "purple"))
    p = pos(s, "augsburg")
    s.tiles[p] = [0, 0]
    round_over(s)
    s.to_score = [p]
    s.scored = [p]
    rounds.score_next(s)
    assert GAME.to_move(s) == ["rudi"]
    assert sorted(legal_texts(s, "rudi")) == ["pick brown", "pick purple"]
    play(s, "rudi", "pick brown")
    assert any(c.startswith("purple") for c in s.held[0])


def test_aachen_every_present_player_picks_in_majority_order() -> None:
    s = position(4, RING, "nijmegen")
    occupy(s, "gabi", "aachen", 2)
    occupy(s, "rudi", "aachen", 3)
    occupy(s, "bettina", "aachen", 4)
    for ctype in ("vp2", "brown", "purple", "keep"):
        s.stack.append(chest_of(s, ctype))
    p = pos(s, "aachen")
    s.tiles[p] = [0, 0, 0]
    round_over(s)
    s.to_score = [p]
    s.scored = [p]
    rounds.score_next(s)
    assert GAME.to_move(s) == ["gabi"] and len(legal_texts(s, "gabi")) == 4
    play(s, "gabi", "pick keep")
    assert GAME.to_move(s) == ["rudi"]
    play(s, "rudi", "pick purple")
    assert GAME.to_move(s) == ["bettina"]
    play(s, "bettina", "pick vp2")
    assert s.score[0] == 2 and s.held[3] == [] and s.revealed == []
    assert any("brown" in c for c in s.discard)


@pytest.mark.parametrize(
    ("condition", "setup", "expected"),
    [("king", {}, "nijmegen"),
     ("most-seats", {"palermo": 2, "milano": 2}, "palermo"),
     ("most-seats", {}, "nijmegen"),
     ("fewest-chests", {}, "nijmegen")],
)
def test_b_conditions_with_ties_closest_clockwise_from_king(
        condition: str, setup: dict[str, int], expected: str) -> None:
    s = position(4, RING, "nijmegen")
    for region, count in setup.items():
        for seat in range(count):
            occupy(s, "rudi", region, seat + 2)
    assert s.ring[rounds.b_region(s, condition)] == expected


def test_fewest_chests_tie_break() -> None:
    s = position(4, RING, "strasbourg", empty_chests=False)
    for region in ("milano", "nijmegen"):
        s.stack.extend(s.seat_chests[pos(s, region)][0])
        s.seat_chests[pos(s, region)][0] = []
    # Milano is 3 steps clockwise from Strasbourg, Nijmegen 5
    assert s.ring[rounds.b_region(s, "fewest-chests")] == "milano"


def test_same_region_is_scored_once() -> None:
    s = position(4, RING, "nijmegen")
    s.rows[0] = ("nijmegen", "king", 1)
    assert rounds.scoring_regions(s) == [0]
    s.rows[0] = ("milano", "king", 1)
    assert rounds.scoring_regions(s) == [pos(s, "milano"), 0]


# ------------------------------------------------------------ Cleanup


def test_cleanup_vacates_replenishes_on_top_and_king_travels() -> None:
    s = position(4, RING, "nijmegen")
    occupy(s, "rudi", "milano", 2)
    occupy(s, "rudi", "palermo", 2)
    under_seat(s, "milano", 3, "brown")
    for region in ("nijmegen", "strasbourg", "palermo", "aachen"):
        s.payment[pos(s, region)].append((1, "E"))
        s.province[1][0] -= 1
    s.rows[0] = ("milano", "king", 2)
    round_over(s)
    envoys = s.court[1][0]
    rounds.begin_scoring(s)
    assert s.seats[pos(s, "milano")][1] == [] and s.seats[pos(s, "palermo")][1] == [(1, "E")]
    assert [len(c) for c in s.seat_chests[pos(s, "milano")]] == [1, 1, 2, 1, 1]
    assert s.seat_chests[pos(s, "milano")][2][0].startswith("brown")  # old chest below
    assert all(len(c) == 1 for c in s.supply_chests)
    assert s.ring[s.king] == "palermo"
    # cleared: Strasbourg and Palermo; not Nijmegen (left) nor Aachen (not reached)
    assert [figures_in_payment(s, r, "rudi") for r in RING[:4]] == [1, 0, 0, 1]
    assert s.court[1][0] == envoys + 2 + 0  # Milano 2nd-place-free: no Envoy bonus
    assert s.round == 2 and GAME.to_move(s) == ["bettina"]


def test_round_five_has_no_cleanup_and_final_scoring() -> None:
    s = position(2, RING, "nijmegen")
    s.round = 5
    occupy(s, "rudi", "milano", 2)
    round_over(s)
    give(s, "rudi", "purple")
    rounds.begin_scoring(s)
    assert GAME.finished(s) and s.seats[pos(s, "milano")][1] == [(1, "E")]
    assert s.final["rudi"]["turquoise+purple"] == 1


def test_ranking_tie_break_court_figures_then_shared() -> None:
    s = position(3)
    s.score = [10, 10, 10]
    s.court = [[3, 0], [4, 0], [3, 0]]
    assert GAME.ranking(s) == [["rudi"], ["bettina", "gabi"]]


# ------------------------------------------------------------ notation


def test_parse_errors() -> None:
    with pytest.raises(MalformedMove):
        GAME.parse_move("supply", [])
    with pytest.raises(MalformedMove):
        GAME.parse_move("deploy paris 2", [])
    with pytest.raises(MalformedMove):
        GAME.parse_move("fly away", [])
    with pytest.raises(AmbiguousMove):
        GAME.parse_move("deploy a 2", [])
    assert GAME.parse_move("Deploy  AA 2  FREE-MOVE", []) == Deploy("aachen", 2, True)
    assert GAME.parse_move("seat noble nobles mil aa bonus", []) == Seat(
        "noble", ("aachen", "milano"), False, True
    )


def test_why_illegal_wrong_phase_and_seat() -> None:
    s = fresh()
    assert "choose an action" in GAME.why_illegal(s, "bettina", Seat("envoy"))
    assert "owes" in GAME.why_illegal(s, "rudi", Seat("envoy"))
    occupy(s, "rudi", "nijmegen", 5)
    assert "unoccupied" in GAME.why_illegal(s, "bettina", Deploy("nijmegen", 5))
    assert "seats 1-5" in GAME.why_illegal(s, "bettina", Deploy("nijmegen", 9))
