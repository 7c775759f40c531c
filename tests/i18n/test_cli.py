"""German through the command line: `--lang` (after `referee` or after the command),
REFEREE_LANG, the language a player records with `referee lang` (and the attack of
recording it for another player), errors in German, English output unchanged, and no
English left in the referee's own lines over whole random games of both games at every
player count. The games' own words (board, prompt, explanations) are their packages'
catalogs and are checked by their own tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee import engine, i18n
from referee.engine.rng import Rng
from referee.errors import NotYourTurn
from referee.ledger import gamefile
from referee.play import statusview
from tests.conftest import ok, run
from tests.i18n_check import english_sentences
from tests.support.games import new_game

GAMES = ("staufer", "dynasties")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Short file names (a status title of 80 columns is not broken)."""
    monkeypatch.chdir(tmp_path)


def new(tmp_path: Path, game: str, players: str = "ann,ben,cat") -> Path:
    path = Path(f"{game}.json")
    new_game(path, game, players=players, seed="1")
    return path


@pytest.mark.parametrize("game", GAMES)
def test_status_in_german_with_lang_before_or_after_the_command_or_the_environment(
        tmp_path: Path, game: str) -> None:
    path = new(tmp_path, game)
    german = ok("--lang", "de", "status", path, "--as", "ann").output
    lines = german.splitlines()
    assert lines[0].endswith(f": {path} (Zug 0)")
    head = next(line for line in lines if line.startswith("erlaubte Züge für ann ("))
    assert re.fullmatch(r"erlaubte Züge für ann \(\d+; a,b = einer der Werte\):", head)
    assert ok("status", path, "--as", "ann", "--lang", "de").output == german
    assert ok("status", path, "--as", "ann", env={"REFEREE_LANG": "de_DE.UTF-8"}).output \
        == german
    english = ok("status", path, "--as", "ann").output
    assert ok("--lang", "en", "status", path, "--as", "ann").output == english
    assert "legal moves for ann (" in english and "Züge" not in english
    # the command's own --lang wins over the group's and the environment's
    assert ok("--lang", "de", "status", path, "--as", "ann", "--lang", "en",
              env={"REFEREE_LANG": "de"}).output == english


