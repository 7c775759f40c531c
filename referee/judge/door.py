"""What the judge's core hands to a front door: :class:`Notice`, and :class:`Door`.

The core (:mod:`referee.judge.core`, the sweep of :mod:`referee.judge.tend` and the
clock and deadline rules) decides who is told what: a :class:`Notice` names the reader
(a seat, the watchers' WATCHER or the game master's GM), where it goes, the text, what it
answers and whether it shows the board. It never builds a mail: a front door turns each
notice into its own message and delivers it. The mail door is
:mod:`referee.judge.mailfront` (Message-IDs with a MAC, threads, subjects with the
seat's token, the HTML part with the picture, the outbox); a second door (chat) is a
sibling of it that implements the same :class:`Door`.

Imports nothing of mail and nothing of judge/ but the leaf :mod:`referee.judge.basics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.judge.store import Store


@dataclass(frozen=True)
class Notice:
    """One message of a game the core decided to send.

    ``board``: show the board as the reader sees it; ``notice``: a notification of the
    game's state (your turn, what happened, the game over, a reminder), which a door may
    also (or instead) post to the reader's own channel; ``answers``: what the message
    answers (the door's reference of the player's message), None when nobody asked."""

    player: str
    to: str
    body: str
    answers: str | None = None
    references: Sequence[str] = ()
    board: bool = False
    notice: bool = False


class Door(Protocol):
    """A front door of the judge: makes and delivers the messages of the notices."""

    def attach(self, store: Store) -> None:
        """Use ``store`` (the judge's state) from now on: at start and after a reset."""
        ...

    def prepare(self, game: Loaded, notice: Notice) -> object:
        """The door's message for ``notice``, made now (it takes its place in its thread
        now); not sent before :meth:`queue` and :meth:`flush`."""
        ...

    def queue(self, message: object) -> None:
        """Keep ``message`` (one :meth:`prepare` made, or the door's own) to be sent."""
        ...

    def flush(self) -> int:
        """Deliver every queued message; how many were."""
        ...

    def fatal(self, exc: Exception) -> bool:
        """Whether ``exc`` is a failure of the door's delivery (the round stops)."""
        ...
