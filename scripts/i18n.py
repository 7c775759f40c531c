"""The translation catalogs: `python -m scripts.i18n extract|update|compile|check [DOMAIN]`.

A *domain* is one package's catalog (referee/i18n.py): ``referee`` (the package without
``referee/games/``) and one per game package under ``referee/games/`` (``staufer``,
``dynasties``), each at ``<package>/locale/<lang>/LC_MESSAGES/<domain>.po`` with its
compiled ``.mo`` beside it (both committed: the wheel carries them, and at run time the
stdlib's gettext reads the ``.mo``).

- ``extract``: the messages marked in the code (``_``, ``N_``, ``ngettext``) and the texts
  a reader sees of a game's data files (``DATA_TEXT_FIELDS``) as a template, written to
  ``build/i18n/<domain>.pot`` (not committed).
- ``update``: every ``.po`` brought in line with the code: new messages added untranslated,
  messages no longer in the code dropped; sorted, without source locations, so that
  several people adding messages at once merge line by line.
- ``compile``: every ``.po`` compiled to its ``.mo``.
- ``check``: exit 1, naming each problem, unless every message of the code has a German
  translation (not empty, not fuzzy, with the same ``{placeholders}``), no ``.po`` holds
  a message the code lacks, and every ``.mo`` is the compiled ``.po``.

Babel is a development tool only (the ``test`` extra), never needed to run referee.
"""

from __future__ import annotations

import gettext
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from referee.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "referee"
TARGETS = LANGUAGES[1:]  # every language but the source (English)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # no dates that change each run
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}")


@dataclass(frozen=True)
class Domain:
    """One catalog: its name, the package it translates (its sources, but those under
    ``exclude``) and where its catalogs are (default: the package's ``locale/``)."""

    name: str
    package: Path
    exclude: tuple[Path, ...] = ()
    locale: Path | None = None

    def sources(self) -> list[Path]:
        return sorted(p for p in self.package.rglob("*.py")
                      if not any(p.is_relative_to(x) for x in self.exclude))

    def po(self, lang: str) -> Path:
        base = self.locale or self.package / "locale"
        return base / lang / "LC_MESSAGES" / f"{self.name}.po"

    def mo(self, lang: str) -> Path:
        return self.po(lang).with_suffix(".mo")


def domains() -> dict[str, Domain]:
    """Every domain: the referee's own, click's words, then each game package's."""
    games = PACKAGE / "games"
    out = {"referee": Domain("referee", PACKAGE, (games,)), "click": click_domain()}
    for package in sorted(games.iterdir()):
        if (package / "__init__.py").is_file():
            out[package.name] = Domain(package.name, package)
    return out


# The click release whose messages the click catalog was made from. With another release
# installed, `check` still requires every message of the catalog translated, but does not
# fail on the messages that release added or dropped (they read in English until the
# catalog is updated with `update`); with this one it requires the catalog to equal them.
CLICK_MADE_WITH = "8.5.1"


def click_drift_checked() -> bool:
    from importlib.metadata import version

    return version("click") == CLICK_MADE_WITH


def click_domain() -> Domain:
    """click's own words (referee/cli/clicktext.py): the messages of the installed
    click's modules that the referee translates (``clicktext.MODULES``), with their
    catalog among the referee's (``referee/locale/``). A click release that adds or
    drops a message makes ``check`` name it."""
    import click

    from referee.cli.clicktext import MODULES

    package = Path(click.__file__).resolve().parent
    wanted = {name.split(".")[-1] + ".py" for name in MODULES}
    others = tuple(p for p in sorted(package.glob("*.py")) if p.name not in wanted)
    return Domain("click", package, others, locale=PACKAGE / "locale")


def selected(name: str | None) -> list[Domain]:
    found = domains()
    if name is None:
        return list(found.values())
    if name not in found:
        raise SystemExit(f"error: unknown domain {name!r} (domains: {', '.join(found)})")
    return [found[name]]


# --- extracting -----------------------------------------------------------------------


