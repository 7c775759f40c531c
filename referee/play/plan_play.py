"""Plans in play: the replay with its book of plans, the moves due from plans played
through the write core, and what a player is told about their plan (docs/plans.md).

Reading and checking plans is :mod:`referee.ledger.plans`, below the replay (which checks every
planned move); this module replays files and plays moves, so it sits above the write
core and below :mod:`referee.play.submit`, whose writes call :func:`play_due`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee import engine
from referee.engine import Match
from referee.errors import ReplayError
from referee.i18n import domain
from referee.ledger import replay as replay_module
from referee.ledger.gamefile import GameFile
from referee.ledger.plans import MAX_PLANNED, Book, Live, in_log, is_record, record_lines

if TYPE_CHECKING:
    from referee.play.writecore import Transaction

_, N_, ngettext = domain("referee")


def replay(gf: GameFile, seed: str | None) -> tuple[Match, Book]:
    """The replay with its book of plans (whatever the log holds)."""
    book = Book(gf, seed)
    return replay_module.replay(gf, seed, book=book), book


# --- writing --------------------------------------------------------------------------


@dataclass
class Planned:
    """A move the referee played from a plan."""

    n: int
    player: str
    text: str  # as the other players may read it (a sealed game's public text)
    plan: int


def play_due(tx: Transaction, skip: str | None = None) -> list[Planned]:
    """Play every move due from a plan after the transaction's last move, one after the
    other (each may raise another's decision), through :meth:`Transaction.play`, each
    marked with its plan record; ``skip``: a player whose plan waits (they are still
    sending moves of their own). Does nothing without the state."""
    played: list[Planned] = []
    gf = tx.gf
    if tx.match is None or not in_log(gf.log) or (gf.sealed and tx.seed is None):
        return played
    while len(played) < MAX_PLANNED:
        book = replay(gf, tx.seed)[1]
        due = [d for d in book.due_now(len(gf.log)) if d[0] != skip]
        if not due:
            break
        player, move, source = due[0]
        entry = tx.play(player, move, {"plan": source})
        game = tx.state().game
        shown = engine.public_text(game, move) if gf.sealed else game.format_move(move)
        played.append(Planned(entry["n"], player, shown, source))
    return played


# --- telling the player ---------------------------------------------------------------


def describe(live: Live) -> str:
    """A line as its owner reads it, with what it waits for."""
    when = live.line.when
    if when is None:
        return _("{line}  (standing answer)").format(line=live.line.text)
    if live.armed is not None:
        return _("{line}  (armed by entry {n}: played at your next decision)").format(
            line=live.line.text, n=live.armed)
    return _("{line}  (waits for {player}'s next move)").format(line=live.line.text,
                                                                player=when[0])


def owner_lines(book: Book, player: str, since: int) -> list[str]:
    """What ``player`` is told about their plan: every line in force and each line
    dropped at entry ``since`` or later, with why. Only ever shown to the player."""
    out: list[str] = []
    out += [dropped_line(d.text, d.at, d.why) for d in book.dropped(player, since)]
    lines = book.lines(player)
    if lines:
        head = (_("Your plan (entry {n}), secret from the other players:") if book.gf.sealed
                else _("Your plan (entry {n}; this game is open: anyone holding the file "
                       "can read it):"))
        out.append(head.format(n=book.record_of(player)))
        out += [f"  {k}. {describe(x)}" for k, x in enumerate(lines, 1)]
    return out


def last_own_entry(gf: GameFile, player: str) -> int:
    """The entry number of ``player``'s latest entry of their own making (a move, a
    record; 0: none): what their plan did and dropped after it is news to them."""
    return max((e["n"] for e in gf.log if e["by"] == player and "plan" not in e),
               default=0)


def dropped_line(text: str, at: int, why: str) -> str:
    return _("Your plan line `{line}` was dropped at entry {n}: {why}.").format(
        line=text, n=at, why=why)


# the notes of `plan` (translated where shown, _(NOTE); the JSON keeps the English)
OPEN_NOTE = N_("this game is open (its seed is in the file): anyone holding the file can "
               "read your plan")
SEALED_NOTE = N_("sealed to the referee: the other players cannot read your plan")


def record_text(gf: GameFile, i: int, seed: str | None, viewer: str | None,
                finished: bool) -> str | None:
    """The plan record at log index ``i`` as `log` shows it to ``viewer``: its lines to
    its player, and to everyone once the game is over (a sealed one needs the seed);
    None to anyone else (the entry's public text stands)."""
    entry = gf.log[i]
    if not finished and viewer != entry["by"]:
        return None
    try:
        lines = record_lines(gf, i, seed)
    except ReplayError:
        return None
    if not lines:
        return "[plan] withdrawn"
    return "[plan] " + " | ".join(lines)


def played_lines(book: Book, gf: GameFile, player: str, since: int) -> list[str]:
    """``player``'s planned moves from entry ``since`` on, for their own eyes."""
    out = []
    for n, (source, index) in sorted(book.planned().items()):
        if n >= since and gf.log[n - 1]["by"] == player:
            out.append(_("Entry {n} was played from your plan (entry {source}, line "
                         "{line}).").format(n=n, source=source, line=index + 1))
    return out


def mail_lines(gf: GameFile, seed: str | None, player: str, since: int,
               everything: bool = False) -> list[str]:
    """For a mail to ``player``: what their plan played and dropped from entry ``since``
    on, and the lines in force (``everything``: always; else only with news). [] if they
    never wrote a plan, or the plan cannot be read (a sealed game without the seed)."""
    if not any(is_record(e) and e["by"] == player for e in gf.log):
        return []
    if gf.seed_hidden and seed is None:
        return []
    book = replay(gf, seed)[1]
    news = [*played_lines(book, gf, player, since + 1),
            *(dropped_line(d.text, d.at, d.why) for d in book.dropped(player, since + 1))]
    if not news and not everything:
        return []
    return news + [x for x in owner_lines(book, player, len(gf.log) + 1)]
