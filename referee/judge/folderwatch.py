"""Which names of the games folder changed since the judge's last look, without listing
it: the operating system's file watch, through watchfiles (a maintained binding of the
Rust `notify` crate: inotify on Linux, FSEvents on macOS, ReadDirectoryChanges on
Windows), in the ``[mail]`` and ``[matrix]`` extras and imported only by a judge.

The watch collects, in a thread of its own, every change to an entry of the folder: a file
created, written in place (``cp`` over a game file, an editor saving in place), its
attributes changed (``touch``), renamed from or to a name (every write of the referee: a
temporary file, then a rename), removed. The judge takes what was collected at each look
and re-reads only the files named; a change made after that is collected for the next
look, so none is lost between the two. The watch failing, or none to be had (watchfiles
not installed, the user's watches used up): :meth:`changes` says "unknown" and the judge
lists the whole folder, as it did on every look before.

What a file watch does not see: changes made by another machine to a folder shared over
the network (NFS, SMB), inside some FUSE filesystems, or lost when the kernel's queue of
changes overflows under a burst of writes. For those, :data:`RESCAN_SECONDS` after the
last whole listing the answer is "unknown" too: such a change is seen within that time,
not at once.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

#: the longest time between two listings of the whole folder (see the docstring)
RESCAN_SECONDS = 60.0
Watch = Generator[set[tuple[Any, str]], None, None]


class FolderWatch:
    """The changes to one folder's entries (None from :meth:`changes`: unknown)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.watch = _watch(folder)
        self.listed = float("-inf")  # when the folder was last listed whole (monotonic)

    def listing(self) -> None:
        """The caller is about to list the whole folder: the changes collected so far
        are in that listing (taken now, so that :meth:`changes` names only later ones).
        A watch that failed is made again here."""
        self.listed = time.monotonic()
        if self.watch is not None and _drain(self.watch) is None:
            self.close()
        if self.watch is None:
            self.watch = _watch(self.folder)

    def changes(self) -> set[str] | None:
        """The names changed since the last call or :meth:`listing`, or None: unknown
        (list the whole folder)."""
        if self.watch is None or time.monotonic() - self.listed > RESCAN_SECONDS:
            return None
        found = _drain(self.watch)
        if found is None:
            self.close()  # (the watch failed: list from now on)
        return found

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        if self.watch is not None:
            with contextlib.suppress(Exception):
                self.watch.close()
            self.watch = None


def _watch(folder: Path) -> Watch | None:
    """A watch of ``folder``'s entries (not of its subfolders), started; None when there
    is none to be had."""
    try:
        import watchfiles
    except ImportError:
        return None
    try:
        found: Watch = watchfiles.watch(
            folder, watch_filter=None, debounce=1, step=1, rust_timeout=1,
            yield_on_timeout=True, recursive=False, raise_interrupt=False)
        next(found)  # (started: what changes from here on is collected)
    except Exception:  # watchfiles' own errors: no watch, a listing each look
        return None
    return found


def _drain(watch: Watch) -> set[str] | None:
    """The names of the entries changed since the last drain, or None (the watch
    failed)."""
    try:
        changed = next(watch)
    except Exception:
        return None
    return {Path(path).name for _, path in changed}
