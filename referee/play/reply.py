"""A player's message played: the one use-case of `referee move --from-email` and the judge.

A front door reads a player's message (a mail today, a chat line later) and hands it
here as a :class:`Message`; :func:`play_message` runs the sequence both doors share:

1. identify the message inside the game file's lock (the door's authentication: who
   wrote it, which lines are the moves, the fields of the log entry) and submit its
   moves through the one move path (:func:`referee.play.submit.submit`);
2. a rejected move: the door answers it (:meth:`Message.refused`), and a refusal that
   is not about a move (a damaged file, a stale mail) is the door's too
   (:meth:`Message.not_played`);
3. the moves played: the bot seats play what they now owe
   (:func:`referee.play.submit.bots_after`), and the door tells who must know
   (:meth:`Message.played`);
4. with ``keep_partial``, a line that failed after accepted ones is answered last.

What a door does at each step (print, write an answer file, mail everyone) is its own;
the order of the steps is this module's. Mail-free: nothing here reads or writes a mail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from referee.errors import MoveError, RefereeError
from referee.ledger import gamefile, seats
from referee.play.submit import BotMove, Fields, Submission, bots_after, submit


class Message(Protocol):
    """A player's message, as its front door reads and answers it."""

    def identify(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], Fields]:
        """Inside the lock: the player, the move texts and the log entry's extra fields
        (referee.play.submit.Identify); raises a RefereeError to refuse the message."""
        ...

    def refused(self, exc: MoveError, index: int) -> None:
        """Answer that the move on line ``index`` (0-based) was not accepted."""
        ...

    def not_played(self, exc: RefereeError) -> None:
        """Answer a refusal that is not about a move (or raise it)."""
        ...

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        """The moves are in the file, and the bots' after them (``problem``: why the
        bots stopped early): tell who must know."""
        ...


@dataclass
class Played:
    """What :func:`play_message` did: the submission (None when nothing was played)
    and the moves the bots played after it."""

    done: Submission | None
    bots: list[BotMove] = field(default_factory=list)


def play_message(path: Path, message: Message, *, secret_path: Path | None = None,
                 keep_partial: bool = False) -> Played:
    """Play ``message`` in the game at ``path``: identify, submit, answer a rejection,
    let the bots play, tell (the steps of the module's docstring)."""
    try:
        done = submit(path, None, [], secret_path=secret_path, keep_partial=keep_partial,
                      identify=message.identify)
    except MoveError as exc:
        message.refused(exc, 0)
        return Played(None)
    except RefereeError as exc:
        message.not_played(exc)
        return Played(None)
    bots, problem = let_bots(path, secret_path, done)
    message.played(done, bots, problem)
    if done.failed is not None and done.failed_index is not None:
        message.refused(done.failed, done.failed_index)
    return Played(done, bots)


def let_bots(path: Path, secret_path: Path | None, done: Submission
             ) -> tuple[list[BotMove], str | None]:
    """The bot seats' moves after ``done`` (none for a game without bot seats in the file
    just written, which is then not read again, or for a move appended unchecked)."""
    if done.match is None or not seats.seats_at(done.gf.data).bots:
        return [], None
    return bots_after(path, secret_path)
