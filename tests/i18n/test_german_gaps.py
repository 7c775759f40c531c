"""The German gaps closed: Dynasties' move parse errors (`referee move --lang de` and by
mail), `referee data GAME --lang de`, the clock options' validation and the clock lines,
the judge's refusals of `say` lines and the game master's texts. Each is driven in German,
its exact lines checked, and its whole output passes the one English-in-German detector
(tests/i18n_check.py); English stays what it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee import i18n
from referee.engine import get_game
from referee.errors import UsageError
from referee.judge.gmlines import GM_HELP, gm_meta
from scripts import i18n as tool
from tests.conftest import ok, run
from tests.i18n_check import DYNASTIES, STAUFER, english_sentences
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup
from tests.support.games import new_game

SETTINGS = {"staufer": STAUFER, "dynasties": DYNASTIES}


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def dynasties() -> Path:
    path = Path("d.json")
    new_game(path, "dynasties", players="ann,ben,cat", seed="1")
    return path


# --- 1. Dynasties' parse errors -------------------------------------------------------

PARSE_ERRORS = [
    ("frobnicate", "'frobnicate' ist kein lesbarer Dynasties-Zug: unbekanntes Verb "
                   "'frobnicate'"),
    ("trade", "'trade' ist kein lesbarer Dynasties-Zug: am Ende fehlt ein Schiff (1-3)"),
    ("trade x", "'trade x' ist kein lesbarer Dynasties-Zug: erwartet: ein Schiff (1-3) "
                "(eine Zahl), gefunden: 'x'"),
    ("trade 1 with", "'trade 1 with' ist kein lesbarer Dynasties-Zug: am Ende fehlt eine "
                     "Aktionskarte"),
    ("trade 1 14", "'trade 1 14' ist kein lesbarer Dynasties-Zug: erwartet: 'with CARD'"),
    ("trade 1 with 14 extra", "'trade 1 with 14 extra' ist kein lesbarer Dynasties-Zug: "
                              "unerwartet: 'extra'"),
    ("trade 1234567 with 1", "'trade 1234567 with 1' ist kein lesbarer Dynasties-Zug: Zahl "
                             "zu lang: ein Schiff (1-3) hat höchstens 6 Ziffern"),
    ("sit 14", "'sit 14' ist kein lesbarer Dynasties-Zug: erwartet: 'sit out CARD'"),
    ("divide k", "'divide k' ist kein lesbarer Dynasties-Zug: erwartet: 'divide GOODS/GOODS'"),
    ("take x", "'take x' ist kein lesbarer Dynasties-Zug: erwartet: Warenbuchstaben "
               "(k w g b p, auch s und r), gefunden: 'x'"),
    ("choose 2", "'choose 2' ist kein lesbarer Dynasties-Zug: nur 0 Gruppen stehen jetzt "
                 "zur Wahl"),
    ("wild atlantis", "'wild atlantis' ist kein lesbarer Dynasties-Zug: 'atlantis' ist hier "
                      "nicht möglich, erwartet: ein Land, eines von: britannia, france, "
                      "hispania, sri"),
    ("pass 3", "'pass 3' passt zu mehreren erlaubten Zügen; gib an, welchen (keep)"),
    ("trade 1 with 99", "'trade 1 with 99' ist kein lesbarer Dynasties-Zug: erwartet: eine "
                        "Aktionskarte, eine Zahl von 1 bis 34, gefunden: 99"),
    ("trade 1 with 30", "'trade 1 with 30' ist nicht erlaubt: du hast die Karte 30 nicht "
                        "(spiele eine Karte aus deiner Hand)"),
]


@pytest.mark.parametrize(("move", "first"), PARSE_ERRORS)
def test_a_dynasties_move_that_cannot_be_read_is_explained_in_german(move: str,
                                                                     first: str) -> None:
    path = dynasties()
    before = path.read_bytes()
    result = run("move", path, "--as", "ann", move, "--lang", "de")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[0] == "Fehler: " + first
    assert "Traceback" not in result.output and path.read_bytes() == before
    assert english_sentences(result.output, **DYNASTIES) == []


def test_the_hints_of_a_parse_error_and_an_ambiguous_move_in_german() -> None:
    path = dynasties()
    lines = run("move", path, "--as", "ann", "sit 14", "--lang", "de").output.splitlines()
    assert lines[1].startswith("  Zugformen: trade SHIP with CARD; trade twice SHIP ")
    assert "ähnlichste erlaubte Züge:" in lines
    ambiguous = run("move", path, "--as", "ann", "pass 3", "--lang", "de").output
    assert ambiguous.splitlines()[1:] == ["ähnlichste erlaubte Züge:",
                                          "  pass 3, hat eine Karte behalten"]


def test_english_parse_errors_are_unchanged() -> None:
    path = dynasties()
    out = run("move", path, "--as", "ann", "trade x").output.splitlines()
    assert out[0] == ("error: cannot read 'trade x' as a Dynasties move: expected a ship "
                      "(1-3) (a number), got 'x'")
    assert out[1].startswith("  move forms: trade SHIP with CARD;")
    out = run("move", path, "--as", "ann", "pass 3").output.splitlines()
    assert out == ["error: 'pass 3' fits several legal moves; say which (keep)",
                   "closest legal moves:", "  pass 3, kept a card"]


@pytest.mark.slow
def test_a_dynasties_parse_error_by_mail_is_answered_in_german(tmp_path: Path) -> None:
    """... in a clocked game: the mail's clock block is German too."""
    setup = Setup(tmp_path, game="dynasties", gid="dyn-1", extra=("--clock", "2d+1d/5d"))
    setup.judge()
    setup.send(reply(setup.latest("ann"), "lang de"))
    before = setup.path.read_bytes()
    answer = setup.send(reply(setup.latest("ann"), "trade x"))
    body = body_text(next(m for m in answer if m["X-Referee-Player"] == "ann"))
    assert setup.path.read_bytes() == before
    assert "Zeile 1 `trade x` wurde nicht angenommen:" in body
    assert ("'trade x' ist kein lesbarer Dynasties-Zug: erwartet: ein Schiff (1-3) (eine "
            "Zahl), gefunden: 'x'") in " ".join(body.split())
    lines = body.splitlines()
    assert "Uhr: 2d +1d pro Zug, höchstens 5d; 0 Urlaubstage; Zeit abgelaufen: die" in lines
    assert "  ben          Zeitkonto 2d, Urlaub 0d" in lines
    assert english_sentences(_above_footer(body), **DYNASTIES) == [], body


