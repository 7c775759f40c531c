"""The door protocol: what a door hands the judge's core, and what the core hands a door.

A door is one transport (mail, chat, ...), one package of its own under
:mod:`referee.doors`. It does three things only:

1. it turns its transport's events into authenticated player texts, :class:`Said`
   (who wrote it, which game, where it was said: the game's table or the seat alone,
   which referee message it answers), and hands each to the core
   (:meth:`referee.judge.core.Judge.handle`); a text it cannot authenticate is its own to
   answer or drop;
2. it delivers the core's notices (:class:`Notice`: who is told what, at the table, to
   one seat alone or to the game master) as its own messages;
3. it keeps its transport's own bookkeeping (Message-IDs, rooms, sync positions) in its
   own part of the judge's state.

Everything a player can type (moves, commands, plans, ``say``) is read once, in the core,
with one command table and one rejection text (:mod:`referee.judge.handling`), in the
door's :class:`Words`. The shape is httpx's ``_transports/``: one small base
(:class:`Door`), each door one package behind it, the core never knowing which.

A reader's address (``to``) is the game file's: a mail address, ``matrix:@ann:hs``; the
core treats it as opaque and asks the doors which of them reaches it
(:meth:`Door.reaches`). None is the game's table: every door that keeps a table for the
game (:meth:`Door.keeps_table`) gets the notice.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from referee import i18n
from referee.errors import RefereeError

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.play.reading import Read

_, N_, ngettext = i18n.domain("referee")


class Place(enum.Enum):
    """Where a player's text was said, and so where its answer may go."""

    TABLE = "table"  # every player of the game reads it (a game's room)
    SEAT = "seat"  # the seat alone with the referee (a mail, a direct room)


@dataclass(frozen=True)
class Notice:
    """One message of a game the core decided to send.

    ``player``: the reader (a seat, the watchers' WATCHER, the game master's GM); ``to``:
    their address as the game file names it, None for the game's table; ``board``: show
    the board as the reader sees it; ``notice``: a notification of the game's state (your
    turn, what happened, the game over, a reminder), which a door may also (or instead)
    post to the reader's own channel; ``answers``: the door's reference of the player's
    message it answers (None when nobody asked); ``headline``: a line a door may show
    first (a post to a table names the game)."""

    player: str
    to: str | None
    body: str
    answers: str | None = None
    board: bool = False
    notice: bool = False


@dataclass(frozen=True)
class Said:
    """A player's text that a door authenticated, for the core to act on.

    ``ref``: the door's id of the message (a Message-ID, an event id): it is handled
    once, and a log entry the text makes keeps it in its field ``field`` (``mail``,
    ``matrix``); ``place``: where it was said; ``at``: the play number of the referee's
    message it answers (None: a plain message, which answers the game as it is now);
    ``kind``: ``message``; ``edit`` (a changed message: never played, but a hidden
    choice in it is withdrawn like any other) or ``too_long`` (never parsed);
    ``answers``: the reference an answer is threaded under (default ``ref``);
    ``sender``: who sent it as the transport names them (a rate counts per sender)."""

    door: Door
    ref: str
    field: str
    game: Loaded
    player: str
    text: Read
    place: Place = Place.SEAT
    at: int | None = None
    kind: str = "message"
    answers: str | None = None
    sender: str = ""

    @property
    def thread(self) -> str:
        return self.answers or self.ref


@dataclass(frozen=True)
class Words:
    """How a door's messages speak of themselves: the core's texts are the same for
    every door but for these (each an English source string, translated where shown).

    ``reply``: the lines that end a message to a player who may move, saying how to answer;
    ``since``: the heading of the events since the reader's last message; ``answer``:
    the last line of a rejection; ``current``: the line under a refused stale message;
    ``stale``: why a message answering an older one changes nothing ({old}, {now}: the
    play numbers; {advice}: ``stale_advice``); ``replayed``: why a message already in
    the log is not played again ({n}: its entry, {now}); ``say_footer``: under a relayed
    ``say``; ``setting``: the answer to ``notify MODE`` ({mode}); ``help``: the lines of
    ``help``; ``elsewhere``: the line at the table when the answer went to the seat alone
    ({player}); ``no_move``: a text without a line to read; ``no_line``: under a refused
    move when no line of a longer text read as one; ``private_place``: the answer to a
    private command said at the table ({command}); ``agree``: how to agree to a
    rematch; ``language``: the answer to ``lang`` ({language}); ``rematch``: the
    answer when a rematch starts ({file}); ``hidden_at_table``: to a hidden
    choice said there (None for a door without tables); ``took``: the line that opens
    an answer when text before the line read was passed over ({number}, {line}; None:
    not told)."""

    reply: Sequence[str]
    since: str
    answer: str
    current: str
    stale: str
    stale_advice: str
    replayed: str
    say_footer: str
    setting: str
    help: Sequence[str]
    no_move: str
    no_line: str
    agree: str
    language: str
    rematch: str
    took: str | None = None
    elsewhere: str | None = None
    private_place: str | None = None
    hidden_at_table: str | None = None


