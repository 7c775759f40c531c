from __future__ import annotations

from referee.engine import register

register("toy", "tests.toygame")
