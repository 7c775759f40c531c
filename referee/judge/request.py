"""What a command handler may ask of the message it answers: :class:`Request`.

The handlers of a player's commands (:mod:`referee.judge.mailcommands`,
:mod:`referee.judge.language`) receive a ``Request``, not the dispatcher that read the
message (:class:`referee.judge.incoming.Incoming` is one): the judge, the message's
referee ID and reply, and the four things a handler does with them (answer with the
state, answer that a command was not done, queue messages, and a freshness guard for the
write core). Below the dispatcher, above the core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from referee.errors import RefereeError
    from referee.judge.basics import Loaded
    from referee.judge.core import Judge
    from referee.judge.outcome import Outcome
    from referee.ledger.gamefile import GameFile
    from referee.mail import Reply, mime


class Request(Protocol):
    """One player's message being answered."""

    @property
    def judge(self) -> Judge:
        """The judge the message came to."""
        ...

    msgid: str  # the message's own Message-ID (what the store marks answered)
    reply: Reply

    @property
    def extra(self) -> dict[str, str]:
        """The fields a log entry made for the message carries: ``{"mail": MESSAGE-ID}``,
        ``{"matrix": EVENT-ID}``."""
        ...

    def answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                     detail: str = "") -> Outcome:
        """Answer ``player`` with the game's state after ``note``; the outcome logged."""
        ...

    def not_done(self, game: Loaded, player: str, command: str, exc: RefereeError
                 ) -> Outcome:
        """Answer that ``command`` was not done, and why (a failure of the disk raises)."""
        ...

    def queue(self, messages: Sequence[mime.Mail | EmailMessage | object]) -> None:
        """Queue ``messages`` and mark the message answered."""
        ...

    def still_fresh(self, mid: Any) -> Callable[[GameFile], None]:
        """The write core's guard: the message is still unplayed and answers the latest."""
        ...
