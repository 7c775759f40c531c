"""Who plays a game now and how to reach them: the header's players, then every meta
entry of the log in order (replacements, addresses, deadlines, watchers, notification
modes, the game master's address, agreements to a rematch). The judge, `referee
ratings` and `referee rematch` read the same roster; the meta entries themselves are
checked and written by :mod:`referee.judge.meta`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import UsageError
from referee.ledger.fileformat import NAME_MAX

#: the prefix of a ``to`` in chat: the rest is the seat's Matrix user id
MATRIX_TO = "matrix:"


@dataclass
class Settings:
    """The effective players, addresses and settings of a game."""

    names: dict[str, str]
    emails: dict[str, list[str]]
    generation: dict[str, int]
    notify: dict[str, str]
    watchers: list[str] = field(default_factory=list)
    digests: dict[str, int | str] = field(default_factory=dict)  # watcher (lower) -> digest
    deadline_hours: int | None = None
    gm: str | None = None
    deadline_bot: str | None = None  # the level of the bot that plays a missed decision
    rematch: list[str] = field(default_factory=list)  # players who agreed, in order
    langs: dict[str, str] = field(default_factory=dict)  # player -> language (none: "en")
    watcher_names: dict[str, str] = field(default_factory=dict)  # watcher (lower) -> name
    matrix: dict[str, str] = field(default_factory=dict)  # player -> Matrix user id
    github: dict[str, str] = field(default_factory=dict)  # player -> GitHub login

    def github_of(self, login: str) -> list[str]:
        """The seats bound to the GitHub login ``login`` (compared without case, as
        GitHub compares logins); a seat a new person took over (``replace``) is bound to
        none: its login was the person's before."""
        return [p for p, known in self.github.items() if known.lower() == login.lower()]

    def matrix_of(self, user: str) -> list[str]:
        """The seats bound to the Matrix user id ``user`` (compared exactly: the
        homeserver says who sent an event, in the id's own spelling)."""
        return [p for p, u in self.matrix.items() if u == user]

    def lang(self, player: str) -> str:
        """The language ``player`` reads the game in (referee/i18n.py)."""
        return self.langs.get(player, "en")

    def address(self, player: str) -> str | None:
        """The address mail to ``player`` goes to (None: not reachable by mail)."""
        found = self.emails.get(player) or []
        return found[0] if found else None

    def to(self, player: str) -> str | None:
        """Where ``player``'s messages go: a seat bound to a Matrix id gets them in chat
        (``matrix:@ann:example.org``, the judge's chat door); else the To of their mails,
        the name quoted, so that no name (``Ann, eve@evil.example``) adds a recipient."""
        if player in self.matrix:
            return MATRIX_TO + self.matrix[player]
        address = self.address(player)
        if address is None:
            return None
        return _quoted(self.names.get(player, player), address) or _quoted(player, address)

    def watcher_to(self, address: str) -> str:
        """The To of a watcher's mails: their name (if the game master gave one) quoted,
        so that no name adds a recipient."""
        return _quoted(self.watcher_names.get(address.lower()), address) or address

    def addressed(self, player: str) -> str:
        """How a mail addresses the person at ``player``'s seat: the seat id, or for a
        seat taken over by a new person (``replace``) their own name and the seat,
        ``Yuki (seat zoe)``."""
        name = self.names.get(player, player)
        if not self.generation.get(player) or name in ("", player):
            return player
        return f"{name} (seat {player})"

    def token_name(self, player: str) -> str:
        """What the player's token is computed over: the id, and the seat's generation."""
        gen = self.generation.get(player, 0)
        return player if gen == 0 else f"{player}#{gen}"

    def accepts(self, player: str, address: str) -> bool:
        return address.lower() in (a.lower() for a in self.emails.get(player, []))

    def players_of(self, address: str) -> list[str]:
        return [p for p in self.emails if self.accepts(p, address)]


def settings(data: Mapping[str, Any], *, gm: str | None = None,
             deadline_hours: int | None = None, deadline_bot: str | None = None
             ) -> Settings:
    """The effective settings: the header's players, then every meta entry in order.
    ``gm``, ``deadline_hours`` and ``deadline_bot`` are the judge's defaults, which meta
    entries override."""
    names = {p["id"]: p.get("name", p["id"]) for p in data["players"]}
    emails = {p["id"]: [p["email"]] if p.get("email") else [] for p in data["players"]}
    found = Settings(names, emails, {pid: 0 for pid in names}, {pid: "turn" for pid in names},
                     deadline_hours=deadline_hours, gm=gm, deadline_bot=deadline_bot,
                     matrix={p["id"]: p["matrix"] for p in data["players"] if p.get("matrix")},
                     github={p["id"]: p["github"] for p in data["players"] if p.get("github")})
    for entry in data["log"]:
        meta = entry.get("meta")
        if isinstance(meta, dict):
            _apply(found, meta)
    return found


