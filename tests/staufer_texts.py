"""Helpers of the German Staufer tests: random positions, the texts a player reads, a
small check for English left in German text, and the text boxes of a picture."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from referee.engine import full_options
from referee.games.staufer import GAME, gamesetup
from referee.games.staufer.state import State
from referee.rng import Rng

NAMES = ["ann", "ben", "cat", "dan", "eve"]

# Words that occur in English sentences and not in German ones (not "in", "an", "so",
# "Region", "Bonus", which both languages write).
_STOP = """
the and you your with for of is are not must cannot can has have points point chest
chests round player players none empty choose left stack board king court envoy envoys
noble nobles payment scoring privilege privileges track display seats cost only game over
winner tied there this that here each every pick take keep first place space turn order
supply move deploy figures figure contracts contract seen public view legend discards
recent office pattern majority already pointless available shown tile tracks initial
letter travels travel province supplies shared win by after before now
"""
STOP_WORDS = frozenset(_STOP.split())

# The notation and ids a German text may show: a move form in parentheses, a chest type
# in brackets, the component ids of contract cards.
_NOTATION = re.compile(
    r"\((?:supply|deploy|seat|first|privilege|done|take|pick|keep|return)\b[^)]*\)"
    r"|\[(?:[a-z0-9+-]+)\]"
    r"|\b(?:supply|deploy|seat|privilege|done|take|pick|keep|return) ?(?:<[^>]*>|N|\.\.\.|none)"
    r"|\+envoy|\+draw|\b\d-(?:adjacent|gap|opposite|alternating)\b|\ball-seats\b"
    r"|\bpairs\b|\bseries\b|\bcost\d\b|contract:[a-z0-9-]+")


def english_words(text: str) -> list[str]:
    """The lines of ``text`` that hold an English stop word once the notation is taken
    out (player ids are single lower-case names of NAMES and never stop words)."""
    found = []
    for line in text.splitlines():
        bare = _NOTATION.sub(" ", line)
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", bare)} - set(NAMES)
        if words & STOP_WORDS:
            found.append(f"{sorted(words & STOP_WORDS)}: {line.strip()}")
    return found


def positions(players: int, games: int = 2, every: int = 9) -> Iterator[State]:
    """Positions of random games (every ``every``-th decision and the end)."""
    for g in range(games):
        state = gamesetup.setup(GAME.data, NAMES[:players], full_options(GAME, {}),
                                Rng(f"de-{players}-{g}"))
        rng = Rng(f"de-play-{players}-{g}")
        step = 0
        while not GAME.finished(state):
            if step % every == 0:
                yield state
            who = GAME.to_move(state)[0]
            legal = GAME.legal_moves(state, who)
            GAME.apply(state, who, legal[rng.below(len(legal), "move")])
            step += 1
        yield state


SVG = "{http://www.w3.org/2000/svg}"
GLYPH = 0.56  # the average glyph width per px of font size the pictures fit text with
BOLD = 0.62  # the same for bold text


def _size(el: ET.Element, sizes: dict[str, float]) -> float:
    for cls in (el.get("class") or "").split():
        if cls in sizes:
            return sizes[cls]
    return 12.0


def overflowing(svg: str) -> list[str]:
    """The texts of ``svg`` whose estimated width leaves their box: the smallest
    rectangle drawn before the text in its group that holds the text's anchor point
    (a seat, a chest, a region board), else the picture's width."""
    root = ET.fromstring(svg)
    style = root.find(f"{SVG}style")
    sizes = {m[1]: float(m[2]) for m in re.finditer(r"\.(f[0-9-]+)\{font-size:([0-9.]+)px",
                                                     style.text or "")} if style is not None else {}
    width = float(root.get("width", "0"))
    bad: list[str] = []

    def walk(group: ET.Element) -> None:
        rects: list[tuple[float, float, float, float]] = []
        for el in group:
            tag = el.tag.removeprefix(SVG)
            if tag == "rect" and el.get("class") != "changed":
                rects.append((float(el.get("x", 0)), float(el.get("y", 0)),
                              float(el.get("width", 0)), float(el.get("height", 0))))
            elif tag == "g":
                walk(el)
            elif tag == "text" and el.text:
                _check(el, rects)

    def _check(el: ET.Element, rects: list[tuple[float, float, float, float]]) -> None:
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        classes = (el.get("class") or "").split()
        est = len(el.text or "") * _size(el, sizes) * (BOLD if "b" in classes else GLYPH)
        start = x - est / 2 if "m" in classes else x - est if "e" in classes else x
        holding = [r for r in rects if r[0] <= x <= r[0] + r[2] and r[1] <= y <= r[1] + r[3]
                   and r[2] < width]
        left, right = (0.0, width)
        if holding:
            box = min(holding, key=lambda r: r[2] * r[3])
            left, right = box[0], box[0] + box[2]
        if start < left - 1 or start + est > right + 1:
            bad.append(f"{el.text!r}: {est:.0f} px from x={start:.0f}, box [{left:.0f}, "
                       f"{right:.0f}]")

    walk(root)
    return bad
