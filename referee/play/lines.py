"""A line as the player meant it (:func:`clean_line`: ``- "supply 2."`` is ``supply 2``),
and the moves of a command line's MOVE arguments (:func:`command_line_moves`): what
`referee move` needs of the reading of a player's text (:mod:`referee.play.reading`,
which the doors use), without the rest of it (its import was a fifth of what `move`
adds to `status`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BULLET_RE = re.compile(r"^(?:[-*+\u2022\u2013]\s+|\d{1,3}[.)]\s+)")
_QUOTES = "\"'`\u2018\u2019\u201a\u201c\u201d\u201e\u00ab\u00bb"
_TRAILING_RE = re.compile(r"[\s.,;:!?\u2026]+$")
_VERBATIM_RE = re.compile(r"(?i)^(say|nonce)(\s|$)")  # their words are the player's


def clean_line(line: str) -> str:
    """A line as the player meant it: without a list bullet (``- ``, ``* ``, ``1. ``),
    the quotes or backticks around it, and trailing punctuation (``"supply 2."`` ->
    ``supply 2``). A ``say`` or ``nonce`` line keeps its words as written."""
    text = line.strip()
    for _ in range(3):  # ``- "supply 2".``: a bullet, quotes, then punctuation
        before = text
        text = _BULLET_RE.sub("", text, count=1).strip()
        if _VERBATIM_RE.match(text):
            return text
        text = _TRAILING_RE.sub("", text)
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
            text = text[1:-1].strip()
        if text == before:
            break
    return text


def command_line_moves(words: Sequence[str]) -> list[str]:
    """The moves of a command line's MOVE arguments, each read as a mail's line is
    (:func:`clean_line`: ``supply 2.`` is ``supply 2``). An argument that holds a space
    was quoted, and is one move (``"deploy milano 4" "seat envoy"``: two); the plain words
    between such arguments are one move together, as typed without quotes (``deploy
    milano 4``: one; ``"deploy milano 4" seat envoy``: two)."""
    groups: list[str] = []
    run: list[str] = []
    for word in words:
        if len(word.split()) > 1:
            groups += [" ".join(run), word] if run else [word]
            run = []
        elif word.strip():
            run.append(word.strip())
    if run:
        groups.append(" ".join(run))
    return [text for text in map(clean_line, groups) if text]
