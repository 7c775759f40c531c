"""A cache for `pending`: what a game file says (whose turn, since when), keyed by the
file's bytes.

An entry is found by SHA-256 of the code's fingerprint and the file's exact bytes, so a
changed file or a changed referee never meets an old entry. It lives under
``$XDG_CACHE_HOME/referee`` (default ``~/.cache/referee``; ``REFEREE_CACHE_DIR``
overrides it, ``REFEREE_CACHE_DIR=off`` turns it off), is safe to delete at any time,
and is used only by `pending`, which reports and decides nothing: `check` never reads
it. Only successful rows are stored; a file that cannot be read is replayed every time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

import msgspec

import referee
from referee import fileio

ROW_KEYS = {"game": str, "id": str, "finished": bool, "waiting": list, "prompt": str}


def cache_dir() -> Path | None:
    """Where the entries go, or None when caching is off."""
    configured = os.environ.get("REFEREE_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee" / "pending-1"


@functools.cache
def code_fingerprint() -> bytes:
    """The referee's version and the size and time of each of its source and data files:
    any change to the code or the component data gives new keys."""
    root = Path(referee.__file__).parent
    digest = hashlib.sha256(referee.__version__.encode())
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith((".py", ".json")):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.digest()


def key(raw: bytes) -> str:
    return hashlib.sha256(code_fingerprint() + raw).hexdigest()


def lookup(raw: bytes) -> dict[str, Any] | None:
    """The stored row for a file with these bytes, if any and well-formed."""
    folder = cache_dir()
    if folder is None:
        return None
    k = key(raw)
    try:
        row = msgspec.json.decode(fileio.read_bytes(folder / k[:2] / k, "cache entry"))
    except (fileio.GameFileError, msgspec.DecodeError):
        return None
    if not isinstance(row, dict) or not all(
            isinstance(row.get(name), kind) for name, kind in ROW_KEYS.items()):
        return None
    if not isinstance(row.get("since"), str | None):
        return None
    return row


def store(raw: bytes, row: dict[str, Any]) -> None:
    """Remember ``row`` for files with these bytes. Best effort: never raises."""
    folder = cache_dir()
    if folder is None:
        return
    k = key(raw)
    target = folder / k[:2] / k
    with contextlib.suppress(OSError):
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = fileio.write_temp(target, msgspec.json.encode(row), 0o600)
        try:
            os.replace(tmp, target)
        except OSError:
            fileio.discard_temp(fd, tmp)
            raise
        os.close(fd)
