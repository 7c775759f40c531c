"""Helpers shared by the test packages (no tests here): :mod:`tests.support.games`, the one
way a test makes a game through the CLI."""
