"""The one leak checker of the tests: does an output show hidden state?

The game names its hidden state item by item (``Game.hidden_items(state, viewer)``: each
card, contract, tile, face-down chest and the order of each stack, as the strings its
views would use). An output leaks an item if one of the item's strings occurs in it as
whole tokens: words are runs of letters, digits and ``_`` joined by ``-`` or ``+``, so
the ``4`` of a path ``pytest-4`` or of ``envoy-4`` is no word of its own, ``ship-1`` is not
found in ``ship-10``, and a string of several words (``card:a07``, a contract's text, a
run of chest labels) must appear word for word, whatever the punctuation, line breaks or
JSON quoting between the words (``card:a07`` is found in ``["card:a07 (...)"]``, ``a07``
in ``next:a07``). Matching is
case-blind and reads JSON ``\\uXXXX`` escapes and HTML entities as the characters they
stand for. Paths and other strings that the test itself put into the output (``ignore``)
are cut out first, so that only the command's own words are searched, and so is the one
example a legend gives (``FIXED_TEXT``).

``assert_views_hide`` is the second, independent check: a view must not change when
everything its viewer cannot see is re-dealt (``Game.determinize``), which also catches a
leak that no string can name (the label of the next chest, shared by many public chests).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from referee import engine
from referee.engine import Game, HiddenItem
from referee.engine.rng import Rng

_WORD = re.compile(r"\w+(?:[+\-]\w+)*")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\[nrtbf\"\\/]")


def _unescape(match: re.Match[str]) -> str:
    return chr(int(match.group(1), 16)) if match.group(1) else " "


def words(text: str) -> list[str]:
    """``text`` as the whole tokens the checker compares (lower case)."""
    return _WORD.findall(html.unescape(_ESCAPE.sub(_unescape, text)).casefold())


class _Haystack:
    """The words of one output, as a set (one-word tokens) and as one string of words
    between single spaces (tokens of several words)."""

    def __init__(self, text: str) -> None:
        found = words(text)
        self.set = set(found)
        self.phrase = " " + " ".join(found) + " "

    def has(self, token: str) -> bool:
        needle = _token(token)
        if len(needle) == 1:
            return needle[0] in self.set
        return bool(needle) and needle[0] in self.set and \
            " " + " ".join(needle) + " " in self.phrase


@lru_cache(maxsize=8192)
def _token(token: str) -> tuple[str, ...]:
    return tuple(words(token))


def found(token: str, text: str, ignore: Iterable[str] = ()) -> bool:
    """Whether ``token`` occurs in ``text`` as whole tokens (after cutting ``ignore``)."""
    return _Haystack(_cut(text, ignore)).has(token)


# Fixed words of the games' texts that name a component as an example, not as state:
# the Dynasties legend explains "card 7 = a07" whoever holds card 7.
FIXED_TEXT = ("card 7 = a07",)


def _cut(text: str, ignore: Iterable[str]) -> str:
    for part in sorted((p for p in (*ignore, *FIXED_TEXT) if p), key=len, reverse=True):
        text = text.replace(part, " ")
    return text


def _hit(item: HiddenItem, haystack: _Haystack) -> str | None:
    return next((t for t in item.tokens if haystack.has(t)), None)


def leaks(text: str, items: Iterable[HiddenItem], ignore: Iterable[str] = ()) -> list[str]:
    """Each hidden item that ``text`` shows, as "KIND of WHERE (TOKEN)"."""
    haystack = _Haystack(_cut(text, ignore))
    return [f"{item.kind} of {item.where} ({hit!r})" for item in items
            if (hit := _hit(item, haystack)) is not None]


def assert_no_leaks(outputs: Mapping[str, str], items: Sequence[HiddenItem],
                    ignore: Iterable[str] = ()) -> None:
    """No output (label -> text) shows any of ``items``; fails naming each leak."""
    ignore = list(ignore)
    found_leaks = [f"{label}: {leak}" for label, text in outputs.items()
                   for leak in leaks(text, items, ignore)]
    assert not found_leaks, "hidden state leaked:\n  " + "\n  ".join(found_leaks)


def assert_hidden(game: Game, state: Any, outputs: Mapping[str | None, Mapping[str, str]],
                  ignore: Iterable[str] = ()) -> None:
    """Outputs by audience (None: everyone; a player id: what only that player reads):
    none shows what its audience must not see (``game.hidden_items(state, audience)``)."""
    ignore = list(ignore)
    found_leaks = []
    for audience, texts in outputs.items():
        items = engine.hidden_items(game, state, audience)
        found_leaks += [f"{label} (read by {audience or 'everyone'}): {leak}"
                        for label, text in texts.items() for leak in leaks(text, items, ignore)]
    assert not found_leaks, "hidden state leaked:\n  " + "\n  ".join(found_leaks)


def tokens_by_owner(game: Game, state: Any) -> dict[str, list[str]]:
    """The first (distinctive) string of each hidden item, per the one player who may
    see it ("" for items nobody may see): for tests that compare re-deals."""
    out: dict[str, list[str]] = {"": []}
    for item in engine.hidden_items(game, state, None):
        if item.distinct:
            out.setdefault(item.owner or "", []).append(item.tokens[0])
    return out


def own_items(game: Game, state: Any, player: str) -> list[HiddenItem]:
    """The hidden items only ``player`` may see."""
    return [i for i in engine.hidden_items(game, state, None) if i.owner == player]


def assert_shows(text: str, items: Sequence[HiddenItem], ignore: Iterable[str] = ()) -> None:
    """Control: each item does appear in ``text`` (the owner's own view), so the strings
    searched for are the ones the views really use."""
    haystack = _Haystack(_cut(text, ignore))
    missing = [f"{i.kind} of {i.where} {i.tokens}" for i in items if _hit(i, haystack) is None]
    assert not missing, "not shown to their owner:\n  " + "\n  ".join(missing)


def player_ids(state: Any) -> list[str]:
    return [getattr(p, "id", p) for p in state.players]


def public_texts(game: Game, state: Any, viewer: str | None, text: bool = True
                 ) -> dict[str, str]:
    """What ``viewer`` reads of ``state`` from the game itself: the JSON view and, with
    ``text``, the board as text (narrow and wide) and the prompt."""
    out = {"view": json.dumps(game.view(state, viewer))}
    if text:
        out.update({"render": game.render(state, viewer),
                    "render --wide": game.render(state, viewer, width=132),
                    "prompt": game.prompt(state)})
    return out


def assert_state_hides(game: Game, state: Any, text: bool = True,
                       players: Sequence[str] | None = None) -> None:
    """The game's own outputs for every viewer (with ``text`` False: the JSON views
    only) show nothing that viewer may not see, and each player's own items do appear
    in their own view (the control). ``players``: the players' ids (by default those of
    ``state.players``)."""
    players = player_ids(state) if players is None else list(players)
    texts = {v: public_texts(game, state, v, text) for v in [None, *players]}
    assert_hidden(game, state, texts)
    every = engine.hidden_items(game, state, None)
    for p in players:
        own = [i for i in every if i.owner == p and not prefixed_only(i)]
        assert_shows(texts[p]["view"], own)
        if text:
            assert_shows(texts[p]["render"], own)


_PREFIXED = re.compile(r"[a-z]+:\S+")


def prefixed_only(item: HiddenItem) -> bool:
    """Whether ``item`` is named only by prefixed ids (``card:a31``): a card whose plain
    id the public events name (seen by everyone before it was shuffled back), which the
    game leaves out of its tokens. The views write the plain id, so the control (its
    owner's view shows it) has no word to look for; the leak search still looks for the
    prefixed form."""
    return all(_PREFIXED.fullmatch(t) for t in item.tokens)


def has_bots(game: Game) -> bool:
    """Whether bots can play ``game`` (it has the capability ``determinize``): only then
    can :func:`assert_views_hide` re-deal what a viewer cannot see."""
    return callable(getattr(game, "determinize", None))


def assert_views_hide(game: Game, state: Any, viewers: Sequence[str | None] | None = None,
                      seeds: int = 3) -> None:
    """Each viewer's view and text are unchanged when what they cannot see is re-dealt:
    the views depend on nothing hidden from them, named or not."""
    for viewer in [None, *player_ids(state)] if viewers is None else viewers:
        honest = (game.view(state, viewer), game.render(state, viewer))
        for k in range(seeds):
            other = engine.determinize(game, state, viewer or "", Rng(f"leak-check-{k}"))
            again = (game.view(other, viewer), game.render(other, viewer))
            assert again == honest, (
                f"the view of {viewer or 'the public'} changes when hidden parts are "
                f"re-dealt: {_first_difference(honest[0], again[0]) or 'in the text'}")


def _first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}"
            diff = _first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next((d for i, (x, y) in enumerate(zip(a, b, strict=True))
                     if (d := _first_difference(x, y, f"{path}[{i}]"))), None)
    return None if a == b else f"{path}: {a!r} != {b!r}"