def extracted(domain: Domain) -> Catalog:
    """The template: every message marked in the domain's sources and the texts of its
    current data files that a reader sees (no locations)."""
    template = Catalog(domain=domain.name, project="referee", creation_date=FIXED_DATE,
                       revision_date=FIXED_DATE, fuzzy=False)
    for path in domain.sources():
        for _line, message, comments, context in extract_from_file(
                "python", str(path), keywords=KEYWORDS, comment_tags=("Translators:",),
                strip_comment_tags=True):
            template.add(message, None, auto_comments=comments, context=context)
    for text in data_texts(domain) + command_texts(domain):
        template.add(text, None)
    return template


def command_texts(domain: Domain) -> list[str]:
    """The ``referee`` domain's texts of every command's ``--help``: its help (the
    docstring, as click keeps it) and each option's help, which click keeps as made and
    referee/cli/__init__.py ``Command`` looks up when shown."""
    if domain.name != "referee":
        return []
    import inspect

    import click

    from referee.cli import load_all, main

    load_all()
    found: list[str] = []
    for _name, command in sorted(main.commands.items()):
        found += [inspect.cleandoc(command.help)] if command.help else []
        found += [p.help for p in command.params if isinstance(p, click.Option) and p.help]
    return list(dict.fromkeys(found))


#: the fields of a game's data files whose text `referee data` shows in the reader's
#: language: what a file is about, a reading's topic, the reading, the rule it reads and
#: a value's source (a translation keeps the rulebook's words it quotes, in quotes)
DATA_TEXT_FIELDS = ("about", "topic", "reading", "rule", "source")


def data_texts(domain: Domain) -> list[str]:
    """The texts of ``DATA_TEXT_FIELDS`` in the domain's current data files
    (``<package>/data/*.json``; the released versions under ``data/versions/`` are
    older copies of the same files)."""
    import json

    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for name, value in node.items():
                if name in DATA_TEXT_FIELDS and isinstance(value, str) and value:
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    if domain.name != "referee":
        for path in sorted((domain.package / "data").glob("*.json")):
            walk(json.loads(path.read_text(encoding="utf-8")))
    return list(dict.fromkeys(found))


def messages(catalog: Catalog) -> Iterator[Message]:
    """The catalog's messages, the header left out."""
    return (m for m in catalog if m.id)


def msgids(catalog: Catalog) -> set[str]:
    return {key(m) for m in messages(catalog)}


def key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


# --- the .po and .mo files ------------------------------------------------------------


def read(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def po_text(catalog: Catalog) -> bytes:
    """The ``.po`` as it is committed: sorted, no locations, no obsolete messages, no
    tool version or changing date in the header."""
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    catalog.fuzzy = False
    out = io.BytesIO()
    write_po(out, catalog, sort_output=True, omit_header=False, no_location=True,
             ignore_obsolete=True, width=88)
    text = out.getvalue().decode()
    text = re.sub(r'"Generated-By: [^"]*"\n', "", text)
    return text.encode()


def new_catalog(domain: Domain, lang: str) -> Catalog:
    catalog = Catalog(locale=lang, domain=domain.name, project="referee",
                      creation_date=FIXED_DATE, revision_date=FIXED_DATE, fuzzy=False)
    catalog.header_comment = (f"# {lang} translations of the {domain.name} domain.\n"
                              "# Managed with `python -m scripts.i18n` (docs/languages.md).")
    catalog.last_translator = "referee contributors"
    catalog.language_team = f"{lang} <referee contributors>"
    return catalog


def update(domain: Domain) -> list[Path]:
    """Bring every ``.po`` of ``domain`` in line with its sources; returns those written."""
    template = extracted(domain)
    written: list[Path] = []
    for lang in TARGETS:
        path = domain.po(lang)
        if not path.exists() and not msgids(template):
            continue  # nothing to translate yet
        catalog = read(path) if path.exists() else new_catalog(domain, lang)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        text = po_text(catalog)
        if not path.exists() or path.read_bytes() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text)
            written.append(path)
    return written


def mo_bytes(po: Path) -> bytes:
    out = io.BytesIO()
    write_mo(out, read(po), use_fuzzy=False)
    return out.getvalue()


def compile_domain(domain: Domain) -> list[Path]:
    """Compile every ``.po`` of ``domain``; returns the ``.mo`` files that changed."""
    written = []
    for lang in TARGETS:
        po = domain.po(lang)
        if not po.exists():
            continue
        data = mo_bytes(po)
        mo = domain.mo(lang)
        if not mo.exists() or translations(mo.read_bytes()) != translations(data):
            mo.write_bytes(data)
            written.append(mo)
    return written


