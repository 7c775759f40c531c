"""click's own words in the reader's language: its usage errors ("No such option",
"Missing argument", "Try 'referee status --help' for help."), the frame of ``--help``
("Usage:", "Options:", "Show this message and exit.") and its value checks (an invalid
choice or number).

click looks these up with the standard library's ``gettext`` (a module-level ``_`` and
``ngettext`` in each of :data:`MODULES`). While the command line runs in a language
other than English, :func:`speaking` points those names at the ``click`` catalog
(``referee/locale/de/LC_MESSAGES/click.po``, click's messages and their translations)
and puts click's own back when the command is done: nothing changes for another program
that uses click, and in English nothing is touched at all.

The language is known before click parses a word, so that a usage error is already in
it: the last ``--lang`` of the command line, else ``REFEREE_LANG``, else (only when
click has something to say) the language the player of ``--as`` recorded in the game
file named on the command line.
"""

from __future__ import annotations

import gettext as _stdlib
import importlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from referee import i18n
from referee.errors import RefereeError
from referee.ledger import fileio


def _(message: str) -> str:
    """``message`` from the ``click`` catalog, in the current language (the catalog is
    found when first needed, never on the way of a command that has nothing to say)."""
    return i18n.domain("click")[0](message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    return i18n.domain("click")[2](singular, plural, n)

#: the click modules whose ``_`` and ``ngettext`` hold a text a user reads (the others
#: speak of Windows consoles, shell completion and the test runner)
MODULES = ("click.core", "click.decorators", "click.exceptions", "click.formatting",
           "click.parser", "click.termui", "click.types")

#: how the language of click's words is found when no ``--lang`` and no ``REFEREE_LANG``
#: is given (None: English)
_recorded: ContextVar[Callable[[], str] | None] = ContextVar("referee_click_recorded",
                                                             default=None)


_referee, N_, _referee_ngettext = i18n.domain("referee")

#: click's words that click hands to ``_`` through a variable (``_(extra["required"])``
#: of an option's help), so that no click catalog holds them: in the referee catalog
_REFEREE_WORDS = frozenset({N_("required")})


def gettext(message: str) -> str:
    """click's ``_``: ``message`` in the language of the command line."""
    if message in _TYPE_NAMES:
        return _TypeName(message)
    lang = _language()
    if lang == i18n.ENGLISH:
        return _stdlib.gettext(message)
    with i18n.language(lang):
        return _referee(message) if message in _REFEREE_WORDS else _(message)


#: the names of click.Path's kinds, which a click.Path keeps from when it is made (when
#: its command's module is imported) and writes into its errors with ``.title()``
_TYPE_NAMES = frozenset({"file", "directory", "path"})


class _TypeName(str):
    """A kind of path, "file", in the language of the error it is written into: click
    calls ``title()`` when it reports a path, not when the command is made."""

    __slots__ = ()

    def title(self) -> str:
        lang = _language()
        if lang == i18n.ENGLISH:
            return str(self).title()
        with i18n.language(lang):
            return _(str(self)).title()


def ngettext(singular: str, plural: str, n: int) -> str:
    """click's ``ngettext``: the form for ``n`` in the language of the command line."""
    lang = _language()
    if lang == i18n.ENGLISH:
        return _stdlib.ngettext(singular, plural, n)
    with i18n.language(lang):
        return _ngettext(singular, plural, n)


def reader_language() -> str:
    """The language of the command line's reader: the current one, else (while
    :func:`speaking` for a player of ``--as``) the language that player recorded."""
    return _language()


def _language() -> str:
    lang = i18n.current()
    found = _recorded.get()
    if lang == i18n.ENGLISH and found is not None:
        return found()
    return lang


def stated_language(args: Sequence[str]) -> str | None:
    """The language the command line states: its last ``--lang`` (the command's own
    comes after the group's and wins), else ``REFEREE_LANG``; None for none; English
    for a language there is no catalog of (the command reports that one itself)."""
    choice: str | None = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            choice = args[i + 1]
        elif arg.startswith("--lang="):
            choice = arg.split("=", 1)[1]
    choice = choice or os.environ.get("REFEREE_LANG")
    if not choice:
        return None
    try:
        return i18n.normalize(choice)
    except RefereeError:
        return i18n.ENGLISH


def player_of(args: Sequence[str]) -> str | None:
    """The player of the command line's ``--as`` (None without one)."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--as" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--as="):
            return arg.split("=", 1)[1]
    return None


def recorded(args: Sequence[str], player: str) -> Callable[[], str]:
    """The language ``player`` recorded in the first game file named in ``args`` that
    records one (English for none), looked up once, when first asked for."""
    found: list[str] = []

    def lookup() -> str:
        if not found:
            found.append(_recorded_in(args, player))
        return found[0]

    return lookup


def _recorded_in(args: Sequence[str], player: str) -> str:
    for arg in args:
        try:
            if arg.startswith("-") or not Path(arg).is_file():
                continue
        except (OSError, ValueError):  # a name too long for a file, a NUL byte
            continue
        lang = recorded_language({"player": player, "path": Path(arg)})
        if lang != i18n.ENGLISH:
            return lang
    return i18n.ENGLISH


def recorded_language(kwargs: dict[str, Any]) -> str:
    """The language recorded for the command's ``--as`` player in its game file
    (English when there is none, or the file cannot be read: the command says why)."""
    player = kwargs.get("viewer") or kwargs.get("player")
    path = kwargs.get("path")
    if not isinstance(player, str) or not isinstance(path, Path):
        return i18n.ENGLISH
    try:
        raw = fileio.read_bytes(path, "game file")
    except RefereeError:
        return i18n.ENGLISH
    if b'"lang"' not in raw:  # no language record: no need to decode the file
        return i18n.ENGLISH
    from referee.ledger import gamefile, roster

    try:
        gf = gamefile.parse(raw, str(path))
        return roster.settings(gf.data).lang(player)
    except (RefereeError, KeyError, TypeError, ValueError):
        return i18n.ENGLISH


@contextmanager
def speaking(args: Sequence[str]) -> Iterator[None]:
    """click's words in the command line's language inside the block (nothing is
    changed when that is English: no ``--lang``, no ``REFEREE_LANG`` and no ``--as``)."""
    lang = stated_language(args)
    player = player_of(args) if lang is None else None
    if lang in (None, i18n.ENGLISH) and player is None:
        yield
        return
    saved = _install()
    token = _recorded.set(recorded(args, player) if player is not None else None)
    try:
        with i18n.language(lang):
            yield
    finally:
        _recorded.reset(token)
        _restore(saved)


def _install() -> list[tuple[Any, str, Any]]:
    """Point each of :data:`MODULES`' ``_`` and ``ngettext`` at this module's; returns
    what was there, for :func:`_restore`."""
    saved = []
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, ours in (("_", gettext), ("ngettext", ngettext)):
            if hasattr(module, attr):
                saved.append((module, attr, getattr(module, attr)))
                setattr(module, attr, ours)
    return saved


def _restore(saved: list[tuple[Any, str, Any]]) -> None:
    for module, attr, value in reversed(saved):
        setattr(module, attr, value)


__all__ = ["MODULES", "gettext", "ngettext", "reader_language", "recorded_language",
           "speaking", "stated_language"]
