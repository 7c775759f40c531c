"""What a command handler may ask of the text it answers: :class:`Request`.

The handlers of a player's commands (:mod:`referee.judge.commands`,
:mod:`referee.judge.language`) receive a ``Request``, not the handling that read the
text (:class:`referee.judge.handling.Handling` is one): the judge, the text's
reference and reading, its door's words, and the things a handler does with them
(answer with the state, answer that a command was not done, queue messages, the write
core's guard). Below the handling, above the core.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from referee.errors import RefereeError
    from referee.judge.basics import Loaded
    from referee.judge.core import Judge
    from referee.judge.door import Words
    from referee.judge.outcome import Outcome
    from referee.ledger.gamefile import GameFile
    from referee.play.reading import Read


class Request(Protocol):
    """One player's text being answered."""

    judge: Judge
    ref: str  # the text's reference (what the store marks handled)
    read: Read  # the text as read, from the line taken on
    word: str  # the command word as typed
    words: Words  # how the door's messages speak

    @property
    def extra(self) -> dict[str, str]:
        """The fields a log entry made for the text carries: ``{"mail": MESSAGE-ID}``,
        ``{"matrix": EVENT-ID}``."""
        ...

    def guard(self, gf: GameFile) -> None:
        """The write core's check inside the lock: the text is still unplayed and still
        answers the latest play number."""
        ...

    def answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                     detail: str = "") -> Outcome:
        """Answer ``player`` with the game's state after ``note``; the outcome logged."""
        ...

    def not_done(self, game: Loaded, player: str, command: str, exc: RefereeError
                 ) -> Outcome:
        """Answer that ``command`` was not done, and why (a failure of the disk raises)."""
        ...

    def written(self, game: Loaded, player: str, word: str, done: str | None = None
                ) -> Outcome:
        """After a command's write: everyone told, the text handled, ``done`` answered."""
        ...

    def queue(self, messages: Sequence[object]) -> None:
        """Queue ``messages``, mark the text handled, save and deliver."""
        ...

    def answers_to(self, to: str) -> str | None:
        """What an answer to ``to`` is threaded under."""
        ...

    def at_table_of(self, to: str) -> bool:
        """Whether the reader at ``to`` read the text where it was said."""
        ...
