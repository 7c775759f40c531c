"""Errors the library raises for bad input. The CLI turns each into a message and an
exit code; none of them is a bug, so none of them prints a traceback. A bug (any other
exception) becomes one message too: :func:`internal_error`."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AmbiguousMove",
    "ConcurrentWriteError",
    "GameFileError",
    "IllegalMove",
    "MalformedMove",
    "MoveError",
    "NotImplementedRule",
    "NotYourTurn",
    "RefereeError",
    "ReplayError",
    "SealedError",
    "UsageError",
]


class RefereeError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with (1: rejected, 2: usage)."""

    exit_code = 1

    def __init__(self, message: str, hints: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.hints = list(hints)

    def to_json(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": self.message, "hints": self.hints}


class UsageError(RefereeError):
    """The command itself is wrong (unknown game, bad option, bad player list)."""

    exit_code = 2


class GameFileError(RefereeError):
    """The game file cannot be read, is not valid JSON, or breaks the schema."""


class ReplayError(RefereeError):
    """The log does not replay: an entry is not a legal move at that point."""


class SealedError(RefereeError):
    """The game is sealed and the command needs its secret seed."""


class ConcurrentWriteError(RefereeError):
    """Another process holds the lock on the game file, or changed it under us."""


class NotImplementedRule(RefereeError):
    """A rule the engine does not implement was reached; see docs/data.md."""


class MoveError(RefereeError):
    """Base class for a submitted move that is rejected."""

    def __init__(
        self,
        message: str,
        hints: Sequence[str] = (),
        legal: Sequence[str] = (),
    ) -> None:
        super().__init__(message, hints)
        self.legal = list(legal)

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        out["legal"] = self.legal
        return out


class MalformedMove(MoveError):
    """The text is not a move in the game's notation at all."""


class IllegalMove(MoveError):
    """The text is a well-formed move, but not legal now; the message names the rule."""


class AmbiguousMove(MoveError):
    """The text matches more than one legal move; ``legal`` lists the candidates."""


class NotYourTurn(MoveError):
    """The player owes no decision now."""


def internal_error(exc: BaseException, where: str, doing: str = "replaying") -> RefereeError:
    """The error that reports an unexpected exception (a bug) while ``doing`` the step
    that failed on ``where`` (``replaying`` a game file; ``running `referee judge```
    on a folder): one message naming the step, the exception and the line it came
    from, never a traceback."""
    import traceback  # only for a bug

    frames = traceback.extract_tb(exc.__traceback__)
    at = f" (at {_short(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    what = "the game file" if doing == "replaying" else "what it was given"
    return RefereeError(
        f"internal error while {f'{doing} {where}'.strip()}: {type(exc).__name__}: "
        f"{str(exc)[:200]}{at}",
        hints=[f"this is a bug in referee, not in your command: please report it with "
               f"{what}"],
    )


def _short(filename: str) -> str:
    """A source file's path from the package's folder (``referee/games/...``)."""
    from pathlib import Path

    import referee

    root = Path(referee.__file__).resolve().parent.parent
    path = Path(filename).resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else filename
