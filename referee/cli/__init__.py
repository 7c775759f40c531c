"""The command line: parse arguments, call the library, print, map errors to exit codes.

Exit codes: 0 success; 1 rejected move or invalid game file; 2 usage error.

Start-up is kept at the floor: ``main`` knows every command by name, the module that
defines it and its one-line help (``COMMANDS``), and imports a command's module only when
that command runs. ``referee --help`` lists every command from the table without
importing any of them; tests/cli/test_startup.py holds the table equal to the real commands.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Sequence
from typing import Any

from referee import collector_off, import_module

with collector_off():  # (referee/__init__.py: click's import, without the collector)
    import click

from referee import __version__, i18n

_, N_, _ngettext = i18n.domain("referee")

# name -> (module under referee.cli that defines it, its short help: the first sentence
# of its docstring, as click would cut it). The modules register their commands on
# ``main`` when imported, each with ``@command()`` from referee.cli.common. The help is
# shown in the reader's language (the referee catalog).
COMMANDS: dict[str, tuple[str, str]] = {
    "bot": ("bot", N_("Let a bot choose PLAYER's move in FILE and play it like `move` "
                      "(marked bot: true).")),
    "check": ("check", N_("Validate and replay game files; exit 0 only if every one is a "
                          "legal game.")),
    "clock": ("clock", N_("Show each seat's time bank, vacation left and when the awaited "
                          "seat times out.")),
    "data": ("info", N_("Show GAME's component data, its released data versions and every "
                        "value assumed rather than printed.")),
    "games": ("play", N_("List the games, their player counts and options.")),
    "git-merge": ("git", N_("Git's merge driver for game files (%O %A %B %P).")),
    "git-textconv": ("git", N_("Git's diff driver: FILE as text, one line per move in "
                               "notation.")),
    "judge": ("judge", N_("Run the games in GAMES_DIR by itself, through its doors: mail (the "
                          "mail options) and chat (--matrix), one or both.")),
    "lang": ("lang", N_("Record the language PLAYER reads FILE in (en or de): status, "
                        "errors and the judge's mails follow it.")),
    "log": ("play", N_("List the moves in notation (hidden choices of sealed games only to "
                       "their author, with --as and the secret).")),
    "mail": ("mail", N_("Mail the players after a move: to each player who must move, their "
                        "private view, legal moves and how to reply (with their token); to "
                        "the others, the public update.")),
    "move": ("play", N_("Check a move against the rules and append it to FILE.")),
    "new": ("play", N_("Start a new game of GAME in FILE.")),
    "nonce": ("play", N_("Commit to PLAYER's nonce, and later reveal it, in a game made with "
                         "--nonces.")),
    "notify": ("notify", N_("Set PLAYER's notification channel: an apprise URL (discord://..., "
                            "ntfys://TOPIC, json://HOST/PATH...) the judge notifies besides "
                            "the mail, or instead of it with --only.")),
    "pending": ("pending", N_("For a game master: which games wait on whom, and since when.")),
    "plan": ("plan", N_("Set PLAYER's plan: moves the referee plays for them when their "
                        "decision arises.")),
    "release-data": ("info", N_("For maintainers: keep the current component data of each GAME "
                                "as a released data version.")),
    "ratings": ("league", N_("Rate the players of the finished games in GAMES_DIR (openskill), "
                             "one table per game.")),
    "rematch": ("league", N_("Start NEW: a rematch of the finished game FILE, seats rotated by "
                             "one.")),
    "reveal": ("play", N_("Write the secret seed into a finished sealed game so that anyone "
                          "can verify it.")),
    "schema": ("info", N_("Print a JSON Schema: `file` (any game, the default) or a game's "
                          "full file schema.")),
    "seat": ("bot", N_("Hand PLAYER's seat to a bot (--bot LEVEL) or back to a person "
                       "(--human).")),
    "show": ("pictures", N_("Draw the board of FILE as SVG or PNG, from the same view as "
                            "`status --json`, or write it as Markdown (the public view, with "
                            "issue links for the player to move).")),
    "simulate": ("bot", N_("Play GAMES games of GAME between bots; print wins and mean score "
                           "by seat and by bot, game length, how often each component was "
                           "used or scored, and the assumed component values that (almost) "
                           "never came up.")),
    "site": ("pictures", N_("Write a static site of the games in GAMES_DIR: an index, and per "
                            "game (at OUT/GAME-ID/) its board, scores, log and every "
                            "position.")),
    "status": ("play", N_("Show the board (80 columns, with a legend), whose turn it is and "
                          "what is being decided.")),
    "tick": ("clock", N_("For a scheduled CI job with the secret: in every clocked game of "
                         "GAMES_DIR, time out the seats whose bank ran out (a bot plays, the "
                         "game master is asked, or the seat forfeits), and stamp the new "
                         "entries with the referee's time (a MAC'd record).")),
    "undo": ("play", N_("Take back your last move, recorded as a log entry (history is never "
                        "rewritten).")),
    "upgrade": ("upgrade", N_("Replay FILE under this referee's rules and component data and "
                              "report, move by move, what changes: the rules version and data "
                              "values that differ, the first move that would become illegal, "
                              "and the scores before and after.")),
    "vacation": ("clock", N_("Take DAYS vacation days: your clock stops for that long, from "
                             "when the referee sees the record (within your allowance).")),
    "view": ("git", N_("Decrypt, verify and show your private view written by `referee views`.")),
    "views": ("git", N_("For CI with the secret: write each player's private view, signed "
                        "with the game's referee key and encrypted to their SSH keys "
                        "(FILE-stem.PLAYER.age), and the public view in clear "
                        "(FILE-stem.public.txt).")),
    "void": ("play", N_("Strike move N, appended unchecked and found illegal, so the game "
                        "goes on.")),
}


#: click's help of ``--help``, one of click's own words (the ``click`` catalog)
HELP_OPTION_HELP = "Show this message and exit."


class FreshHelpOption(click.Command):
    """click keeps a command's ``--help`` option once made, with its help ("Show this
    message and exit.") in the language of that moment: the help is set again in the
    command line's language each time click asks for the option."""

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.help = click.decorators._(HELP_OPTION_HELP)
        return option


