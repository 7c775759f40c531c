"""What each viewer may see, as JSON and as text, and one-line prompts.

Hidden: hands of action cards, scoring cards and book tiles (own only), the order of the
decks and the contents of the bag. Private items are written only in the owner's own
section: a card by its id, as the notation and the public events name it, beside its
text in the reader's language ("7 = a07 (trade+prince | ...)", "y05 (...)"), a book tile
by its name and, in brackets, its id ("Ship (2 goods) [ship-1]": no move names a tile,
but two tiles share a name, and the id tells the leak tests which one it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from referee.engine.textlayout import WIDTH

from . import effects as E
from . import tasks as T
from .render import render as board_text
from .rules import pending, track_order
from .scoring import tablet_values
from .state import State
from .words import N_, _, book_tile, card_text, event, name

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .viewtypes import (
        CityView,
        LongSpace,
        PlayerView,
        TabletView,
        TrackSpace,
        View,
        YouView,
    )

KIND_TEXT: dict[type[T.Decision], str] = {  # N_(): translated where used
    T.Divide: N_("divide the goods on ship {ship1} into two groups"),
    T.Choose: N_("choose one of the groups offered on ship {ship1}"),
    T.SelfTake: N_("take 2 goods from ship {ship1} (trading with yourself)"),
    T.LoneTake: N_("take 2 goods from ship {ship1} (lone figure at round end)"),
    T.TakeShip: N_("take a good from a ship ({left} left)"),
    T.TakeBag: N_("take {count} goods of their choice from the bag"),
    T.DowryDivide: N_("divide the dowry dice in {cityname} into 1 / 2"),
    T.DowryChoose: N_("choose a group of dowry dice in {cityname}"),
    T.NeutralDice: N_("keep {keep} of the dice rolled in {cityname}"),
    T.KeepScoring: N_("keep 1 of the scoring cards drawn"),
    T.Upgrade: N_("choose a country for the upgrader"),
    T.Wild: N_("choose the country for a Sword/Rose book tile"),
    T.Envoy: N_("choose a free city"),
    T.Marry: N_("choose a city for the neutral marriage"),
    T.SecondTrade: N_("choose the ship for the second trade (or say done)"),
    T.Bonus: N_("choose a bonus action (or say done)"),
    T.Monastery: N_("pay 1 pink for the figure in {cityname} or send it to the monastery"),
    T.ScoreCards: N_("play scoring cards (or say done)"),
}


def describe(state: State, t: T.Decision) -> str:
    """The decision ``t`` in words: its kind's text with the task's fields filled in."""
    fields = msgspec.structs.asdict(t)
    if "ship" in fields:
        fields["ship1"] = fields["ship"] + 1
    if fields.get("city"):
        fields["cityname"] = name(state.data.cities[fields["city"]].name)
    text = _(KIND_TEXT[type(t)]).format(**fields)
    if isinstance(t, T.Bonus) and t.leonardo:
        text += _(" (Leonardo's extra bonus action)")
    if isinstance(t, (T.Choose, T.DowryChoose)):
        text += ": " + _(" or ").join(t.groups)
    if isinstance(t, (T.DowryDivide, T.NeutralDice)):
        text += ": " + ", ".join(t.dice)
    return text


def prompt(state: State) -> str:
    if state.phase == "over":
        ranked = sorted(state.players, key=lambda pl: (-pl.score, -sum(pl.goods)))
        return _("game over: {scores}").format(
            scores=", ".join(f"{pl.id} {pl.score}" for pl in ranked))
    t = pending(state)
    if t is not None:
        return _("round {n}: {player} must {decision}").format(
            n=state.round, player=state.name(t.player), decision=describe(state, t))
    return _("round {n}: {player} to play a card, sit out or pass").format(
        n=state.round, player=state.name(state.active))


def _card(state: State, n: int) -> str:
    text = card_text(state.data.action_cards[n], state.data.cities)
    return f"{n:>2} = a{n:02d} ({text})"


def _scoring_card(state: State, key: str) -> str:
    return f"{key} ({name(state.data.scoring[key].text)})"





def _book_tile(state: State, key: str) -> str:
    return f"{book_tile(key, state.data.country_names)} [{key}]"


def view(state: State, viewer: str | None) -> View:
    t = pending(state)
    d = state.data
    light_blue = d.light_blue_costs
    out: View = {
        "game": "dynasties",
        "round": state.round,
        "phase": state.phase,
        "prompt": prompt(state),
        "pending": None if t is None else {"player": state.name(t.player),
                                           "decision": describe(state, t)},
        "starting_player": state.name(state.start),
        "players": [_player_public(state, i) for i in range(state.n)],
        "cities": [_city(state, k) for k in state.cities],
        "ships": [{"ship": s + 1, "goods": E.letters(sh.goods), "large": state.name(sh.large),
                   "small": state.name(sh.small) if sh.small is not None else "-"}
                  for s, sh in enumerate(state.ships)],
        "personalities": [
            {"space": i + 1, "personality": key, "name": name(d.personalities[key].name),
             "cost": (_("{n} light blue").format(n=light_blue[i]) if i < len(light_blue)
                      else _("{n} gold via special action").format(
                          n=d.gold_personality_cost)),
             "used": state.used[i]}
            for i, key in enumerate(state.personalities)],
        "leonardo": state.name(state.leonardo) if state.leonardo is not None else "-",
        "passing_track": _passing_track(state),
        "bonus_spaces": {k: [state.name(p) for p in v] for k, v in state.bonus.items()},
        "free_cities": {k: state.name(v) for k, v in state.free_cities.items()},
        "free_book_city_tiles": len(state.free_books),
        "tablets": {c: _tablet(state, c) for c in d.countries},
        "coats_of_arms_left": dict(zip(d.countries, state.arms, strict=True)),
        "neutral_figures_left": state.neutral,
        "dice": list(state.dice),
        "action_deck": len(state.deck),
        "action_discard": [f"a{n:02d}" for n in state.discard],
        "yellow_deck": len(state.yellow),
        "scoring_discard": list(state.yellow_discard) + list(state.scored),
        "bag": sum(state.bag),
        "events": [event(text, d) for text in state.events],
    }
    if state.final:
        out["final_scoring"] = state.final
    if viewer is not None:
        for i, pl in enumerate(state.players):
            if pl.id == viewer:
                out["you"] = _you(state, i)
    return out


def _passing_track(state: State) -> list[TrackSpace | LongSpace]:
    costs = state.data.track_costs
    out: list[TrackSpace | LongSpace] = [
        {"space": i + 1, "cost_pink": costs[i], "player": state.name(who)}
        for i, who in enumerate(state.top)]
    out.append({"space": "long", "players": [state.name(p) for p, _ in state.long]})
    return out


def _you(state: State, i: int) -> YouView:
    pl = state.players[i]
    return {
        "player": pl.id,
        "hand": [_card(state, n) for n in pl.hand],
        "scoring_cards": [_scoring_card(state, c) for c in pl.scoring],
        "drawn_scoring_cards": [_scoring_card(state, c) for c in pl.looking],
        "book_tiles": [_book_tile(state, b) for b in pl.books],
        "index": i,
    }


def _tablet(state: State, country: str) -> TabletView:
    first, second, crown = tablet_values(state, country)
    return {"tablet": state.tablets[country], "first": first, "second": second, "crown": crown}


def _player_public(state: State, i: int) -> PlayerView:
    pl = state.players[i]
    order = [p for p, _ in track_order(state)]
    return {
        "id": pl.id, "colour": pl.colour, "score": pl.score,
        "goods": E.letters(pl.goods), "supply": pl.supply,
        "action_cards": len(pl.hand), "scoring_cards": len(pl.scoring) + len(pl.looking),
        "book_tiles_face_down": len(pl.books), "book_tiles_open": list(pl.books_open),
        "book_tiles_open_names": [book_tile(b, state.data.country_names, short=True)
                                  for b in pl.books_open],
        "coats_of_arms": {c: n for c, n in zip(state.data.countries, pl.arms, strict=True)
                          if n},
        "wild": dict(pl.wild), "passed": pl.passed,
        "track_position": order.index(i) + 1 if i in order else None,
    }


def _city(state: State, key: str) -> CityView:
    c = state.cities[key]
    info = state.data.cities[key]
    return {"city": key, "name": name(info.name), "country": info.country, "symbol": info.symbol,
            "large": info.large,
            "prince": {"cost": f"{info.prince}k", "player": state.name(c.prince)},
            "princess": {"cost": f"{info.princess}w", "player": state.name(c.princess)},
            "child": state.name(c.star), "book_tiles": len(c.books)}


def render(state: State, viewer: str | None, width: int = WIDTH) -> str:
    """The board as text: lines of at most ``width`` characters (80 for a terminal, 78
    for a mail) with a legend of its abbreviations (render.render)."""
    names = {k: name(v) for k, v in state.data.country_names.items()}
    return board_text(view(state, viewer), state.final, names, width)
