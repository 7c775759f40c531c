"""A player's language by mail: ``lang de`` / ``lang en`` (the German alias: ``sprache
deutsch`` / ``sprache englisch``), recorded as their ``lang`` meta record, and the
language each reader of the judge's mails reads.

Every mail the judge writes is produced inside ``with i18n.language(...)`` of its
recipient: a player's recorded language (``lang`` record; none: English); watchers and
the game master read English (they have no setting). The answer to ``lang`` is already
written in the new language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee import i18n
from referee.errors import RefereeError, UsageError
from referee.i18n import domain
from referee.judge import meta
from referee.ledger.roster import Settings

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.judge.outcome import Outcome
    from referee.judge.request import Request
    from referee.play.writecore import Guard

_, N_, ngettext = domain("referee")

#: the command words: ``lang`` and its German alias ``sprache``
WORDS = ("lang", "sprache")
#: what a player may write after the word, besides what :func:`i18n.normalize` reads
#: (``de``, ``en``, ``deutsch``, ``english``, ``de_DE``...)
ALIASES = {"englisch": "en", "german": "de"}


def of_address(settings: Settings, address: str | None) -> str:
    """The language of whoever writes from ``address``: the first player it is
    registered for, else English (a stranger)."""
    found = settings.players_of(address) if address else []
    return settings.lang(found[0]) if found else i18n.ENGLISH


def parse(arg: str) -> str:
    """The language code a player asked for (``de``, ``deutsch``, ``en``, ``englisch``).
    Raises UsageError naming the languages there are."""
    word = arg.strip().lower()
    if not word:
        raise UsageError(_("lang: give a language: {choices}").format(choices=_choices()))
    if word in ALIASES:
        return ALIASES[word]
    try:
        return i18n.normalize(word)
    except UsageError:
        raise UsageError(_("lang: unknown language {word}; languages: {choices}").format(
            word=repr(word[:20]), choices=_choices())) from None


def _choices() -> str:
    return ", ".join(f"{code} ({name})" for code, name in i18n.NAMES.items())


def command(incoming: Request, game: Loaded, player: str, word: str, arg: str,
            guard: Guard) -> Outcome:
    """``lang LANG`` by mail from ``player`` (already authenticated: the seat's address
    and token, fresh): their ``lang`` record through the write core, then the answer in
    the new language. A bad language or a failed write is answered in the old one."""

    try:
        lang = parse(arg)
        meta.append(game.path, player, {"kind": "lang", "player": player, "lang": lang},
                    extra=incoming.extra, guard=guard)
    except RefereeError as exc:
        return incoming.not_done(game, player, word, exc)
    judge = incoming.judge
    judge.notify(game.path)
    judge.store.mark_answered(incoming.ref)
    judge.store.save()
    fresh = judge.load(game.path) or game
    with i18n.language(lang):
        note = [_(incoming.words.language).format(language=i18n.NAMES[lang]),
                _("To change it: `lang en` (English) or `lang de` (Deutsch).")]
        return incoming.answer_state(fresh, player, note, "command", f"lang {lang}")
