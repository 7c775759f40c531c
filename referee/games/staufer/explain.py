"""why_illegal: which rule forbids a well-formed move (only explains).

Total for every move the decoder accepts, and public: `check` prints these texts into CI
logs of sealed games, so they never name a contract or a face-down chest; they speak
only of the board, the Courts and the chests in front of the player (all open).
"""

from __future__ import annotations

from .basics import available_privileges, has, holds, purple_count
from .moves import Deploy, Done, First, Keep, Move, Pick, Privilege, Return, Seat, Supply, Take
from .rules import bonus_available, can_pay, deploy_cost, move_spaces
from .state import State
from .texts import _, region_title
from .views import phase_text

PHASE_OF = {
    Supply: "turn", Deploy: "turn", First: "turn", Seat: "seat", Take: "take",
    Pick: "pick", Keep: "keep", Return: "return",
}


def why_illegal(state: State, player: str, move: Move) -> str:
    if state.finished:
        return _("the game is over")
    if player not in state.players:
        return _("{player} does not play in this game").format(player=player)
    if state.players[state.active] != player:
        return _("{active} owes the current decision, not {player}").format(
            active=state.players[state.active], player=player)
    p = state.active
    want = PHASE_OF.get(type(move))
    if isinstance(move, Privilege):
        return _privilege(state, p, move)
    if isinstance(move, Done):
        if state.phase in ("end", "purple"):
            return _("it is legal")
        return _now(state)
    if want != state.phase:
        return _now(state)
    if isinstance(move, Supply):
        return _supply(state, p, move)
    if isinstance(move, Deploy):
        return _deploy(state, p, move)
    if isinstance(move, First):
        if state.first_used:
            return _("you already use a first-position chest this turn")
        return _("Supplement, turquoise chests: you have no 'first position' chest")
    if isinstance(move, Seat):
        return _seat(state, p, move)
    if isinstance(move, Take):
        return _("Supply ?: you may only take the figure from a payment space holding one of yours")
    if isinstance(move, Pick):
        return _("Region Bonuses: no chest of that type is on display")
    if isinstance(move, Keep):
        return _("Supplement, keep figure: choose one of your figures on a seat of a scored Region")
    return _("that choice is not available now")


def _now(state: State) -> str:
    return _("now you must {decision}").format(decision=phase_text(state))


def _privilege(state: State, p: int, move: Privilege) -> str:
    x = move.number
    if state.phase not in ("turn", "end", "purple"):
        return _("Supplement, purple chests: not while this decision is open; now you must "
                 "{decision}").format(decision=phase_text(state))
    if x not in state.priv_numbers:
        return _("privilege {number} is not in this game (in play: {numbers})").format(
            number=x, numbers=state.priv_numbers)
    if purple_count(state, p) < 2:
        return _("Supplement, purple chests: a privilege costs 2 purple chests")
    if x in state.privileges[p]:
        return _("Supplement, purple chests: you may have only 1 privilege {number}").format(
            number=x)
    if x in available_privileges(state, p):
        return _("it is legal")
    return _("no privilege {number} card is left").format(number=x)


def _supply(state: State, p: int, move: Supply) -> str:
    spaces = len(state.data.supply_spaces)
    if not 1 <= move.space <= spaces:
        return _("the Supply Board has spaces 1-{spaces}").format(spaces=spaces)
    if move.chests:
        if holds(state, p, "supplies") is None:
            return _("Supplement, turquoise 'Supplies' chest: you have none")
        if move.chests == move.space or not 1 <= move.chests <= spaces:
            return _("Supplies chest: name a different Supply Board space")
        return _("Supplies chest: there is no chest under that space")
    if move.envoy and not has(state, p, 7):
        return _("+envoy needs privilege 7")
    if move.draw and not has(state, p, 8):
        return _("+draw needs privilege 8")
    return _("that Supply action is not available")


def _deploy(state: State, p: int, move: Deploy) -> str:
    pos = state.ring.index(move.region)
    seats = state.seats[pos]
    title = region_title(state.data.region_titles[move.region])
    if not 1 <= move.seat <= len(seats):
        return _("{region} has office seats 1-{seats}").format(region=title, seats=len(seats))
    i = move.seat - 1
    occ = seats[i]
    if len(occ) >= 2:
        return _("Privileges 2/3: there may never be more than 2 figures on an office seat")
    if occ and not has(state, p, 2):
        return _("Move/Deploy: you may only occupy an unoccupied office seat (privilege 2 aside)")
    if move.free_move and holds(state, p, "free-move") is None:
        return _("Supplement: you have no turquoise 'no movement cost' chest")
    if move.free_pay and holds(state, p, "free-pay") is None:
        return _("Supplement: you have no turquoise 'no payment cost' chest")
    moving = len(move_spaces(state, p, pos, move.free_move))
    if move.free_move and not len(move_spaces(state, p, pos, False)):
        return _("the 'no movement cost' chest is pointless: this move costs nothing")
    paying = deploy_cost(state, p, pos, i, move.free_pay)
    if move.free_pay and deploy_cost(state, p, pos, i, False) == 1:
        return _("the 'no payment cost' chest is pointless: this seat costs one figure")
    noble_only = state.seat_noble[pos][i]
    if noble_only and state.court[p][1] == 0:
        return _("Move/Deploy: a seat with a Noble icon may only be occupied by a Noble")
    if not can_pay(state, p, moving + paying, noble_only, bonus_available(state, p)):
        have = sum(state.court[p])
        return _("Move/Deploy: you must be able to pay both steps in full: {moving} to move + "
                 "{paying} to deploy, but your Court holds {have} figures").format(
            moving=moving, paying=paying, have=have)
    return _("that Move/Deploy action is not available")


def _seat(state: State, p: int, move: Seat) -> str:
    ctx = state.deploy
    if ctx is None:
        return _("no Move/Deploy action is waiting")
    if move.figure == "envoy" and ctx.noble_only:
        return _("Move/Deploy: a seat with a Noble icon may only be occupied by a Noble")
    if move.double and not ctx.double_ok:
        return _("privilege 3 (second Envoy on an empty seat) does not apply")
    if move.double and move.figure != "envoy":
        return _("privilege 3 applies when you occupy a seat with an Envoy")
    spaces = sorted(state.ring[x] for x in ctx.move_to + ctx.pay_to)
    rest = list(spaces)
    for region in move.nobles:
        if region not in rest:
            where = ", ".join(dict.fromkeys(spaces)) or _("none")
            return _("Move/Deploy: Nobles can only be laid in this action's payment spaces "
                     "({regions}), one per figure paid there").format(regions=where)
        rest.remove(region)
    if move.bonus and not ctx.bonus:
        return _("Move/Deploy track: your space shows no Envoy (or the Province has none)")
    return _("your Court does not hold those figures for this payment")
