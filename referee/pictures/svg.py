"""A small SVG canvas on xml.etree.ElementTree: shapes, real <text>, highlights.

Every picture has a <title> and a <desc>; every piece of writing is a <text> element (so
it can be searched and read aloud); a figure or token that carries meaning only by its
shape and colour gets its own <title> saying what it is ("ann's Noble").
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from referee import i18n

SVG_NS = "http://www.w3.org/2000/svg"  # written as a plain xmlns attribute

#: player colour names used by the games -> fill colour, and text colour on that fill
PLAYER_FILL: dict[str, tuple[str, str]] = {
    "red": ("#d7263d", "#ffffff"),
    "yellow": ("#f4c20d", "#000000"),
    "green": ("#2e9e44", "#ffffff"),
    "blue": ("#1f5fbf", "#ffffff"),
    "black": ("#222222", "#ffffff"),
    "orange": ("#f07f13", "#000000"),
}
HIGHLIGHT = "#e6007e"  # magenta: nothing else in either game uses it
INK = "#1b1b1b"
MUTED = "#5a5a5a"
PAPER = "#fbf8f1"
FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"


def player_fill(colour: str) -> tuple[str, str]:
    """Fill and text colour for a player colour name (grey for an unknown name)."""
    return PLAYER_FILL.get(colour, ("#888888", "#ffffff"))


def _fmt(value: Any) -> str:
    if type(value) is float:
        return f"{round(value, 1):g}"
    return str(value)


#: the <style> of every picture: shared looks as classes keep the files small and fast
STYLE = (
    ".b{font-weight:bold}.m{text-anchor:middle}.e{text-anchor:end}"
    f".mu{{fill:{MUTED}}}.chip{{stroke:{INK};stroke-width:0.8}}.fig{{stroke:{INK};"
    f"stroke-width:1}}.changed{{fill:none;stroke:{HIGHLIGHT};stroke-width:3}}"
)


def _size_class(size: float) -> str:
    return "f" + _fmt(size).replace(".", "-")


class Pieces:
    """Serialised pieces of earlier pictures of one game, by a key that holds everything
    the piece shows: consecutive positions share most of their board, so the site draws
    and serialises an unchanged region or country once."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, set[float]]] = {}


