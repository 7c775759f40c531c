"""The judge's fixed deadlines (``deadline HOURS [bot LEVEL]``, docs/judge.md): a reminder
to whoever is awaited, and at the deadline a mail to the game master and the players, or a
bot of the given level that plays the missed decisions. Time banks are
:mod:`referee.judge.clocks`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.errors import RefereeError
from referee.i18n import domain
from referee.judge import meta, text
from referee.ledger import gamefile, roster, seats

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:
    from referee.judge.core import Judge, Loaded


def tend(judge: Judge, path: Path) -> dt.datetime | None:
    """A reminder to whoever is awaited before the deadline; at the deadline a mail
    to the game master and the players. Returns the next moment of the judge's clock
    at which this game needs a look (None: none until its file changes)."""
    _tend(judge, path)
    return next_look(judge, path)


def next_look(judge: Judge, path: Path) -> dt.datetime | None:
    """When the reminder or the deadline of the game at ``path`` falls, whichever is
    still to be told (None: neither, or no deadline): before it :func:`tend` does
    nothing while the file and the judge's state of the game stay as they are."""
    state = _state(judge, path)
    if not state or not state["waiting"] or not state.get("since"):
        return None
    found = _settings(judge, path)
    if found is None or found.deadline_hours is None or state.get("expired") == state["since"]:
        return None
    since = dt.datetime.fromisoformat(state["since"])
    fraction = 1.0 if state.get("reminded") == state["since"] else \
        min(judge.config.reminder_fraction, 1.0)  # (the deadline first if it is sooner)
    return since + dt.timedelta(hours=found.deadline_hours * fraction)


def _state(judge: Judge, path: Path) -> dict[str, Any] | None:
    gid = judge._ids.get(path, (0, 0, None, {}))[2]
    return judge.store.peek(gid) if gid else None


def _tend(judge: Judge, path: Path) -> None:
    state = _state(judge, path)
    if not state or not state["waiting"] or not state.get("since"):
        return
    found = _settings(judge, path)
    if found is None:
        return
    hours = found.deadline_hours
    if hours is None:
        return
    since = dt.datetime.fromisoformat(state["since"])
    now = judge.config.clock()
    due = since + dt.timedelta(hours=hours)
    remind = since + dt.timedelta(hours=hours * judge.config.reminder_fraction)
    waiting = state["waiting"]
    expire = now >= due and state.get("expired") != state["since"]
    if not expire and (now < remind or state.get("reminded") == state["since"]):
        return
    game = judge.load(path)
    if game is None:
        return
    state = judge.store.game(game.gf.game_id)  # (the same entry, now to be saved)
    if expire and found.deadline_bot and _stand_in(judge, game, waiting,
                                                   found.deadline_bot, hours):
        return
    if expire:
        for pid in game.gf.players:
            to = game.settings.to(pid)
            if to:
                with i18n.language(game.settings.lang(pid)):
                    judge.queue(judge.message(game, pid, to, text.body(
                        game.gf, game.match, game.seed, pid, None, game.settings,
                        full=pid in waiting, note=[_passed(hours, due, waiting)]),
                        board=pid in waiting, notice=True))
        if game.settings.gm:  # the game master reads English
            judge.queue(judge.message(game, meta.GM, game.settings.gm, "\n".join(
                [_passed(hours, due, waiting), "",
                 _("As game master you may extend the deadline, replace a"),
                 _("player or change an address: see `help` (reply to this mail).")])))
        state["expired"] = state["reminded"] = state["since"]
    elif now >= remind and state.get("reminded") != state["since"]:
        for pid in waiting:
            to = game.settings.to(pid)
            if to:
                with i18n.language(game.settings.lang(pid)):
                    note = [_("Reminder: the deadline is {due} UTC ({hours} h per "
                              "decision).").format(due=f"{due:%Y-%m-%d %H:%M}", hours=hours)]
                    judge.queue(judge.message(game, pid, to, text.body(
                        game.gf, game.match, game.seed, pid, None, game.settings,
                        note=note), board=True, notice=True))
        state["reminded"] = state["since"]
    else:
        return
    judge.store.save()
    judge.flush()


def _passed(hours: int, due: dt.datetime, waiting: list[str]) -> str:
    """The note of a passed deadline, in the current language."""
    return _("The deadline ({hours} h, {due} UTC) has passed; still waiting for "
             "{players}.").format(hours=hours, due=f"{due:%Y-%m-%d %H:%M}",
                                  players=", ".join(waiting))


def _settings(judge: Judge, path: Path) -> roster.Settings | None:
    """The settings of the file at ``path`` over the judge's deadline defaults (no
    game master: as ``deadlines`` has always read them), kept while the file is
    unchanged: every round asks for every game's."""
    try:
        stat = path.stat()
        mark = (stat.st_mtime_ns, stat.st_size)
        cached = judge._deadline_cache.get(path)
        if cached is None or cached[0] != mark:
            cached = (mark, roster.settings(gamefile.read(path).data,
                                          deadline_hours=judge.config.deadline_hours,
                                          deadline_bot=judge.config.deadline_bot))
            judge._deadline_cache[path] = cached
    except (OSError, RefereeError):
        return None
    return cached[1]

def _stand_in(judge: Judge, game: Loaded, waiting: list[str], level: str, hours: int) -> bool:
    """At a missed deadline: a bot of ``level`` plays the decisions the awaited
    players owe now (marked as the bot's), then everybody is mailed as after any
    move, the game master with a note. False if the bot could play nothing."""
    gid = game.gf.game_id
    state = judge.store.game(gid)
    players = [p for p in waiting if p in game.gf.players]
    try:
        stand_in = {p: seats.make_seat(level) for p in players}
    except RefereeError as exc:  # a hand-edited deadline record
        judge.config.log(f"deadline bot of {game.path.name}: {exc.message}")
        return False
    played = judge.play_bots(game.path, stand_in)
    state["expired"] = state["reminded"] = state["since"]
    if not played:
        return False
    judge.store.save()
    judge.notify(game.path)
    fresh = judge.load(game.path)
    if fresh is not None and fresh.settings.gm:
        lines = [_("The deadline ({hours} h) passed; a bot ({level}) played for "
                   "{players}:").format(hours=hours, level=level, players=", ".join(players)),
                 *(f"  {b.n}. {b.player}: {b.text}" for b in played)]
        judge.queue(judge.message(fresh, meta.GM, fresh.settings.gm, "\n".join(lines)))
        judge.store.save()
        judge.flush()
    return True
