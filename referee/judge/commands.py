"""A player's commands besides a move, one table for every door (:data:`PLAYER`).

Each word is here once, with whether it is private (a player's own settings and hidden
entropy: said only where the seat is alone with the referee, never at a game's table).
:mod:`referee.judge.handling` reads the line and calls the handler; each handler writes
through the write core with the text's freshness guard and answers the player
(:meth:`referee.judge.request.Request.answer_state`). ``say`` is bounded: plain text,
one paragraph (:func:`referee.play.reading.say_text`), at most :data:`SAY_RATE` says per
player per hour of the judge's clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee import i18n
from referee.errors import RefereeError, UsageError
from referee.i18n import domain
from referee.judge import language, meta, text
from referee.judge.failures import environment_failure
from referee.judge.gmlines import bot_level, bot_meta
from referee.judge.outcome import Outcome
from referee.play import reading

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.judge.request import Request

_, N_, ngettext = domain("referee")

SAY_RATE = 5  # says per player per hour of the judge's clock
SAY_WINDOW = dt.timedelta(hours=1)

Handler = Callable[["Request", "Loaded", str, str], Outcome]


@dataclass(frozen=True)
class Command:
    """A player's command word: its handler (the handling, the game, the player, the
    rest of the line) and whether it is private."""

    run: Handler
    private: bool = False


# --------------------------------------------------------------------------- commands


def status(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    return h.answer_state(game, player, [_("The current state, as you asked.")], "command",
                          "status")


def help_(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    return h.answer_state(game, player, [_(line) for line in h.words.help], "command",
                          "help")


def undo(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """Take back ``player``'s last move: the library's undo, as `referee undo`."""
    from referee.play.submit import undo as submit_undo

    try:
        submit_undo(game.path, player, extra=h.extra, guard=h.guard)
    except RefereeError as exc:
        return h.not_done(game, player, "undo", exc)
    return h.written(game, player, "undo")


def nonce(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """Take ``player``'s next nonce step (:func:`referee.ledger.nonces.give`: commit,
    then reveal); between the two the nonce is kept beside the game file, owner-only,
    as `referee nonce` keeps it."""
    from referee.play.submit import give_nonce

    keep = game.path.with_name(f"{game.path.name}.{player}.nonce")
    try:
        give_nonce(game.path, player, arg.strip() or None, keep, guard=h.guard)
    except RefereeError as exc:
        return h.not_done(game, player, "nonce", exc)
    return h.written(game, player, "nonce")


def bot(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    try:
        meta.append(game.path, player, bot_meta(player, arg), extra=h.extra, guard=h.guard)
    except RefereeError as exc:
        return h.not_done(game, player, "bot", exc)
    done = _("Done: a bot plays your seat.") if bot_level(arg) is not None else \
        _("Done: you play your seat again.")
    return h.written(game, player, "bot", done)


def notify(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    if arg.lower().split()[:1] == ["via"]:
        return notify_via(h, game, player, arg)
    try:
        meta.append(game.path, player, {"kind": "notify", "player": player,
                                        "mode": arg.lower()}, extra=h.extra, guard=h.guard)
    except RefereeError as exc:
        return h.not_done(game, player, "notify", exc)
    return h.written(game, player, "notify", _(h.words.setting).format(mode=arg))


def lang(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    return language.command(h, game, player, h.word, arg, h.guard)


def vacation(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """``vacation DAYS``: the player's clock stops (referee/judge/clocks.py); the
    others are told."""
    from referee.judge import clocks

    try:
        note = clocks.vacation(game.path, player, arg, h.extra, h.guard)
    except RefereeError as exc:
        return h.not_done(game, player, "vacation", exc)
    h.judge.store.mark_answered(h.ref)
    fresh = h.judge.load(game.path) or game
    clocks.tell_vacation(h.judge, fresh, player, int(arg))
    return h.answer_state(fresh, player, [note], "command", "vacation")


def rematch(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """``rematch``: the player's agreement to a rematch of the finished game, recorded
    in its log; the other players are told who is still waiting. Once every human
    player has agreed, the judge starts the rematch beside the game
    (referee/play/rematch.py: ``g.json`` -> ``g-r2.json``) and tells its players."""
    from referee.play import rematch as rematches

    if not game.match.game.finished(game.match.state):
        return h.answer_state(game, player, [
            _("`rematch` not done: the game is not finished yet.")], "rejected", "rematch")
    if player not in game.settings.rematch:
        try:
            meta.append(game.path, player, {"kind": "rematch", "player": player},
                        extra=h.extra, guard=h.guard)
        except RefereeError as exc:
            return h.not_done(game, player, "rematch", exc)
        game = h.judge.load(game.path) or game
    agreed = game.settings.rematch
    waiting = [p for p in rematches.waiting_for(game.gf.data, agreed)
               if game.settings.to(p)]  # a seat nobody can reach cannot agree
    if waiting:
        tell_rematch(h, game, player, agreed, waiting)
        return Outcome("command", game.gf.game_id, "rematch")
    new = rematches.next_path(game.path)
    try:
        if not new.exists():
            rematches.rematch(game.path, new)
    except RefereeError as exc:
        if environment_failure(exc):
            raise
        return h.answer_state(game, player, [_(
            "The rematch was not started: {reason}").format(reason=exc.message)],
            "rejected", exc.message)
    h.judge.notify(new)
    return h.answer_state(game, player, [_(h.words.rematch).format(file=new.name)],
                          "command", "rematch")


def tell_rematch(h: Request, game: Loaded, player: str, agreed: list[str],
                 waiting: list[str]) -> None:
    """The agreement to its author, and to every other human player who is waiting
    and who has agreed; each message names who is waiting."""
    from referee.play import rematch as rematches

    names = ", ".join(waiting)
    for pid in rematches.humans(game.gf.data):
        to = game.settings.to(pid)
        if to is None:
            continue
        with i18n.language(game.settings.lang(pid)):
            note = [_("Rematch: {players} agreed; waiting for {waiting}.").format(
                players=", ".join(agreed), waiting=names)]
            if pid in waiting:
                note.append(_(h.judge.doors.words_for(to).agree))
            body = text.body(game.gf, game.match, game.seed, pid, None, game.settings,
                             note=note, words=h.judge.doors.words_for(to))
            answers = h.answers_to(to) if pid == player else None
            h.judge.queue(h.judge.message(game, pid, to, body, answers=answers))
    h.queue([])


def plan(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """``plan``: set the player's plan from the text's lines (``plan --clear``
    withdraws it; ``plan`` alone shows it), then answer with the plan now in force:
    to the player only (docs/plans.md)."""
    from referee.play import plan_play, submit

    lines = reading.plan_lines(h.read) or []
    clear = [w.lower() for w in lines] in (["--clear"], ["clear"])
    if lines:
        try:
            submit.set_plan(game.path, player, [] if clear else lines, extra=h.extra,
                            guard=h.guard)
        except RefereeError as exc:
            return h.not_done(game, player, "plan", exc)
        h.judge.store.mark_answered(h.ref)
        h.judge.store.save()
    fresh = h.judge.load(game.path) or game
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
    return h.answer_state(fresh, player, note, "command", "plan")


def say(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """``say TEXT``: relayed to every other player (said at a table: to those who do
    not read that table), bounded (one paragraph, the rate of says)."""
    try:
        said = reading.say_text(h.read)
        say_allowed(h, game.gf.game_id, player)
    except reading.Refused as exc:
        if exc.reason == "quiet":  # the player was told once in this hour
            h.judge.store.mark_answered(h.ref)
            h.judge.store.save()
            return Outcome("rejected", game.gf.game_id, "say rate")
        return h.answer_state(game, player, [exc.message], "rejected", "say")
    out = []
    for pid in game.gf.players:
        to = game.settings.to(pid)
        if pid == player or to is None or h.at_table_of(to):
            continue  # (said at a table: who reads that table read it there)
        with i18n.language(game.settings.lang(pid)):
            out.append(h.judge.message(game, pid, to, text.say_text(
                player, said, h.judge.doors.words_for(to))))
    h.queue(out)
    return Outcome("command", game.gf.game_id, "say")


def say_allowed(h: Request, gid: str, player: str) -> None:
    """Count a say against the player's rate (the judge's state), or refuse it: ``say``
    once per hour with the reason, ``quiet`` for the rest of that hour."""
    now = h.judge.config.clock()
    state = h.judge.store.game(gid)
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
    raise reading.Refused("say", _("say not relayed: at most {n} says an hour; the next "
                                   "one can go at {time} UTC").format(
                                       n=SAY_RATE, time=f"{again:%Y-%m-%d %H:%M}"))


def notify_via(h: Request, game: Loaded, player: str, arg: str) -> Outcome:
    """``notify via ...``: the player's channel set (kept by the door that reaches
    them: the mail door keeps channels in the judge's state) and confirmed to them only,
    masked. A channel the judge would not post to (a private address without
    ``--notify-private``) is refused, with the reason."""
    door = h.judge.doors.door_for(game.settings.to(player))
    channels = getattr(door, "channels", None)
    if channels is None:
        return h.answer_state(game, player, [_(
            "`notify via` is taken by mail only: in chat, chat is your channel.")],
            "rejected", "notify via")
    try:
        url, via = channels.parse(arg)
    except UsageError as exc:
        told = _("`{command}` not done: {reason}").format(command="notify via",
                                                          reason=exc.message)
        return h.answer_state(game, player, [told], "rejected", "notify via")
    channels.set(game, player, url, via)
    h.judge.store.mark_answered(h.ref)
    h.judge.store.save()
    note = [channels.described(game, player)]
    if via == "only":
        note.append(_("The first mail of the game, any mail whose notice the channel "
                      "did not take, answers to your mails and messages of the other "
                      "players still come by mail; reply `status` to any mail of the "
                      "game to get one to answer."))
    return h.answer_state(game, player, note, "command", f"notify via {via}")


#: every command a player may type instead of a move, by its word
PLAYER: dict[str, Command] = {
    "status": Command(status),
    "help": Command(help_),
    "undo": Command(undo),
    "say": Command(say),
    "nonce": Command(nonce, private=True),
    "notify": Command(notify, private=True),
    "bot": Command(bot, private=True),
    "vacation": Command(vacation, private=True),
    "rematch": Command(rematch, private=True),
    reading.PLAN_WORD: Command(plan, private=True),
    **{word: Command(lang, private=True) for word in language.WORDS},
}
#: the game master's command words (referee/judge/gmlines.py reads the line)
GM_WORDS = ("replace", "address", "deadline", "bot", "watch", "unwatch", "notify",
            "status", "help", "clock")