class Canvas:
    """An SVG document being drawn. Coordinates in px; (0, 0) is the top left."""

    def __init__(self, width: int, title: str, desc: str, pieces: Pieces | None = None) -> None:
        self.width = width
        self._pieces = pieces
        self._placed: list[str] = []  # serialised pieces, in the order of their placeholders
        self._recording: set[float] | None = None
        self.root = ET.Element("svg", {
            "xmlns": SVG_NS, "width": str(width), "role": "img",
            "font-family": FONT, "font-size": "12", "fill": INK,
        })
        ET.SubElement(self.root, "title").text = title
        ET.SubElement(self.root, "desc").text = desc
        self._style = ET.SubElement(self.root, "style")
        self._sizes: dict[float, str] = {}
        self._paper = self.rect(0, 0, width, 0, fill=PAPER)

    def finish(self, height: float) -> str:
        """Set the height to what was drawn and return the SVG text."""
        h = str(int(height + 0.5))
        self.root.set("height", h)
        self.root.set("viewBox", f"0 0 {self.width} {h}")
        self._paper.set("height", h)
        sizes = "".join(f".{name}{{font-size:{_fmt(size)}px}}"
                        for size, name in sorted(self._sizes.items()))
        self._style.text = STYLE + sizes
        out: list[str] = []
        write_xml(self.root, out, self._placed)
        return "".join(out)

    def piece(self, key: str, build: Callable[[ET.Element], None]) -> None:
        """Draw a self-contained piece (``build`` draws into the element it is given).
        With :class:`Pieces`, a piece drawn before under the same ``key`` is reused as
        it was serialised then; ``key`` must therefore hold everything the piece shows."""
        if self._pieces is None:
            build(self.root)
            return
        key = f"{i18n.current()}:{key}"  # a piece's words are in the reader's language
        known = self._pieces.known.get(key)
        if known is None:
            holder = ET.Element("g")
            self._recording = set()
            build(holder)
            sizes, self._recording = self._recording, None
            parts: list[str] = []
            for child in holder:
                write_xml(child, parts)
            text = "".join(parts)
            known = self._pieces.known[key] = (text, sizes)
        for size in known[1]:
            self._sizes.setdefault(size, _size_class(size))
        ET.SubElement(self.root, "piece", {"n": str(len(self._placed))})
        self._placed.append(known[0])

    # --- elements -------------------------------------------------------------------

    def group(self, parent: ET.Element | None = None, title: str | None = None,
              **attrs: Any) -> ET.Element:
        g = ET.SubElement(self.root if parent is None else parent, "g", _attrs(attrs))
        if title:
            ET.SubElement(g, "title").text = title
        return g

    def rect(self, x: float, y: float, w: float, h: float, parent: ET.Element | None = None,
             **attrs: Any) -> ET.Element:
        base = {"x": x, "y": y, "width": w, "height": h}
        return ET.SubElement(self._p(parent), "rect", _attrs({**base, **attrs}))

    def circle(self, cx: float, cy: float, r: float, parent: ET.Element | None = None,
               **attrs: Any) -> ET.Element:
        return ET.SubElement(self._p(parent), "circle", _attrs({"cx": cx, "cy": cy, "r": r,
                                                               **attrs}))

    def polygon(self, points: Iterable[tuple[float, float]], parent: ET.Element | None = None,
                **attrs: Any) -> ET.Element:
        pts = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points)
        return ET.SubElement(self._p(parent), "polygon", _attrs({"points": pts, **attrs}))

    def line(self, x1: float, y1: float, x2: float, y2: float,
             parent: ET.Element | None = None, **attrs: Any) -> ET.Element:
        return ET.SubElement(self._p(parent), "line", _attrs({
            "x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke": INK, **attrs}))

    def text(self, x: float, y: float, content: str, parent: ET.Element | None = None,
             size: float = 12, bold: bool = False, anchor: str = "start",
             fill: str = INK) -> ET.Element:
        classes = []
        if size != 12:
            name = self._sizes.get(size)
            if name is None:
                name = self._sizes[size] = _size_class(size)
            if self._recording is not None:
                self._recording.add(size)
            classes.append(name)
        if bold:
            classes.append("b")
        if anchor == "middle":
            classes.append("m")
        elif anchor == "end":
            classes.append("e")
        attrs = {"x": _fmt(x), "y": _fmt(y)}
        if fill == MUTED:
            classes.append("mu")
        elif fill != INK:
            attrs["fill"] = fill
        if classes:
            attrs["class"] = " ".join(classes)
        el = ET.SubElement(self._p(parent), "text", attrs)
        el.text = content
        return el

    def mark(self, x: float, y: float, w: float, h: float,
             parent: ET.Element | None = None) -> ET.Element:
        """The highlight frame around something that changed (class "changed")."""
        return self.rect(x - 2, y - 2, w + 4, h + 4, parent, rx=4, **{"class": "changed"})

    # --- composite pieces -----------------------------------------------------------

    def figure(self, x: float, y: float, colour: str, kind: str, label: str, title: str,
               parent: ET.Element | None = None) -> None:
        """A player's figure: an Envoy is a disc, a Noble a shield; the letter inside is
        the player's initial. Centre (x, y), about 16 px."""
        fill, ink = player_fill(colour)
        g = self.group(parent, title=title)
        if kind == "N":
            self.polygon([(x - 8, y - 9), (x + 8, y - 9), (x + 8, y + 2), (x, y + 9),
                          (x - 8, y + 2)], g, fill=fill, **{"class": "fig"})
        else:
            self.circle(x, y, 8, g, fill=fill, **{"class": "fig"})
        if label:
            self.text(x, y + 4, label, g, size=10, bold=True, anchor="middle", fill=ink)

    def chip(self, x: float, y: float, w: float, h: float, fill: str, label: str,
             ink: str = INK, title: str | None = None, parent: ET.Element | None = None,
             size: float = 10) -> None:
        """A small labelled tile (a chest, a good, a card); ``title`` names it in full."""
        box = self.rect(x, y, w, h, parent, fill=fill, rx=3, **{"class": "chip"})
        if title:
            ET.SubElement(box, "title").text = title
        self.text(x + w / 2, y + h / 2 + size * 0.36, label, parent, size=size,
                  anchor="middle", fill=ink)

    def _p(self, parent: ET.Element | None) -> ET.Element:
        return self.root if parent is None else parent


# --- the SVG text ------------------------------------------------------------------------

_ATTRIB_SPECIAL = re.compile('[&<>"\r\n\t]')
_CDATA_SPECIAL = re.compile("[&<>]")


