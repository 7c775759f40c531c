"""lang: the language a player reads a game in (docs/languages.md)."""

from __future__ import annotations

from pathlib import Path

import click

from referee import i18n
from referee.cli.common import PATH, command, emit_json, secret_option

_, N_, ngettext = i18n.domain("referee")


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", required=True, metavar="PLAYER",
              help="Whose language (your own seat).")
@click.argument("language", metavar="LANG")
@secret_option
def lang(path: Path, player: str, language: str, secret_path: Path | None,
         as_json: bool) -> None:
    """Record the language PLAYER reads FILE in (en or de): status, errors and the
    judge's mails follow it.

    The record is the player's own (a log entry, like `notify` or `vacation`); a
    command's --lang, or REFEREE_LANG, still overrides it for that command."""
    from referee.play.submit import set_language

    code = i18n.normalize(language)
    entry = set_language(path, player, code, secret_path=secret_path)
    if as_json:
        emit_json({"player": player, "lang": code, "n": entry["n"] if entry else None})
        return
    with i18n.language(code):  # the answer in the language just chosen
        name = i18n.NAMES[code]
        if entry is None:
            click.echo(_("{player} already reads this game in {language}.").format(
                player=player, language=name))
        else:
            click.echo(_("entry {n}: {player} reads this game in {language} from now "
                         "on.").format(n=entry["n"], player=player, language=name))
