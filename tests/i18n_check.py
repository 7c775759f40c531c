"""Finding English left in German output: :func:`english_sentences`.

A line is taken for an English sentence when it holds at least ``least`` (default 2)
English function words that German never uses ("the", "of", "is", "your", ...). Words
German shares with English ("in", "an", "so", "was", "will", "die", "man", "also") are
not counted, so German text does not trip it. Not prose, and not counted: a command in
backticks, an option (``--as``), a message's placeholder (``{player}``) and a metavariable
in capitals (``PLAYER``). Move notation ("supply 2", "pass") and player ids hold none of
the counted words; ``ignore`` leaves out more (the words of a game's notation that happen
to be English, say). tests/test_i18n.py shows it finding English and passing German.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# English function words with no German homograph ("in", "an", "so", "was", "will", "die",
# "man", "also", "her", "still", "legal" are German words too, and are left out)
_STOP_TEXT = """
    the and of to is are isn't aren't were be been being it its it's this that these
    those there their they them you your you're yours he she his we our us not no nor
    or but if then than when where which who whom whose what why how with without from
    for by at on into onto about after before over under again once only can cannot
    can't could should would must may might has have had does doesn't do don't did
    didn't each every any some none more other such own same too very here now just
    yet while until because through between during against whether one ones move moves
    turn player players game given left
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
# not prose: a command quoted in backticks, an option (--from-email), a placeholder of a
# message ({player}), a metavariable in capitals (PLAYER, FILE) and the alternatives of a
# command's syntax (turn|every|digest)
_CODE = re.compile(r"`[^`]*`|--?[A-Za-z][\w-]*|\{[^{}]*\}|\b[A-Z]{2,}\b|\S+(?:\|\S+)+")


def english_words(line: str, ignore: Iterable[str] = ()) -> list[str]:
    """The counted English words of ``line``, in order (lower case)."""
    skip = {w.lower() for w in ignore}
    prose = _CODE.sub(" ", line)
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(prose))
            if w in STOP_WORDS and w not in skip]


def english_sentences(text: str, ignore: Iterable[str] = (), least: int = 2) -> list[str]:
    """The lines of ``text`` that read as English: at least ``least`` counted English
    words (see the module's docstring); [] for text that is all German."""
    skip = list(ignore)
    return [line.strip() for line in text.splitlines()
            if len(english_words(line, skip)) >= least]
