"""A player's commands by mail besides a move (the judge's :mod:`referee.judge.incoming`
reads the mail and calls these): ``rematch``, ``plan``, ``vacation``, ``say`` (relayed,
bounded: :data:`SAY_RATE` says per player per hour of the judge's clock), ``undo`` and
``nonce``. Each writes through the write core with the mail's freshness guard and
answers the player (:meth:`referee.judge.request.Request.answer_state`); ``notify via``
sets a player's channel (:mod:`referee.judge.notifications`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from referee import i18n
from referee.errors import RefereeError, UsageError
from referee.i18n import domain
from referee.judge import meta, notifications, text
from referee.judge.failures import environment_failure
from referee.judge.outcome import Outcome
from referee.mail.tokens import MailId
from referee.play import reading
from referee.play.writecore import Guard

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.judge.request import Request

_, N_, ngettext = domain("referee")

SAY_RATE = 5  # says per player per hour of the judge's clock
SAY_WINDOW = dt.timedelta(hours=1)


def rematch(incoming: Request, game: Loaded, player: str, guard: Guard) -> Outcome:
    """``rematch``: the player's agreement to a rematch of the finished game, recorded
    in its log; the other players are told who is still waiting. Once every human
    player has agreed, the judge starts the rematch beside the game
    (referee/play/rematch.py: ``g.json`` -> ``g-r2.json``) and mails its players."""
    from referee.play import rematch

    if not game.match.game.finished(game.match.state):
        return incoming.answer_state(game, player, [
            _("`rematch` not done: the game is not finished yet.")], "rejected",
            "rematch")
    if player not in game.settings.rematch:
        try:
            meta.append(game.path, player, {"kind": "rematch", "player": player},
                        extra=incoming.extra, guard=guard)
        except RefereeError as exc:
            return incoming.not_done(game, player, "rematch", exc)
        game = incoming.judge.load(game.path) or game
    agreed = game.settings.rematch
    waiting = [p for p in rematch.waiting_for(game.gf.data, agreed)
               if game.settings.to(p)]  # a seat nobody can reach cannot agree
    if waiting:
        tell_rematch(incoming, game, player, agreed, waiting)
        return Outcome("command", game.gf.game_id, "rematch")
    new = rematch.next_path(game.path)
    try:
        if not new.exists():
            rematch.rematch(game.path, new)
    except RefereeError as exc:
        if environment_failure(exc):
            raise
        return incoming.answer_state(game, player, [_(
            "The rematch was not started: {reason}").format(reason=exc.message)],
            "rejected", exc.message)
    incoming.judge.notify(new)
    return incoming.answer_state(game, player, [_(
        "Everyone agreed: the rematch has started ({file}); its first mail comes "
        "on its own.").format(file=new.name)], "command", "rematch")

def tell_rematch(incoming: Request, game: Loaded, player: str, agreed: list[str],
                  waiting: list[str]) -> None:
    """The agreement to its author, and to every other human player who is waiting
    and who has agreed; each mail names who is waiting."""
    from referee.play import rematch

    names = ", ".join(waiting)
    for pid in rematch.humans(game.gf.data):
        to = game.settings.to(pid)
        if to is None:
            continue
        with i18n.language(game.settings.lang(pid)):
            note = [_("Rematch: {players} agreed; waiting for {waiting}.").format(
                players=", ".join(agreed), waiting=names)]
            if pid in waiting:
                note.append(_("Reply `rematch` to this mail to agree."))
            body = text.body(game.gf, game.match, game.seed, pid, None, game.settings,
                             note=note)
            answers = incoming.msgid if pid == player else None
            incoming.judge.queue(incoming.judge.message(game, pid, to, body, answers=answers))
    incoming.queue([])



def plan(incoming: Request, game: Loaded, player: str, lines: list[str],
         mid: MailId | None) -> Outcome:
    """``plan``: set the player's plan from the mail's lines (``plan --clear``
    withdraws it; ``plan`` alone shows it), then answer with the plan now in force:
    to the player only (docs/plans.md)."""
    from referee.play import plan_play, submit

    clear = [w.lower() for w in lines] in (["--clear"], ["clear"])
    if lines:
        try:
            submit.set_plan(game.path, player, [] if clear else lines,
                           extra=incoming.extra, guard=incoming.still_fresh(mid))
        except RefereeError as exc:
            return incoming.not_done(game, player, "plan", exc)
        incoming.judge.store.mark_answered(incoming.msgid)
        incoming.judge.store.save()
    fresh = incoming.judge.load(game.path) or game
    note = [_("Your plan is withdrawn.") if clear else _("Your plan is set.") if lines
            else _("Your plan, as you asked.")]
    told = plan_play.mail_lines(fresh.gf, fresh.seed, player, 0, everything=True)
    note += told
    if not any(line.startswith(("Your plan (entry", _("Your plan (entry")))
               for line in told):
        note.append(_("You have no plan in force."))
    if lines and not clear:
        note.append(_("Note: {note}.").format(note=_(
            plan_play.SEALED_NOTE if fresh.gf.sealed else plan_play.OPEN_NOTE)))
    return incoming.answer_state(fresh, player, note, "command", "plan")


def vacation(incoming: Request, game: Loaded, player: str, arg: str,
             guard: Guard) -> Outcome:
    """``vacation DAYS``: the player's clock stops (referee/judge/clocks.py); the
    others are told. Raises RefereeError (answered by the caller)."""
    from referee.judge import clocks

    note = clocks.vacation(game.path, player, arg, incoming.extra, guard)
    incoming.judge.store.mark_answered(incoming.msgid)
    fresh = incoming.judge.load(game.path) or game
    clocks.tell_vacation(incoming.judge, fresh, player, int(arg))
    return incoming.answer_state(fresh, player, [note], "command", "vacation")

def say(incoming: Request, game: Loaded, player: str) -> Outcome:
    try:
        said = reading.say_text(incoming.reply)
        say_allowed(incoming, game.gf.game_id, player)
    except reading.Refused as exc:
        if exc.reason == "quiet":  # the player was told once in this hour
            incoming.judge.store.mark_answered(incoming.msgid)
            incoming.judge.store.save()
            return Outcome("rejected", game.gf.game_id, "say rate")
        return incoming.answer_state(game, player, [exc.message], "rejected", "say")
    out = []
    for pid in game.gf.players:
        to = game.settings.to(pid)
        if pid != player and to:
            with i18n.language(game.settings.lang(pid)):
                out.append(incoming.judge.message(game, pid, to, text.say_text(player, said)))
    incoming.queue(out)
    return Outcome("command", game.gf.game_id, "say")

def say_allowed(incoming: Request, gid: str, player: str) -> None:
    """Count a say against the player's rate (the judge's state file), or refuse it:
    ``say`` once per hour with the reason, ``quiet`` for the rest of that hour."""
    now = incoming.judge.config.clock()
    state = incoming.judge.store.game(gid)
    said = state.setdefault("said", {})
    times = [t for t in said.get(player, [])
             if now - dt.datetime.fromisoformat(t) < SAY_WINDOW]
    if len(times) < SAY_RATE:
        said[player] = [*times, now.isoformat()]
        return
    said[player] = times
    warned = state.setdefault("said_warned", {})
    if warned.get(player) == times[0]:
        raise reading.Refused("quiet", "say rate: already told")
    warned[player] = times[0]
    again = dt.datetime.fromisoformat(times[0]) + SAY_WINDOW
    raise reading.Refused("say", _("say not relayed: at most {n} says an hour; the next one can "
                           "go at {time} UTC").format(n=SAY_RATE,
                                                      time=f"{again:%Y-%m-%d %H:%M}"))


def undo(path: Path, player: str, msgid: str, guard: Guard | None = None) -> None:
    """Take back ``player``'s last move by mail: the library's undo, as `referee undo`."""
    from referee.play.submit import undo as submit_undo

    submit_undo(path, player, extra={"mail": msgid}, guard=guard)


def add_nonce(path: Path, player: str, value: str, guard: Guard | None = None) -> None:
    """Take ``player``'s next nonce step by mail (:func:`referee.ledger.nonces.give`: commit,
    then reveal); between the two the nonce is kept beside the game file, owner-only, as
    `referee nonce` keeps it."""
    from referee.play.submit import give_nonce

    keep = path.with_name(f"{path.name}.{player}.nonce")
    give_nonce(path, player, value.strip() or None, keep, guard=guard)


def notify_via(incoming: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """A player's mail ``notify via ...``: their channel set (kept in the judge's state)
    and confirmed to them only, masked. A channel the judge would not post to (a private
    address without ``--notify-private``) is refused here, with the reason."""
    channels = getattr(incoming.judge, "channels", None)  # (the mail door's)
    if channels is None:
        return incoming.answer_state(game, player, [_(
            "`notify via` is taken by mail only: in chat, chat is your channel.")],
            "rejected", "notify via")
    try:
        url, via = notifications.parse_command(
            arg, allow_private=channels.options.allow_private)
    except UsageError as exc:
        with i18n.language(game.settings.lang(player)):
            told = _("`{command}` not done: {reason}").format(command="notify via",
                                                              reason=exc.message)
        return incoming.answer_state(game, player, [told], "rejected", "notify via")
    channels.set(game, player, url, via)
    incoming.judge.store.mark_answered(incoming.msgid)
    incoming.judge.store.save()
    note = [channels.described(game, player)]
    if via == "only":
        with i18n.language(game.settings.lang(player)):
            note.append(_("The first mail of the game, any mail whose notice the channel "
                          "did not take, answers to your mails and messages of the other "
                          "players still come by mail; reply `status` to any mail of the "
                          "game to get one to answer."))
    return incoming.answer_state(game, player, note, "command", f"notify via {via}")
