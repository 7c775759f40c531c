"""What the judge tells people when the game master replaces a player (``replace
PLAYER NAME <ADDRESS>``): the person who leaves gets a notice at their old address, the
person who arrives a welcome with the recent history in words and their seat's own
position, addressed by their own name; the other players hear who plays the seat now,
never an address (:func:`referee.judge.meta.event_line`).

The notes go into the mails :meth:`referee.judge.core.Judge.notify` writes anyway (the
new person's first mail, the others' short mails), so nobody gets two mails for one
change; only the notice to the old address is a mail of its own.
"""

from __future__ import annotations

import textwrap

from referee import i18n
from referee.judge import meta, text
from referee.judge.core import Judge, Loaded

_, N_, ngettext = i18n.domain("referee")

RECENT = 8  # the decisions the welcome tells in words


def replaced(judge: Judge, before: Loaded, after: Loaded, player: str
             ) -> dict[str, list[str]]:
    """Queue the notice to the person who played ``player`` until now (``before``: the
    game as it was; none if the seat keeps its address) and return the notes of the
    next notification: the welcome for the new person, and an empty note for every other
    player reachable by mail (a mail is due to them: its events say who plays the seat
    now)."""
    old_to, new_to = before.settings.to(player), after.settings.to(player)
    old = before.settings.address(player)
    if old_to is not None and old is not None and not after.settings.accepts(player, old):
        body = farewell(before, after, player)
        judge.queue(judge.message(before, player, old_to, body))
    notes: dict[str, list[str]] = {p: [] for p in after.gf.players
                                   if p != player and after.settings.to(p)}
    if new_to is not None:
        notes[player] = welcome(before, after, player)
    return notes


def farewell(before: Loaded, after: Loaded, player: str) -> str:
    """The notice to the person who leaves: who plays the seat now (no address), and that
    their replies no longer count."""
    lines = [
        _("You no longer play seat {player} in {game} ({title}): the game master has "
          "handed it to {name}.").format(player=player, game=after.gf.game_id,
                                         title=after.match.game.title,
                                         name=after.settings.names.get(player, player)),
        "",
        _("Your replies to this game's mails no longer count. Thank you for playing!"),
    ]
    return "\n".join(textwrap.fill(line, text.WIDTH) for line in lines) + "\n"


def welcome(before: Loaded, after: Loaded, player: str) -> list[str]:
    """The lines that open the new person's first mail: a welcome by their own name, the
    seat and who played it, the last decisions in words; the mail goes on with the
    seat's own position and, when it is their turn, their legal moves."""
    name = after.settings.names.get(player, player)
    earlier = before.settings.names.get(player, player)
    lines = [_("Welcome, {name}! The game master has given you seat {player} in {game} "
               "({title}), which {earlier} played until now. In the moves and the log "
               "your seat is called {player}.").format(
                   name=name, player=player, game=after.gf.game_id,
                   title=after.match.game.title, earlier=earlier), ""]
    history = recent(after, player)
    if history:
        lines += [_("The last decisions, in words:"), *history]
    else:
        lines.append(_("No decision has been made yet."))
    if meta.has_plan(before.gf.log, player):
        lines += ["", _("{earlier}'s plan for the seat is withdrawn: you have no plan, so no "
                        "move is played for you until you write one (reply `plan`).").format(
                            earlier=earlier)]
    lines += ["", _("Below is the game as your seat sees it.")]
    return lines


def recent(game: Loaded, viewer: str, count: int = RECENT) -> list[str]:
    """The log from the ``count``-th last decision on, as ``viewer`` may see it (the
    seat's own hidden choices included: they are the viewer's now)."""
    plays = [i for i, e in enumerate(game.gf.log) if "meta" not in e]
    since = plays[-count] if len(plays) > count else 0
    return text.events(game.gf, game.seed, since, viewer, inherited=True) if plays else []

