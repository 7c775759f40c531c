"""PNG pictures kept by the SVG they were rendered from: each distinct picture is
rendered once.

A picture depends only on its SVG text (which depends only on the view it was drawn
from), so the key is the SHA-256 of the SVG together with the renderer's version. The
cache keeps the latest pictures in memory and, given a folder, every picture on disk
(``FOLDER/ab/abcdef....png``, written atomically and not fsynced: a crash may lose an
entry, never leave a wrong one). A file that is not a whole PNG (damaged, cut short) is
rendered again and replaced; a folder that cannot be written only costs the renders.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from pathlib import Path

from referee.errors import RefereeError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"
MEMORY = 1024  # pictures kept in memory (a board's tiles are 4-20 KB each)


def renderer() -> str:
    """The renderer and its version, part of every key (a new resvg draws anew)."""
    import resvg_py

    return f"resvg-py {getattr(resvg_py, '__version__', '?')}"


def key_of(svg: str, version: str) -> str:
    return hashlib.sha256(f"{version}\n{svg}".encode()).hexdigest()


def whole_png(data: bytes) -> bool:
    return data.startswith(PNG_SIGNATURE) and data.endswith(PNG_END) and len(data) > 40


class PictureCache:
    """``png(svg)``: the PNG of ``svg``, rendered only if this cache has not seen it.
    ``renders`` counts the renders, ``hits`` the pictures served from the cache."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.renders = 0
        self.hits = 0
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self._version: str | None = None
        self._made: set[Path] = set()  # the folders made (or found) by this cache

    def png(self, svg: str) -> bytes:
        from referee.pictures import svg_to_png

        if self._version is None:
            self._version = renderer()
        key = key_of(svg, self._version)
        found = self._memory.get(key)
        if found is None and self.folder is not None:
            found = self._read(key)
        if found is not None:
            self.hits += 1
        else:
            found = svg_to_png(svg)
            self.renders += 1
            self._write(key, found)
        self._memory[key] = found
        self._memory.move_to_end(key)
        while len(self._memory) > MEMORY:
            self._memory.popitem(last=False)
        return found

    def path(self, key: str) -> Path | None:
        return None if self.folder is None else self.folder / key[:2] / f"{key}.png"

    def _read(self, key: str) -> bytes | None:
        path = self.path(key)
        try:
            data = path.read_bytes() if path is not None and path.is_file() else None
        except OSError:
            return None
        return data if data is not None and whole_png(data) else None

    def _write(self, key: str, data: bytes) -> None:
        from referee.ledger import fileio

        path = self.path(key)
        if path is None:
            return
        try:
            if path.parent not in self._made:  # (a look in the folder per render saved)
                path.parent.parent.mkdir(exist_ok=True, mode=0o700)  # the cache's folder
                path.parent.mkdir(exist_ok=True, mode=0o700)
                self._made.add(path.parent)
            fileio.write_atomic(path, data, mode=0o600, durable=False, what="picture cache")
        except (OSError, RefereeError):
            self._made.discard(path.parent)  # (a folder removed meanwhile is made again)
            # the picture is still used; only the next run renders it again
