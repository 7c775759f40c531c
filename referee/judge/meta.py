"""Meta log entries: what the game master (or a player) changes during a game.

A meta entry ``{"n", "by": "gm" | PLAYER, "meta": {"kind": ...}, "prev", "at"}`` never
touches the game state (replay skips it), so the header and the hash chain stay as they
are while players, addresses and settings change. This module defines the kinds, checks
them, appends them to a game file, and computes the effective settings from the header
and every meta entry in log order.

Kinds (fields besides ``kind``):

* ``replace``  ``player``, ``name``, ``email``: a new person takes over a seat; the
  seat's mail token changes (the old person's replies stop counting).
* ``address``  ``player``, ``emails`` (list): the player's accepted addresses; mail goes
  to the first.
* ``deadline`` ``hours`` (1-8760): the time a player has for each decision; optional
  ``bot`` (``random``, ``greedy``, ``mcts``; null: none): at the deadline a bot of that
  level plays the decisions of whoever missed it, instead of only a mail.
* ``bot``      ``player``, ``level`` (null: back to a person), ``iterations``: the seat
  is handed to a bot (referee/ledger/seats.py; by the game master, or a player for their own
  seat).
* ``watcher``  ``email``, ``on`` (bool): add or remove someone who gets public mails;
  optional ``name`` (how their mails address them); optional ``digest``: ``"round"``
  (one mail per round) or N (one mail per N decisions) instead of one mail per change.
* ``notify``   ``player``, ``mode`` (``turn``, ``every``, ``digest``).
* ``lang``     ``player``, ``lang`` (``en``, ``de``): the language the player reads.
* ``gm``       ``email``: the game master's address.
* ``rematch``  ``player``: the player agrees to a rematch of the finished game (by mail;
  the judge starts it once every human player has agreed: referee/play/rematch.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from referee import i18n
from referee.errors import UsageError
from referee.ledger import roster, seats
from referee.ledger.fileformat import (
    ADDRESSES_MAX,
    DEADLINE_HOURS_MAX,
    DIGEST_MAX,
    EMAIL,
    EMAIL_MAX,
    NAME_MAX,
    full,
)
from referee.ledger.fileformat import GAME_MASTER as GM
from referee.play import writecore

_, N_, ngettext = i18n.domain("referee")

MODES = ("turn", "every", "digest")
_EMAIL_RE = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")
_EMAIL_READ = re.compile(full(EMAIL))  # what every read of the file holds it to


def _email(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _EMAIL_RE.match(value) or not _EMAIL_READ.match(value):
        shown = value[:EMAIL_MAX] if isinstance(value, str) else value
        raise UsageError(f"{what}: {shown!r} is not an e-mail address")
    if len(value) > EMAIL_MAX:
        raise UsageError(f"{what}: an e-mail address has at most {EMAIL_MAX} characters, "
                         f"not {len(value)}")
    return value


def _name(value: Any, fallback: str, what: str = "replace") -> str:
    name = fallback if value is None or value == "" else value
    if not isinstance(name, str):
        raise UsageError(f"{what}: a name is text of at most {NAME_MAX} characters")
    return roster.check_name(name, what)


def validate(meta: Mapping[str, Any], players: list[str]) -> dict[str, Any]:
    """Check one meta object; return it normalised. Raises UsageError saying what is wrong."""
    kind = meta.get("kind")
    out: dict[str, Any] = {"kind": kind}

    def player() -> str:
        pid = meta.get("player")
        if pid not in players:
            raise UsageError(f"{kind}: {pid!r} is not a player in this game",
                             hints=[f"players: {', '.join(players)}"])
        return str(pid)

    if kind == "replace":
        out["player"] = player()
        out["email"] = _email(meta.get("email"), "replace")
        out["name"] = _name(meta.get("name"), out["player"])
    elif kind == "address":
        out["player"] = player()
        emails = meta.get("emails")
        if not isinstance(emails, list) or not emails:
            raise UsageError("address: give at least one address")
        if len(emails) > ADDRESSES_MAX:
            raise UsageError(f"address: at most {ADDRESSES_MAX} addresses, not {len(emails)}")
        out["emails"] = [_email(e, "address") for e in emails]
    elif kind == "deadline":
        hours = meta.get("hours")
        if (not isinstance(hours, int) or isinstance(hours, bool)
                or not 1 <= hours <= DEADLINE_HOURS_MAX):
            raise UsageError(f"deadline: hours must be a whole number 1-{DEADLINE_HOURS_MAX}, "
                             f"not {hours!r}")
        out["hours"] = hours
        level = meta.get("bot")
        if level is not None and level not in seats.LEVELS:
            raise UsageError(f"deadline: unknown bot level {level!r}",
                             hints=[f"levels: {', '.join(seats.LEVELS)}"])
        if "bot" in meta:
            out["bot"] = level
    elif kind == "bot":
        out = seats.validate_meta(meta, players)
    elif kind == "watcher":
        out["email"] = _email(meta.get("email"), "watcher")
        on = meta.get("on", True)
        if not isinstance(on, bool):
            raise UsageError(f"watcher: on is true or false, not {on!r}")
        out["on"] = on
        if meta.get("name"):
            out["name"] = _name(meta["name"], "", "watch")
        if meta.get("digest") is not None:
            out["digest"] = digest(meta["digest"])
    elif kind == "notify":
        out["player"] = player()
        if meta.get("mode") not in MODES:
            raise UsageError(f"notify: mode must be one of {', '.join(MODES)}, "
                             f"not {meta.get('mode')!r}")
        out["mode"] = meta["mode"]
    elif kind == "gm":
        out["email"] = _email(meta.get("email"), "gm")
    elif kind == "rematch":
        out["player"] = player()
    elif kind == "lang":
        out["player"] = player()
        out["lang"] = i18n.normalize(meta.get("lang"))
    else:
        raise UsageError(f"unknown meta kind {kind!r}",
                         hints=["kinds: replace, address, deadline, bot, watcher, notify, gm, "
                                "rematch, lang"])
    return out


def digest(value: Any) -> Literal["round"] | int:
    """A watcher's digest: ``"round"`` or a number of decisions 1-1000. Raises
    UsageError."""
    if value == "round":
        return "round"
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= DIGEST_MAX:
        return value
    raise UsageError(f"watch: digest must be `round` or a number of decisions "
                     f"1-{DIGEST_MAX}, not {value!r}")


def append(path: Path, by: str, meta: Mapping[str, Any],
           extra: Mapping[str, Any] | None = None,
           guard: writecore.Guard | None = None) -> dict[str, Any]:
    """Append a checked meta entry by ``by`` ("gm" or a player) to the game file at
    ``path`` through the write core (in a sealed game with the referee's MAC, from the
    secret beside the file, only once the whole log has replayed); return the entry. A
    ``bot`` entry goes through :func:`referee.play.submit.set_seat` (who may hand which seat).
    ``guard`` checks the file inside the lock (:func:`referee.play.writecore.transaction`).
    Raises UsageError and the errors of a write."""
    if meta.get("kind") == "clock":  # the game master's time control: MAC'd, checked
        from referee.play import submit

        return submit.set_clock(path, meta.get("control"), extra=dict(extra or {}),
                                guard=guard)
    if meta.get("kind") == "bot":
        from referee.play import submit

        level = meta.get("level")
        seat = None if level is None else seats.make_seat(level, meta.get("iterations"))
        return submit.set_seat(path, by, str(meta.get("player")), seat,
                               extra=dict(extra or {}), guard=guard)
    with writecore.transaction(path, replayed=False, guard=guard) as tx:
        gf = tx.gf
        if by != GM:
            gf.player(by)
        checked = validate(meta, gf.players)
        planned = checked["kind"] == "replace" and has_plan(gf.log, checked["player"])
        entry = tx.append({"by": by, "meta": checked}, extra)
        if planned:  # the person who leaves takes their plan along: none plays for the next
            from referee.ledger import plans

            seat = checked["player"]
            tx.append({"by": seat, "meta": plans.record(gf.data, seat, [])}, extra)
            tx.verify()
    return entry


def has_plan(log: Sequence[Mapping[str, Any]], player: str) -> bool:
    """Whether ``player``'s latest plan record may hold lines (a sealed record may: its
    lines are sealed; one in clear without lines withdrew the plan)."""
    from referee.ledger import plans

    records = [e["meta"] for e in log if e.get("by") == player and plans.is_record(e)]
    return bool(records) and ("sealed" in records[-1] or bool(records[-1].get("lines")))


# fields no mail but the game master's own answer may show: a person's addresses
_PRIVATE_FIELDS = ("email", "emails")


def event_line(n: int, who: str, meta: Mapping[str, Any]) -> str:
    """A meta entry as the mails tell it to everyone (players, watchers): never an
    e-mail address. A replacement reads ``5. Yuki now plays seat zoe (the game
    master's change)``; an address or watcher change names no address."""
    kind = meta.get("kind")
    if kind == "replace":
        return _("{n}. {name} now plays seat {player} ({who}'s change)").format(
            n=n, name=meta.get("name") or meta.get("player"), player=meta.get("player"),
            who=who)
    said = _readable(who, meta)
    if said is not None:
        return f"{n}. {said}"
    detail = ", ".join(f"{k} {v}" for k, v in meta.items()
                       if k not in ("kind", *_PRIVATE_FIELDS))
    return _("{n}. {who} changed a setting: {setting}").format(
        n=n, who=who, setting=f"{kind} {detail}").rstrip()


def _readable(who: str, meta: Mapping[str, Any]) -> str | None:
    """A setting's change in words (no address), or None for a kind told as a record."""
    kind = meta.get("kind")
    if kind == "address":
        count = len(meta.get("emails") or [])
        return ngettext("{who} set {player}'s address ({count} address)",
                        "{who} set {player}'s addresses ({count} addresses)", count).format(
            who=who, player=meta.get("player"), count=count)
    if kind == "watcher":
        name = meta.get("name")
        if not meta.get("on", True):
            return _("{who} removed a watcher").format(who=who)
        return (_("{who} added a watcher: {name}").format(who=who, name=name) if name
                else _("{who} added a watcher").format(who=who))
    if kind == "deadline":
        hours = int(meta.get("hours", 0))
        said = ngettext("{who} set the time for each decision: {hours} hour",
                        "{who} set the time for each decision: {hours} hours", hours).format(
            who=who, hours=hours)
        if meta.get("bot"):
            said += _("; a bot ({level}) plays a missed decision").format(level=meta["bot"])
        return said
    if kind == "gm":
        return _("{who} set the game master's address").format(who=who)
    if kind == "vacation":
        days = int(meta.get("days", 0))
        return ngettext("{player} is on vacation for {days} day: their clock stops",
                        "{player} is on vacation for {days} days: their clock stops",
                        days).format(player=meta.get("player"), days=days)
    if kind == "rematch":
        return _("{player} agreed to a rematch").format(player=meta.get("player"))
    return None
