"""A player's text read as the referee reads it, whatever carried it (a mail, a chat
message, an issue, the command line).

The reading is forgiving in one way only: it looks for what the player meant. A line
loses a list bullet, the quotes around it and trailing punctuation (:func:`clean_line`:
``- "supply 2."`` is ``supply 2``); ``move:`` lines name the moves outright; otherwise
every own line that may be the move is kept (:func:`read_lines`), and the first that is
a command or reads as a move in the game's notation is taken (:func:`take_line`), so that
chat before it (``Thanks, good move!``) is passed over and never played. ``say`` text
(:func:`say_text`) and a ``plan`` (:func:`plan_lines`) are read from the lines after
their word. Nothing here knows a transport: a door hands over the player's own lines
(a mail without its quotes and signature, a chat message as typed). A line tidied, and
the command line's moves: :mod:`referee.play.lines`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from referee.errors import RefereeError
from referee.i18n import domain
from referee.ledger.fileformat import SAY_MAX
from referee.play.lines import clean_line

_, N_, ngettext = domain("referee")

MAX_LINES = 20  # own lines looked at for the move when chat comes first
SAY_MARKS = 5  # combining marks in a row on one character
PLAN_WORD = "plan"
# letters and a mark that print as nothing (Unicode "default ignorable"): no hidden text
_BLANK = frozenset("\u034f\u115f\u1160\u3164\uffa0")
_KEYED_RE = re.compile(r"^(token|game|player)\s*:", re.I)
_MOVE_RE = re.compile(r"^moves?\s*:\s*(.*)$", re.I)
_GREETING_RE = re.compile(
    r"^(hi|hello|hey|dear|hallo|hallöchen|moin|servus|salut|bonjour|hola|ciao|greetings|"
    r"good (morning|afternoon|evening))\b[\w\s.'-]{0,30}[,!]?$",
    re.I,
)


class Refused(RefereeError):
    """A player's text that is not acted on; ``reason`` names why (``say``, ``quiet``,
    or a door's own check). ``public``: what its sender may be told when they are not
    authenticated (default: the message)."""

    def __init__(self, reason: str, message: str, hints: Sequence[str] = (),
                 public: str | None = None) -> None:
        super().__init__(message, hints=list(hints))
        self.reason = reason
        self.public = public if public is not None else message


class Read(Protocol):
    """What a door read of a player's text: their own lines, and of them the lines that
    may be the move (``lines``, each tidied, with its place in ``own`` in ``origins``)
    and the moves (``move:`` lines, else the first of ``lines``)."""

    @property
    def own(self) -> tuple[str, ...]: ...

    @property
    def moves(self) -> tuple[str, ...]: ...

    @property
    def lines(self) -> tuple[str, ...]: ...

    @property
    def origins(self) -> tuple[int, ...]: ...

    def line_number(self, k: int) -> int: ...


R = TypeVar("R", bound=Read)


@dataclass(frozen=True)
class Text:
    """A player's text as typed (a chat message, a command line's moves), read."""

    own: tuple[str, ...]
    moves: tuple[str, ...]
    lines: tuple[str, ...]
    origins: tuple[int, ...]

    def line_number(self, k: int) -> int:
        """The number of ``lines[k]`` among the player's own non-empty lines (1: the
        first line they wrote): the line as they count it."""
        return sum(1 for line in self.own[:self.origins[k] + 1] if line)


def read_text(text: str) -> Text:
    """``text`` (its lines as typed) read: the same forgiving reading as a mail's own
    lines (a trailing period, chat before the move, ``move:`` lines)."""
    own = tuple(line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n")
                .split("\n"))
    moves, lines, origins = read_lines(own)
    return Text(own, moves, lines, origins)


def read_lines(own: Sequence[str]
               ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]:
    """(the moves: the ``move:`` lines, else the first line that may be one; without
    ``move:`` lines, every line that may be the move, at most :data:`MAX_LINES`; where
    each of those is in ``own``)."""
    keyed: list[str] = []
    pending = False
    for line in own:
        if pending:
            if line:
                keyed.append(clean_line(line))
                pending = False
            continue
        m = _MOVE_RE.match(line)
        if m:
            if m.group(1).strip():
                keyed.append(clean_line(m.group(1)))
            else:
                pending = True
    if keyed or pending:
        return tuple(k for k in keyed if k), (), ()
    lines: list[str] = []
    origins: list[int] = []
    for i, line in enumerate(own):
        if not line or _KEYED_RE.match(line) or _GREETING_RE.match(line):
            continue
        tidy = clean_line(line)
        if tidy:
            lines.append(tidy)
            origins.append(i)
        if len(lines) == MAX_LINES:
            break
    return tuple(lines[:1]), tuple(lines), tuple(origins)


# --- which line is the move or the command ---------------------------------------------


@dataclass(frozen=True)
class Taken:
    """The line of a text that is read: ``index`` in its ``lines``, the ``line``
    (tidied), and its ``number`` among the player's own lines as they count them."""

    index: int
    line: str
    number: int


