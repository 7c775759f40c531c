"""What each viewer may see, as JSON and as text, and one-line prompts.

Hidden: hands of action cards, scoring cards and book tiles (own only), the order of the
decks and the contents of the bag. Private items are written with their token prefix
("card:a07", "scoring:y05", "book:ship-1") only in the owner's own section.
"""

from __future__ import annotations

from typing import Any

from . import data as D
from . import effects as E
from .render import render as narrow
from .rules import LIGHT_BLUE_COSTS_VIEW, pending, track_order
from .state import State

KIND_TEXT = {
    "divide": "divide the goods on ship {ship1} into two groups",
    "choose": "choose one of the groups offered on ship {ship1}",
    "self_take": "take 2 goods from ship {ship1} (trading with yourself)",
    "lone_take": "take 2 goods from ship {ship1} (lone figure at round end)",
    "take_ship": "take a good from a ship ({left} left)",
    "take_bag": "take {count} goods of their choice from the bag",
    "dowry_divide": "divide the dowry dice in {cityname} into 1 / 2",
    "dowry_choose": "choose a group of dowry dice in {cityname}",
    "neutral_dice": "keep {keep} of the dice rolled in {cityname}",
    "keep_scoring": "keep 1 of the scoring cards drawn",
    "upgrade": "choose a country for the upgrader",
    "wild": "choose the country for a Sword/Rose book tile",
    "envoy": "choose a free city",
    "marry": "choose a city for the neutral marriage",
    "second_trade": "choose the ship for the second trade (or say done)",
    "bonus": "choose a bonus action (or say done)",
    "monastery": "pay 1 pink for the figure in {cityname} or send it to the monastery",
    "score_cards": "play scoring cards (or say done)",
}


def describe(state: State, t: dict[str, Any]) -> str:
    fields = dict(t)
    if "ship" in t:
        fields["ship1"] = t["ship"] + 1
    if t.get("city"):
        fields["cityname"] = D.CITIES[t["city"]].name
    text = KIND_TEXT[t["k"]].format(**fields)
    if t["k"] == "bonus" and t.get("leonardo"):
        text += " (Leonardo's extra bonus action)"
    if t["k"] == "choose":
        text += ": " + " or ".join(t["groups"])
    if t["k"] in ("dowry_divide", "neutral_dice"):
        text += ": " + ", ".join(t["dice"])
    if t["k"] == "dowry_choose":
        text += ": " + " or ".join(t["groups"])
    return text


def prompt(state: State) -> str:
    if state.phase == "over":
        ranked = sorted(state.players, key=lambda pl: (-pl.score, -sum(pl.goods)))
        return "game over: " + ", ".join(f"{pl.id} {pl.score}" for pl in ranked)
    t = pending(state)
    if t is not None:
        return f"round {state.round}: {state.name(t['p'])} must {describe(state, t)}"
    return (f"round {state.round}: {state.name(state.active)} to play a card, sit out or pass")


def _card(n: int) -> str:
    return f"{n:>2} = card:a{n:02d} ({D.ACTION_CARDS[n].describe()})"


def view(state: State, viewer: str | None) -> dict[str, Any]:
    t = pending(state)
    out: dict[str, Any] = {
        "game": "dynasties",
        "round": state.round,
        "phase": state.phase,
        "prompt": prompt(state),
        "pending": None if t is None else {"player": state.name(t["p"]),
                                           "decision": describe(state, t)},
        "starting_player": state.name(state.start),
        "players": [_player_public(state, i) for i in range(state.n)],
        "cities": [_city(state, k) for k in state.cities],
        "ships": [{"ship": s + 1, "goods": E.letters(sh.goods), "large": state.name(sh.large),
                   "small": state.name(sh.small) if sh.small is not None else "-"}
                  for s, sh in enumerate(state.ships)],
        "personalities": [
            {"space": i + 1, "personality": key, "name": D.PERSONALITIES[key]["name"],
             "cost": (f"{LIGHT_BLUE_COSTS_VIEW[i]} light blue" if i < len(LIGHT_BLUE_COSTS_VIEW)
                      else f"{D.GOLD_PERSONALITY_COST} gold via special action"),
             "used": state.used[i]}
            for i, key in enumerate(state.personalities)],
        "leonardo": state.name(state.leonardo) if state.leonardo is not None else "-",
        "passing_track": [
            {"space": i + 1, "cost_pink": D.TRACK_COSTS[i], "player": state.name(who)}
            for i, who in enumerate(state.top)]
        + [{"space": "long", "players": [state.name(p) for p, _ in state.long]}],
        "bonus_spaces": {k: [state.name(p) for p in v] for k, v in state.bonus.items()},
        "free_cities": {k: state.name(v) for k, v in state.free_cities.items()},
        "free_book_city_tiles": len(state.free_books),
        "tablets": {c: {"tablet": state.tablets[c], **_tablet(state, c)} for c in D.COUNTRIES},
        "coats_of_arms_left": dict(zip(D.COUNTRIES, state.arms, strict=True)),
        "neutral_figures_left": state.neutral,
        "dice": list(state.dice),
        "action_deck": len(state.deck),
        "action_discard": [f"a{n:02d}" for n in state.discard],
        "yellow_deck": len(state.yellow),
        "scoring_discard": list(state.yellow_discard) + list(state.scored),
        "bag": sum(state.bag),
        "events": list(state.events),
    }
    if state.final:
        out["final_scoring"] = state.final
    if viewer is not None:
        for i, pl in enumerate(state.players):
            if pl.id == viewer:
                out["you"] = {
                    "player": pl.id,
                    "hand": [_card(n) for n in pl.hand],
                    "scoring_cards": [f"scoring:{c} ({D.SCORING[c]['text']})" for c in pl.scoring],
                    "drawn_scoring_cards": [f"scoring:{c} ({D.SCORING[c]['text']})"
                                            for c in pl.looking],
                    "book_tiles": [f"book:{b}" for b in pl.books],
                    "index": i,
                }
    return out