def _above_footer(body: str) -> str:
    """A mail's body above its footer (the footer's `game:` and `player:` lines stay as
    they are in every language)."""
    return body.split("\n-- \n", 1)[0]


# --- 2. referee data ------------------------------------------------------------------

HEADINGS = {
    "staufer": ["The Staufer Dynasty: Materialdaten staufer-",
                "25 Werte sind ANGENOMMEN (die vorliegende Spielregel nennt sie nicht).",
                "15 AUSLEGUNGEN, wo die Spielregel schweigt oder unklar ist (wie der "
                "Schiedsrichter entscheidet):"],
    "dynasties": ["Dynasties: Heirate & Herrsche: Materialdaten dynasties-",
                  "119 Werte sind ANGENOMMEN (die vorliegende Spielregel nennt sie nicht).",
                  "19 AUSLEGUNGEN, wo die Spielregel schweigt oder unklar ist (wie der "
                  "Schiedsrichter entscheidet):"],
}


def _prose(game: str, text: str) -> str:
    """The output without what is data, not prose: the game's title (a name), each
    assumed value (JSON of the data files), the data keys and field names it names
    (``[chests.mix.orange]``, ``cities.cities: prince, large``) and file paths."""
    with i18n.language("de"):
        found = get_game(game).assumptions()
    text = text.replace(get_game(game).title, "")
    for a in found:
        if game == "staufer":  # what the file is about, then [the value's path]
            prose = a.what.rsplit(" [", 1)[0]
        else:  # the value's path, then its field names or "alle Werte"
            prose = "alle Werte" if a.what.endswith(": alle Werte") else ""
        text = text.replace(f"[{a.key}] {a.what}: {a.value}\n", prose + "\n")
    return re.sub(r"[\w-]*(?:[/_.][\w-]+)+", " ", text)  # paths, keys: a.b, a/b, a_b


@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_referee_data_in_german(game: str) -> None:
    german = ok("data", game, "--lang", "de").output
    assert ok("--lang", "de", "data", game).output == german
    lines = german.splitlines()
    assert lines[0].startswith(HEADINGS[game][0])
    assert lines[1] == ("Veröffentlichte Datenversionen (1); ein Spiel wird mit der Version "
                        "nachgespielt, auf die es festgelegt ist:")
    assert lines[2].endswith(" (aktuell)")
    assert HEADINGS[game][1] in lines and HEADINGS[game][2] in lines
    assert "Wer das gedruckte Spiel besitzt, prüfe diese Werte und melde Korrekturen:" in lines
    assert lines[-1] == (f"Alle Materialdaten mit Quellen: `referee data {game} --json`; "
                         "die Recherchenotiz, auf die sie sich stützen: "
                         f"`referee data {game} --reference`.")
    assert sum(line.startswith("        Quelle: ") for line in lines) == \
        int(HEADINGS[game][1].split()[0])
    assert sum(line.startswith("        Regel: ") for line in lines) == \
        int(HEADINGS[game][2].split()[0])
    assert english_sentences(_prose(game, german), **SETTINGS[game]) == []


