"""The game files of the files and folders a command is given (`pending`, `check`).

A file named is read as a game file whatever it holds (and said so when it is none).
Under a folder, every ``*.json`` is looked at (sorted; symlinked folders are not
entered), but names that start with ``.`` (the judge's own state, caches and quarantine,
``.git``: the judge serves only ``[!.]*.json``; ``check --since`` still looks at every
file git tracks); and of those, well-formed JSON that is no game file
(:func:`referee.ledger.fileformat.other_json`: the index of the views, a clock view or
notes beside the games) is passed over, as ``check --since`` passes it over. A file that
does not decode may be a damaged game file: it is read, and its error said.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# How every game file the referee writes starts (referee/ledger/fileformat.py's): such a
# file is taken without importing the format's module (`pending` from its cache imports
# no game, nor the engine).
GAME_HEAD = b'{\n  "format": "referee/1",'


@dataclass(frozen=True)
class Found:
    """A file to read: its path, and whether it was named (not found in a folder)."""

    path: Path
    named: bool

    def passed_over(self, raw: bytes) -> bool:
        """Whether the file, found in a folder, is other JSON than a game file."""
        if self.named or raw.startswith(GAME_HEAD):
            return False
        from referee.ledger import fileformat

        return fileformat.other_json(raw)


def found_files(targets: Sequence[Path]) -> list[Found]:
    """The files named, and every ``*.json`` under the folders named (see the module)."""
    files: list[Found] = []
    for target in targets:
        if not target.is_dir():
            files.append(Found(target, True))
            continue
        for folder, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = Path(folder)  # (a child of it costs less than a Path of two parts)
            files += [Found(base / n, False) for n in sorted(names)
                      if n.endswith(".json") and not n.startswith(".")]
    return files


def game_files(targets: Sequence[Path]) -> list[Path]:
    """The game files among ``targets``: every file named, and every file under the
    folders named but other JSON than a game file (one that cannot be read is kept: its
    check says why)."""
    from referee.errors import GameFileError
    from referee.ledger import fileio

    out = []
    for found in found_files(targets):
        try:
            if found.passed_over(b"" if found.named else fileio.read_bytes(found.path)):
                continue
        except GameFileError:
            pass
        out.append(found.path)
    return out
