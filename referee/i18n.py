"""Languages: every text a player reads, in English or German.

The language is a context value, set around whatever produces text for one reader
(``with i18n.language("de"): ...``): a command for its ``--lang`` or the player's
recorded language, the judge for each mail's recipient. Code that produces text marks
its messages with ``_`` (translated now) or ``N_`` (a module-level constant, translated
where it is used: ``_(CONSTANT)``); each package has its own catalog (a *domain*):

    from referee.i18n import domain
    _, N_, ngettext = domain("referee")        # or a game: domain("staufer", __file__)

English is the source language: with ``en`` the message itself is returned and no
catalog is ever opened, so a command in English pays nothing. Catalogs are gettext
``.po`` files under ``<package>/locale/de/LC_MESSAGES/<domain>.po``, managed with Babel
(``python -m scripts.i18n``), compiled to ``.mo`` files that ship in the package.

What never changes language: the move notation (the log's), player ids, file contents.
"""

from __future__ import annotations

import functools
import gettext as _gettext
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from referee.errors import UsageError

ENGLISH = "en"
LANGUAGES = ("en", "de")  # every language a catalog exists for; the first is the source
NAMES = {"en": "English", "de": "Deutsch"}

_current: ContextVar[str] = ContextVar("referee_language", default=ENGLISH)


def normalize(lang: str | None) -> str:
    """``lang`` as one of :data:`LANGUAGES` (``de_DE.UTF-8``, ``DE``, ``deutsch`` ->
    ``de``); None -> English. Raises UsageError for a language there is no catalog of."""
    if lang is None or not str(lang).strip():
        return ENGLISH
    text = str(lang).strip().lower()
    for code, name in NAMES.items():
        if text == name.lower() or text.split(".")[0].replace("-", "_").split("_")[0] == code:
            return code
    raise UsageError(f"unknown language {str(lang)[:20]!r}",
                     hints=["languages: " + ", ".join(f"{c} ({n})" for c, n in NAMES.items())])


def current() -> str:
    """The language text is produced in now."""
    return _current.get()


@contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Produce text in ``lang`` (None: English) inside the block."""
    token = _current.set(normalize(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


class Domain:
    """One package's catalog: ``gettext``/``ngettext`` in the current language."""

    def __init__(self, name: str, anchor: str) -> None:
        self.name = name
        self._anchor = anchor  # a file beside the ``locale/`` folder
        self._catalogs: dict[str, _gettext.NullTranslations] = {}

    @functools.cached_property
    def localedir(self) -> Path:
        """The ``locale/`` folder (resolved when a catalog is first opened: a command in
        English never needs it)."""
        return Path(self._anchor).resolve().parent / "locale"

    def catalog(self, lang: str) -> _gettext.NullTranslations:
        found = self._catalogs.get(lang)
        if found is None:
            found = _gettext.translation(self.name, str(self.localedir), [lang],
                                         fallback=True)
            self._catalogs[lang] = found
        return found

    def gettext(self, message: str) -> str:
        lang = _current.get()
        if lang == ENGLISH:
            return message
        return self.catalog(lang).gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        lang = _current.get()
        if lang == ENGLISH:
            return singular if n == 1 else plural
        return self.catalog(lang).ngettext(singular, plural, n)


def _mark(message: str) -> str:
    """``N_``: marks a message for the catalog and returns it untranslated."""
    return message


_DOMAINS: dict[str, Domain] = {}


def domain(name: str, anchor: str | None = None
           ) -> tuple[Callable[[str], str], Callable[[str], str],
                      Callable[[str, str, int], str]]:
    """``(_, N_, ngettext)`` of the catalog ``name``, found in ``locale/`` beside
    ``anchor`` (a module's ``__file__``; None: the referee package itself)."""
    found = _DOMAINS.get(name)
    if found is None:
        found = _DOMAINS[name] = Domain(name, anchor or __file__)
    return found.gettext, _mark, found.ngettext


#: the German letters as a parser reads them: spelt out (Straßburg -> strassburg) or plain
_SPELT_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "é": "e"})
_PLAIN = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "s", "é": "e"})


def fold(text: str, *, plain: bool = False) -> str:
    """``text`` as a game's notation compares German names: lower case, the German
    letters spelt out (Straßburg -> strassburg, Köln -> koeln) or, with ``plain``,
    written without their marks (Köln -> koln, Straßburg -> strasburg)."""
    return text.lower().translate(_PLAIN if plain else _SPELT_OUT)


def domains() -> dict[str, Domain]:
    """Every catalog opened so far, by name (for the catalog tests)."""
    return dict(_DOMAINS)