def test_referee_data_words_in_german_and_english() -> None:
    german = ok("data", "staufer", "--lang", "de").output
    assert ("  [S11] Gleichstand beim Sieg: Meiste Punkte; bei Gleichstand: die meisten "
            "Figuren im Hof; bei weiterem Gleichstand: ein geteilter Sieg (das 'blaueste "
            "Blut' gilt als Scherz).") in german.splitlines()
    english = ok("data", "staufer").output.splitlines()
    assert "15 READINGS where the rulebook is silent or unclear (what the referee does):" \
        in english
    assert ("  [S11] winner tie-break: Most points; tied: most figures in the Court; still "
            "tied: a shared win (the 'bluest blood' is read as a joke).") in english
    data = json.loads(ok("data", "dynasties", "--json", "--lang", "de").output)
    german_topics = {r["key"]: r["topic"] for r in data["interpretations"]}
    assert german_topics["D-TIE"] == "Gleichstand nach dem Warenvergleich"
    # the data files themselves keep their English
    files = data["data"]["interpretations"]["interpretations"]
    assert next(i["topic"] for i in files if i["key"] == "D-TIE") == \
        "ties after the goods tie-break"


@pytest.mark.parametrize("game", ["staufer", "dynasties"])
def test_every_data_text_a_reader_sees_is_in_the_catalog(game: str) -> None:
    domain = tool.domains()[game]
    translated = {tool.key(m): m.string for m in tool.messages(tool.read(domain.po("de")))}
    texts = tool.data_texts(domain)
    assert len(texts) > 30
    assert [t for t in texts if not translated.get(t)] == []


# --- 3. the clocks --------------------------------------------------------------------

CLOCK_ERRORS = [
    (("--clock", "3x"), "Fehler: --clock, Zeitkonto: '3x' ist keine Dauer wie 3d, 12h, 90m "
                        "oder 1d12h"),
    (("--clock", "2d/1d"), "Fehler: --clock: die Obergrenze (1d) ist kleiner als das "
                           "Zeitkonto (2d)"),
    (("--clock", "3d+400d"), "Fehler: --clock: der Zuwachs muss zwischen 0m und 365d liegen, "
                             "nicht 400d"),
    (("--clock", "2d 3d"), "Fehler: --clock: '2d 3d' hat nicht die Form "
                           "BANK[+INCREMENT][/CAP], z. B. 3d+12h/5d"),
    (("--clock", "2d", "--timeout", "bot:zzz"), "Fehler: --timeout: unbekannte Bot-Stufe "
                                                "'zzz'"),
    (("--clock", "2d", "--timeout", "later"), "Fehler: --timeout: 'later' ist weder "
                                              "bot:LEVEL noch gm oder forfeit"),
]


@pytest.mark.parametrize(("options", "first"), CLOCK_ERRORS)
def test_a_bad_clock_option_is_explained_in_german(options: tuple[str, ...],
                                                   first: str) -> None:
    result = run("--lang", "de", "new", "staufer", "c.json", "--players", "ann,ben,cat",
                 "--sealed", *options)
    assert result.exit_code == 2, result.output
    assert result.output.splitlines()[0] == first
    assert not Path("c.json").exists()
    assert english_sentences(result.output) == []


