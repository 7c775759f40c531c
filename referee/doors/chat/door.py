"""The chat door: each notice of the core as a post in Matrix; each message of a game's
rooms authenticated and handed to the core (docs/chat.md).

Each chat game has one invite-only room, its table, named after the game's file, where
the public view goes when the turn changes (the reader WATCHER, a notice to the table),
and one direct room with each seat (the reader ``matrix:@user:server``) for everything
only that seat may read: their view with their hand, their legal moves, the answers to
what they typed. The rooms are :mod:`referee.doors.chat.rooms`'s; what a message is,
:mod:`referee.doors.chat.incoming`'s.

Posts wait in the chat door's queue in the judge's state until delivered, each under a
transaction id made from its own id, so a post sent again after a crash is one event
(:mod:`referee.doors.chat.link`); each is taken off the queue as soon as the homeserver
has it. One failure stays one: a post the homeserver refuses for good (a 4xx other than
a rate limit) is dropped with one log line and a note to the game master; a reader whose
room cannot be made or who cannot be invited waits alone, with back-off; the homeserver
down stops the door's deliveries until the next pass (:class:`~referee.judge.door.
DoorDown`), never its reading. A picture of the board (the pictures extra) goes after the
text of a post that shows the board, uploaded once per board (the same board again is
the same ``mxc://``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

from referee import i18n
from referee.doors.chat import events
from referee.doors.chat.link import MatrixError
from referee.doors.chat.numbers import NUMBERED_MAX, numbered
from referee.doors.chat.rooms import DOOR, Held, Rooms
from referee.doors.chat.words import CHAT_WORDS
from referee.judge import meta
from referee.judge.basics import WATCHER, Config, Loaded, plays
from referee.judge.door import Door, DoorDown, Notice, Said, Taken
from referee.ledger import gamefile, roster

if TYPE_CHECKING:
    from referee.doors.chat.link import Link
    from referee.judge.core import Judge

_, N_, ngettext = i18n.domain("referee")

PICTURES_KEPT = 256  # boards whose uploaded picture is reused


class Post(TypedDict):
    """A post waiting in the chat door's queue (kept in the judge's state as JSON)."""

    id: str  # game id and counter: the post's transaction id is made from it
    game: str
    reader: str  # WATCHER (the table) or a seat (its direct room)
    title: str  # the game's title and file name: the rooms' names
    body: str
    invite: list[str]  # the seats' Matrix ids, invited to the table's room
    log: int  # the log's length when the post was made: its picture shows that board
    plays: int  # the play number a reply to the post answers
    path: str  # the game file's name
    board: bool  # a picture of the board follows the text
    user: NotRequired[str]  # a seat's post: its Matrix id
    reply_to: NotRequired[str]  # a one-line answer at the table: the event it answers


class MatrixDoor(Door):
    """The chat door of one judge over ``link`` (a login on the homeserver)."""

    name = "chat"
    words = CHAT_WORDS
    rate = (20, dt.timedelta(minutes=10))
    waits_in_take = True
    quiet = True
    numbers = NUMBERED_MAX

    def __init__(self, config: Config, link: Link) -> None:
        self.config, self.link = config, link
        self._where: dict[str, str] = {}  # event id -> its room, of the events being read

    def attach(self, judge: Judge) -> None:
        self.judge = judge
        self.store = judge.store
        self.rooms = Rooms(self.link, judge.store, self.config.log)
        self._migrate()
        link = self.link
        if not link.connected:
            kept = self.store.part("chat.login", {}, change=False)
            if link.password is not None and link.token is None:
                link.token = login_kept(kept, link.url, link.user_id)
            try:
                link.connect()
            except MatrixError as exc:
                raise DoorDown(exc.message) from exc
        self._keep_login()

    def _keep_login(self) -> None:
        """Keep the access token of a login with the password (the judge's state is the
        owner's only), so that the next pass of ``--once`` takes it instead of logging
        in again (:func:`login_kept`)."""
        link = self.link
        kept = self.store.part("chat.login", {}, change=False)
        if link.password is not None and kept.get("token") != link.token:
            self.store.set_part("chat.login", {"url": link.url, "user": link.user_id,
                                               "token": link.token})
            self.store.save()

    def reaches(self, to: str) -> bool:
        return roster.reached_by(to) == "matrix"

    def keeps_table(self, game: Loaded) -> bool:
        return bool(game.settings.matrix)

    # ------------------------------------------------------------------ posts

    def prepare(self, game: Loaded, notice: Notice) -> Post:
        """The post of ``notice``: to the game's table (``to`` None) or to the direct
        room of ``notice.player``; its id is fixed now (its transaction id)."""
        gid = game.gf.game_id
        counter = self.store.next_counter(gid)
        reader = WATCHER if notice.to is None else notice.player
        users = game.settings.matrix
        title = f"{game.match.game.title} · {game.path.stem}"
        body = notice.body
        if reader == WATCHER and notice.answers is None:
            body = f"{title}\n\n{body}"
        elif reader != WATCHER:
            listed = numbered(game, reader)
            if listed:  # (what a number typed in the direct room plays: kept)
                body = body.rstrip("\n") + "\n\n" + "\n".join(listed) + "\n"
                self.rooms.of(gid).setdefault("numbered", {})[reader] = plays(game.gf)
        item: Post = {
            "id": f"{gid}.{counter}", "game": gid, "reader": reader, "title": title,
            "body": body, "invite": [users[p] for p in game.gf.players if p in users],
            "log": len(game.gf.log), "plays": plays(game.gf), "path": game.path.name,
            "board": bool(notice.board and not gamefile.missing_nonces(game.gf))}
        if reader != WATCHER:
            item["user"] = notice.to[len(roster.MATRIX_TO):] if notice.to else ""
        elif notice.answers and events.valid_event(notice.answers):
            item["reply_to"] = notice.answers  # (a one-line answer at the table)
        return item

    def queue(self, message: object) -> None:
        assert isinstance(message, dict)
        self.store.enqueue(DOOR, message, message["game"])

    def flush(self) -> int:
        """Post every queued message in order, but those of a reader who waits (their
        room cannot be made, they cannot be invited, someone else is in their direct
        room): their posts keep their order and wait alone. A post refused for good is
        dropped (logged, the game master told). Raises DoorDown: the homeserver cannot
        be reached."""
        sent = 0
        waiting: set[tuple[str, str]] = set()
        try:
            for item in cast(list[Post], list(self.store.queue(DOOR))):
                who = (item["game"], item["reader"])
                if who in waiting or self.rooms.held(*who):
                    waiting.add(who)
                    continue
                try:
                    sent += self._post(item)
                except Held:
                    waiting.add(who)
        except MatrixError as exc:
            raise DoorDown(exc.message) from exc
        finally:
            self.store.save()
        return sent

    def _post(self, item: Post) -> int:
        """Post ``item`` (Held: it waits; MatrixError: the homeserver is down)."""
        gid, reader = item["game"], item["reader"]
        game = self._game(item)
        if game is None:  # the game is gone or unreadable: nothing to post about
            self.store.dequeue(DOOR, item)
            return 0
        room = self._room(game, item)
        if reader != WATCHER:
            self._private(game, item, room)
        txn = hashlib.sha256(f"{item['id']}|{room}".encode()).hexdigest()[:32]
        content = events.post(item["body"])
        if item.get("reply_to"):
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": item["reply_to"]}}
        try:
            event = self.link.send(room, content, txn)
        except MatrixError as exc:
            if not exc.permanent:
                raise
            self._dropped(game, item, exc)
            return 0
        self.rooms.release(gid, reader)
        if game.match.game.finished(game.match.state):
            self.rooms.of(gid)["posts"] = {}  # (no reply to a post can play now)
        else:
            self.rooms.posted(gid, room, event, item["plays"])
        if item.get("board"):
            self._picture(game, room, item, txn)
        self.store.dequeue(DOOR, item)
        return 1

    def _room(self, game: Loaded, item: Post) -> str:
        reader = item["reader"]
        if reader == WATCHER:
            topic = _("The game {game}: moves, board and whose turn it is. Your hand and "
                      "hidden choices: your direct room with the referee.").format(
                          game=game.path.stem)
            return self.rooms.ensure(game, WATCHER, None, item["title"], topic,
                                     list(dict.fromkeys(item["invite"])))
        user = item.get("user") or game.settings.matrix.get(reader, "")
        topic = _("Only you and the referee read this room: your view of {game}.").format(
            game=game.path.stem)
        return self.rooms.ensure(game, reader, user, f"{item['title']}: {reader}", topic,
                                 [user])

    def _private(self, game: Loaded, item: Post, room: str) -> None:
        """Hold a private post while anyone but the seat and the referee is in its
        room; the seat and the game master told once."""
        reader, user = item["reader"], item.get("user", "")
        others, tell = self.rooms.intruders(game, reader, room, user)
        if tell:
            names = ", ".join(o[:100] for o in others)
            with i18n.language(game.settings.lang(reader)):
                note = _("Someone besides you and the referee was in this room ({people}): "
                         "they were removed, and nothing private is posted here while "
                         "anyone else is in it.").format(people=names)
            txn = hashlib.sha256(f"{item['id']}|{room}|intruders|{names}".encode()
                                 ).hexdigest()[:32]
            self.link.send(room, events.post(note), txn)
            self._tell_gm(game, f"{game.gf.game_id}: {names} got into {reader}'s direct "
                                f"room with the referee; they were removed, and {reader}'s "
                                "private posts waited until the room was theirs alone.")
        if others:
            raise Held

    def _dropped(self, game: Loaded, item: Post, exc: MatrixError) -> None:
        """A post the homeserver refused for good: off the queue, one log line, the
        game master told."""
        self.store.dequeue(DOOR, item)
        self.config.log(f"chat: {item['game']} {item['reader']}: a post was refused for "
                        f"good and dropped: {exc.message[:200]}")
        self._tell_gm(game, f"{item['game']}: a post to {item['reader']} was refused by the "
                            f"homeserver and dropped: {exc.message[:200]}")

    def _tell_gm(self, game: Loaded, line: str) -> None:
        to = game.settings.gm
        if to is None or self.reaches(to):
            return
        with i18n.language(i18n.ENGLISH):
            self.judge.queue(self.judge.message(game, meta.GM, to, line + "\n"))

    def _game(self, item: Post) -> Loaded | None:
        path = self.judge.game_paths().get(item["game"])
        return self.judge.load(path) if path is not None else None

    # ------------------------------------------------------------------ pictures

    def _picture(self, game: Loaded, room: str, item: Post, txn: str) -> None:
        """The board as the reader sees it, after the text, when the pictures extra is
        there and the game is still where the post was made; each board uploaded once.
        A picture that cannot be drawn or uploaded is logged and left out: the text
        says everything."""
        from referee.pictures import available

        if not available() or len(game.gf.log) != item["log"]:
            return  # (moved on since: a newer post shows the newer board)
        png = self._draw(game, item)
        if png is None:
            return
        from referee.pictures import png_size

        digest = hashlib.sha256(png).hexdigest()[:32]
        kept = self.store.part("chat.pictures", {})
        url = kept.get(digest)
        try:
            if url is None:
                url = self.link.upload(png, f"{item['game']}.png")
                kept[digest] = url
                for old in list(kept)[:max(0, len(kept) - PICTURES_KEPT)]:
                    del kept[old]
            width, height = png_size(png)
            self.link.send(room, events.image(url, f"{item['game']}.png", len(png), width,
                                              height), txn + "p")
        except MatrixError as exc:
            if not exc.permanent:
                raise
            self.config.log(f"picture of {item['game']} not posted: {exc.message}")

    def _draw(self, game: Loaded, item: Post) -> bytes | None:
        from referee.errors import RefereeError
        from referee.pictures import draw_svg, svg_to_png

        viewer = None if item["reader"] == WATCHER else item["reader"]
        match = game.match
        try:
            return svg_to_png(draw_svg(dict(match.game.view(match.state, viewer))))
        except (RefereeError, OSError, ValueError) as exc:
            self.config.log(f"picture of {item['game']} not drawn: {exc}")
            return None

    # ------------------------------------------------------------------ reading

    def take(self, wait: float = 0.0) -> Taken:
        """One sync of the judge's account (waiting up to ``wait`` seconds for an
        event), each event read once (:mod:`referee.doors.chat.incoming`); the sync
        position saved only after every event was handled. Raises DoorDown."""
        from referee.doors.chat.incoming import take

        try:
            return take(self, wait)
        except MatrixError as exc:
            raise DoorDown(exc.message) from exc

    def withdraw(self, said: Said, why: str) -> None:
        """Remove ``said`` from the game's room, where the judge may (best effort: the
        others may have read it already; a bridge may have copied it)."""
        room = self._where.get(said.ref)
        if room is None:
            return
        try:
            self.link.redact(room, said.ref, why, f"redact-{said.ref}"[:64])
        except MatrixError as exc:
            self.config.log(f"could not remove {said.ref[:100]}: {exc.message}")

    def wait(self, seconds: float) -> None:
        import time

        time.sleep(min(seconds, 30.0))

    def summary(self, taken: Taken) -> str:
        return f"read {taken.read} chat {'message' if taken.read == 1 else 'messages'}, " \
               f"{taken.played} played"

    def close(self) -> None:
        self.link.close()

    # ------------------------------------------------------------------ the old state

    def _migrate(self) -> None:
        """The chat state a judge before SQLite kept (one part of its JSON state), as the
        door's rows: once."""
        old = self.store.part("legacy.matrix", None, change=False)
        if not old:
            return
        for gid, rows in (old.get("rooms") or {}).items():
            mine = self.rooms.of(gid)
            if rows.get("room"):
                mine["room"] = rows["room"]
                self.store.set_door_key(DOOR, rows["room"], gid, WATCHER)
            for pid, dm in (rows.get("dms") or {}).items():
                mine["dms"][pid] = dm
                if dm.get("room"):
                    self.store.set_door_key(DOOR, dm["room"], gid, pid)
        for item in old.get("queue") or []:
            self.store.enqueue(DOOR, item, item.get("game"))
        self.store.part("chat", {})["since"] = old.get("since")
        self.store.set_part("legacy.matrix", {})
        self.store.save()


def login_kept(kept: dict[str, Any], url: str, user: str) -> str | None:
    """The access token a judge kept (``chat.login`` of its state) for ``user`` on
    ``url``, or None."""
    if kept.get("url") == url and kept.get("user") == user:
        token = kept.get("token")
        return token if isinstance(token, str) else None
    return None
