"""Which names of the games folder changed since the judge's last look, without listing
it: Linux inotify, through ctypes (the standard library has no binding).

The kernel queues an event for every change to an entry of the folder: a file created,
written in place (``cp`` over a game file, an editor saving in place), its attributes
changed (``touch``), renamed from or to a name (every write of the referee: a temporary
file, then a rename), removed. The judge drains the queue at each look and re-reads only
the files named; a change made after the drain is queued for the next look, so none is
lost between the two. The queue overflowing, the folder itself moved or removed, or no
inotify at all (another system, or the user's inotify instances used up): :meth:`changes`
says "unknown" and the judge lists the whole folder, as it did on every look before.

What inotify does not see: changes made by another machine to a folder shared over the
network (NFS, SMB) or inside some FUSE filesystems. For those, :data:`RESCAN_SECONDS`
after the last whole listing the answer is "unknown" too: such a change is seen within
that time, not at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
import time
from pathlib import Path

#: the longest time between two listings of the whole folder (see the docstring)
RESCAN_SECONDS = 60.0

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x2000, 0x4000, 0x8000
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE \
    | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
LOST = IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT | IN_DELETE_SELF | IN_MOVE_SELF
EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded


class FolderWatch:
    """The changes to one folder's entries (None from :meth:`changes`: unknown)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.fd = _watch(folder)
        self.listed = float("-inf")  # when the folder was last listed whole (monotonic)

    def listing(self) -> None:
        """The caller is about to list the whole folder: the changes queued so far are
        in that listing (drained now, so that :meth:`changes` names only later ones).
        A watch lost (its queue overflowed: a burst of writes, the judge's own among
        them) is made again here, so that only the looks until this listing pay for it."""
        self.listed = time.monotonic()
        if self.fd is not None and self._drain() is None:
            self.close()
        if self.fd is None:
            self.fd = _watch(self.folder)

    def changes(self) -> set[str] | None:
        """The names changed since the last call or :meth:`listing`, or None: unknown
        (list the whole folder)."""
        if self.fd is None or time.monotonic() - self.listed > RESCAN_SECONDS:
            return None
        found = self._drain()
        if found is None:
            self.close()  # (the folder or the queue lost: list from now on)
        return found

    def _drain(self) -> set[str] | None:
        assert self.fd is not None
        names: set[str] = set()
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return names
            except OSError:
                return None
            at = 0
            while at + EVENT.size <= len(data):
                _, mask, _, size = EVENT.unpack_from(data, at)
                if mask & LOST:
                    return None
                raw = data[at + EVENT.size:at + EVENT.size + size].rstrip(b"\0")
                names.add(os.fsdecode(raw))
                at += EVENT.size + size

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _watch(folder: Path) -> int | None:
    """An inotify descriptor watching ``folder``'s entries, or None (none to be had)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fd = int(libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None
    if int(libc.inotify_add_watch(fd, os.fsencode(folder), MASK)) < 0:
        os.close(fd)
        return None
    return fd
