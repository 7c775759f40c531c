"""What a viewer may see (view) and the same as text (render), plus the prompt line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .components import AllSeats, Pairs, Series, StauferData
from .moves import format_move
from .render import WIDTH, layout
from .rounds import b_region
from .rules import legal_moves
from .state import E, N, State
from .texts import N_, _, contract_name, event_text, figure_name, region_title

if TYPE_CHECKING:  # (types only: the view is plain JSON at run time)
    from .viewtypes import PendingView, PlayerView, RegionView, View

CONDITION_TEXT = {
    "king": N_("King's Region"),
    "fewest-chests": N_("Region with the fewest chests"),
    "most-seats": N_("Region with the most occupied seats"),
}
BONUS_TEXT = {
    "chests-2": N_("2 chests (1st, 2nd pick)"),
    "chests-all": N_("chests = players (pick in majority order)"),
    "envoys-2-1": N_("+2/+1 Envoys"),
    "envoy-all-1": N_("+1 Envoy to everyone present"),
    "vp-3-1": N_("+3/+1 points"),
    "vp-all-2": N_("+2 points to everyone present"),
}
PHASE_TEXT = {
    "turn": N_("choose an action (supply/deploy)"),  # + what else is legal: phase_text
    "seat": N_("choose the figures for the Move/Deploy action (seat ...)"),
    "take": N_("take a figure from a payment space (take <region>)"),
    "end": N_("take a privilege or end the turn (privilege N / done)"),
    "purple": N_("exchange 2 purple chests for a privilege before scoring goes on "
                 "(privilege N / done)"),
    "pick": N_("pick a revealed chest (pick <type>)"),
    "keep": N_("keep a figure on its seat (keep ... / keep none)"),
    "return": N_("privilege 13: vacated figures to Court or Province (return ...)"),
}


def chest_label(data: StauferData, cid: str) -> str:
    colour, ctype = data.chest_kind[cid]
    return colour if ctype == colour else f"{colour} {ctype}"


def describe_contract(data: StauferData, cid: str, players: int) -> str:
    """The card as text (Supplement: Contract Cards); 2nd place scores nothing with 2."""
    if cid.startswith("contract:region-"):
        region = region_title(data.region_titles[cid.removeprefix("contract:region-")])
        first, second = data.region_contract.first, data.region_contract.second
        if players == 2:
            return _("Region {region}: majority {first} (no 2nd place with 2 players)").format(
                region=region, first=first)
        return _("Region {region}: majority {first}, 2nd place {second}").format(
            region=region, first=first, second=second)
    if cid in data.blue:
        pattern = data.blue[cid]
        return _("Pattern ({name}, offsets {offsets}): {points} each").format(
            name=contract_name(pattern.id), offsets=pattern.offsets, points=pattern.points)
    card = data.red[cid]
    if isinstance(card, (Pairs, Series)):
        return _("Office seats ({name}): {points} each").format(
            name=contract_name(card.id), points=card.points)
    what = _("seats") if isinstance(card, AllSeats) else _("cost-{cost} seats").format(
        cost=card.cost)
    row = "/".join(str(v) for v in card.values)
    return _("Office seats ({name}): {row} for 1-{n} {what}, +{beyond} for each further "
             "seat").format(name=contract_name(card.id), row=row, n=len(card.values),
                            what=what, beyond=card.beyond)


def result_line(state: State) -> str:
    """The winner after the tie-break of the Final Scoring (most points, then most
    figures in the Court; still tied: a shared win)."""
    best = max(state.score)
    top = [p for p, s in enumerate(state.score) if s == best]
    names = [state.players[p] for p in top]
    if len(top) == 1:
        return _("Game over after round 5; winner {winner} with {points} points").format(
            winner=names[0], points=best)
    court = {p: sum(state.court[p]) for p in top}
    most = max(court.values())
    winners = [state.players[p] for p in top if court[p] == most]
    figures = ", ".join(f"{state.players[p]} {court[p]}" for p in top)
    tie = _("tie-break most figures in the Court ({figures})").format(figures=figures)
    tied = ", ".join(names)
    if len(winners) == 1:
        return _("Game over after round 5; {tied} tied on {points} points; winner {winner} "
                 "by the {tie}").format(tied=tied, points=best, winner=winners[0], tie=tie)
    return _("Game over after round 5; {tied} tied on {points} points; shared win "
             "{winners} (still tied after the {tie})").format(
        tied=tied, points=best, winners=", ".join(winners), tie=tie)


def phase_text(state: State) -> str:
    """What the active player must decide now, in words. At the start of a turn it names
    a first-position chest and a privilege only when one is legal now (the player holds
    such a chest; a privilege card is left that they can pay for)."""
    text = _(PHASE_TEXT[state.phase]) if state.phase in PHASE_TEXT else state.phase
    if state.phase != "turn" or state.finished:
        return text
    from . import rules  # the one generator says what else is legal

    kinds = {type(m).__name__ for m in rules.legal_moves(state, state.players[state.active])}
    extra = [_("{what} ({move})").format(what=_(what), move=move)
             for what, move, kind in _TURN_EXTRAS if kind in kinds]
    return text + (_(", or {choices}").format(choices=_(" or ").join(extra)) if extra else "")


#: what else a turn may start with: its words, its notation, its move kind
_TURN_EXTRAS = ((N_("use your first-position chest"), "first", "First"),
                (N_("take a privilege card"), "privilege N", "Privilege"))


def prompt(state: State) -> str:
    if state.finished:
        return result_line(state)
    who = state.players[state.active]
    return _("Round {round}: {player} to {decision}").format(
        round=state.round, player=who, decision=phase_text(state))


def seating(state: State) -> list[str]:
    """Players clockwise from the start player (Setup 9: they sit in the order listed)."""
    n = len(state.players)
    return [state.players[(state.start + i) % n] for i in range(n)]


def turn_order(state: State) -> list[str]:
    """The Turn Order Track, with the figure of the player taking a turn now first."""
    now = [state.active] if state.phase == "turn" and not state.finished else []
    return [state.players[q] for q in now + state.turn_track]


def _figs(figs: list[tuple[int, str]], state: State) -> list[str]:
    return [f"{state.players[q]}:{k}" for q, k in figs]


def _region_view(state: State, pos: int) -> RegionView:
    data = state.data
    key = state.ring[pos]
    payment: dict[str, list[int]] = {}
    for q, k in state.payment[pos]:
        counts = payment.setdefault(state.players[q], [0, 0])
        counts[0 if k == "E" else 1] += 1
    return {
        "region": key,
        "title": region_title(data.region_titles[key]),
        "king": pos == state.king,
        "distance_from_king": (pos - state.king) % 6,
        "scoring_tile": state.tiles[pos],
        "bonus": _(BONUS_TEXT[data.bonus[key]]),
        "seats": [
            {
                "seat": i + 1,
                "cost": state.seat_cost[pos][i],
                "noble_only": state.seat_noble[pos][i],
                "figures": _figs(occ, state),
                "chests": [chest_label(data, c) for c in state.seat_chests[pos][i]],
            }
            for i, occ in enumerate(state.seats[pos])
        ],
        "payment": {who: {"envoys": c[0], "nobles": c[1]} for who, c in payment.items()},
    }


def _player_view(state: State, p: int) -> PlayerView:
    return {
        "score": state.score[p],
        "court": {"envoys": state.court[p][E], "nobles": state.court[p][N]},
        "province": {"envoys": state.province[p][E], "nobles": state.province[p][N]},
        "chests": [chest_label(state.data, c) for c in state.held[p]],
        "privileges": sorted(state.privileges[p]),
        "vp_privilege": state.vp_card[p],
        "contracts": len(state.contracts[p]),
        "colour": state.data.colours[p],
    }


def _pending(state: State) -> PendingView:
    out: PendingView = {"phase": state.phase}
    if state.finished:
        return out
    out["player"] = state.players[state.active]
    if state.phase == "seat" and state.deploy is not None:
        d = state.deploy
        out["region"] = state.ring[d.pos]
        out["seat"] = d.seat + 1
        out["move_payments"] = [state.ring[x] for x in d.move_to]
        out["deploy_payments"] = [state.ring[x] for x in d.pay_to]
        out["track_envoy"] = d.bonus
    if state.phase == "take" and state.supply is not None:
        out["figure"] = figure_name("Noble" if state.supply.need[0] == "N" else "Envoy")
    if state.phase == "pick":
        out["revealed"] = [chest_label(state.data, c) for c in state.revealed]
        out["pickers"] = [state.players[q] for q in state.pickers]
    if state.phase == "purple":
        out["queue"] = [state.players[q] for q in state.purple_queue]
    if state.phase in ("keep", "return"):
        out["scored"] = [state.ring[x] for x in state.scored]
    return out


def view(state: State, viewer: str | None) -> View:
    data = state.data
    a_region, condition, _steps = state.rows[min(state.round, 5) - 1]
    out: View = {
        "game": "staufer",
        "round": state.round,
        "finished": state.finished,
        "prompt": prompt(state),
        "to_move": [] if state.finished else [state.players[state.active]],
        "pending": _pending(state),
        "king": state.ring[state.king],
        "regions": [_region_view(state, pos) for pos in range(6)],
        "supply_board": [
            {"space": i + 1, "figures": "+".join(data.supply_spaces[i]) or "-",
             "chests": [chest_label(data, c) for c in chests]}
            for i, chests in enumerate(state.supply_chests)
        ],
        "seating": seating(state),
        "start_player": state.players[state.start],
        "tracks": {
            "turn_order": turn_order(state),
            "supply_top_to_bottom": [state.players[q] for q in state.supply_track],
            "move_deploy_bottom_to_top": [state.players[q] for q in state.deploy_track],
        },
        "players": {state.players[p]: _player_view(state, p) for p in range(len(state.players))},
        "privilege_display": {
            "numbers": state.priv_numbers,
            "left": {str(x): state.priv_left[x] for x in state.priv_numbers if x != 1},
            "vp_stack_top_last": state.vp_stack,
        },
        "round_display": [
            {"round": r + 1, "a": row[0], "b": row[1], "c": row[2] or _("final scoring")}
            for r, row in enumerate(state.rows)
            if r + 1 >= state.round
        ],
        "evaluation": {
            "a": a_region,
            "b_now": state.ring[b_region(state, condition)],
            "b_condition": _(CONDITION_TEXT[condition]),
        },
        "chest_stack": len(state.stack),
        "discard_pile": len(state.discard),
        "events": [event_text(e) for e in state.events[-30:]],
        "scores": dict(zip(state.players, state.score, strict=True)),
    }
    if state.finished:
        out["final_scoring"] = state.final
        out["contracts"] = {state.players[p]: cs for p, cs in enumerate(state.contracts)}
    if viewer is not None and viewer in state.players:
        p = state.players.index(viewer)
        out["you"] = viewer
        out["your_contracts"] = [
            {"id": c, "text": describe_contract(data, c, len(state.players))}
            for c in state.contracts[p]
        ]
        out["legal"] = [format_move(m) for m in legal_moves(state, viewer)]
    return out


def render(state: State, viewer: str | None, width: int = WIDTH) -> str:
    """The board as text: lines of at most ``width`` characters (80 for a terminal, 78
    for a mail, wider for `status --wide`) with a legend (render.layout)."""
    return layout(view(state, viewer), width)
