"""What a failure in the judge is: its surroundings (a full or read-only disk, a folder
it may not write: :class:`RetryLater`, the mail stays in the inbox) or the mail, and the
one line the judge's log says about it."""

from __future__ import annotations

import errno
import traceback
from pathlib import Path

from referee.errors import GameFileError, RefereeError

# a write that fails for one of these is the judge's surroundings, not the mail
_ENVIRONMENT_ERRNOS = frozenset((errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                 errno.EPERM, errno.EIO, errno.EFBIG, errno.ENOMEM,
                                 errno.EMFILE, errno.ENFILE))


class RetryLater(RefereeError):
    """The judge's surroundings failed (a full or read-only disk, a folder it may not
    write): the mail being handled stays in the inbox, to be tried again later."""


def environment_failure(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failed write or read of the judge's own
    files: an OSError of a full or read-only disk or a denied permission, or a game
    file that may not be written."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.errno in _ENVIRONMENT_ERRNOS:
            return True
        if isinstance(current, GameFileError) and " is read-only" in current.message:
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def describe(exc: BaseException) -> str:
    """One line for the log: the referee's message, or the exception and where it was
    raised (a bug: please report it)."""
    if isinstance(exc, RefereeError):
        return exc.message
    if isinstance(exc, RecursionError):
        return "nested too deeply to process"
    frames = traceback.extract_tb(exc.__traceback__)
    at = ""
    if frames:
        path = Path(frames[-1].filename).resolve()
        root = Path(__file__).resolve().parents[2]
        name = path.relative_to(root) if path.is_relative_to(root) else path
        at = f" (at {name}:{frames[-1].lineno})"
    return f"internal error: {type(exc).__name__}: {str(exc)[:200]}{at}"