def _tablet(state: State, country: str) -> dict[str, int]:
    from .scoring import tablet_values

    first, second, crown = tablet_values(state, country)
    return {"first": first, "second": second, "crown": crown}


def _player_public(state: State, i: int) -> dict[str, Any]:
    pl = state.players[i]
    order = [p for p, _ in track_order(state)]
    return {
        "id": pl.id, "colour": pl.colour, "score": pl.score,
        "goods": E.letters(pl.goods), "supply": pl.supply,
        "action_cards": len(pl.hand), "scoring_cards": len(pl.scoring) + len(pl.looking),
        "book_tiles_face_down": len(pl.books), "book_tiles_open": list(pl.books_open),
        "coats_of_arms": {c: n for c, n in zip(D.COUNTRIES, pl.arms, strict=True) if n},
        "wild": dict(pl.wild), "passed": pl.passed,
        "track_position": order.index(i) + 1 if i in order else None,
    }


def _city(state: State, key: str) -> dict[str, Any]:
    c = state.cities[key]
    info = D.CITIES[key]
    return {"city": key, "name": info.name, "country": info.country, "symbol": info.symbol,
            "large": info.large,
            "prince": {"cost": f"{info.prince}k", "player": state.name(c.prince)},
            "princess": {"cost": f"{info.princess}w", "player": state.name(c.princess)},
            "child": state.name(c.star), "book_tiles": len(c.books)}


def render(state: State, viewer: str | None, wide: bool = False) -> str:
    """The board as text: at most 80 columns with a legend (render.render), or with
    ``wide`` the long table of one line per item (render_wide)."""
    return render_wide(state, viewer) if wide else narrow(view(state, viewer), state.final)


def render_wide(state: State, viewer: str | None) -> str:
    v = view(state, viewer)
    lines = [f"DYNASTIES - round {v['round']} - {v['prompt']}", ""]
    lines.append("Players (score, goods k/w/g/b/p, supply, cards, scoring cards, books):")
    for p in v["players"]:
        mark = " (passed)" if p["passed"] else ""
        arms = " arms " + ",".join(f"{c}:{n}" for c, n in p["coats_of_arms"].items()) \
            if p["coats_of_arms"] else ""
        opened = " +" + ",".join(p["book_tiles_open"]) if p["book_tiles_open"] else ""
        lines.append(f"  {p['id']:<10} {p['colour']:<7} {p['score']:>3} pts  goods "
                     f"{p['goods'] or '-':<12} supply {p['supply']:>2}  cards "
                     f"{p['action_cards']}  scoring {p['scoring_cards']}  books "
                     f"{p['book_tiles_face_down']}{opened}{arms}{mark}")
    lines.append("")
    lines.append("Cities (Prince cost/holder | Princess cost/holder | child):")
    country = None
    for c in v["cities"]:
        if c["country"] != country:
            country = c["country"]
            tab = v["tablets"][country]
            lines.append(f" {D.COUNTRY_NAMES[country]}  [1st {tab['first']}, 2nd "
                         f"{tab['second']}, crown {tab['crown']}]")
        big = {"prince": "P*", "princess": "W*"}[c["large"]]
        books = f" books:{c['book_tiles']}" if c["symbol"] == "book" else ""
        lines.append(f"   {c['city']:<12} {c['symbol']:<6} {c['prince']['cost']} "
                     f"{c['prince']['player']:<8} | {c['princess']['cost']} "
                     f"{c['princess']['player']:<8} | {c['child']}  (large {big}){books}")
    lines.append("")
    lines.append("Ships: " + "   ".join(
        f"{s['ship']}: {s['goods'] or '-'} [{s['large']}/{s['small']}]" for s in v["ships"]))
    lines.append("Personalities: " + ", ".join(
        f"{p['space']}:{p['personality']}({p['cost'].split(' ')[0]}"
        f"{'b' if p['space'] <= 6 else 'g'}{', used' if p['used'] else ''})"
        for p in v["personalities"]))
    track = ", ".join(f"{t['space']}({t['cost_pink']}p):{t['player']}"
                      for t in v["passing_track"][:-1])
    long = " ".join(v["passing_track"][-1]["players"]) or "-"
    lines.append(f"Passing track: {track}; long: {long}")
    lines.append(f"Dice: {' '.join(v['dice']) or '-'}   bag {v['bag']}   action deck "
                 f"{v['action_deck']}   yellow deck {v['yellow_deck']}   Leonardo {v['leonardo']}")
    if "you" in v:
        you = v["you"]
        lines.append("")
        lines.append(f"Your hand ({you['player']}):")
        lines += [f"  {c}" for c in you["hand"]] or ["  (none)"]
        lines.append("Your scoring cards: " + ("; ".join(you["scoring_cards"]) or "none"))
        if you["drawn_scoring_cards"]:
            lines.append("Drawn, keep one: " + "; ".join(you["drawn_scoring_cards"]))
        lines.append("Your book tiles: " + (", ".join(you["book_tiles"]) or "none"))
    if v["events"]:
        lines.append("")
        lines.append("Recent: " + " | ".join(v["events"][-6:]))
    if state.final:
        lines.append("")
        lines.append("Final scoring: " + "; ".join(
            f"{c}: majority {d['majority']} crown {d['crown']}" for c, d in state.final.items()))
    return "\n".join(lines)
