"""The GitHub door's one answer to an event, as Markdown for the workflow to post as a
comment on the issue: the door's own lines, the judge's texts in fenced code blocks (a
player's words inside them can neither close the fence nor mention, link or format
anything), and the game's links. Bounded: at most :data:`ANSWER_MAX` bytes (GitHub takes
a comment of up to 65,536 characters); a text that would pass it is cut, its fence
closed."""

from __future__ import annotations

from collections.abc import Sequence

from referee.git.issues import fenced
from referee.i18n import domain

_, N_, ngettext = domain("referee")

ANSWER_MAX = 60_000  # bytes of one answer
MARK = "<!-- referee: an answer of the GitHub door -->"  # its first line: never read as a move


def cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` bytes of UTF-8, cut at a character."""
    raw = text.encode()
    if len(raw) <= limit:
        return text
    return raw[:max(0, limit)].decode("utf-8", "ignore")


def compose(lines: Sequence[str], texts: Sequence[str], links: Sequence[str]) -> str:
    """The answer: the door's ``lines``, the judge's ``texts`` (each fenced) and the
    game's ``links``, in at most :data:`ANSWER_MAX` bytes (the texts cut first: a cut
    text ends with a line saying so, inside its fence)."""
    head = "\n\n".join([MARK, *lines])
    tail = "\n".join(links)
    room = ANSWER_MAX - len(head.encode()) - len(tail.encode()) - 64 * (len(texts) + 2)
    blocks: list[str] = []
    for text in texts:
        share = max(0, room // max(1, len(texts) - len(blocks)))
        shown = text if len(text.encode()) <= share else \
            cut(text, share - 80) + "\n" + _("[cut: the rest is too long for one answer]")
        blocks.append(fenced(shown))
        room -= len(blocks[-1].encode())
    answer = "\n\n".join(part for part in (head, *blocks, tail) if part) + "\n"
    return cut(answer, ANSWER_MAX)
