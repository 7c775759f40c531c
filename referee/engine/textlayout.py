"""Text for narrow screens and e-mails: lines that fit a width, and legal moves grouped.

Used by `status`, `move` and the mails (through referee.play.statusview) and by the games'
text boards. Nothing here knows a game: moves are grouped by their canonical text only.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from referee.i18n import domain

__all__ = [
    "ALTERNATIVES",
    "GROUPED_NOTE",
    "SEPARATOR",
    "WIDE",
    "WIDTH",
    "expand",
    "fit",
    "fit_all",
    "group_moves",
    "grouped_lines",
    "merge_one_word",
    "wrap_items",
]

_, N_, ngettext = domain("referee")

WIDTH = 80  # a terminal (`status`); a mail is laid out for 78
WIDE = 132  # `status --wide`: the same text, fewer lines broken
ALTERNATIVES = ","  # joins the values of the one word that varies: "aachen 3,4"
SEPARATOR = " | "  # between moves (or groups of moves) of the same kind
GROUPED_NOTE = N_("a,b = one of the values")  # translated where shown: _(GROUPED_NOTE)


def fit(line: str, width: int = WIDTH, indent: str = "    ") -> list[str]:
    """``line`` as lines of at most ``width`` characters, broken at spaces; continuation
    lines get ``indent`` (added to the line's own leading spaces). A word longer than
    the width (a very long player name) is broken inside."""
    if len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip(" "))]
    if len(lead) + len(indent) >= width // 2:
        lead = ""
    return textwrap.wrap(
        line, width=width, initial_indent="", subsequent_indent=lead + indent,
        break_on_hyphens=False, drop_whitespace=True,
    ) or [""]


def fit_all(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """Every line of ``lines`` (each may hold newlines) fitted to ``width``."""
    out: list[str] = []
    for text in lines:
        for line in text.split("\n"):
            out += fit(line, width)
    return out


def wrap_items(items: Sequence[str], first: str, indent: str, width: int = WIDTH,
               sep: str = SEPARATOR) -> list[str]:
    """``first`` then the items separated by ``sep``, wrapped between items (inside one
    only if it alone is wider than a line); continuation lines begin with ``indent``."""
    lines: list[str] = []
    line, fresh = first, True
    for item in items:
        candidate = line + item if fresh else line + sep + item
        if not fresh and len(candidate) > width:
            lines.append(line if sep == SEPARATOR else line + sep.rstrip())
            candidate = indent + item
        line, fresh = candidate, False
    lines.append(line)
    return [part for text in lines for part in fit(text, width, indent="  ")]


def _slot_key(words: tuple[str, ...], i: int) -> tuple[int, int, tuple[str, ...]]:
    return (len(words), i, words[:i] + words[i + 1:])


def merge_one_word(rests: Sequence[tuple[str, ...]]) -> list[str]:
    """Moves of one kind (their words after the first) merged where they differ in one
    word only: ("aachen","3"), ("aachen","4") -> "aachen 3,4". Later words vary first
    (the seat before the region), so a list reads like the notation, from the general
    to the particular. Each move is in exactly one item; items are in the order of
    their first move."""
    item_of: dict[int, tuple[int, str]] = {}
    for i in reversed(range(max((len(r) for r in rests), default=0))):
        groups: dict[tuple[int, int, tuple[str, ...]], list[int]] = {}
        for b, words in enumerate(rests):
            if b not in item_of and len(words) > i:
                groups.setdefault(_slot_key(words, i), []).append(b)
        for group in groups.values():
            if len(group) < 2:
                continue
            words = rests[group[0]]
            values = ALTERNATIVES.join(rests[b][i] for b in group)
            text = " ".join((*words[:i], values, *words[i + 1:]))
            for b in group:
                item_of[b] = (group[0], text)
    for b, words in enumerate(rests):
        item_of.setdefault(b, (b, " ".join(words)))
    return list(dict.fromkeys(text for _, text in sorted(item_of.values())))


def _common_word(rests: list[tuple[str, ...]]) -> str | None:
    """The first word every move of a kind shares, if something differs after it."""
    if len(set(rests)) < 2 or any(len(r) < 2 for r in rests):
        return None
    first = {r[0] for r in rests}
    return rests[0][0] if len(first) == 1 else None


def group_moves(legal: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Canonical moves grouped by their first word (the kind of decision), in the order
    the kinds first appear; words all moves of a kind share are added to the kind ("sit
    out"), and each kind's moves are merged by :func:`merge_one_word`. Every move can be
    read back: kind + item, with one of the values where an item has a,b."""
    kinds: dict[str, list[tuple[str, ...]]] = {}
    for text in legal:
        first, *rest = text.split()
        kinds.setdefault(first, []).append(tuple(rest))
    out: list[tuple[str, list[str]]] = []
    for kind, rests in kinds.items():
        while (word := _common_word(rests)) is not None:
            kind, rests = f"{kind} {word}", [r[1:] for r in rests]
        out.append((kind, merge_one_word(rests)))
    return out


def expand(kind: str, item: str) -> list[str]:
    """The moves one grouped item stands for (the inverse of the grouping)."""
    words = item.split()
    for i, word in enumerate(words):
        if ALTERNATIVES in word:
            return [" ".join([kind, *words[:i], value, *words[i + 1:]])
                    for value in word.split(ALTERNATIVES)]
    return [" ".join([kind, *words])]


def grouped_lines(legal: Sequence[str], width: int = WIDTH) -> list[str]:
    """The legal moves as lines of at most ``width``: one block per kind of decision,
    "  deploy: aachen 3,4 | milano 2,5", continuation lines indented under the items. A
    move that is just the kind's word ("done", "pass") has a line of its own."""
    out: list[str] = []
    for kind, items in group_moves(legal):
        if "" in items:
            out += fit(f"  {kind}", width)
        rest = [item for item in items if item]
        if rest:
            head = f"  {kind}: "
            out += wrap_items(rest, head, "    ", width)
    return out
