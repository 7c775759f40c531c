"""Who plays a game now and how to reach them: the header's players, then every meta
entry of the log in order (replacements, addresses, deadlines, watchers, notification
modes, the game master's address, agreements to a rematch). The judge, `referee
ratings` and `referee rematch` read the same roster; the meta entries themselves are
checked and written by :mod:`referee.judge.meta`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


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

    def lang(self, player: str) -> str:
        """The language ``player`` reads the game in (referee/i18n.py)."""
        return self.langs.get(player, "en")

    def address(self, player: str) -> str | None:
        """The address mail to ``player`` goes to (None: not reachable by mail)."""
        found = self.emails.get(player) or []
        return found[0] if found else None

    def to(self, player: str) -> str | None:
        """The To of ``player``'s mails; the name quoted, so that no name (``Ann,
        eve@evil.example``) adds a recipient."""
        from email.headerregistry import Address

        address = self.address(player)
        for name in (self.names.get(player, player), player):
            try:
                return str(Address(display_name=name, addr_spec=address)) if address \
                    else None
            except (ValueError, IndexError):  # a name or address mail cannot carry
                continue
        return None

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
                     deadline_hours=deadline_hours, gm=gm, deadline_bot=deadline_bot)
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
        if meta.get("on", True):
            found.watchers.append(email)
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