class Command(FreshHelpOption):
    """Every command of ``main`` (``main.command()`` makes this class). click keeps the
    help of a command and of its options as they were made (English); ``--help`` shows
    them in the reader's language, looked up in the referee catalog when shown."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from referee.cli.clicktext import reader_language

        lang = reader_language()
        if lang == i18n.ENGLISH:  # English: click's text as it is
            super().format_help(ctx, formatter)
            return
        saved = [(self, self.help)] + [(p, p.help) for p in self.params
                                       if isinstance(p, click.Option)
                                       and not isinstance(p, ReaderOption)]
        with i18n.language(lang):
            try:
                for owner, text in saved:
                    if text:  # (a docstring as click shows it: its indentation cut)
                        owner.help = _(inspect.cleandoc(text))
                super().format_help(ctx, formatter)
            finally:
                for owner, text in saved:
                    owner.help = text


class LazyGroup(FreshHelpOption, click.Group):
    """A group that imports a command's module only when the command is looked up."""

    command_class = Command

    def main(self, args: Sequence[str] | None = None, *rest: Any, **extra: Any) -> Any:
        """click's ``main``, with click's own words (usage errors, ``--help``) in the
        command line's language (referee/cli/clicktext.py)."""
        words = list(sys.argv[1:] if args is None else args)
        if not any(a.startswith(("--lang", "--as")) for a in words) \
                and not os.environ.get("REFEREE_LANG"):
            return super().main(words, *rest, **extra)  # English: nothing to set up
        from referee.cli import clicktext

        with clicktext.speaking(words):
            return super().main(words, *rest, **extra)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import_module(f"referee.cli.{COMMANDS[cmd_name][0]}")
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        if click.utils.make_str(args[0]) not in COMMANDS:
            load_all()  # an unknown name: click suggests the close ones from every command
        return super().resolve_command(ctx, args)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's help (:data:`ABOUT`, its docstring) in the reader's language."""
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(_(ABOUT))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help`` from the table, as click writes it, importing
        no command (a command already imported speaks for itself)."""
        rows = [(name, self._short_help(name)) for name in self.list_commands(ctx)]
        rows = [(name, text) for name, text in rows if text is not None]
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        words = click.core._  # click's word, in the command line's language
        with formatter.section(words("Commands")):
            formatter.write_dl([(name, text(limit)) for name, text in rows])

    def _short_help(self, name: str) -> Any:
        cmd = self.commands.get(name)
        if cmd is not None and cmd.hidden:
            return None
        if name in COMMANDS:  # the table's text is the command's, in the reader's language
            cmd = click.Command(name, help=_(COMMANDS[name][1]))
        return cmd.get_short_help_str if cmd is not None else None


class ReaderOption(click.Option):
    """An option whose help is shown in the reader's language: looked up in the referee's
    catalog when it is shown, not when the option is made."""

    @property  # type: ignore[override]
    def help(self) -> str | None:
        return self.words(self._help) if self._help else self._help

    @help.setter
    def help(self, value: str | None) -> None:
        self._help = value

    @staticmethod
    def words(text: str) -> str:
        return _(text)


class ClickWordOption(ReaderOption):
    """An option whose help is one of click's own words ("Show the version and exit."),
    in the command line's language (referee/cli/clicktext.py)."""

    @staticmethod
    def words(text: str) -> str:
        return click.core._(text)


class VersionMessage(str):
    """click's "%(prog)s, version %(version)s", which ``version_option`` takes when
    ``main`` is made: looked up in the command line's language when it is filled in."""

    __slots__ = ()

    def __mod__(self, values: Any) -> str:
        return click.decorators._(str(self)) % values


def load_all() -> None:
    """Import every command's module (for tests and shell completion of every name)."""
    for module in sorted({module for module, _ in COMMANDS.values()}):
        import_module(f"referee.cli.{module}")


def _keep_lang(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """The group's ``--lang``: kept for the command, which checks it (an unknown
    language is the command's usage error: referee/cli/common.py ``chosen_language``)."""
    if value:
        ctx.meta["referee.lang"] = value


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee", cls=ClickWordOption,
                      message=VersionMessage("%(prog)s, version %(version)s"))
@click.option("--lang", metavar="LANG", expose_value=False, callback=_keep_lang,
              cls=ReaderOption,
              help=N_("The language to read the output in: en or de (also REFEREE_LANG; "
                      "without either, a command run --as PLAYER uses the language PLAYER "
                      "recorded with `referee lang`)."))
def main() -> None:
    """A referee for board games played by e-mail or through git.

    One game is one JSON file: a header and an append-only move log. Every command
    replays the whole log and checks every move against the rules.
    """


#: what ``referee --help`` says of the referee (``main``'s docstring, as click shows it)
ABOUT = N_("A referee for board games played by e-mail or through git.\n\n"
           "One game is one JSON file: a header and an append-only move log. Every command "
           "replays the whole log and checks every move against the rules.")


__all__ = ["COMMANDS", "LazyGroup", "load_all", "main"]