#: the words of a door that sets none: the mail's (the German catalog has them all)
MAIL_WORDS = Words(
    reply=(N_("Reply to this mail: your move on the first line (several: one line"),
           N_("`move: ...` each). Keep the subject: its [#...] tag is your token."),
           N_("Commands instead of a move: status, help, undo, nonce WORDS, say TEXT.")),
    since=N_("Since your last mail:"),
    answer=N_("Reply to this mail with your decision."),
    current=N_("Here is the current state: reply to this mail."),
    stale=N_("your mail answers the referee's mail of move {old}, but the game is at move "
             "{now}: {advice}"),
    stale_advice=N_("this answers an old mail; reply to the latest one"),
    replayed=N_("this mail was already played: its Message-ID is in log entry {n}; the game "
                "is at move {now} now: reply to the latest mail"),
    say_footer=N_("(A message from a player, relayed as written. Reply to the referee's "
                  "latest mail with your move; `say TEXT` to answer everyone.)"),
    setting=N_("Your mail setting is now {mode}."),
    no_move=N_("No move found in your mail: write it on the first line."),
    no_line=N_("No line of your mail reads as a move, so nothing was played."),
    agree=N_("Reply `rematch` to this mail to agree."),
    language=N_("Your mails are now in {language}."),
    rematch=N_("Everyone agreed: the rematch has started ({file}); its first mail comes "
               "on its own."),
    took=N_("Took line {number} of your mail: `{line}`; the text before it is not read as "
            "a move or a command."),
    help=(
        N_("How to play by mail: reply to the referee's latest mail with your move on"),
        N_("the first line, or several moves as lines `move: ...`. Keep the subject."),
        N_("Commands (alone on the first line):"),
        N_("  status            the current state again"),
        N_("  help              this text"),
        N_("  undo              take back your last move (if it revealed nothing)"),
        N_("  nonce WORDS       your entropy, before the first move (games with nonces)"),
        N_("  say TEXT          a message to the other players: plain text, one"),
        N_("                    paragraph of at most 500 characters, 5 says an hour"),
        N_("  notify turn|every|digest   how often you get mail (default turn)"),
        N_("  notify via URL [also|only]  notices on your chat or push channel too, or"),
        N_("                    only there (docs: notifications); notify via off: none"),
        N_("  bot LEVEL | bot off   a bot (random, greedy, mcts) plays your seat, or you again"),
        N_("  rematch           after the game: agree to play again (seats rotated);"),
        N_("                    it starts when every player has agreed"),
        N_("  plan              then one line each: moves played for you when their"),
        N_("                    decision arises: MOVE, or if PLAYER MOVE then MOVE;"),
        N_("                    `plan --clear` withdraws it, `plan` alone shows it"),
        N_("  vacation DAYS     stop your clock for DAYS days (games with a clock)"),
        N_("  lang de|en        the language of your mails (German: sprache deutsch)"),
    ),
)


class DoorDown(RefereeError):
    """A door's transport cannot be reached or refuses the door itself (a server down,
    a login refused): the door's work waits for the next pass; the other doors go on."""