def _apply(found: Settings, meta: Mapping[str, Any]) -> None:
    kind = meta.get("kind")
    if kind == "replace":
        pid = meta["player"]
        found.names[pid] = meta.get("name", pid)
        found.emails[pid] = [meta["email"]]
        found.matrix.pop(pid, None)  # the new person is reached by mail
        found.github.pop(pid, None)  # and the login was the person's before
        found.generation[pid] = found.generation.get(pid, 0) + 1
    elif kind == "address":
        found.emails[meta["player"]] = list(meta["emails"])
    elif kind == "deadline":
        found.deadline_hours = int(meta["hours"])
        if "bot" in meta:
            found.deadline_bot = meta["bot"]
    elif kind == "watcher":
        email = meta["email"]
        found.watchers = [w for w in found.watchers if w.lower() != email.lower()]
        found.digests.pop(email.lower(), None)
        found.watcher_names.pop(email.lower(), None)
        if meta.get("on", True):
            found.watchers.append(email)
            if meta.get("name"):
                found.watcher_names[email.lower()] = meta["name"]
            if meta.get("digest") is not None:
                found.digests[email.lower()] = meta["digest"]
    elif kind == "notify":
        found.notify[meta["player"]] = meta["mode"]
    elif kind == "gm":
        found.gm = meta["email"]
    elif kind == "lang":
        found.langs[meta["player"]] = meta["lang"]
    elif kind == "rematch" and meta["player"] not in found.rematch:
        found.rematch.append(meta["player"])


def _quoted(name: str | None, address: str) -> str | None:
    """``name <address>`` as a header value, the name quoted where it needs it (a comma,
    a ``<``): one recipient whatever the name holds; None if mail cannot carry it."""
    from email.headerregistry import Address

    try:
        return str(Address(display_name=name or "", addr_spec=address))
    except (ValueError, IndexError):
        return None


# --- names and addresses as people type them ------------------------------------------

_QUOTED_NAME = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
_WITH_BRACKETS = re.compile(r"^(.*?)\s*<([^<>\s]*)>$", re.S)


def unquote(name: str) -> str:
    """A display name as typed, without its double quotes (``"Watcher, Wendy"`` ->
    ``Watcher, Wendy``; ``\\"`` inside stands for a quote)."""
    text = name.strip()
    m = _QUOTED_NAME.match(text)
    return re.sub(r"\\(.)", r"\1", m.group(1)) if m else text


def name_and_address(text: str, what: str) -> tuple[str | None, str]:
    """``Wendy Watcher <wendy@example.org>``, ``"Watcher, Wendy" <wendy@example.org>``,
    ``<wendy@example.org>``, ``wendy@example.org`` or ``Wendy wendy@example.org`` as
    (the name or None, the address). The name is bounded (:data:`NAME_MAX` characters,
    no control or format characters); the address is checked by whoever records it.
    Raises UsageError naming ``what`` (the command)."""
    text = text.strip()
    m = _WITH_BRACKETS.match(text)
    if m:
        name, address = m.group(1), m.group(2)
    else:
        name, _, address = text.rpartition(" ")
    address, name = address.strip(), name.strip()
    if not _QUOTED_NAME.match(name) and any(c in name for c in '<>"'):
        raise UsageError(f"{what}: a name holding <, > or \" is written in double quotes, "
                         'e.g. "Watcher, Wendy" <wendy@example.org>; one address only')
    if not address:
        raise UsageError(f"{what}: give an address, e.g. Wendy Watcher <wendy@example.org>")
    return check_name(unquote(name), what) or None, address


def check_name(name: str, what: str) -> str:
    """``name`` if it is a display name a file holds: at most :data:`NAME_MAX`
    characters, no control, format or line-separator characters. Raises UsageError."""
    if len(name) > NAME_MAX:
        raise UsageError(f"{what}: a name has at most {NAME_MAX} characters, not {len(name)}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise UsageError(f"{what}: control characters in the name")
    return name


def split_list(spec: str) -> list[str]:
    """``spec`` split at the commas outside double quotes (``ann="Smith, Ann" <a@x>,ben``
    -> two parts). Raises UsageError for an unbalanced quote."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in spec:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    if quoted:
        raise UsageError(f"unbalanced quotes in {spec[:200]!r}")
    parts.append("".join(current))
    return parts


def reached_by(to: str) -> str:
    """How a reader's address ``to`` (as :meth:`Settings.to` makes it) is reached:
    ``matrix`` for a seat bound to a Matrix id, ``mail`` for a mail address."""
    return "matrix" if to.startswith(MATRIX_TO) else "mail"
