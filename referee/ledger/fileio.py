"""Files on disk: reading with checks, atomic writes under a lock.

Reading refuses anything but a regular file of at most MAX_GAME_FILE_BYTES (a FIFO is
opened non-blocking and refused after fstat, so it never hangs). Every write is atomic
(temporary file beside the target, fsync, rename) and done under an exclusive lock on the
file, so a failed or concurrent command leaves the file byte for byte as it was. A write
keeps the file's mode and group (owner too where allowed), goes through a symlink to its
target, and refuses a read-only file. Every OS error becomes one GameFileError or
UsageError.

Temporary files are named ``.NAME.XXXX.referee-tmp`` and locked (flock) by the process
that writes them; a later write into the same folder removes the ones whose writer died
(the lock is free), so a ``kill -9`` leaves nothing behind for long. Creating a sealed
game writes two files (game and secret) through a journal (:func:`create_pair`).
This module knows nothing of the game format: it moves bytes and text.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referee.errors import ConcurrentWriteError, GameFileError, UsageError

LOCK_WAIT_SECONDS = 10.0
MAX_GAME_FILE_BYTES = 16 * 1024 * 1024
TEMP_SUFFIX = ".referee-tmp"
JOURNAL_SUFFIX = ".referee-new"


# --- reading --------------------------------------------------------------------------


def _missing(path: Path | str) -> GameFileError:
    return GameFileError(
        f"no game file at {path}", hints=["create one with `referee new GAME FILE`"]
    )


def open_regular(path: Path | str, what: str = "game file") -> tuple[int, os.stat_result]:
    """Open ``path`` for reading (non-blocking, so a FIFO never hangs) and check that it
    is a regular file within the size cap. Returns the fd and its fstat; raises
    GameFileError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise _missing(path) if what == "game file" else GameFileError(
            f"no {what} at {path}") from None
    except OSError as exc:
        raise GameFileError(f"cannot read {path}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise GameFileError(f"{path} is a directory, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise GameFileError(
                f"{path} is not a regular file (a FIFO, device or socket), not a {what}")
        if st.st_size > MAX_GAME_FILE_BYTES:
            raise _too_large(path)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _too_large(path: Path | str) -> GameFileError:
    return GameFileError(
        f"{path} is larger than {MAX_GAME_FILE_BYTES // (1024 * 1024)} MiB: not a game file")


def read_fd(fd: int, path: Path | str, size: int | None = None) -> bytes:
    """All bytes of the open regular file ``fd`` (at most the size cap). ``size``: its
    size by fstat, read in one call (a buffer of 1 MiB for a file of a few KB cost more
    than the read: 10,000 games' files are read by every `pending` and `site`)."""
    chunks: list[bytes] = []
    total = 0
    asked = min(size + 1, MAX_GAME_FILE_BYTES + 1) if size is not None else 1 << 20
    try:
        while True:
            chunk = os.read(fd, asked)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_GAME_FILE_BYTES:
                raise _too_large(path)
            chunks.append(chunk)
            if size is not None and len(chunk) < asked:
                break  # (a short read of a regular file: its end)
            asked = 1 << 20
    except OSError as exc:
        raise GameFileError(f"cannot read {path}: {exc.strerror}") from None
    return b"".join(chunks)


def read_bytes(path: Path, what: str = "game file") -> bytes:
    """The bytes of the regular file at ``path``. Raises GameFileError."""
    fd, st = open_regular(path, what)
    try:
        return read_fd(fd, path, st.st_size)
    finally:
        os.close(fd)


# --- temporary files and their cleanup ------------------------------------------------


def _io_error(action: str, path: Path, exc: OSError) -> GameFileError:
    reason = exc.strerror or str(exc)
    return GameFileError(f"cannot {action} {path}: {reason}; nothing was changed")


def _temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.urandom(6).hex()}{TEMP_SUFFIX}")


