"""What happened to one incoming mail of the judge (for its log and the tests)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Outcome:
    """What happened to one incoming mail (for logs and tests)."""

    action: str  # played, rejected, answered, ignored, duplicate, command
    game: str | None = None
    detail: str = ""
