"""The catalogs and the language mechanism: every message of every domain translated to
German (not empty, not fuzzy, the same placeholders), every committed .mo the compiled
.po, the catalog check failing on each kind of gap, i18n.normalize and language(), and
tests/i18n_check.english_sentences finding English and passing German."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from referee import i18n
from referee.errors import UsageError
from scripts import i18n as tool
from tests.i18n_check import DYNASTIES, STAUFER, english_sentences

DOMAINS = sorted(tool.domains())


def test_the_domains_are_the_core_and_each_game() -> None:
    """The referee's own catalog, click's words, and one per game package (each game's
    name): what the registry's packaged games and the catalogs in the locale folders
    say, not a list kept by hand."""
    from referee import engine

    assert sorted({"referee", "click", *engine.packaged_games()}) == DOMAINS
    on_disk = {po.stem for po in tool.PACKAGE.rglob("locale/*/LC_MESSAGES/*.po")}
    assert on_disk <= set(DOMAINS) and {"referee", "click"} <= on_disk
    referee = tool.domains()["referee"]
    sources = {p.relative_to(tool.ROOT).as_posix() for p in referee.sources()}
    assert "referee/play/statusview.py" in sources
    assert not any(s.startswith("referee/games/") for s in sources)


@pytest.mark.parametrize("name", DOMAINS)
def test_every_catalog_is_complete_and_compiled(name: str) -> None:
    assert tool.problems(tool.domains()[name]) == []


def test_the_core_catalog_holds_the_frame_of_status_and_errors() -> None:
    found = tool.msgids(tool.read(tool.domains()["referee"].po("de")))
    assert {"error: {message}", "closest legal moves:", "a,b = one of the values",
            "legal moves for {player} ({n}; {note}):"} <= found


def german_texts() -> list[tuple[str, str]]:
    out = []
    for name in DOMAINS:
        po = tool.domains()[name].po("de")
        if not po.exists():
            continue
        for m in tool.messages(tool.read(po)):
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            out += [(tool.key(m), s) for s in strings]
    return out


# the keywords of a plan's notation (`if PLAYER MOVE then MOVE`), which stays English
NOTATION = ("if", "then")


def test_no_german_translation_reads_as_english() -> None:
    bad = [(msgid, text) for msgid, text in german_texts()
           if english_sentences(text, ignore=NOTATION)]
    assert bad == []


# --- the check fails on each gap --------------------------------------------------------


def toy_domain(tmp_path: Path) -> tool.Domain:
    package = tmp_path / "toy"
    package.mkdir()
    (package / "mod.py").write_text(
        'from referee.i18n import domain\n_, N_, ngettext = domain("toy", __file__)\n'
        'A = N_("a constant")\n'
        'def f(n):\n'
        '    return _("{player} takes {n} supply.").format(player="ann", n=n)\n'
        'def g(n):\n'
        '    return ngettext("{n} point", "{n} points", n).format(n=n)\n')
    return tool.Domain("toy", package)


def translate(domain: tool.Domain, table: dict[str, object], fuzzy: str = "") -> None:
    catalog = tool.read(domain.po("de"))
    for m in tool.messages(catalog):
        value = table[tool.key(m)]
        m.string = tuple(value) if isinstance(value, list) else value  # type: ignore[assignment]
        if tool.key(m) == fuzzy:
            m.flags.add("fuzzy")
    domain.po("de").write_bytes(tool.po_text(catalog))


GERMAN = {"a constant": "eine Konstante",
          "{player} takes {n} supply.": "{player} nimmt {n} Nachschub.",
          "{n} point": ["{n} Punkt", "{n} Punkte"]}


def test_the_check_finds_every_kind_of_gap(tmp_path: Path) -> None:
    domain = toy_domain(tmp_path)
    assert tool.problems(domain) == [
        f"toy: no de catalog ({domain.po('de')}): run python -m scripts.i18n update"]
    assert tool.update(domain) == [domain.po("de")]
    text = domain.po("de").read_text()
    assert "#:" not in text and "Generated-By" not in text  # no locations, no tool version
    assert text.index('"a constant"') < text.index('"{n} point"')  # sorted
    found = tool.problems(domain)
    assert "toy (de): 'a constant' has no translation" in found
    assert "toy (de): toy.mo is not the compiled toy.po: run compile" in found

    translate(domain, GERMAN)
    tool.compile_domain(domain)
    assert tool.problems(domain) == []
    assert tool.update(domain) == [] and tool.compile_domain(domain) == []  # stable

    translate(domain, {**GERMAN, "{player} takes {n} supply.": "{spieler} nimmt {n}."})
    assert any("has the placeholders ['n', 'spieler'], not ['n', 'player']" in p
               for p in tool.problems(domain))
    translate(domain, {**GERMAN, "{n} point": ["ein Punkt", "{n} Punkte"]})
    assert not any("placeholders" in p for p in tool.problems(domain))  # singular: "ein"
    translate(domain, {**GERMAN, "{n} point": ["{n} Punkt {x}", "Punkte"]})
    assert sum("placeholders" in p for p in tool.problems(domain)) == 2
    translate(domain, GERMAN, fuzzy="a constant")
    assert "toy (de): 'a constant' is fuzzy" in tool.problems(domain)
    translate(domain, GERMAN)
    assert any("toy.mo is not the compiled" in p for p in tool.problems(domain))  # stale
    tool.compile_domain(domain)

    (domain.package / "mod.py").write_text(
        (domain.package / "mod.py").read_text() + 'B = N_("a new message")\n')
    assert "toy (de): 'a new message' is not in the catalog: run python -m scripts.i18n " \
           "update" in tool.problems(domain)
    (domain.package / "mod.py").write_text(
        (domain.package / "mod.py").read_text().replace('A = N_("a constant")\n', ""))
    assert "toy (de): 'a constant' is no longer in the code: run python -m scripts.i18n " \
           "update" in tool.problems(domain)
    tool.update(domain)
    assert "a constant" not in tool.msgids(tool.read(domain.po("de")))  # dropped


def test_the_compiled_catalog_translates_at_run_time(tmp_path: Path) -> None:
    domain = toy_domain(tmp_path)
    tool.update(domain)
    translate(domain, GERMAN)
    tool.compile_domain(domain)
    found = i18n.Domain("toy", domain.package / "locale")
    with i18n.language("de"):
        assert found.gettext("{player} takes {n} supply.") == "{player} nimmt {n} Nachschub."
        assert found.ngettext("{n} point", "{n} points", 1) == "{n} Punkt"
        assert found.ngettext("{n} point", "{n} points", 3) == "{n} Punkte"
        assert found.gettext("not in the catalog") == "not in the catalog"
    assert found.gettext("{player} takes {n} supply.") == "{player} takes {n} supply."


@pytest.mark.slow
def test_the_command_line_of_the_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert tool.main([]) == 2
    assert tool.main(["check"]) == 0
    assert "every catalog is complete" in capsys.readouterr().out
    broken = tmp_path / "locale"
    shutil.copytree(tool.PACKAGE / "locale", broken)
    po = broken / "de" / "LC_MESSAGES" / "referee.po"
    po.write_text(po.read_text().replace('msgstr "Fehler: {message}"', 'msgstr ""'))
    core = tool.domains()["referee"]
    monkeypatch.setattr(tool, "domains", lambda: {"referee": tool.Domain(
        "referee", core.package, core.exclude, broken)})
    assert tool.main(["check", "referee"]) == 1
    assert "'error: {message}' has no translation" in capsys.readouterr().err


# --- normalize and language() -------------------------------------------------------------


@pytest.mark.parametrize(("given", "code"), [
    (None, "en"), ("", "en"), ("  ", "en"), ("de", "de"), ("DE", "de"), ("de_DE.UTF-8", "de"),
    ("de-AT", "de"), ("Deutsch", "de"), ("english", "en"), ("en_GB", "en")])
def test_normalize(given: str | None, code: str) -> None:
    assert i18n.normalize(given) == code


def test_an_unknown_language_is_a_usage_error_naming_the_choices() -> None:
    with pytest.raises(UsageError) as raised:
        i18n.normalize("fr")
    assert raised.value.message == "unknown language 'fr'"
    assert raised.value.hints == ["languages: en (English), de (Deutsch)"]
    with pytest.raises(UsageError):
        i18n.normalize("x" * 1000)


def test_language_is_set_inside_the_block_only_and_nests() -> None:
    _, _n, ngettext = i18n.domain("referee")
    assert i18n.current() == "en"
    with i18n.language("de") as code:
        assert code == "de" and i18n.current() == "de"
        assert _("error: {message}") == "Fehler: {message}"
        assert ngettext("{n} vacation day", "{n} vacation days", 2) == "{n} Urlaubstage"
        with i18n.language(None):
            assert _("error: {message}") == "error: {message}"
        assert i18n.current() == "de"
    assert i18n.current() == "en"
    with pytest.raises(RuntimeError), i18n.language("de"):
        raise RuntimeError
    assert i18n.current() == "en"


def test_english_opens_no_catalog() -> None:
    found = i18n.Domain("referee", tool.PACKAGE / "locale")
    assert found.gettext("error: {message}") == "error: {message}"
    assert found.ngettext("{n} point", "{n} points", 1) == "{n} point"
    assert found._catalogs == {}


# --- english_sentences ------------------------------------------------------------------


def test_english_sentences_finds_english_and_passes_german() -> None:
    assert english_sentences("error: it is not ben's turn: Round 1") == [
        "error: it is not ben's turn: Round 1"]
    assert english_sentences("legal moves for ann (19; a,b = one of the values):") != []
    assert english_sentences("  waiting for: ann\nthe game is over") == ["the game is over"]
    german = ("Fehler: ben ist nicht am Zug: Runde 1\n"
              "erlaubte Züge für ann (19; a,b = einer der Werte):\n"
              "  supply: 1,2,3,4,5\n"
              "  deploy: augsburg 1,2,3,4,5 | milano 3,4,5\n"
              "die Spielleitung wird gefragt; in einem Spiel, so man will, also was man hat\n"
              "Uhr: ann noch 2d 3h (Zeit läuft ab 2026-01-03 00:00 UTC); Zeitkonten ann 2d")
    assert english_sentences(german) == []


def test_english_sentences_finds_a_mail_line_and_passes_the_german_one() -> None:
    assert english_sentences("Your turn, ann: take from the pile") != []
    assert english_sentences("Du bist am Zug, ann: nimm vom Stapel") == []
    assert english_sentences("Antworte mit `say TEXT to the others`") == []
    assert english_sentences("Antworte an ann@example.org [#ab12 the token]") == []


def test_the_game_settings_count_one_component_word() -> None:
    assert english_sentences("nimm eine chest", **STAUFER) == ["nimm eine chest"]
    assert english_sentences("nimm eine chest") == []
    assert english_sentences("3 goods vom Schiff", **DYNASTIES) != []
    assert english_sentences("Zug: trade 1 with 14; Waren: k w", **DYNASTIES) == []
    assert english_sentences("eine Truhe [vp3] (supply 2)", **STAUFER) == []


def test_a_quotation_is_not_counted_but_an_apostrophe_is_no_quotation() -> None:
    assert english_sentences("Regel: 'you must now discard all action cards'") == []
    assert english_sentences("'frobnicate' ist kein lesbarer Zug") == []
    assert english_sentences("it's the game's turn") == ["it's the game's turn"]


def test_english_sentences_leaves_out_notation_and_ignored_words() -> None:
    assert english_sentences("  move: pass | done | first") == []
    assert english_sentences("siehe `referee status --as PLAYER` oder `if PLAYER MOVE then "
                             "MOVE`") == []
    assert english_sentences("Zug für ann: trade to the north", ignore=["to", "the"]) == []
    assert english_sentences("this one", least=3) == []
    assert english_sentences("this one is", least=3) == ["this one is"]
    assert english_sentences("{player} noch {left} (--from-email MOVE PLAYER)") == []
    assert english_sentences("  notify turn|every|digest   wie oft (Vorgabe turn)") == []
    assert english_sentences("notify turn, every") != []  # not alternatives: words


def test_a_plural_form_needs_the_plural_messages_placeholders_only() -> None:
    from babel.messages.catalog import Message

    ids = ("{value!r} is not {choice}.", "{value!r} is not one of {choices}.")
    fine = Message(ids, ("{value!r} ist nicht {choice}.", "{value!r} ist keiner von {choices}."))
    assert tool.message_problems(fine) == []
    wrong = Message(ids, ("{value!r} ist nicht {choice}.", "{value!r} ist keiner von {choice}."))
    assert tool.message_problems(wrong) == [
        "'{value!r} is not {choice}.': the translation '{value!r} ist keiner von {choice}.' "
        "has the placeholders ['choice', 'value'], not ['choice', 'choices', 'value']"]


def test_the_click_catalog_holds_clicks_words_from_its_source() -> None:
    click = tool.domains()["click"]
    sources = {p.name for p in click.sources()}
    assert sources == {"core.py", "decorators.py", "exceptions.py", "formatting.py",
                       "parser.py", "termui.py", "types.py"}
    assert {"Usage:", "Options", "Commands", "Error: {message}", "Missing argument",
            "No such option {name!r}.", "Show this message and exit.",
            "Try '{command} {option}' for help."} <= tool.msgids(tool.read(click.po("de")))


def test_another_click_release_still_needs_the_catalog_translated(monkeypatch) -> None:
    """A message a click release added is a failure with the release the catalog was
    made from, and not with another (it reads in English until `update`)."""
    from importlib.metadata import version

    domain = tool.domains()["click"]
    made = tool.extracted(domain)
    made.add("A message of a newer click.")
    monkeypatch.setattr(tool, "extracted", lambda d: made)
    monkeypatch.setattr(tool, "CLICK_MADE_WITH", version("click"))
    assert tool.problems(domain) == ["click (de): 'A message of a newer click.' is not in "
                                     "the catalog: run python -m scripts.i18n update"]
    monkeypatch.setattr(tool, "CLICK_MADE_WITH", "0.0")
    assert tool.problems(domain) == []
