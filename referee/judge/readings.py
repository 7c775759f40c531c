"""How the judge reads a player's line beyond the notation: what an answer may repeat of
it (:func:`echo`, :func:`echo_reason`: cut, control characters shown), the moves an
abbreviation could mean (:func:`readings`), a word a typo away from a move word
(:func:`near_miss`), a hidden choice inside a longer text (:func:`hidden_in`). A leaf of
the core: :mod:`referee.judge.handling` asks these."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee import engine
from referee.errors import MoveError
from referee.play import reading
from referee.play.lines import clean_line

if TYPE_CHECKING:
    from referee.judge.basics import Loaded

ECHO_MAX = 80  # characters of a player's line an answer repeats
HIDDEN_WORDS = 40  # words of a line looked at for a hidden choice inside it


NUMBER_MAX = 3  # digits of a move's number (a door numbers at most 999 moves)


def number(line: str) -> int | None:
    """The move number a line is (1 to 3 ASCII digits, nothing else), or None: a door
    that numbers its moves reads a number as its move, and only such a line."""
    if line.isascii() and line.isdigit() and len(line) <= NUMBER_MAX:
        return int(line)
    return None


def _shown(text: str) -> str:
    """``text`` with control and format characters (and line and paragraph separators)
    shown as U+FFFD."""
    import unicodedata

    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c
                   for c in text)


def echo(line: str) -> str:
    """A player's line as an answer repeats it: at most :data:`ECHO_MAX` characters,
    control and format characters shown as U+FFFD. Whatever a player types, an answer
    that quotes it stays small."""
    return _shown(line[:ECHO_MAX]) + ("..." if len(line) > ECHO_MAX else "")


REASON_MAX = 600  # characters of a game's reason for refusing a line, whatever it quotes


def echo_reason(reason: str, line: str) -> str:
    """A game's reason for refusing ``line``: the referee's own words, but where it
    quotes the player's line (as typed or as its repr) the line is cut as :func:`echo`
    cuts it, control characters shown as U+FFFD, and the whole at most
    :data:`REASON_MAX` characters."""
    if len(line) > ECHO_MAX:
        for quoted in (line, repr(line)[1:-1]):
            reason = reason.replace(quoted, echo(line))
    reason = _shown(reason[:REASON_MAX])
    return reason + ("..." if len(reason) == REASON_MAX else "")


def readings(game: Loaded, player: str, line: str) -> list[str]:
    """The legal moves of ``player`` that ``line`` abbreviates word by word (``deploy a
    3``: ``deploy aachen 3``, ``deploy augsburg 3``): the candidates of an ambiguous
    reading; [] when none is (the game's own candidates then)."""
    match = game.match
    if match.game.finished(match.state) or player not in match.game.to_move(match.state):
        return []
    words = line.lower().split()
    return [m for m in engine.legal_strings(match.game, match.state, player)
            if len(m.split()) == len(words) and all(
                full.lower().startswith(w) for w, full in zip(words, m.split(), strict=True))]


def near_miss(match: engine.Match, player: str, word: str) -> bool:
    """Whether ``word`` is nearly (a typo away from) the first word of a legal move of
    ``player``, who has a decision now: ``suply`` for ``supply``."""
    if not word or match.game.finished(match.state) or \
            player not in match.game.to_move(match.state):
        return False
    words = sorted({m.split()[0].lower() for m in engine.legal_strings(
        match.game, match.state, player) if m.split()})
    return bool(difflib.get_close_matches(word[:40], words, n=1, cutoff=0.8))


def hidden_in(game: Loaded, player: str, lines: Sequence[str]) -> bool:
    """Whether one of ``lines`` holds a hidden choice of ``player`` now (a move with a
    field only its author may see, ``engine.private_fields``): the line itself, or any
    run of its words (``keep aachen 3 noble, sorry``, ``I keep aachen 3 noble``)."""
    match = game.match
    if match.game.finished(match.state) or player not in match.game.to_move(match.state):
        return False
    game_ = match.game
    hidden = [game_.format_move(m) for m in game_.legal_moves(match.state, player)
              if engine.private_fields(game_, m)]
    if not hidden:
        return False
    longest = max(len(m.split()) for m in hidden)
    firsts = tuple(sorted({m.split()[0].lower() for m in hidden}))
    for raw in list(dict.fromkeys(lines))[:2 * reading.MAX_LINES]:
        words = clean_line(raw).lower().replace(",", " ").split()[:HIDDEN_WORDS]
        for i, first in enumerate(words):
            if not any(f.startswith(first) for f in firsts):
                continue
            for k in range(1, longest + 1):
                if i + k <= len(words) and _private(match, player, " ".join(words[i:i + k])):
                    return True
    return False


def _private(match: engine.Match, player: str, line: str) -> bool:
    try:
        move = engine.resolve_move(match.game, match.state, player, line)
    except MoveError:
        return False
    return bool(engine.private_fields(match.game, move))
