"""Files on disk: reading with checks, atomic writes under a lock (DESIGN §3).

Every write is atomic (temporary file, fsync, rename) and done under an exclusive lock on
the file, so a failed or concurrent command leaves the file byte for byte as it was.
This module knows nothing of the game format: it moves bytes and text.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from referee.errors import ConcurrentWriteError, GameFileError, UsageError

LOCK_WAIT_SECONDS = 10.0


def read_bytes(path: Path) -> bytes:
    """The bytes of the game file at ``path``. Raises GameFileError."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise GameFileError(
            f"no game file at {path}", hints=["create one with `referee new GAME FILE`"]
        ) from None
    except IsADirectoryError:
        raise GameFileError(f"{path} is a directory, not a game file") from None
    except OSError as exc:
        raise GameFileError(f"cannot read {path}: {exc.strerror}") from None


def _write_temp(path: Path, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return Path(tmp)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def create(path: Path, text: str) -> None:
    """Write a new game file; refuses to overwrite. Raises UsageError if it exists."""
    if path.exists():
        raise UsageError(f"{path} already exists", hints=["choose another file name"])
    if not path.parent.is_dir():
        raise UsageError(f"folder {path.parent} does not exist")
    tmp = _write_temp(path, text)
    try:
        os.link(tmp, path)  # atomic and never clobbers a file made meanwhile
    except FileExistsError:
        raise UsageError(f"{path} already exists", hints=["choose another file name"]) from None
    finally:
        os.unlink(tmp)
    _fsync_dir(path)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[bytes]:
    """Hold an exclusive lock on the game file and yield its current bytes.

    Waits up to LOCK_WAIT_SECONDS for another writer. After a rename by another writer
    the lock is retaken on the new file, so the bytes yielded are always current.
    Raises GameFileError (missing file) or ConcurrentWriteError.
    """
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            f = path.open("rb")
        except FileNotFoundError:
            raise GameFileError(
                f"no game file at {path}", hints=["create one with `referee new GAME FILE`"]
            ) from None
        with f:
            while True:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise ConcurrentWriteError(
                            f"{path} is being changed by another referee command",
                            hints=["try again in a moment"],
                        ) from None
                    time.sleep(0.02)
            try:
                if os.fstat(f.fileno()).st_ino != os.stat(path).st_ino:
                    continue  # replaced while we waited: lock the new file
            except FileNotFoundError:
                continue
            yield f.read()
            return


def replace(path: Path, old: bytes, text: str) -> None:
    """Atomically replace the (locked) file whose current bytes are ``old``."""
    if path.read_bytes() != old:
        raise ConcurrentWriteError(f"{path} changed while this command ran; nothing written")
    tmp = _write_temp(path, text)
    os.replace(tmp, path)
    _fsync_dir(path)