def reads_as_move(game: Any, state: Any, player: str, line: str) -> bool:
    """Whether ``line`` reads as a move in the game's notation (legal or not, the
    player's turn or not): "cannot read" is the only no."""
    from referee.errors import MalformedMove, MoveError

    legal = game.legal_moves(state, player) if player in game.to_move(state) else []
    try:
        game.parse_move(line, legal)
    except MalformedMove:
        return False
    except MoveError:
        return True
    return True


def take_line(read: Read, commands: Iterable[str] = (), game: Any = None,
              state: Any = None, player: str | None = None) -> Taken | None:
    """Which of the text's lines (``lines``, without ``move:`` lines) is read: the
    first whose first word is one of ``commands``, or that reads as a move in
    ``game``'s notation for ``player`` now (legal, illegal or ambiguous, but no "cannot
    read"), so that chat before it is passed over and never played. The first line
    when none is, and when the text has one line; moves are looked for only while
    ``player`` has a decision in ``game`` (give no ``game`` for commands only). None
    for a text without such lines (``move:`` lines, or no text)."""
    lines = read.lines
    if not lines:
        return None
    words = frozenset(w.lower() for w in commands)
    reads = _move_reader(game, state, player) if len(lines) > 1 else None
    for k, line in enumerate(lines if len(lines) > 1 else ()):
        first = line.split(None, 1)[0].lower() if line.split() else ""
        if first in words or (reads is not None and reads(line)):
            return Taken(k, line, read.line_number(k))
    return Taken(0, lines[0], read.line_number(0))


def _move_reader(game: Any, state: Any, player: str | None) -> Any:
    """A test whether a line reads as a move of ``player`` now, or None when they have
    no decision (or there is no game)."""
    if game is None or player is None or game.finished(state) or \
            player not in game.to_move(state):
        return None

    def reads(line: str) -> bool:
        return reads_as_move(game, state, player, line)

    return reads


def from_taken(read: R, taken: Taken) -> R:
    """``read`` as if its player had written nothing before the taken line: its first
    move is that line (what ``say`` and ``plan`` read starts there)."""
    k = taken.index
    return replace(read, moves=(taken.line,), lines=read.lines[k:],  # type: ignore[type-var]
                   origins=read.origins[k:])


def taken_note(taken: Taken | None) -> list[str]:
    """The line an answer opens with when chat came before the line read (in the
    current language); [] when the first line was read."""
    if taken is None or not taken.index:
        return []
    return [_("Took line {number} of your mail: `{line}`; the text before it is not read "
              "as a move or a command.").format(number=taken.number, line=taken.line)]


# --------------------------------------------------------------------------- say


def say_text(read: Read) -> str:
    """The text of a ``say`` command: the rest of its line and the own lines after it up
    to a blank line, joined with single spaces. Plain text only: letters, marks, digits,
    punctuation, symbols and spaces; at most :data:`SAY_MAX` characters. Raises Refused
    (``say``) naming the first character or bound that fails."""
    first = read.moves[0] if read.moves else ""
    m = re.match(r"(?i)^say(?=\s|$)", first)
    if not m:
        raise Refused("say", _("not a say command"))
    parts = [first[m.end():]]
    own = list(read.own)
    start = read.origins[0] if read.origins and read.lines[0] == first else \
        own.index(first) if first in own else None
    if start is not None:
        for line in own[start + 1:]:
            if not line.strip() or _KEYED_RE.match(line):
                break
            parts.append(line)
    text = unicodedata.normalize("NFC", " ".join(parts))
    if len(text) > SAY_MAX * 4:  # no need to look at every character of a huge one
        raise _too_long(len(text))
    marks = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in _BLANK or (ch != "\t" and cat[0] not in "LMNPS" and cat != "Zs"):
            name = unicodedata.name(ch, cat)
            raise Refused("say", _("say not relayed: it contains {code} ({name}); a say is "
                                   "plain text on one paragraph: no control, format, line or "
                                   "paragraph separator characters").format(
                                       code=f"U+{ord(ch):04X}", name=name))
        marks = marks + 1 if cat[0] == "M" else 0
        if marks > SAY_MARKS:
            raise Refused("say", _("say not relayed: more than {n} combining marks on one "
                                   "character").format(n=SAY_MARKS))
    text = re.sub(r"[\t\s]+", " ", text).strip()
    if not text:
        raise Refused("say", _("say: nothing to say"))
    if len(text) > SAY_MAX:
        raise _too_long(len(text))
    return text


def _too_long(length: int) -> Refused:
    return Refused("say", _("say not relayed: {length} characters, at most {most}").format(
        length=length, most=SAY_MAX))


# --- plans (referee/ledger/plans.py) ---------------------------------------------------


def plan_lines(read: Read) -> list[str] | None:
    """The lines of a ``plan`` command: its first own line is ``plan`` (with a first line
    after it, or ``--clear``), the plan's lines follow, one a line, up to an empty line.
    None when the text is no plan command."""
    own = list(read.own)
    start = read.origins[0] if read.origins else next(
        (k for k, line in enumerate(own) if line and not _KEYED_RE.match(line)), None)
    if start is None:
        return None
    words = own[start].split(None, 1)
    if not words or words[0].lower() != PLAN_WORD:
        return None
    lines = [words[1].strip()] if len(words) > 1 else []
    for line in own[start + 1:]:
        if _KEYED_RE.match(line):
            continue
        if not line:
            break
        lines.append(line)
    return lines
