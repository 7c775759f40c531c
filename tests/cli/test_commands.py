"""Every command is declared with `referee.cli.common.command`: the one error handling
(a bug or bad input is one message and an exit code, never a traceback) and, but for the
commands whose output has one fixed form, the option --json, last among the options."""

from __future__ import annotations

import json
from pathlib import Path

import click

from referee.cli import load_all, main
from referee.cli.common import handles_errors
from tests.conftest import run

FIXED_OUTPUT = {"schema", "git-textconv", "git-merge", "judge"}  # no --json


def _json_options(command: click.Command) -> list[click.Parameter]:
    return [p for p in command.params if "--json" in getattr(p, "opts", [])]


def test_every_command_has_the_one_error_handling_and_json_unless_its_output_is_fixed(
) -> None:
    load_all()
    wrapper = handles_errors(lambda: None).__code__
    assert len(main.commands) > 20
    for name, command in main.commands.items():
        assert command.callback is not None and command.callback.__code__ is wrapper, name
        options = _json_options(command)
        if name in FIXED_OUTPUT:
            assert options == [], name
            continue
        assert len(options) == 1 and options[0].name == "as_json", name
        assert command.params[-1] is options[0], name  # listed last, as it always was


def test_an_error_is_one_message_or_json(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    for name in ("status", "log", "undo", "upgrade"):
        extra = ["--as", "ann"] if name == "undo" else []
        text = run(name, missing, *extra)
        assert text.exit_code == 1 and text.output.startswith("error: "), name
        assert "Traceback" not in text.output
        as_json = run(name, missing, *extra, "--json")
        assert as_json.exit_code == 1, name
        assert json.loads(as_json.stdout)["error"] == "GameFileError", name