def test_an_unknown_language_is_one_usage_error_and_changes_nothing(tmp_path: Path) -> None:
    path = new(tmp_path, "staufer")
    before = path.read_bytes()
    for args in (("--lang", "xx", "move", path, "--as", "ann", "supply", "2"),
                 ("move", path, "--as", "ann", "supply", "2", "--lang", "klingon"),
                 ("lang", path, "--as", "ann", "fr")):
        result = run(*args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: unknown language ")
        assert result.output.count("error:") == 1 and "Traceback" not in result.output
        assert path.read_bytes() == before
    result = run("move", path, "--as", "ann", "supply", "2", env={"REFEREE_LANG": "fr"})
    assert result.exit_code == 2 and path.read_bytes() == before


@pytest.mark.parametrize("game", GAMES)
def test_errors_and_the_move_frame_in_german(tmp_path: Path, game: str) -> None:
    path = new(tmp_path, game)
    match = statusview.load(path)[1]
    with i18n.language("de"):  # the game's own words: German once its catalog has them
        prompt = match.game.prompt(match.state)
    first = match.game.to_move(match.state)[0]
    other = next(p for p in ("ann", "ben", "cat") if p not in match.game.to_move(match.state))
    result = run("--lang", "de", "move", path, "--as", other, "xyzzy")
    assert result.exit_code == 1
    assert result.output.splitlines()[:2] == [
        f"Fehler: {other} ist nicht am Zug: {prompt}",
        f"  es wird gewartet auf: {', '.join(match.game.to_move(match.state))}"]
    result = run("--lang", "de", "move", path, "--as", "zoe", "xyzzy")
    assert result.exit_code == 2
    assert result.output.splitlines() == ["Fehler: 'zoe' spielt in diesem Spiel nicht mit",
                                          "  Spieler: ann, ben, cat"]
    text = engine.legal_strings(match.game, match.state, first)[0]
    played = ok("--lang", "de", "move", path, "--as", first, text).output.splitlines()
    assert played[0] == f"Zug 1: {first}: {text}"


def test_the_engines_own_explanation_and_the_closest_moves_in_german(tmp_path: Path) -> None:
    path = Path("toy.json")
    new_game(path, "toycore", players="ann,ben", seed="1")
    ok("move", path, "--as", "ann", "peek")
    ok("move", path, "--as", "ben", "take", "1")
    result = run("--lang", "de", "move", path, "--as", "ann", "peek")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "Fehler: 'peek' ist nicht erlaubt: er ist keiner der erlaubten Züge"
    assert lines[1] == "ähnlichste erlaubte Züge:"
    assert english_sentences(result.output) == []


def test_a_player_records_their_language_and_status_follows_it(tmp_path: Path) -> None:
    path = new(tmp_path, "staufer")
    result = ok("lang", path, "--as", "ann", "Deutsch")
    assert result.output == "Eintrag 1: ann liest dieses Spiel ab jetzt auf Deutsch.\n"
    assert gamefile.read(path).log[-1]["meta"] == {"kind": "lang", "player": "ann",
                                                   "lang": "de"}
    before = path.read_bytes()
    assert ok("lang", path, "--as", "ann", "de").output == \
        "ann liest dieses Spiel bereits auf Deutsch.\n"
    assert path.read_bytes() == before  # nothing written
    german = ok("status", path, "--as", "ann").output
    assert "erlaubte Züge für ann (" in german
    overridden = ok("status", path, "--as", "ann", "--lang", "en").output
    assert "legal moves for ann (" in overridden and "Züge" not in overridden
    assert "Züge" not in ok("status", path, "--as", "ben").output  # ben recorded none
    out = json.loads(ok("lang", path, "--as", "ann", "en", "--json").output)
    assert out == {"player": "ann", "lang": "en", "n": 2}
    assert "legal moves for ann (" in ok("status", path, "--as", "ann").output


def test_lang_for_a_seat_not_in_the_game_is_refused(tmp_path: Path) -> None:
    path = new(tmp_path, "staufer")
    before = path.read_bytes()
    result = run("lang", path, "--as", "zoe", "de")
    assert result.exit_code == 2
    assert result.output.splitlines()[0] == "error: 'zoe' is not a player in this game"
    assert path.read_bytes() == before


def test_a_language_recorded_for_another_player_is_refused_by_every_reader(
        tmp_path: Path) -> None:
    """ben writes a lang record for ann (the chain recomputed, so it reaches replay):
    `check` refuses the file, naming why, and ann's status does not turn German."""
    path = new(tmp_path, "staufer")
    data = json.loads(path.read_text())
    last = data["log"][-1] if data["log"] else None
    entry = {"n": len(data["log"]) + 1, "by": "ben",
             "meta": {"kind": "lang", "player": "ann", "lang": "de"},
             "prev": gamefile.entry_hash(last) if last else gamefile.header_hash(data)}
    data["log"].append(entry)
    path.write_text(gamefile.dumps(data))
    result = run("check", path)
    assert result.exit_code == 1
    assert "a 'lang' record by ben: only the game master may write it" in result.output
    result = run("status", path, "--as", "ann")
    assert result.exit_code == 1 and "Züge" not in result.output


# --- no English in the referee's own lines, over whole random games --------------------


def core_lines(match: engine.Match) -> list[str]:
    """What the core itself says in this position: the head of the legal moves (or that
    a player has nothing to decide), and the refusal of a move out of turn without the
    game's prompt in it."""
    game, state = match.game, match.state
    out: list[str] = []
    owing = game.to_move(state)
    for player in match.players:
        if player in owing:
            out.append(statusview.legal_lines(match, player)[0])
            continue
        out.append(statusview.legal_lines(match, player)[0])
        try:
            engine.resolve_move(game, state, player, "pass")
        except NotYourTurn as exc:
            out.append(exc.message.replace(game.prompt(state), "").strip())
            out += exc.hints
    return out


@pytest.mark.parametrize("game_name", GAMES)
def test_no_english_in_the_cores_lines_over_random_games(game_name: str) -> None:
    game = engine.get_game(game_name)
    players = ["ann", "ben", "cat", "dan", "eve"]
    seen: list[str] = []
    for count in range(game.min_players, game.max_players + 1):
        match = engine.Match.start(game, players[:count],
                                   engine.full_options(game, {}), f"de-{count}")
        rng = Rng(f"moves-{count}")
        with i18n.language("de"):
            while not game.finished(match.state):
                seen += core_lines(match)
                player = game.to_move(match.state)[0]
                match.play(player, rng.choice(game.legal_moves(match.state, player), "m"))
            with pytest.raises(NotYourTurn) as over:
                engine.resolve_move(game, match.state, "ann", "pass")
            seen.append(over.value.message)
            seen += core_lines(match)
    text = "\n".join(seen)
    assert english_sentences(text, ignore=players) == []
    assert "erlaubte Züge für" in text and "das Spiel ist vorbei" in text
    # the same lines in English are found: the check can fail
    assert english_sentences(text.replace("das Spiel ist vorbei; es werden keine Züge mehr "
                                          "angenommen",
                                          "the game is over; no more moves are accepted"))


def test_clocks_vacations_plans_and_undo_in_german(tmp_path: Path) -> None:
    path = Path("c.json")
    new_game(path, "staufer", "--sealed", "--clock", "2d+1d/5d", "--vacation", "3", "--timeout",
             "forfeit", players="ann,ben,cat")
    clock = ok("--lang", "de", "clock", path).output.splitlines()
    assert clock[0] == ("Uhr: 2d +1d pro Zug, höchstens 5d; 3 Urlaubstage; Zeit abgelaufen: "
                        "der Platz")
    assert clock[2].startswith("  ann          Zeitkonto 2d, Urlaub 3d, erwartet: Zeit läuft ab ")
    told = ok("vacation", path, "2", "--as", "ben", "--lang", "de").output
    assert told.splitlines()[0] == "Eintrag 1: ben nimmt 2 Urlaubstag(e)"
    assert "ben          Zeitkonto 2d, Urlaub 1d, im Urlaub bis " in told
    planned = ok("plan", path, "--as", "ann", "supply 2", "--lang", "de").output
    assert planned.splitlines()[:2] == ["Eintrag 2: Plan von ann, 1 Zeile(n):",
                                        "  1. supply 2"]
    status = ok("status", path, "--as", "ann", "--lang", "de").output
    assert status.splitlines()[-1].startswith("Uhr: ann noch 5d (Zeit läuft ab ")
    undo = run("--lang", "de", "undo", path, "--as", "ann")
    assert undo.exit_code == 2 and undo.output == (
        "Fehler: es gibt keinen Zug zum Zurücknehmen: nur der letzte Eintrag darf "
        "zurückgenommen werden\n")
    core = "\n".join([*clock, told, planned, status.splitlines()[-1], undo.output])
    assert english_sentences(core, ignore=["ann", "ben", "cat"]) == []
    english = ok("clock", path).output
    assert english.startswith("clock: 2d +1d a turn, at most 5d; 3 vacation days; out of "
                              "time: the seat\n")
    assert english_sentences(english) != []


# --- click's own words ---------------------------------------------------------------
# (run in process, the program is called "main": `referee` in a shell)


def test_clicks_usage_errors_in_german_with_lang_or_the_environment(tmp_path: Path) -> None:
    path = new(tmp_path, "staufer")
    result = run("--lang", "de", "status")
    assert (result.exit_code, result.output) == (2, (
        "Aufruf: main status [OPTIONS] FILE\n"
        "Hilfe mit 'main status --help'.\n\n"
        "Fehler: Es fehlt das Argument 'FILE'.\n"))
    result = run("status", path, "--wdie", env={"REFEREE_LANG": "de"})
    assert (result.exit_code, result.output) == (2, (
        "Aufruf: main status [OPTIONS] FILE\n"
        "Hilfe mit 'main status --help'.\n\n"
        "Fehler: Die Option '--wdie' gibt es nicht. (Meintest du eine davon: '--views', "
        "'--wide'?)\n"))
    result = run("--lang", "de", "statsu")
    assert result.output.endswith(
        "Fehler: Den Befehl 'statsu' gibt es nicht. (Meintest du eine davon: 'seat', "
        "'status'?)\n")
    result = run("vacation", path, "--as", "ann", "x", "--lang", "de")
    assert result.output.endswith("Fehler: Ungültiger Wert für 'DAYS': 'x' ist keine "
                                  "gültige Zahl (integer range).\n")
    result = run("bot", path, "--as", "ann", "--level", "huge", "--lang", "de")
    assert result.output.endswith("Fehler: Ungültiger Wert für '--level': 'huge' ist "
                                  "keiner der Werte 'random', 'greedy', 'mcts'.\n")
    for args in (("--lang", "de"), ("--lang", "de", "move", path, "--as", "ann")):
        assert english_sentences(run(*args).output) == []


def test_clicks_words_in_a_shell(tmp_path: Path) -> None:
    """click names a path's kind ("Verzeichnis") when the command is made: in a shell, one
    command a process, in the command line's language."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "referee", "--lang", "de", "tick",
                           "no-such-folder"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", (
        "Aufruf: python -m referee tick [OPTIONS] GAMES_DIR\n"
        "Hilfe mit 'python -m referee tick --help'.\n\n"
        "Fehler: Ungültiger Wert für 'GAMES_DIR': Verzeichnis 'no-such-folder' gibt es "
        "nicht.\n"))


def test_clicks_usage_errors_follow_the_language_a_player_recorded(tmp_path: Path) -> None:
    path = new(tmp_path, "staufer")
    ok("lang", path, "--as", "ann", "de")
    german = run("status", path, "--as", "ann", "--bogus")
    assert (german.exit_code, german.output) == (2, (
        "Aufruf: main status [OPTIONS] FILE\n"
        "Hilfe mit 'main status --help'.\n\n"
        "Fehler: Die Option '--bogus' gibt es nicht.\n"))
    assert run("status", path, "--bogus", "--as=ann").output == german.output
    english = run("status", path, "--as", "ben", "--bogus")
    assert english.output == ("Usage: main status [OPTIONS] FILE\n"
                              "Try 'main status --help' for help.\n\n"
                              "Error: No such option '--bogus'.\n")
    assert run("status", path, "--as", "ann", "--bogus", "--lang", "en").output \
        == english.output


def test_the_help_frame_in_german_and_english_unchanged_after_it(tmp_path: Path) -> None:
    import gettext

    import click

    english = ok("--help").output
    german = ok("--lang", "de", "--help").output
    assert german.startswith("Aufruf: main [OPTIONS] COMMAND [ARGS]...\n")
    assert "\nOptionen:\n  --version    Die Version zeigen und beenden.\n" in german
    assert "\n  -h, --help   Diese Hilfe zeigen und beenden.\n" in german
    assert german.startswith("Aufruf: main [OPTIONS] COMMAND [ARGS]...\n\n"
                             "  Ein Schiedsrichter für Brettspiele per E-Mail oder über git.\n")
    assert "\nBefehle:\n  bot           Einen Bot den Zug von PLAYER in FILE wählen und " \
        "wie `move`...\n" in german
    assert "\n  new           Ein neues Spiel GAME in FILE beginnen.\n" in german
    assert english_sentences(german) == []
    assert ok("status", "--help", "--lang", "de").output.endswith(
        "  -h, --help     Diese Hilfe zeigen und beenden.\n")
    # nothing stays behind: the next command (and any other program using click) in English
    assert ok("--help").output == english
    assert english.startswith("Usage: main [OPTIONS] COMMAND [ARGS]...\n")
    assert "\nOptions:\n  --version    Show the version and exit.\n" in english
    for name in ("click.core", "click.exceptions", "click.types", "click.formatting"):
        module = __import__(name, fromlist=["_"])
        assert module._ is gettext.gettext, name
    assert click.core.ngettext is gettext.ngettext
