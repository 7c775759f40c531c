"""Finding English left in German output: :func:`english_sentences`, the one detector
every German test uses.

A line is taken for an English sentence when it holds at least ``least`` counted English
words. The counted words are :data:`STOP_WORDS`, English function words that German never
uses ("the", "of", "is", "your", ...); a game's test adds the English words of its own
components (:data:`STAUFER`, :data:`DYNASTIES`: "chest", "figure", "goods", ...) and
counts a single one (``least=1``). Words German shares with English ("in", "an", "so",
"was", "will", "die", "man", "also") are not counted, so German text does not trip it.

Not prose, and not counted: a command in backticks, an option (``--as``), a message's
placeholder (``{player}``), a metavariable in capitals (``PLAYER``), the alternatives of a
command's syntax (``turn|every|digest``), an e-mail address, the token tag of a mail
subject (``[#ab12]``) and a quotation in single quotes (``'you must now discard'``: the
English rulebook quoted, or the text a player typed); a game's ``notation`` (a regular
expression) takes out its move forms and component ids, and ``ignore`` more words (player
ids, the words of a notation that happen to be English). tests/i18n/test_catalogs.py shows it
finding English and passing German.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

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
    turn player players game given left a as reply
"""  # ("a" counts in lower case only: a capital A is a label, "tile A", "A = ...")
STOP_WORDS = frozenset(_STOP_TEXT.split())

# The English words of The Staufer Dynasty's components and actions (a German board says
# Truhe, Gesandter, Hof, ...), counted one at a time in a Staufer text
_STAUFER_TEXT = """
    points point chest chests round empty choose stack board king court envoy envoys
    noble nobles payment scoring privilege privileges track display seats cost over
    winner tied pick take keep first place space order supply deploy figures figure
    contracts contract seen public view legend discards recent office pattern majority
    already pointless available shown tile tracks initial letter travels travel province
    supplies shared win now adjacent opposite alternating gap
"""
# ... and those of Dynasties (Waren, Stadt, Figur, ...)
_DYNASTIES_TEXT = """
    free cost costs space goods cards round figure figures city cities black white
    pink light blue large small majority crown supply drew took placed passed scored used
    coat tile tiles revealed
"""

# The notation and ids a German Staufer text may show: a move form in parentheses, a
# chest type in brackets, a contract card's id as the state stores it.
STAUFER_NOTATION = re.compile(
    r"\((?:supply|deploy|seat|first|privilege|done|take|pick|keep|return)\b[^)]*\)"
    r"|\[(?:[a-z0-9+-]+)\]"
    r"|\b(?:supply|deploy|seat|privilege|done|take|pick|keep|return) ?(?:<[^>]*>|N|\.\.\.|none)"
    r"|\+envoy|\+draw|contract:[a-z0-9-]+")
# The words of the Dynasties notation (moves, component keys) a German text may show.
DYNASTIES_NOTATION = re.compile(
    r"\b(?:trade|twice|with|pay|special|use|sit out|pass|keep|divide|choose|take|from|bag|"
    r"ship|bonus|upgrade|wild|marry|envoy|save|release|score|done|prince|princess|long)\b"
    r"|\b(?:points|cards|scoring|goods|ships|colours):"  # bonus space keys
    r"|\[(?:card|points|ship|sword|arms)-[a-z0-9]+\]")  # a book tile's id

#: the settings of a game's German texts: its words counted one at a time, its notation
STAUFER: dict[str, Any] = {"least": 1, "words": STOP_WORDS | frozenset(_STAUFER_TEXT.split()),
                           "notation": STAUFER_NOTATION}
DYNASTIES: dict[str, Any] = {"least": 1,
                             "words": STOP_WORDS | frozenset(_DYNASTIES_TEXT.split()),
                             "notation": DYNASTIES_NOTATION}

# a word of letters (with an apostrophe: isn't); not a part of an id (a07, card:a12, key_2)
_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?:'[^\W\d_]+)*(?!\w)")
# not prose: a command quoted in backticks, an option (--from-email), a placeholder of a
# message ({player}), a metavariable in capitals (PLAYER, FILE), the alternatives of a
# command's syntax (turn|every|digest), an address, a token tag and a quotation
_CODE = re.compile(r"`[^`]*`|(?<!\w)--?[A-Za-z][\w-]*|\{[^{}]*\}|\b[A-Z]{2,}\b"
                   r"|\S+(?:\|\S+)+|\S+@\S+|\[#[^\]]*\]|(?<!\w)'[^']*'(?!\w)")


def english_words(line: str, ignore: Iterable[str] = (), words: frozenset[str] = STOP_WORDS,
                  notation: re.Pattern[str] | None = None) -> list[str]:
    """The counted English words of ``line``, in order (lower case)."""
    skip = {w.lower() for w in ignore}
    prose = _CODE.sub(" ", notation.sub(" ", line) if notation else line)
    return [w.lower() for w in (m.group(0) for m in _WORD.finditer(prose))
            if w.lower() in words and w.lower() not in skip and w != "A"]  # A: a label


def english_sentences(text: str, ignore: Iterable[str] = (), least: int = 2,
                      words: frozenset[str] = STOP_WORDS,
                      notation: re.Pattern[str] | None = None) -> list[str]:
    """The lines of ``text`` that read as English: at least ``least`` counted English
    words (see the module's docstring); [] for text that is all German."""
    skip = list(ignore)
    return [line.strip() for line in text.splitlines()
            if len(english_words(line, skip, words, notation)) >= least]