def _open_temp(target: Path, tmp: Path | None = None) -> tuple[int, Path]:
    """Create and flock a new temporary file beside ``target`` (named ``tmp`` if given)."""
    tmp = tmp or _temp_name(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd, tmp


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _set_owner_and_mode(fd: int, mode: int, owner: os.stat_result | None) -> None:
    """Give the temp file the mode (and owner/group) the final file must have."""
    if owner is not None:
        try:
            os.fchown(fd, owner.st_uid, owner.st_gid)
        except PermissionError:
            with contextlib.suppress(OSError):
                os.fchown(fd, -1, owner.st_gid)
    os.fchmod(fd, mode)


def write_temp(target: Path, data: bytes, mode: int, owner: os.stat_result | None = None,
               tmp: Path | None = None) -> tuple[int, Path]:
    """A flocked, fsynced temporary file beside ``target`` holding ``data``; the caller
    renames or links it and then closes the fd. Raises OSError (the temp removed)."""
    fd, tmp = _open_temp(target, tmp)
    try:
        _set_owner_and_mode(fd, mode, owner)
        _write_all(fd, data)
    except BaseException:
        discard_temp(fd, tmp)
        raise
    return fd, tmp


def discard_temp(fd: int, tmp: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    with contextlib.suppress(OSError):
        os.close(fd)


def _lock_is_free(path: Path) -> bool:
    """Whether nobody holds the flock on ``path`` (its writer is gone)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def remove_stale_temps(folder: Path) -> None:
    """Finish or roll back interrupted sealed creations, then delete temporary files
    whose writer died (their flock is free). Best effort: never raises."""
    try:
        # only dot-files can be ours: a folder of many games costs one listing
        names = sorted(n for n in os.listdir(folder) if n.startswith("."))
    except OSError:
        return
    for name in names:
        if name.endswith(JOURNAL_SUFFIX):
            recover_pair(folder / name)
    for name in names:
        if name.endswith(TEMP_SUFFIX) and _lock_is_free(folder / name):
            with contextlib.suppress(OSError):
                os.unlink(folder / name)


def fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def new_file_mode() -> int:
    """The mode a newly created file gets under the current umask (0666 & ~umask)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


# --- any file the referee writes -----------------------------------------------------


def write_atomic(path: Path, data: bytes, *, mode: int | None = None, durable: bool = True,
                 exclusive: bool = False, what: str = "file", tidy: bool = True) -> None:
    """The one atomic write for every file the referee writes (game files go through
    :func:`replace` and :func:`create`, which use the same steps): a flocked temporary
    file beside ``path``, then a rename, so a reader sees the old bytes or the new ones,
    never a mix, and a ``kill -9`` leaves no half-written file.

    ``mode``: the new file's mode (default: an existing file's, else 0666 & ~umask).
    ``durable``: fsync the file and its folder (a cache passes False: it may lose an
    entry in a crash, never hold a wrong one). ``exclusive``: never replace an existing
    file (a link, not a rename). ``tidy``: first remove the folder's stale temporary
    files (False: the caller, writing many files into one folder, did it once). Raises
    GameFileError naming ``what`` and the reason
    (a full or read-only disk included); the old file is then unchanged.
    """
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = new_file_mode()
    if tidy:
        remove_stale_temps(path.parent)
    try:
        fd, tmp = _open_temp(path)
    except OSError as exc:
        raise _write_error(what, path, exc) from None
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
        if exclusive:
            os.link(tmp, path)
        else:
            os.replace(tmp, path)
    except FileExistsError:
        discard_temp(fd, tmp)
        raise UsageError(f"{path} already exists", hints=["choose another file name"]) from None
    except OSError as exc:
        discard_temp(fd, tmp)
        raise _write_error(what, path, exc) from None
    except BaseException:
        discard_temp(fd, tmp)
        raise
    if exclusive:
        discard_temp(fd, tmp)
    else:
        os.close(fd)
    if durable:
        fsync_dir(path.parent)


def set_aside(path: Path, suffix: str) -> None:
    """Rename ``path`` to the same name with ``suffix`` added (a file a newer format
    replaced, kept for a look by hand), durably; nothing when it is not there."""
    try:
        os.replace(path, path.with_name(path.name + suffix))
    except FileNotFoundError:
        return
    fsync_dir(path.parent)


def _write_error(what: str, path: Path, exc: OSError) -> GameFileError:
    reason = exc.strerror or str(exc)
    return GameFileError(f"cannot write the {what} {path}: {reason}; nothing was changed")


# --- creating and replacing -----------------------------------------------------------


def check_new_path(path: Path) -> None:
    """Refuse an existing file or a missing folder. Raises UsageError."""
    if os.path.lexists(path):
        raise UsageError(f"{path} already exists", hints=["choose another file name"])
    if not path.parent.is_dir():
        raise UsageError(f"folder {path.parent} does not exist")


def create(path: Path, text: str) -> None:
    """Write a new game file; refuses to overwrite. Raises UsageError if it exists,
    GameFileError if it cannot be written."""
    check_new_path(path)
    remove_stale_temps(path.parent)
    try:
        fd, tmp = write_temp(path, text.encode(), new_file_mode())
    except OSError as exc:
        raise _io_error("write", path, exc) from None
    try:
        os.link(tmp, path)  # atomic and never clobbers a file made meanwhile
    except FileExistsError:
        raise UsageError(f"{path} already exists", hints=["choose another file name"]) from None
    except OSError as exc:
        raise _io_error("write", path, exc) from None
    finally:
        discard_temp(fd, tmp)
    fsync_dir(path.parent)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[bytes]:
    """Hold an exclusive lock on the game file and yield its current bytes.

    Waits up to LOCK_WAIT_SECONDS for another writer. After a rename by another writer
    the lock is retaken on the new file, so the bytes yielded are always current.
    Raises GameFileError (missing or unreadable file) or ConcurrentWriteError.
    """
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        fd, st = open_regular(path)
        try:
            _wait_for_lock(fd, path, deadline)
            if not _still_at(path, st):
                os.close(fd)
                continue  # replaced while we waited: lock the new file
            data = read_fd(fd, path, st.st_size)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        try:
            yield data
        finally:
            os.close(fd)
        return


def _still_at(path: Path, st: os.stat_result) -> bool:
    try:
        now = os.stat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


def _wait_for_lock(fd: int, path: Path, deadline: float) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise ConcurrentWriteError(
                    f"{path} is being changed by another referee command",
                    hints=["try again in a moment"],
                ) from None
            time.sleep(0.02)
        except OSError as exc:
            raise GameFileError(f"cannot lock {path}: {exc.strerror}") from None


def may_write(st: os.stat_result) -> bool:
    """Whether the current user may write a file with this stat. For root, who may write
    anything, a file without any write permission bit counts as read-only."""
    if os.geteuid() == 0:
        return bool(st.st_mode & 0o222)
    if st.st_uid == os.geteuid():
        return bool(st.st_mode & stat.S_IWUSR)
    if st.st_gid in (os.getegid(), *os.getgroups()):
        return bool(st.st_mode & stat.S_IWGRP)
    return bool(st.st_mode & stat.S_IWOTH)


def replace(path: Path, old: bytes, text: str) -> None:
    """Atomically replace the (locked) file whose current bytes are ``old``.

    Writes through a symlink to its target, keeps mode and group (owner where allowed),
    and refuses a file the user may not write. Raises GameFileError or ConcurrentWriteError.
    """
    target = Path(os.path.realpath(path))
    fd, st = open_regular(target)
    try:
        current = read_fd(fd, path, st.st_size)
    finally:
        os.close(fd)
    if current != old:
        raise ConcurrentWriteError(f"{path} changed while this command ran; nothing written")
    if not may_write(st):
        raise GameFileError(
            f"{path} is read-only; nothing was changed",
            hints=["make it writable (chmod u+w) if you mean to change it"],
        )
    remove_stale_temps(target.parent)
    try:
        tmp_fd, tmp = write_temp(target, text.encode(), stat.S_IMODE(st.st_mode), st)
    except OSError as exc:
        raise _io_error("write", path, exc) from None
    try:
        os.replace(tmp, target)
    except OSError as exc:
        discard_temp(tmp_fd, tmp)
        raise _io_error("write", path, exc) from None
    os.close(tmp_fd)
    fsync_dir(target.parent)


# --- two files at once: a sealed game and its secret ----------------------------------


def _pause(step: str) -> None:
    """Test hook: with REFEREE_TEST_PAUSE=step, stop at that step of create_pair (so a
    test can kill the process there). Does nothing otherwise."""
    if os.environ.get("REFEREE_TEST_PAUSE") == step:
        os.write(2, f"paused at {step}\n".encode())
        time.sleep(60)


def _same_file(a: Path, b: Path) -> bool:
    try:
        sa, sb = os.stat(a, follow_symlinks=False), os.stat(b, follow_symlinks=False)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def create_pair(game: Path, game_text: str, secret: Path, secret_text: str) -> None:
    """Create a game file and its secret file (mode 0600): both or neither, even if the
    process is killed (the next write into the game's folder rolls an interrupted creation
    back, or finishes its cleanup). Raises UsageError or GameFileError.

    Steps: a locked journal naming the four paths; both temporary files, fsynced; link
    the secret; link the game (the commit); remove the temporaries, then the journal.
    """
    game, secret = Path(os.path.abspath(game)), Path(os.path.abspath(secret))
    check_new_path(game)
    check_new_path(secret)
    remove_stale_temps(game.parent)
    if secret.parent != game.parent:
        remove_stale_temps(secret.parent)
    g_tmp, s_tmp = _temp_name(game), _temp_name(secret)
    journal = game.with_name(f".{game.name}.{os.urandom(6).hex()}{JOURNAL_SUFFIX}")
    plan = {"game": str(game), "game_tmp": str(g_tmp),
            "secret": str(secret), "secret_tmp": str(s_tmp)}
    fds: list[int] = []
    try:
        fds.append(write_temp(journal, json.dumps(plan).encode(), 0o600, tmp=journal)[0])
        fsync_dir(game.parent)
        _pause("journal")
        fds.append(write_temp(secret, secret_text.encode(), 0o600, tmp=s_tmp)[0])
        fds.append(write_temp(game, game_text.encode(), new_file_mode(), tmp=g_tmp)[0])
        _pause("temps")
        _link_pair(plan)
        _pause("linked")
    except OSError as exc:
        _roll_back(plan)
        raise _io_error("write", game, exc) from None
    except BaseException:
        _roll_back(plan)
        raise
    finally:
        for p in (g_tmp, s_tmp, journal):
            with contextlib.suppress(OSError):
                os.unlink(p)
        for fd in fds:
            os.close(fd)
    fsync_dir(game.parent)
    fsync_dir(secret.parent)


def _link_pair(plan: dict[str, str]) -> None:
    game, secret = Path(plan["game"]), Path(plan["secret"])
    try:
        os.link(plan["secret_tmp"], secret)
    except FileExistsError:
        raise UsageError(f"secret file {secret} already exists; choose another") from None
    _pause("secret-linked")
    try:
        os.link(plan["game_tmp"], game)
    except FileExistsError:
        raise UsageError(f"{game} already exists", hints=["choose another file name"]) from None


def _own_private_file(path: Path) -> bool:
    """A regular file (no symlink) of this user that nobody else may read or write, as
    create_pair writes its journal."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and \
        not st.st_mode & 0o077


_TEMP_TAIL = re.compile(rf"^\.[0-9a-f]{{12}}{re.escape(TEMP_SUFFIX)}$")


def _plan_ok(journal: Path, plan: dict[str, Any]) -> bool:
    """Whether ``plan`` is what create_pair writes into ``journal``: the game beside the
    journal (named after it), each temporary file named by :func:`_temp_name` beside its
    target. Only then may recovery unlink anything it names."""
    if not all(isinstance(plan.get(k), str) for k in ("game", "game_tmp", "secret",
                                                      "secret_tmp")):
        return False
    game, secret = Path(plan["game"]), Path(plan["secret"])
    if not (game.is_absolute() and secret.is_absolute()) or \
            os.path.realpath(game.parent) != os.path.realpath(journal.parent) or \
            not journal.name.startswith(f".{game.name}."):
        return False
    for target, tmp in ((game, Path(plan["game_tmp"])), (secret, Path(plan["secret_tmp"]))):
        prefix = f".{target.name}"
        if tmp.parent != target.parent or not tmp.name.startswith(prefix) or \
                not _TEMP_TAIL.match(tmp.name[len(prefix):]):
            return False
    return True


def _roll_back(plan: dict[str, str]) -> None:
    """Undo a creation that did not reach its commit (the game's link)."""
    if _same_file(Path(plan["game"]), Path(plan["game_tmp"])):
        return  # committed: the game and its secret both exist
    if _same_file(Path(plan["secret"]), Path(plan["secret_tmp"])):
        with contextlib.suppress(OSError):
            os.unlink(plan["secret"])


def recover_pair(journal: Path) -> None:
    """Clean up after a create_pair whose process died: roll back unless the game was
    linked, and remove its temporary files and the journal. Never raises."""
    if not _lock_is_free(journal):
        return  # its writer is still at work
    if not _own_private_file(journal):
        return  # not a journal create_pair wrote (e.g. one committed to a shared folder)
    try:
        plan = json.loads(journal.read_bytes())
        paths = [plan[k] for k in ("game", "game_tmp", "secret", "secret_tmp")]
    except (OSError, ValueError, TypeError, KeyError):
        paths = []  # written only partly: it died before making any temporary file
    if paths and not _plan_ok(journal, plan):
        return  # it names files that no create_pair in this folder would make
    if paths and all(isinstance(p, str) for p in paths):
        if os.path.lexists(plan["game_tmp"]):
            _roll_back(plan)
        for p in (plan["game_tmp"], plan["secret_tmp"]):
            with contextlib.suppress(OSError):
                os.unlink(p)
    with contextlib.suppress(OSError):
        os.unlink(journal)
