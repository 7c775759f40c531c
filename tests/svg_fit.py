"""Whether a picture's texts fit: :func:`overflows`, the one check of every picture test.

A text's width is estimated as the layout estimates it (``GLYPH`` of its font size per
character, ``BOLD`` for bold text) from its anchor (start, middle ``m`` or end ``e``),
and it is refused when it

- runs past the picture (left of 0 or right of its width);
- leaves its box: the smallest rectangle drawn before it in its group that holds its
  anchor point (a seat, a chest, a region board), and the first rectangle of its group or
  an enclosing one that is a box, not a swatch (no class, 60 px wide or more);
- runs into the next text on its line in its group;
- was cut with an ellipsis (unless ``cut_ok``: a game that shortens long labels on
  purpose says so).

Tolerance: 1 px. Texts of one or two characters (a number on a swatch) are not checked
against a box or their neighbours.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
GLYPH = 0.56  # the average glyph width per px of font size the pictures fit text with
BOLD = 0.62  # the same for bold text
BOX_MIN = 60.0  # a rectangle narrower than this is a swatch, not a text's box
Rect = tuple[float, float, float, float]


def _sizes(root: ET.Element) -> dict[str, float]:
    style = root.find(f"{SVG}style")
    text = style.text or "" if style is not None else ""
    return {m[0]: float(m[1]) for m in re.findall(r"\.(f[\d-]+)\{font-size:([\d.]+)px", text)}


def _size(el: ET.Element, sizes: dict[str, float]) -> float:
    for cls in (el.get("class") or "").split():
        if cls in sizes:
            return sizes[cls]
    return 12.0


def _rect(el: ET.Element) -> Rect:
    return (float(el.get("x", 0)), float(el.get("y", 0)), float(el.get("width", 0)),
            float(el.get("height", 0)))


class _Check:
    def __init__(self, svg: str, cut_ok: bool) -> None:
        self.root = ET.fromstring(svg)
        self.sizes = _sizes(self.root)
        self.width = float(self.root.get("width") or 0)
        self.cut_ok = cut_ok
        self.bad: list[str] = []
        self.lines: dict[tuple[int, float], list[tuple[float, float, str]]] = {}

    def walk(self, group: ET.Element, box: tuple[float, float] | None) -> None:
        first = next((c for c in group if c.tag == f"{SVG}rect" and not c.get("class")
                      and float(c.get("width", 0)) >= BOX_MIN), None)
        if first is not None and group is not self.root:
            x, _y, w, _h = _rect(first)
            box = (x, x + w)
        rects: list[Rect] = []
        for el in group:
            tag = el.tag.removeprefix(SVG)
            if tag == "rect" and el.get("class") != "changed":
                rects.append(_rect(el))
            elif tag == "g":
                self.walk(el, box)
            elif tag == "text" and el.text:
                self.text(el, group, rects, box)

    def text(self, el: ET.Element, group: ET.Element, rects: list[Rect],
             box: tuple[float, float] | None) -> None:
        text = el.text or ""
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        classes = (el.get("class") or "").split()
        est = len(text) * _size(el, self.sizes) * (BOLD if "b" in classes else GLYPH)
        start = x - est / 2 if "m" in classes else x - est if "e" in classes else x
        end = start + est
        if text.endswith("…") and not self.cut_ok:
            self.bad.append(f"cut: {text!r}")
        if start < -1 or end > self.width + 1:
            self.bad.append(f"past the picture: {text!r}: {est:.0f} px from x={start:.0f}")
        holding = [r for r in rects if r[0] <= x <= r[0] + r[2] and r[1] <= y <= r[1] + r[3]
                   and r[2] < self.width]
        if holding:
            left, _y, w, _h = min(holding, key=lambda r: r[2] * r[3])
            if start < left - 1 or end > left + w + 1:
                self.bad.append(f"out of its box: {text!r}: {est:.0f} px from x={start:.0f}, "
                                f"box [{left:.0f}, {left + w:.0f}]")
        if len(text) > 2:
            if box and (start < box[0] - 1 or end > box[1] + 1):
                self.bad.append(f"out of its group's box: {text!r}: {est:.0f} px from "
                                f"x={start:.0f}, box [{box[0]:.0f}, {box[1]:.0f}]")
            self.lines.setdefault((id(group), y), []).append((start, end, text))

    def neighbours(self) -> None:
        for line in self.lines.values():
            line.sort()
            for (_a0, a1, a), (b0, _b1, b) in itertools.pairwise(line):
                if a1 > b0 + 1:
                    self.bad.append(f"runs into the next text: {a!r} | {b!r}")


def overflows(svg: str, cut_ok: bool = False) -> list[str]:
    """What does not fit in ``svg`` (see the module's docstring); [] when all fits."""
    check = _Check(svg, cut_ok)
    check.walk(check.root, None)
    check.neighbours()
    return check.bad