def translations(mo: bytes) -> dict[object, str]:
    """What gettext reads from a ``.mo`` (the header left out, which names the tool)."""
    found = gettext.GNUTranslations(io.BytesIO(mo))
    table: dict[object, str] = dict(found._catalog)  # type: ignore[attr-defined]
    table.pop("", None)
    return table


# --- checking -------------------------------------------------------------------------


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def message_problems(message: Message) -> list[str]:
    """Why ``message`` is not properly translated ([] if it is)."""
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    strings = [message.string] if isinstance(message.string, str) else list(message.string)
    where = repr(ids[0])
    if message.fuzzy:
        return [f"{where} is fuzzy"]
    if not strings or any(not s for s in strings):
        return [f"{where} has no translation"]
    wanted = set().union(*map(placeholders, ids))
    needed = wanted if len(ids) == 1 else placeholders(ids[-1])
    return [f"{where}: the translation {s!r} has the placeholders {sorted(placeholders(s))}, "
            f"not {sorted(wanted)}" for i, s in enumerate(strings)
            if not placeholders_fit(placeholders(s), wanted, set() if len(ids) > 1 and i == 0
                                    else needed)]


def placeholders_fit(found: set[str], wanted: set[str], needed: set[str]) -> bool:
    """A translation has the message's placeholders: none that the program does not fill
    in, and all of ``needed``: every placeholder of a message, those of the plural
    message for a plural form (click's "{value!r} is not one of {choices}." has no
    ``{choice}``); the singular form of a plural message (n == 1) may leave some out
    ("Dein erster Zug" for "Your first {n} moves")."""
    return needed <= found <= wanted


def problems(domain: Domain) -> list[str]:
    """Everything wrong with ``domain``'s catalogs ([] when all is well)."""
    expected = msgids(extracted(domain))
    out: list[str] = []
    for lang in TARGETS:
        po, mo = domain.po(lang), domain.mo(lang)
        if not po.exists():
            if expected:
                out.append(f"{domain.name}: no {lang} catalog ({shown(po)}): "
                           "run python -m scripts.i18n update")
            continue
        catalog = read(po)
        where = f"{domain.name} ({lang})"
        if domain.name != "click" or click_drift_checked():
            out += [f"{where}: {m!r} is not in the catalog: run python -m scripts.i18n update"
                    for m in sorted(expected - msgids(catalog))]
            out += [f"{where}: {m!r} is no longer in the code: run python -m scripts.i18n "
                    "update" for m in sorted(msgids(catalog) - expected)]
        out += [f"{where}: {text}" for m in messages(catalog) for text in message_problems(m)]
        if po.read_bytes() != po_text(read(po)):
            out.append(f"{where}: {po.name} is not sorted as committed: run update")
        if not mo.exists() or translations(mo.read_bytes()) != translations(mo_bytes(po)):
            out.append(f"{where}: {mo.name} is not the compiled {po.name}: run compile")
    return out


def shown(path: Path) -> str:
    """``path`` from the repository's root where it is inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


# --- the command ----------------------------------------------------------------------


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("extract", "update", "compile", "check") or len(argv) > 2:
        print("usage: python -m scripts.i18n extract|update|compile|check [DOMAIN]",
              file=sys.stderr)
        return 2
    action, name = argv[0], (argv[1] if len(argv) > 1 else None)
    found: list[str] = []
    for domain in selected(name):
        if action == "extract":
            out = ROOT / "build" / "i18n" / f"{domain.name}.pot"
            out.parent.mkdir(parents=True, exist_ok=True)
            template = extracted(domain)
            out.write_bytes(po_text(template))
            print(f"{shown(out)}: {len(msgids(template))} messages")
        elif action == "update":
            for path in update(domain):
                print(f"updated {shown(path)}")
        elif action == "compile":
            for path in compile_domain(domain):
                print(f"compiled {shown(path)}")
        else:
            found += problems(domain)
    for problem in found:
        print(f"error: {problem}", file=sys.stderr)
    if action == "check" and not found:
        print("every catalog is complete and compiled")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