def _escape_cdata(text: str) -> str:
    if _CDATA_SPECIAL.search(text) is None:
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attrib(text: str) -> str:
    if _ATTRIB_SPECIAL.search(text) is None:
        return text
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
            .replace("\t", "&#09;"))


def write_xml(elem: ET.Element, out: list[str], placed: list[str] | None = None) -> None:
    """Append ``elem`` as XML text to ``out``: the bytes ``ET.tostring(elem,
    encoding="unicode")`` writes (attributes in their order, ``<tag />`` when empty, the
    same escapes), for the plain tags and string attributes a :class:`Canvas` makes, in
    one pass without ElementTree's namespace walk. With ``placed``, an element
    ``<piece n="i" />`` is written as the serialised piece ``placed[i]``."""
    tag = elem.tag
    if placed is not None and tag == "piece":
        out.append(placed[int(elem.attrib["n"])])
    else:
        out.append("<" + tag)
        for key, value in elem.attrib.items():
            out.append(f' {key}="{_escape_attrib(value)}"')
        text = elem.text
        if text or len(elem):
            out.append(">")
            if text:
                out.append(_escape_cdata(text))
            for child in elem:
                write_xml(child, out, placed)
            out.append(f"</{tag}>")
        else:
            out.append(" />")
    if elem.tail:
        out.append(_escape_cdata(elem.tail))


def _attrs(attrs: Mapping[str, Any]) -> dict[str, str]:
    return {k: _fmt(v) for k, v in attrs.items() if v is not None}


GLYPH = 0.56  # the average glyph width per px of font size, text fitted with it
BOLD_GLYPH = 0.62  # the same for bold text


def fit(text: str, width_px: float, size: float = 12, bold: bool = False) -> str:
    """``text`` shortened with an ellipsis to about ``width_px`` (average glyph width)."""
    limit = max(3, int(width_px / (size * (BOLD_GLYPH if bold else GLYPH))))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def wrap(text: str, width_px: float, size: float = 12, bold: bool = False) -> list[str]:
    """``text`` broken into lines of about ``width_px`` at spaces."""
    limit = max(8, int(width_px / (size * (BOLD_GLYPH if bold else GLYPH))))
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and len(candidate) > limit:
            lines.append(line)
            candidate = word
        line = candidate
    if line:
        lines.append(line)
    return lines


MIN_SIZE = 8.0  # the smallest font a text is shrunk to before it is cut


def fitted(c: Canvas, x: float, y: float, text: str, width: float, parent: Any = None,
           size: float = 12, lines: int = 1, leading: float = 1.15, centre: bool = False,
           **style: Any) -> int:
    """``text`` within ``width`` px: at ``size``, else in up to ``lines`` lines (the
    first at ``y``; with ``centre`` the lines centred on ``y``), else shrunk down to
    MIN_SIZE, and only then cut. Returns the lines drawn."""
    shown = [text]
    bold = bool(style.get("bold"))
    while True:
        shown = wrap(text, width, size, bold) if lines > 1 else [text]
        if len(shown) <= lines and all(_fits(line, width, size, bold) for line in shown):
            break
        if size <= MIN_SIZE:  # cut: the last line shown ends in an ellipsis
            rest = " ".join(shown[lines - 1:])
            shown = [fit(line, width, size, bold) for line in [*shown[:lines - 1], rest]]
            break
        size = max(MIN_SIZE, size - 0.5)
    if centre:
        y -= (len(shown) - 1) * size * leading / 2
    for i, line in enumerate(shown):
        c.text(x, y + i * size * leading, line, parent, size=size, **style)
    return len(shown)


def _fits(text: str, width: float, size: float, bold: bool = False) -> bool:
    return fit(text, width, size, bold) == text


def title_block(c: Canvas, x: float, title: str, prompt: str) -> None:
    """A picture's title and, under it, the prompt in at most two lines (both games)."""
    c.text(x, 28, title, size=20, bold=True)
    for i, line in enumerate(wrap(prompt, 760, 13)[:2]):
        c.text(x, 50 + 16 * i, line, size=13)


def change_note(c: Canvas, x: float, since: int | None, changed: bool) -> None:
    """The key to the magenta marks: what changed since move ``since`` (None: no marks
    asked for), or that nothing did."""
    if since is None:
        return
    wide: dict[str, Any] = {"stroke-width": 3}
    c.rect(x, 40, 16, 12, fill="none", stroke=HIGHLIGHT, **wide)
    note = f"changed since move {since}" if changed else f"nothing changed since move {since}"
    c.text(x + 24, 51, note, size=11)
