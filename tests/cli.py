"""The one way the tests run a command in process: ``run`` returns click's Result (a bug
raises, so a traceback fails the test), ``ok`` also requires exit 0."""

from __future__ import annotations

from click.testing import CliRunner, Result

from referee.cli import main


def run(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def ok(*args: object) -> Result:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result
