"""The files `views` tells from themselves without reading them: a game file or a file of
views by its stat identity (device, inode, size, mtime, ctime, as git's index tells a
file), a folder of views by its own, and a file of views by what :func:`check` reads of
it when it must be looked at (:mod:`referee.git.viewcache` keeps what each was)."""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import time

from referee.errors import RefereeError
from referee.ledger import fileio

AGE_HEAD = 4096  # an age file's header is read this far (then the whole file)
# A file whose mtime or ctime is this close to the moment its identity is recorded may
# still change within the same tick of the file system's clock without either time
# moving (git's "racily clean" entries): its identity is not kept, and the next run
# looks at its bytes (and keeps the identity then).
RACY_NS = 1_000_000_000

PACK = struct.Struct("<5Q").pack  # an identity: device, inode, size, mtime, ctime


def identity(st: os.stat_result, now_ns: int) -> bytes:
    """What tells a file from itself after any change that goes through the file system:
    its device and inode (another file put in its place), size, mtime and ctime (the
    ctime cannot be set back: writing, or setting the mtime back, moves it), packed.
    Empty when it changed too recently to tell (:data:`RACY_NS`) or is no regular file:
    then its bytes are looked at."""
    if not stat.S_ISREG(st.st_mode) or max(st.st_mtime_ns, st.st_ctime_ns) > now_ns - RACY_NS:
        return b""
    return PACK(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def same(st: os.stat_result | None, identity: bytes) -> bool:
    """Whether ``st`` is the file whose identity was recorded (never for an empty one)."""
    return bool(identity) and st is not None and stat.S_ISREG(st.st_mode) and identity == PACK(
        st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


SMALL = 1 << 16  # a file of views but a view is read in one call this long


def lstat(name: str, folder: int | None) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return None


def folder_identity(fd: int | None) -> bytes:
    """OUT's own device, inode, mtime and ctime (empty: it is not there)."""
    if fd is None:
        return b""
    try:
        st = os.fstat(fd)
    except OSError:
        return b""
    return PACK(st.st_dev, st.st_ino, 0, st.st_mtime_ns, st.st_ctime_ns)


def stat_of(file: str) -> os.stat_result | None:
    try:
        return os.stat(file)
    except OSError:
        return None


def hashed(file: str) -> tuple[bytes, bytes, bytes]:
    """The game file's bytes, their SHA-256 and its stat identity before the read.
    Raises GameFileError."""
    raw, st = bytes_of(file)
    return raw, hashlib.sha256(raw).digest(), identity(st, time.time_ns())


def bytes_of(file: str) -> tuple[bytes, os.stat_result]:
    """The bytes of the game file at ``file`` in one read and its stat before the read.
    Raises GameFileError (not a regular file, too big, unreadable: saying why)."""
    fd, st = fileio.open_regular(file)
    try:
        return fileio.read_fd(fd, file, st.st_size), st
    finally:
        os.close(fd)


def check(name: str, folder: int | None = None) -> tuple[str, os.stat_result] | None:
    """What a file of views is, to tell it from any other, and its stat before it was
    read (None: not a regular file of at most the read cap, or not there); ``folder``:
    the open folder ``name`` is in. A view (``.age``): its size and the SHA-256 of its
    header and payload nonce, which no two encryptions share (fresh randomness each
    time), so another view, an old one put back or one made by anyone else differs. The
    limit: a payload changed under the genuine header (copied from the file) is not seen
    here; it fails age's authentication for the player, who is told the view is damaged,
    and is repaired when the game moves or by a run without the cache (a CI job's: the
    index's HMACs cover every byte). Any other file: the SHA-256 of its bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > fileio.MAX_GAME_FILE_BYTES:
            return None  # (a FIFO or a folder put there, or a huge file)
        if name.endswith(".age"):
            head = os.read(fd, AGE_HEAD)
            mark = head.find(b"\n--- ")
            end = head.find(b"\n", mark + 1) if mark > 0 else -1
            if head.startswith(b"age-encryption.org/v1\n") and 0 < end <= len(head) - 17:
                digest = hashlib.sha256(head[:end + 17]).hexdigest()
                return f"age {st.st_size} {digest}", st
            os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, SMALL)
        if len(data) == SMALL:
            data += fileio.read_fd(fd, name, st.st_size)
        return hashlib.sha256(data).hexdigest(), st
    except (OSError, RefereeError):
        return None
    finally:
        os.close(fd)