class Door:
    """A door of the judge (the base every door implements)."""

    #: the door's name in logs and in ``referee judge``'s start-up line
    name: ClassVar[str] = "door"
    words: ClassVar[Words] = MAIL_WORDS

    def attach(self, judge: Any) -> None:
        """Serve ``judge`` (a :class:`referee.judge.core.Judge`: its state, its games)
        from now on: at start and after a reset (what was not saved forgotten)."""
        self.judge = judge

    def reaches(self, to: str) -> bool:
        """Whether ``to`` (a reader's address as the game file names it) is this
        door's."""
        raise NotImplementedError

    def keeps_table(self, game: Loaded) -> bool:
        """Whether the game has a table here: a place every player reads (a game's
        room), where the public view goes after every change."""
        return False

    def prepare(self, game: Loaded, notice: Notice) -> object:
        """The door's message for ``notice``, made now (it takes its place in its thread
        now); not sent before :meth:`queue` and :meth:`flush`. None: nothing to send."""
        raise NotImplementedError

    def queue(self, message: object) -> None:
        """Keep ``message`` (one :meth:`prepare` made, or the door's own) to be sent."""
        raise NotImplementedError

    def flush(self) -> int:
        """Deliver what is queued; how many were. One message the transport refuses
        for good is dropped with a log line (and a note to the game master); one game
        whose place cannot be reached waits alone. Raises :class:`DoorDown` when the
        transport cannot be reached at all (the queue waits), or a failure of the disk."""
        raise NotImplementedError

    #: a sender's texts that read as moves or commands, at most so many per window
    #: (None: no rate; the core counts, :meth:`referee.judge.core.Judge.within_rate`)
    rate: ClassVar[tuple[int, dt.timedelta] | None] = None

    def take(self, wait: float = 0.0) -> Taken:
        """Read what came since the last pass (waiting up to ``wait`` seconds for the
        first), hand each authenticated text to the core and mark it read. Raises
        :class:`DoorDown` (nothing marked read that was not handled)."""
        raise NotImplementedError

    #: how many legal moves the door numbers in its posts to a player who must decide (0:
    #: none); a text of just a number said where the seat is alone plays that move (the
    #: door gives such a text the play number of its numbered post, ``Said.at``)
    numbers: ClassVar[int] = 0

    #: one post per change of turn: a player's own follow-up decision gets a short
    #: message (what they may do next), not the board again
    quiet: ClassVar[bool] = False

    #: the door has no place where a seat is alone with the referee (a GitHub issue:
    #: everyone reads it): the core answers a text said at its table there, with the
    #: public view, and in a sealed game without what may tell the seat's hand (why a
    #: move was refused, the closest legal moves); the seat's own address is answered
    #: as always, by the door that reaches it
    answers_in_public: ClassVar[bool] = False

    #: whether :meth:`take` itself waits for the first event (a chat sync does); else
    #: the loop calls :meth:`wait` after a pass that read nothing
    waits_in_take: ClassVar[bool] = False

    def wait(self, seconds: float) -> None:
        """Wait up to ``seconds`` for something to come (default: sleep)."""
        import time

        time.sleep(seconds)

    def summary(self, taken: Taken) -> str:
        """The log line of a pass that read something."""
        return taken.summary(f"{self.name} messages")

    def down_line(self, message: str) -> str:
        """The log line when the door's transport is down."""
        return f"{self.name}: cannot go on, will retry: {message}"

    def withdraw(self, said: Said, why: str) -> None:
        """Remove ``said`` from the place it was said (a hidden choice at the table),
        where the transport lets the referee; best effort."""

    def close(self) -> None:
        """Let go of the transport."""


@dataclass
class Taken:
    """What one :meth:`Door.take` did: texts read (chat at a table not counted), and
    of them played."""

    read: int = 0
    played: int = 0
    lines: list[str] = field(default_factory=list)  # the outcomes' actions, in order
    down: str = ""  # why the door could not go on (its transport is down)

    def summary(self, what: str) -> str:
        return f"read {self.read} {what}, {self.played} played"


@dataclass(frozen=True)
class Routed:
    """A message :class:`Doors` made: which door made it, and the door's message."""

    door: Door
    message: object


class Doors:
    """The judge's doors as one: a notice goes to the door that reaches its reader
    (the table: to every door that keeps one for the game). A notice for a reader whom
    no door of this judge reaches (a mail seat under a chat-only judge) is dropped with
    one log line per reader and game: nobody can be told there."""

    def __init__(self, doors: Iterable[Door], log: Callable[[str], None]) -> None:
        self.doors = list(doors)
        self.log = log
        self._told: set[tuple[str, str]] = set()

    def named(self, name: str) -> Door | None:
        return next((d for d in self.doors if d.name == name), None)

    def door_for(self, to: str | None) -> Door | None:
        if to is None:
            return None
        return next((d for d in self.doors if d.reaches(to)), None)

    def words_for(self, to: str | None, game: Loaded | None = None) -> Words:
        """The words of the door that reaches ``to`` (the table: of the first door that
        keeps one)."""
        door = self.door_for(to) if to is not None else next(
            (d for d in self.doors if game is not None and d.keeps_table(game)), None)
        return door.words if door is not None else MAIL_WORDS

    def attach(self, judge: Any) -> None:
        for door in self.doors:
            door.attach(judge)

    def prepare(self, game: Loaded, notice: Notice) -> list[Routed]:
        """The messages of ``notice``: one from the door that reaches its reader, or for
        the table one from each door that keeps a table for the game."""
        if notice.to is None:
            return [Routed(d, d.prepare(game, notice)) for d in self.doors
                    if d.keeps_table(game)]
        door = self.door_for(notice.to)
        if door is None:
            if (game.gf.game_id, notice.to) not in self._told:
                self._told.add((game.gf.game_id, notice.to))
                self.log(f"{game.path.name}: {notice.player} is reached by no door this "
                         f"judge runs: not told")
            return []
        return [Routed(door, door.prepare(game, notice))]

    def queue(self, messages: object) -> None:
        """Queue messages of :meth:`prepare` (a list of them, or one) with their doors."""
        for routed in messages if isinstance(messages, list) else [messages]:
            if isinstance(routed, Routed) and routed.message is not None:
                routed.door.queue(routed.message)

    def flush(self) -> int:
        """Deliver every door's queue; a door that is down waits (its own pass says so),
        the others go on; a failure of the disk raises."""
        sent = 0
        for door in self.doors:
            try:
                sent += door.flush()
            except DoorDown:
                continue
        return sent
