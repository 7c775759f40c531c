"""Each command's own ``--help`` (its help and every option's) and ``--version`` in the
reader's language: German with ``--lang de``, REFEREE_LANG or the language the player of
``--as`` recorded, English exactly as click writes it otherwise."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from referee import __version__
from referee.cli import load_all, main
from tests.conftest import ok
from tests.i18n_check import english_sentences
from tests.support.games import new_game

load_all()
COMMANDS = sorted(main.commands)

LANG_HELP_DE = """\
Aufruf: main lang [OPTIONS] FILE LANG

  Die Sprache festhalten, in der PLAYER FILE liest (en oder de): status, Fehler
  und die Mails des Judge folgen ihr.

  Der Eintrag gehört dem Spieler selbst (ein Protokolleintrag, wie `notify` oder
  `vacation`); --lang eines Befehls oder REFEREE_LANG geht für diesen Befehl
  weiter vor.

Optionen:
  --as PLAYER    Wessen Sprache (dein eigener Platz).  [erforderlich]
  --secret FILE  Geheimnis-Datei eines versiegelten Spiels (oder
                 REFEREE_SECRET_FILE / REFEREE_SECRET; sonst FILE.secret neben
                 dem Spiel).
  --json         Als JSON ausgeben.
  -h, --help     Diese Hilfe zeigen und beenden.
"""

LANG_HELP_EN = """\
Usage: main lang [OPTIONS] FILE LANG

  Record the language PLAYER reads FILE in (en or de): status, errors and the
  judge's mails follow it.

  The record is the player's own (a log entry, like `notify` or `vacation`); a
  command's --lang, or REFEREE_LANG, still overrides it for that command.

Options:
  --as PLAYER    Whose language (your own seat).  [required]
  --secret FILE  Secret file of a sealed game (or REFEREE_SECRET_FILE /
                 REFEREE_SECRET; default FILE.secret beside the game).
  --json         Output JSON.
  -h, --help     Show this message and exit.
"""


def test_a_commands_help_in_german_with_lang_or_the_environment() -> None:
    assert ok("--lang", "de", "lang", "--help").output == LANG_HELP_DE
    assert ok("lang", "--help", env={"REFEREE_LANG": "de"}).output == LANG_HELP_DE
    assert ok("lang", "--help").output == LANG_HELP_EN
    assert ok("--lang", "en", "lang", "--help").output == LANG_HELP_EN


STATUS_HELP_DE = """\
Aufruf: main status [OPTIONS] FILE

  Das Brett zeigen (80 Spalten, mit Legende), wer am Zug ist und was entschieden
  wird.

  Ein versiegeltes Spiel ohne sein Geheimnis zeigt die öffentliche Ansicht, die
  sein Schiedsrichter signiert hat (geschrieben von `referee views`), die Züge
  seitdem und wo deine Hand ist.

Optionen:
  --as PLAYER    Die private Sicht dieses Spielers und seine erlaubten Züge
                 zeigen.
  --secret FILE  Geheimnis-Datei eines versiegelten Spiels (oder
                 REFEREE_SECRET_FILE / REFEREE_SECRET; sonst FILE.secret neben
                 dem Spiel).
  --wide         Dasselbe Brett und dieselben erlaubten Züge, für 132 Spalten
                 statt 80 gesetzt.
  --views DIR    Ein versiegeltes Spiel ohne sein Geheimnis: wohin der
                 Schiedsrichter seine Ansichten geschrieben hat (Vorgabe: neben
                 FILE, dann views/ neben dem Ordner von FILE).
  --lang LANG    Die Sprache der Ausgabe: en oder de (sonst REFEREE_LANG, sonst
                 die Sprache, die --as PLAYER mit `referee lang` festgehalten
                 hat).
  --json         Als JSON ausgeben.
  -h, --help     Diese Hilfe zeigen und beenden.
"""


def test_a_players_own_options_in_german_with_the_commands_lang() -> None:
    assert ok("status", "--help", "--lang", "de").output == STATUS_HELP_DE


def test_help_in_the_language_the_player_of_as_recorded(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    new_game(path, "staufer", players="ann,ben", seed="1")
    ok("lang", path, "--as", "ann", "de")
    out = ok("undo", path, "--as", "ann", "--help").output
    assert "  --as PLAYER    Wer zurücknimmt.  [erforderlich]\n" in out
    assert "Who takes back." in ok("undo", path, "--as", "ben", "--help").output


@pytest.mark.parametrize("name", COMMANDS)
def test_every_commands_german_help_has_no_english(name: str) -> None:
    german = ok("--lang", "de", name, "--help").output
    english = ok(name, "--help").output
    assert english_sentences(german) == []
    assert german.startswith("Aufruf: ") and "\nOptionen:\n" in german
    # the command's own text is translated, not only click's frame
    assert german.splitlines()[2] != english.splitlines()[2]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_commands_english_help_is_clicks_own(name: str) -> None:
    """In English nothing is looked up: the help is byte for byte click's."""
    command = main.commands[name]
    plain = click.Command(name, params=command.params, help=command.help,
                          epilog=command.epilog, short_help=command.short_help,
                          options_metavar=command.options_metavar,
                          context_settings={"help_option_names": ["-h", "--help"]})
    clicks = CliRunner().invoke(plain, ["--help"], prog_name=f"main {name}")
    assert clicks.exit_code == 0
    assert ok(name, "--help").output == clicks.output


def test_the_version_in_german() -> None:
    assert ok("--lang", "de", "--version").output == f"referee, Version {__version__}\n"
    assert ok("--version").output == f"referee, version {__version__}\n"
