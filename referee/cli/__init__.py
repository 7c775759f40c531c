"""The command line: parse arguments, call the library, print, map errors to exit codes.

Exit codes (DESIGN §7): 0 success; 1 rejected move or invalid game file; 2 usage error.
"""

from __future__ import annotations

import click

from referee import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """A referee for board games played by e-mail or through git.

    One game is one JSON file: a header and an append-only move log. Every command
    replays the whole log and checks every move against the rules.
    """



# The commands register themselves on ``main`` when their modules are imported.
from referee.cli import (  # noqa: E402
    bot,
    check,
    git,
    info,
    judge,
    mail,
    pictures,
    play,
    upgrade,
)

__all__ = ["bot", "check", "git", "info", "judge", "mail", "main", "pictures", "play",
           "upgrade"]
