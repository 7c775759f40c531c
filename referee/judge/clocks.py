"""The judge's clocks (referee/clocks/clock.py, docs/clocks.md): the clock lines of its mails,
the reminders to an awaited player 24 h and 4 h before their bank runs out, the timeout
it writes itself when it does, and a player's ``vacation DAYS`` by mail.

Every write is the library's (:func:`referee.play.submit.timeouts`, ``play_timed_out``,
``vacation``); the times are the referee's clock (:func:`referee.clocks.clock.now`, which
REFEREE_NOW overrides), the same clock that stamps every entry the judge writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.clocks import clock
from referee.errors import RefereeError
from referee.i18n import domain
from referee.judge.timelines import timeline
from referee.ledger import gamefile, replay

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:
    from referee.judge.core import Judge, Loaded

def tend(judge: Judge, path: Path) -> int | None:
    """Reminders and timeouts for the game at ``path``. Returns the next moment of the
    referee's clock (:func:`referee.clocks.clock.now`) at which the game needs a look: the
    soonest reminder or running out of an awaited seat, at most an hour on (None: no
    clock runs; nothing happens until the file changes)."""
    game = judge.load(path)
    if game is None or not replay.has_time_control(game.gf.data):
        return None
    if game.match.game.finished(game.match.state):
        return None
    now = clock.now()
    clocks = timeline(game.gf, game.seed).clocks(now)
    state = judge.store.game(game.gf.game_id)
    reminded = state.setdefault("clock_reminded", {})
    due_now = []
    looks = [now + clock.HOUR]
    for pid in clocks.running():
        due = clocks.due(pid)
        seat = clocks.seats[pid]
        if due is None or seat.timed_out:
            continue
        if due <= now:
            due_now.append(pid)
            continue
        _remind(judge, game, pid, due, now, reminded, seat.since)
        looks += [due, *(due - h for h in clock.REMINDERS if due - h > now)]
    if due_now:
        _time_out(judge, path)
        return now  # (the file changed: the next look sees it anew)
    return min(looks)


def _remind(judge: Judge, game: Loaded, pid: str, due: int, now: int,
            reminded: dict[str, Any], since: int | None) -> None:
    """The reminder at 24 h, then at 4 h, before ``pid``'s time runs out (once each a
    turn)."""
    left = due - now
    key = str(since)
    done = reminded.get(pid, [None, None])
    # a reminder only for a turn that began with more time than it: the turn's first
    # mail already says when the time runs out
    whole = due - (since if since is not None else now)
    threshold = next((h for h in sorted(clock.REMINDERS) if left <= h < whole), None)
    if threshold is None or (done[0] == key and done[1] is not None
                             and done[1] <= threshold):
        return
    to = game.settings.to(pid)
    judge.store.game(game.gf.game_id)  # (saved below: a save since the entry was handed out)
    reminded[pid] = [key, threshold]
    if to:
        from referee.judge import text

        with i18n.language(game.settings.lang(pid)):
            note = [_("Reminder: your time runs out at {due}, in {left} (vacation days "
                      "included). Reply with your decision, or `vacation DAYS` to stop your "
                      "clock.").format(due=clock.utc(due), left=clock.format_duration(left))]
            judge.queue(judge.message(game, pid, to, text.body(
                game.gf, game.match, game.seed, pid, None, game.settings, note=note),
                board=True, notice=True))
    judge.store.save()
    judge.flush()


def _time_out(judge: Judge, path: Path) -> None:
    """Write the timeouts that are due and let the bots play what they owe, then mail
    everyone as after any move, and the game master when they are asked."""
    from referee.play import submit

    try:
        done = submit.timeouts(path)
        played = submit.play_timed_out(path, done)
    except RefereeError as exc:
        judge.config.log(f"clock of {path.name}: {exc.message}")
        return
    for t in done:
        judge.config.log(f"timeout: {path.name} {t.n}. {t.player} ({t.then})")
    for b in played:
        judge.config.log(f"bot: {path.name} {b.n}. {b.player}: {b.text} ({b.level})")
    if not done:
        return
    judge.notify(path)
    fresh = judge.load(path)
    if fresh is None:
        return
    _tell(judge, fresh, done, played)


def _tell(judge: Judge, game: Loaded, done: Sequence[submit_types.TimedOut],
          played: Sequence[Any]) -> None:
    from referee.judge import meta

    lines = [_("{player} ran out of time ({then}).").format(player=t.player, then=_then(t))
             for t in done]
    lines += [_("  {n}. {player}: {move} (bot)").format(n=b.n, player=b.player, move=b.text)
              for b in played]
    if game.settings.gm:
        asks = [t.player for t in done if t.then == "gm"]
        extra = ["", _("As game master you may replace the player (`replace PLAYER NAME "
                       "<ADDRESS>`) or hand the seat to a bot (`bot PLAYER LEVEL`).")
                 ] if asks else []
        judge.queue(judge.message(game, meta.GM, game.settings.gm, "\n".join([*lines, *extra])
                                  + "\n"))
    judge.store.save()
    judge.flush()


def _then(t: Any) -> str:
    return {"bot": _("a bot ({level}) played the owed decisions"),
            "gm": _("the game master is asked to replace the player"),
            "forfeit": _("the seat forfeits: a bot ({level}) plays on, it ranks last")
            }[t.then].format(level=t.level)


def late_note(log: Sequence[Mapping[str, Any]], player: str, answered: int) -> str | None:
    """Why a move mail of ``player``'s that answers the referee mail of play number
    ``answered`` (now an old one) is not played, when the reason is their clock: a
    timeout of theirs was recorded since that mail. None otherwise. (The judge reads a
    mail after it writes the timeouts that are due: a move read after the time ran out
    meets the timeout, which wins.)"""
    count = 0
    for entry in log:
        meta = entry.get("meta")
        if (count >= answered and isinstance(meta, dict) and meta.get("kind") == "timeout"
                and meta.get("player") == player):
            return _("Not played: your time ran out before your mail was read, and the "
                     "timeout was recorded at {time}: the timeout wins.").format(
                time=clock.utc(clock.seconds(str(entry["at"]))))
        if meta is None:
            count += 1
    return None


def vacation(path: Path, player: str, arg: str, extra: dict[str, str],
             guard: Callable[[gamefile.GameFile], None] | None = None) -> str:
    """``vacation DAYS`` by mail: the library's vacation record (within the allowance);
    returns the note for the player. Raises UsageError, ClockError."""
    from referee.errors import UsageError
    from referee.play import submit

    if not arg.strip().isdigit() or not 1 <= int(arg) <= 365:
        raise UsageError(_("vacation: give a number of days, e.g. `vacation 3`"))
    submit.vacation(path, player, int(arg), extra=dict(extra), guard=guard)
    return ngettext("Done: your clock stops for {n} day(s).",
                    "Done: your clock stops for {n} day(s).", int(arg)).format(n=int(arg))


def tell_vacation(judge: Judge, game: Loaded, player: str, days: int) -> None:
    """The other players hear of a vacation."""
    for pid in game.gf.players:
        to = game.settings.to(pid)
        if pid != player and to:
            with i18n.language(game.settings.lang(pid)):
                judge.queue(judge.message(game, pid, to, ngettext(
                    "{player} takes {n} vacation day(s): their clock stops for that long.",
                    "{player} takes {n} vacation day(s): their clock stops for that long.",
                    days).format(player=player, n=days) + "\n"))
    judge.store.save()
    judge.flush()


if TYPE_CHECKING:
    from referee.play import submit as submit_types
