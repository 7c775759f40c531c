"""Whether the tests run in CI (``CI=true``), read once at import: the autouse fixture in
conftest.py removes CI from the environment of every test, so that commands run in the
tests behave as on a player's machine unless a test sets CI itself; tests that need a
server or a program fail under CI instead of skipping, and ask this module."""

from __future__ import annotations

import os

UNDER_CI = os.environ.get("CI", "").lower() == "true"
