"""End of a Round (steps 1-5), Round Scoring and Final Scoring as automatic steps.

After all players have passed, ``state.queue`` receives :data:`ROUND_END`, in the
rulebook's order: End of a Round 1 (ships), 2 (personalities), 3 (starting player),
4 (bonus actions, Leonardo last), 5 (new action cards); then Round Scoring (book tiles,
unmarried figures, the monastery after round 2, scoring cards); then the next round or,
after round 3, the Final Scoring.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import effects as E
from . import scoring as S
from . import tasks as T
from .board import (
    deal_personalities,
    lone_cities,
    track_order,
    turn_order,
)
from .effects import push
from .state import ROUNDS, State


def lone_figures(state: State, t: T.Step) -> None:
    """End of a Round 1: a lone figure on a ship takes 2 of its goods (a decision)."""
    push(state, *(T.LoneTake(s, player=ship.large) for s, ship in enumerate(state.ships)
                  if ship.large is not None))


def clear_ships(state: State, t: T.Step) -> None:
    """End of a Round 1: the rest of the goods on all 3 ships go back into the bag;
    afterward the Banker puts 5 new goods on each ship."""
    for ship in state.ships:
        E.to_bag(state, ship.goods)
    for s in range(len(state.ships)):
        E.refill_ship(state, s)


def redeal(state: State, t: T.Step) -> None:
    """End of a Round 2: the personalities are reshuffled and laid out again."""
    deal_personalities(state)


def new_start(state: State, t: T.Step) -> None:
    """End of a Round 3: the frontmost player on the track takes the rose basket."""
    state.start = state.active = track_order(state)[0][0]
    state.log(f"{state.name(state.start)} is the new starting player")


def bonus_start(state: State, t: T.Step) -> None:
    """End of a Round 4: bonus actions in track order, Leonardo last (each optional)."""
    tasks = [T.Bonus(False, player=p) for p, fig in track_order(state) if fig]
    if state.leonardo is not None:
        tasks.append(T.Bonus(True, player=state.leonardo))
    push(state, *tasks)


def bonus_end(state: State, t: T.Step) -> None:
    """End of a Round 4: all family members on bonus spaces, the passing track, the
    Leonardo tile and the free cities go back to their supplies."""
    for space in state.bonus.values():
        for p in space:
            state.players[p].supply += 1
        space.clear()
    for p, fig in track_order(state):
        state.players[p].supply += int(fig)
    state.top = [None] * 4
    state.long = []
    if state.leonardo is not None:  # Leonardo's extra bonus action was declined
        state.players[state.leonardo].supply += 1
        state.leonardo = None
    for key, owner in state.free_cities.items():
        if owner is not None:
            state.players[owner].supply += 1
            state.free_cities[key] = None


def deal_cards(state: State, t: T.Step) -> None:
    """End of a Round 5: 4 new action cards each (only if another round follows)."""
    if state.round >= ROUNDS:
        return
    deal = state.data.later_deal
    for p in turn_order(state):
        for _ in range(deal):
            E.draw_action_card(state, p)
    state.log(f"everybody received {deal} new action cards")


def books_reveal(state: State, t: T.Step) -> None:
    """Book tiles taken this round are revealed and resolved (reference §8.2, ASSUMPTION)."""
    tasks: list[T.Task] = []
    for p in turn_order(state):
        pl = state.players[p]
        for tile in pl.books:
            pl.books_open.append(tile)
            state.log(f"{pl.id} revealed book tile {tile}")
            tasks.append(T.Effects(state.data.book_tiles[tile].effects, None, player=p))
        pl.books = []
    push(state, *tasks)


def figure_scoring(state: State, t: T.Step) -> None:
    """Round Scoring 1: unmarried Princes and Princesses (4/2, then 6/3)."""
    if state.round not in state.data.figure_scoring:
        return
    for p in range(state.n):
        pts, parts = S.unmarried_points(state, p, state.round)
        if pts:
            E.gain_points(state, p, pts, "unmarried figures: " + ", ".join(parts))


def monastery_start(state: State, t: T.Step) -> None:
    if state.round != state.data.monastery_round:
        return
    push(state, *(T.Monastery(city, player=p) for p in turn_order(state)
                  for city in lone_cities(state, p)))


def cards_start(state: State, t: T.Step) -> None:
    """Round Scoring 2: scoring cards, in turn order from the starting player."""
    push(state, *(T.ScoreCards(player=p) for p in turn_order(state)))


def next_round(state: State, t: T.Step) -> None:
    """The next round begins, or after round 3 the final scoring follows."""
    if state.round >= ROUNDS:
        tiles = state.data.book_tiles
        push(state, *(T.Wild(tile, player=p) for p in turn_order(state)
                      for tile in state.players[p].books_open
                      if tiles[tile].kind == "sword"), T.Final())
        return
    state.round += 1
    for pl in state.players:
        pl.passed = False
    state.phase = "play"
    state.active = state.start
    state.log(f"round {state.round} begins; {state.name(state.start)} starts")


def final(state: State, t: T.Step) -> None:
    state.final = S.final_scoring(state)
    state.phase = "over"
    state.log("final scoring done; the game is over")


def take_bonus(state: State, p: int, space: str, leonardo: bool) -> None:
    """Bonus Action: move the figure from the track (or the Leonardo tile) to a space."""
    if leonardo:
        state.leonardo = None
    elif p in state.top:
        state.top[state.top.index(p)] = None
    else:
        state.long = [e for e in state.long if e[0] != p]
    state.bonus[space].append(p)
    state.log(f"{state.name(p)} took the bonus action {space}")
    E.run_all(state, p, state.data.bonus[space].effects, None)


def monastery(state: State, p: int, city: str, save: bool) -> None:
    """After round 2: pay 1 pink to keep an unmarried figure, or it leaves the board."""
    c = state.cities[city]
    name = state.data.cities[city].name
    if save:
        E.pay(state, p, "p")
        state.log(f"{state.name(p)} paid 1 pink to keep the figure in {name}")
        return
    for figure in ("prince", "princess"):
        if getattr(c, figure) == p:
            setattr(c, figure, None)
    state.players[p].supply += 1
    state.log(f"{state.name(p)}'s figure in {name} went to the monastery")


#: End of a Round 1-5 and Round Scoring, in the rulebook's order
ROUND_END = (T.LoneFigures(), T.ClearShips(), T.Redeal(), T.NewStart(), T.BonusStart(),
             T.BonusEnd(), T.DealCards(), T.BooksReveal(), T.FigureScoring(),
             T.MonasteryStart(), T.CardsStart(), T.NextRound())
#: what each step of the end of a round does
STEPS: dict[type[T.Task], Callable[[State, Any], None]] = {
    T.LoneFigures: lone_figures, T.ClearShips: clear_ships, T.Redeal: redeal,
    T.NewStart: new_start, T.BonusStart: bonus_start, T.BonusEnd: bonus_end,
    T.DealCards: deal_cards, T.BooksReveal: books_reveal, T.FigureScoring: figure_scoring,
    T.MonasteryStart: monastery_start, T.CardsStart: cards_start,
    T.NextRound: next_round, T.Final: final,
}
