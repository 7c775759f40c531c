"""The chat door's rooms: one for each game's table, one with each seat alone.

The rooms of a game are the chat door's rows of the judge's state
(:meth:`referee.judge.store.Store.door_game`): the table's room, each seat's direct room
and the Matrix id it was made for, who is in each room as last seen, the rooms being made
and the seats waiting to be invited again. An index (:meth:`referee.judge.store.Store.
door_key`) says which game and reader each room is, so an event is placed without a look
at every game.

* **Made once.** Before a room is asked for, its key (an HMAC of the game, the reader
  and the seat's id under the game's key) is saved; the room is made with it in its
  creation content. A judge killed between asking and saving finds the room again by
  that key among its rooms instead of making a twin.
* **Only the referee invites.** Rooms are made with nobody invited and power levels that
  leave invitations, kicks, bans and redactions of others to the referee
  (:data:`referee.doors.chat.link.POWER_LEVELS`); the referee invites each seat itself.
* **A failure stays one.** A room that cannot be made, or a seat that cannot be invited
  (its server refuses or is down, a wrong id), is tried again with back-off
  (:func:`backoff`) for that reader alone; every other game and reader goes on.
* **Private means private.** Before a post to a seat's direct room the door checks who is
  in it (:meth:`Rooms.intruders`): anyone but the seat and the
  referee is removed, the seat and the game master are told, and the post waits until
  the room is the seat's alone again. A seat who left a room is invited again.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.doors.chat.link import MatrixError
from referee.judge.basics import WATCHER

if TYPE_CHECKING:
    from referee.doors.chat.link import Link
    from referee.judge.basics import Loaded
    from referee.judge.store import Store

_, N_, ngettext = i18n.domain("referee")

DOOR = "chat"
FIRST_WAIT, LONGEST_WAIT = 30.0, 3600.0  # back-off of a room or an invitation that failed
POSTS_KEPT = 32  # the judge's own posts remembered per room (what a reply may answer)


class Held(Exception):
    """A reader's posts wait: their room cannot be made or they cannot be invited, or
    someone else is in their direct room."""


def backoff(tries: int) -> float:
    """Seconds to wait after the ``tries``-th failure in a row."""
    return min(LONGEST_WAIT, FIRST_WAIT * 2 ** max(0, tries - 1))


class Rooms:
    """The rooms of every chat game of one judge, over ``link`` and ``store``."""

    def __init__(self, link: Link, store: Store, log: Callable[[str], None],
                 clock: Callable[[], float] = time.time) -> None:
        self.link, self.store, self.log, self.clock = link, store, log, clock
        self._asked: set[str] = set()  # rooms whose people were asked of the homeserver

    def of(self, gid: str) -> dict[str, Any]:
        """The chat door's row of a game: ``room``, ``dms`` (reader -> {user, room}),
        ``members`` (room -> {user: membership}), ``making``, ``held``, ``posts``."""
        found = self.store.door_game(DOOR, gid)
        for key, empty in (("room", None), ("dms", {}), ("members", {}), ("making", {}),
                           ("held", {}), ("posts", {})):
            found.setdefault(key, empty)
        return found

    def place(self, room: str) -> tuple[str, str] | None:
        """(game id, reader: WATCHER for the table or a seat) of ``room``, or None."""
        filed = self.store.door_key(DOOR, room)
        return None if filed is None else (filed[0], str(filed[1]))

    def room_of(self, gid: str, reader: str) -> str | None:
        rows = self.of(gid)
        if reader == WATCHER:
            return rows["room"]  # type: ignore[no-any-return]
        dm = rows["dms"].get(reader)
        return None if dm is None else dm.get("room")  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ holding

    def held(self, gid: str, reader: str) -> bool:
        hold = self.of(gid)["held"].get(reader)
        return hold is not None and hold["until"] > self.clock()

    def hold(self, gid: str, reader: str, why: str) -> None:
        """Hold the reader's posts with back-off, logged at the first failure and at
        each tenth."""
        held = self.of(gid)["held"]
        tries = int(held.get(reader, {}).get("tries", 0)) + 1
        held[reader] = {"until": self.clock() + backoff(tries), "tries": tries, "why": why}
        if tries == 1 or tries % 10 == 0:
            self.log(f"chat: {gid} {reader}: {why}; tried again in {backoff(tries):.0f} s "
                     f"(try {tries})")

    def release(self, gid: str, reader: str) -> None:
        self.of(gid)["held"].pop(reader, None)

    # ------------------------------------------------------------------ making rooms

    def key(self, game: Loaded, reader: str, user: str) -> str:
        """The key in the creation content of a room of the game for ``reader``."""
        text = f"{game.gf.game_id}|{reader}|{user}".encode()
        return hmac.new(game.key, b"referee-room|" + text, hashlib.sha256).hexdigest()[:32]

    def ensure(self, game: Loaded, reader: str, user: str | None, title: str, topic: str,
               invite: list[str]) -> str:
        """The room of ``reader`` (WATCHER: the table, ``invite`` its seats' users; else
        the seat's direct room with ``user``), made if it is not yet, and everyone it
        should hold invited. Raises Held (this reader waits) or MatrixError (the
        homeserver is down)."""
        gid = game.gf.game_id
        rows = self.of(gid)
        room = self.room_of(gid, reader)
        if reader != WATCHER and room is not None and rows["dms"][reader].get("user") != user:
            room = None  # a new seat holder: a new direct room
        if room is None:
            room = self._make(game, reader, user or "", title, topic)
        people = invite if reader == WATCHER else [user or ""]
        for person in people:
            self.invite(gid, reader, room, person)
        return room

    def _make(self, game: Loaded, reader: str, user: str, title: str, topic: str) -> str:
        gid = game.gf.game_id
        rows = self.of(gid)
        key = self.key(game, reader, user)
        room = None
        if rows["making"].get(reader) == key:  # asked for before a crash: find it again
            room = self._find(key)
        if room is None:
            rows["making"][reader] = key
            self.store.save()
            try:
                room = self.link.create_room(title, topic, direct=reader != WATCHER, key=key)
            except MatrixError as exc:
                if not exc.permanent:
                    raise
                self.hold(gid, reader, f"cannot make the room: {exc.message}")
                raise Held from exc
        rows = self.of(gid)  # (handed out again after the save: changed from here on)
        if reader == WATCHER:
            rows["room"] = room
        else:
            rows["dms"][reader] = {"user": user, "room": room}
        rows["members"][room] = {self.link.user_id: "join"}
        rows["making"].pop(reader, None)
        self.store.set_door_key(DOOR, room, gid, reader)
        self.store.save()
        return room

    def _find(self, key: str) -> str | None:
        for room in self.link.joined_rooms():
            if self.link.room_key(room) == key:
                return room
        return None

    def invite(self, gid: str, reader: str, room: str, user: str) -> None:
        """Invite ``user`` to ``room`` unless they are in it or invited. A failure for
        the seat of a direct room holds that room's posts; for one seat of the table,
        that seat alone is tried again later (the table's posts go on)."""
        rows = self.of(gid)
        members = rows["members"].setdefault(room, {})
        if not user or members.get(user) in ("join", "invite"):
            return
        wait = rows.setdefault("invites", {}).get(user)
        if wait is not None and wait["until"] > self.clock():
            if reader != WATCHER:
                raise Held
            return
        try:
            self.link.invite(room, user)
        except MatrixError as exc:
            if not exc.permanent and exc.status is None:
                raise  # the homeserver is down: nothing is this seat's fault
            tries = int((wait or {}).get("tries", 0)) + 1
            rows["invites"][user] = {"until": self.clock() + backoff(tries), "tries": tries}
            if tries == 1 or tries % 10 == 0:
                self.log(f"chat: {gid}: cannot invite {user[:100]}: {exc.message}; tried "
                         f"again in {backoff(tries):.0f} s (try {tries})")
            if reader != WATCHER:
                raise Held from exc
            return
        rows["invites"].pop(user, None)
        members[user] = "invite"

    # ------------------------------------------------------------------ people

    def members(self, gid: str, room: str) -> dict[str, str]:
        """Who is in ``room`` (joined or invited: user -> membership): asked of the
        homeserver the first time this judge process looks at the room, and from then
        on kept up by every membership event of its syncs (read before any message of
        the same sync: :func:`referee.doors.chat.incoming.take`). Nobody but the referee
        may invite to a room it made, so nobody can be in one without an event the
        judge reads."""
        rows = self.of(gid)
        if room not in self._asked:
            rows["members"][room] = dict(self.link.members(room))
            self._asked.add(room)
        return {u: m for u, m in rows["members"].get(room, {}).items()
                if m in ("join", "invite")}

    def seen(self, gid: str, room: str, user: str, membership: str) -> None:
        """A membership event of ``room``: kept."""
        rows = self.of(gid)
        rows["members"].setdefault(room, {})[user] = membership

    def intruders(self, game: Loaded, reader: str, room: str, user: str
                  ) -> tuple[list[str], bool]:
        """Who, besides the seat's ``user`` and the referee, is in ``reader``'s direct
        ``room`` now (a private post may go there only when nobody is), and whether
        they are to be told of (the first time these people are found there). Each is
        removed (best effort); the post waits for the next look all the same."""
        gid = game.gf.game_id
        others = self.others(gid, room, user)
        told = self.of(gid).setdefault("intruders", {})
        if not others:
            told.pop(room, None)
            return [], False
        for other in others:
            try:
                self.link.kick(room, other, "this room is one player's alone with the referee")
                self.of(gid)["members"][room][other] = "leave"
            except MatrixError as exc:
                self.log(f"chat: {gid} {reader}: cannot remove {other[:100]}: {exc.message}")
        if told.get(room) == others:
            return others, False
        told[room] = others
        self.log(f"chat: {gid} {reader}: {', '.join(o[:100] for o in others)} in the "
                 "direct room: removed; nothing private posted until they are gone")
        return others, True

    def others(self, gid: str, room: str, user: str) -> list[str]:
        """Who is in ``room`` besides ``user`` and the referee (:meth:`members`)."""
        return sorted(u for u in self.members(gid, room) if u not in (user, self.link.user_id))

    # ------------------------------------------------------------------ posts

    def posted(self, gid: str, room: str, event: str, at: int) -> None:
        """Remember the judge's post ``event`` in ``room``, made at play number ``at``:
        a player's reply to it is of its turn."""
        posts = self.of(gid)["posts"].setdefault(room, [])
        posts.append([event, at])
        del posts[:-POSTS_KEPT]

    def post_at(self, gid: str, room: str, event: str) -> int | None:
        """The play number the judge's post ``event`` in ``room`` was made at (None:
        not a recent post of the judge's)."""
        for posted, at in self.of(gid)["posts"].get(room, []):
            if posted == event:
                return int(at)
        return None