def test_the_clock_in_german_on_status_clock_and_its_refusals() -> None:
    path = Path("c.json")
    new_game(path, "staufer", "--sealed", "--insecure-seed", "--clock", "2d+1d/5d", "--vacation",
             "3", players="ann,ben,cat", seed="c")
    status = ok("status", path, "--as", "ann", "--lang", "de").output
    clock_line = next(line for line in status.splitlines() if line.startswith("Uhr: "))
    assert re.fullmatch(r"Uhr: ann noch 5d \(Zeit läuft ab \d{4}-\d\d-\d\d \d\d:\d\d UTC\); "
                        r"Zeitkonten ann 2d, ben 2d, cat 2d", clock_line), clock_line
    shown = ok("clock", path, "--lang", "de").output.splitlines()
    assert shown[:2] == ["Uhr: 2d +1d pro Zug, höchstens 5d; 3 Urlaubstage; Zeit abgelaufen: "
                         "die", "  Spielleitung wird gefragt"]
    assert re.fullmatch(r"  ann          Zeitkonto 2d, Urlaub 3d, erwartet: Zeit läuft ab "
                        r"\d{4}-\d\d-\d\d", shown[2]), shown[2]
    assert shown[4:] == ["  ben          Zeitkonto 2d, Urlaub 3d",
                         "  cat          Zeitkonto 2d, Urlaub 3d"]
    for args, first in ((("--set", "1d", "--as", "ann"),
                         "Fehler: nur die Spielleitung ändert die Bedenkzeit: füge --as gm "
                         "hinzu"),
                        (("--set", "1d", "--off", "--as", "gm"),
                         "Fehler: --set oder --off, nicht beides")):
        result = run("clock", path, *args, "--lang", "de")
        assert result.exit_code == 2 and result.output.splitlines()[0] == first
    text = status + "\n".join(shown)  # (the board's words: tests/staufer/test_german.py)
    assert english_sentences(text) == []


def test_the_game_masters_clock_command_and_timeout_texts_in_german() -> None:
    from referee.judge import clocks

    with i18n.language("de"):
        for line, message in (
                ("clock", "clock: gib ein Tempo wie 2d+1d/5d an, oder off"),
                ("clock 2d pause", "clock: 'pause': nach dem Tempo kommen `vacation DAYS`, "
                                   "`pause weekends` und `timeout bot:LEVEL|gm|forfeit`"),
                ("clock 2d vacation x", "clock: vacation braucht eine Zahl von Tagen, "
                                        "nicht 'x'"),
                ("clock 2x", "--clock, Zeitkonto: '2x' ist keine Dauer wie 3d, 12h, 90m "
                             "oder 1d12h")):
            with pytest.raises(UsageError) as err:
                gm_meta(line, ["ann", "ben"])
            assert err.value.message == message
            assert english_sentences(message) == []

        class TimedOut:
            then, level = "forfeit", "greedy"

        assert clocks._then(TimedOut()) == ("der Platz gibt auf: ein Bot (greedy) spielt "
                                            "weiter, er wird Letzter")


# --- 4. the judge: say refusals and the game master ------------------------------------

SAY_REFUSALS = [
    ("say", "say: nichts zu sagen"),
    ("say " + "x" * 501, "say nicht weitergegeben: 501 Zeichen, höchstens 500"),
    ("say hi\u200bthere", "say nicht weitergegeben: es enthält U+200B (ZERO WIDTH SPACE); "
                          "ein say ist reiner Text in einem Absatz: keine Steuer-, Format-, "
                          "Zeilen- oder Absatztrennzeichen"),
    ("say e" + "\u0301" * 7,  # NFC joins the first mark with the e: 6 remain
     "say nicht weitergegeben: mehr als 5 kombinierende Zeichen auf einem Buchstaben"),
]


def test_say_refusals_by_mail_in_german(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="dynasties", gid="dyn-1")
    setup.judge()
    setup.send(reply(setup.latest("ann"), "lang de"))
    for line, refusal in SAY_REFUSALS:
        answer = setup.send(reply(setup.latest("ann"), line))
        assert [m["X-Referee-Player"] for m in answer] == ["ann"]  # nothing relayed
        body = body_text(answer[0])
        assert refusal in " ".join(body.split()), body
        assert english_sentences(_above_footer(body), **DYNASTIES) == [], body


def test_the_game_masters_texts_in_german() -> None:
    with i18n.language("de"):
        for line, message in (
                ("frobnicate now", "kein Befehl der Spielleitung: 'frobnicate now'"),
                ("unwatch a@example.org digest", "unwatch nimmt nur eine Adresse: "
                                                 "unwatch ADDRESS")):
            with pytest.raises(UsageError) as err:
                gm_meta(line, ["ann", "ben"])
            assert err.value.message == message
            assert english_sentences("\n".join([message, *err.value.hints])) == []
        help_lines = [_de(line) for line in GM_HELP]
    assert help_lines[0] == ("Befehle der Spielleitung (Antwort auf diese Mail, je Zeile "
                             "einer, von deiner Adresse):")
    assert all(len(line) <= 88 for line in help_lines[:1])
    assert all(len(line) <= 78 for line in help_lines[1:]), help_lines
    assert english_sentences("\n".join(help_lines)) == []


def _de(line: str) -> str:
    from referee.judge.core import _

    return _(line)
