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

from collections.abc import Callable, Sequence
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


#: the ``to`` of the public post to a chat game's own room (the chat door's readers are
#: ``matrix:@user:server``, :data:`referee.ledger.roster.MATRIX_TO`)
ROOM_TO = "matrix-room:"
CHAT_PREFIXES = ("matrix:", ROOM_TO)


@dataclass(frozen=True)
class Routed:
    """A message :class:`Doors` made: which door made it, and the door's message."""

    door: Door
    message: object


class Doors:
    """The judge's front doors as one :class:`Door`: a notice to a chat reader
    (``matrix:...``, the game's room) goes to the chat door, every other to the mail door.
    A notice for a door this judge does not run (a mail seat under a chat-only judge) is
    dropped with one log line per reader and game: nobody can be told there."""

    def __init__(self, mail: Door | None, chat: Door | None,
                 log: Callable[[str], None]) -> None:
        self.mail, self.chat, self.log = mail, chat, log
        self._told: set[tuple[str, str]] = set()

    @property
    def doors(self) -> list[Door]:
        return [d for d in (self.mail, self.chat) if d is not None]

    def door_for(self, to: str) -> Door | None:
        return self.chat if to.startswith(CHAT_PREFIXES) else self.mail

    def attach(self, store: Store) -> None:
        for door in self.doors:
            door.attach(store)

    def prepare(self, game: Loaded, notice: Notice) -> object:
        door = self.door_for(notice.to)
        if door is None:
            if (game.gf.game_id, notice.to) not in self._told:
                self._told.add((game.gf.game_id, notice.to))
                kind = "chat" if notice.to.startswith(CHAT_PREFIXES) else "mail"
                self.log(f"{game.path.name}: {notice.player} is reached by {kind}, which "
                         f"this judge does not run: not told")
            return None
        return Routed(door, door.prepare(game, notice))

    def queue(self, message: object) -> None:
        """Queue a message of :meth:`prepare` with its door; any other message (a mail
        answer the mail door made itself) with the mail door."""
        if message is None:
            return
        if isinstance(message, Routed):
            message.door.queue(message.message)
        elif self.mail is not None:
            self.mail.queue(message)

    def flush(self) -> int:
        return sum(door.flush() for door in self.doors)

    def fatal(self, exc: Exception) -> bool:
        return any(door.fatal(exc) for door in self.doors)
