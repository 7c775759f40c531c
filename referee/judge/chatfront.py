"""The judge's chat door: each notice of the core as a post in Matrix (docs/chat.md).

The core (:mod:`referee.judge.core`) decides who is told what; :class:`MatrixDoor` posts
it. Each chat game has one invite-only room, named after the game, where the public
view goes after every change (the reader :data:`referee.judge.door.ROOM_TO`), and one
direct room with each player (the reader ``matrix:@user:server``) for everything only
they may read: their view with their hand, their legal moves, the answers to their
commands. The rooms are made when the first post of a game goes out, and a player is
invited again to a new direct room when their seat's Matrix id changes.

Posts wait in the judge's state (the ``matrix`` part of
:class:`referee.judge.store.Store`) until delivered, each under a transaction id made
from its own id, so a post sent again after a crash is one event
(:mod:`referee.matrix.link`); one is taken off the queue and the state saved as soon as
the homeserver has it. A picture of the board (the pictures extra) goes after the text
of a post that shows the board, drawn when the post is delivered and only if the game
has not moved since the post was made (a newer post carries the newer board).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.judge import text
from referee.judge.basics import WATCHER, Config, Loaded, plays
from referee.judge.door import ROOM_TO, Notice
from referee.ledger import gamefile, roster
from referee.matrix import events
from referee.matrix.link import MatrixError

if TYPE_CHECKING:
    from referee.judge.store import Store
    from referee.matrix.link import Link

_, N_, ngettext = i18n.domain("referee")

POSTED_KEPT = 32  # the judge's own posts remembered per room (what a reply may answer)
CHAT_HELP = [  # how to answer, in chat (the mail's REPLY_HELP says "reply to this mail")
    N_("Type your move here (or in the game's room): one line, as `supply 2`; several"),
    N_("moves as lines `move: ...`. Commands instead of a move: status, help, undo,"),
    N_("say TEXT. Hidden choices and plans only here, in your direct room."),
]


def state_of(store: Store) -> dict[str, Any]:
    """The chat door's part of the judge's state: the sync position, the rooms of each
    game, the posts not yet delivered, the judge's own recent posts per room."""
    found = store.data.setdefault("matrix", {})
    found.setdefault("since", None)
    found.setdefault("rooms", {})
    found.setdefault("queue", [])
    found.setdefault("posted", {})
    return found  # type: ignore[no-any-return]


def chat_words(body: str) -> str:
    """A text of :mod:`referee.judge.text` as chat says it: "Since your last message",
    and how to answer in chat rather than by mail."""
    lines = body.rstrip("\n").split("\n")
    reply = [_(line) for line in text.REPLY_HELP]
    if lines[-len(reply):] == reply:
        lines[-len(reply):] = [_(line) for line in CHAT_HELP]
    since = _("Since your last mail:")
    lines = [_("Since your last message:") if line == since else line for line in lines]
    return "\n".join(lines) + "\n"


class MatrixDoor:
    """The chat door of one judge (:class:`referee.judge.door.Door`) over ``link``."""

    def __init__(self, config: Config, link: Link) -> None:
        self.config, self.link = config, link

    def attach(self, store: Store) -> None:
        self.store = store
        self.state = state_of(store)

    # ------------------------------------------------------------------ rooms

    def rooms(self, gid: str) -> dict[str, Any]:
        """The game's rooms as kept: ``room`` (None until made) and ``dms`` (player ->
        {user, room})."""
        found = self.state["rooms"].setdefault(gid, {"room": None, "dms": {}})
        return found  # type: ignore[no-any-return]

    def game_of(self, room: str) -> tuple[str, str | None] | None:
        """(game id, None) for a game's room, (game id, player) for a player's direct
        room, or None for a room of no game here."""
        for gid, rooms in self.state["rooms"].items():
            if rooms.get("room") == room:
                return gid, None
            for pid, dm in rooms["dms"].items():
                if dm.get("room") == room:
                    return gid, pid
        return None

    def _room_for(self, item: dict[str, Any]) -> str:
        """The room ``item`` goes to, made (and its people invited) if it is not yet."""
        gid, rooms = item["game"], self.rooms(item["game"])
        if item["reader"] == WATCHER:
            if rooms["room"] is None:
                rooms["room"] = self.link.create_room(
                    item["title"], _("The game {game}: moves, board and whose turn it is. "
                                     "Your hand and hidden choices: your direct room with "
                                     "the referee.").format(game=gid),
                    list(dict.fromkeys(item["invite"])), direct=False)
                rooms["invited"] = list(dict.fromkeys(item["invite"]))
                self.store.save()
            else:
                self._invite_new(gid, rooms["room"], item["invite"])
            return str(rooms["room"])
        pid, user = item["reader"], item["user"]
        dm = rooms["dms"].get(pid)
        if dm is None or dm.get("user") != user:  # a new seat holder: a new direct room
            room = self.link.create_room(
                f"{item['title']}: {pid}", _("Only you and the referee read this room: your "
                                             "view of {game}.").format(game=gid),
                [user], direct=True)
            rooms["dms"][pid] = {"user": user, "room": room}
            self.store.save()
        return str(rooms["dms"][pid]["room"])

    def _invite_new(self, gid: str, room: str, users: list[str]) -> None:
        """Invite to the game's room the seats' users it has not had yet (a seat bound
        anew)."""
        rooms = self.rooms(gid)
        invited = rooms.setdefault("invited", [])
        for user in users:
            if user not in invited:
                self.link.invite(room, user)
                invited.append(user)
                self.store.save()

    # ------------------------------------------------------------------ posts

    def prepare(self, game: Loaded, notice: Notice) -> dict[str, Any]:
        """The post of ``notice``: to the game's room (``ROOM_TO``) or to the direct room
        of ``notice.player``; its id is fixed now (its transaction id)."""
        gid = game.gf.game_id
        counter = self.store.next_counter(gid)
        reader = WATCHER if notice.to == ROOM_TO else notice.player
        users = game.settings.matrix
        body = chat_words(notice.body)
        if reader == WATCHER and notice.answers is None:
            body = f"{game.match.game.title} · {gid}\n\n{body}"
        item: dict[str, Any] = {
            "id": f"{gid}.{counter}", "game": gid, "reader": reader,
            "title": f"{game.match.game.title} · {gid}", "body": body,
            "invite": [users[p] for p in game.gf.players if p in users],
            "log": len(game.gf.log), "plays": plays(game.gf), "path": game.path.name,
            "board": bool(notice.board and not gamefile.missing_nonces(game.gf))}
        if reader != WATCHER:
            item["user"] = notice.to[len(roster.MATRIX_TO):]
        elif notice.answers and events.valid_event(notice.answers):
            item["reply_to"] = notice.answers  # (a one-line answer in the game's room)
        return item

    def queue(self, message: object) -> None:
        assert isinstance(message, dict)
        self.state["queue"].append(message)
        self.store.unsaved = True

    def flush(self) -> int:
        """Post every queued message, in order; each taken off the queue (and the state
        saved) once the homeserver has it."""
        sent = 0
        queue = self.state["queue"]
        while queue:
            item = queue[0]
            room = self._room_for(item)
            txn = hashlib.sha256(f"{item['id']}|{room}".encode()).hexdigest()[:32]
            content = events.post(item["body"])
            if item.get("reply_to"):
                content["m.relates_to"] = {"m.in_reply_to": {"event_id": item["reply_to"]}}
            event = self.link.send(room, content, txn)
            self._posted(room, event, item["plays"])
            if item.get("board"):
                self._picture(room, item, txn)
            queue.pop(0)
            self.store.save()
            sent += 1
        return sent

    def _posted(self, room: str, event: str, at: int) -> None:
        """Remember the judge's post ``event`` in ``room``, made at play number ``at``:
        a player's reply to it is of its turn (referee/judge/chatincoming.py)."""
        posted = self.state["posted"].setdefault(room, [])
        posted.append([event, at])
        del posted[:-POSTED_KEPT]

    def _picture(self, room: str, item: dict[str, Any], txn: str) -> None:
        """The board as the reader sees it, after the text, when the pictures extra is
        there and the game is still where the post was made. A picture that cannot be
        drawn or uploaded is logged and left out: the text says everything."""
        from referee.judge.html import pictures_available

        if not pictures_available():
            return
        try:
            png = self._draw(Path(self.config.games_dir) / item["path"], item)
            if png is None:
                return
            url = self.link.upload(png, f"{item['game']}.png")
        except MatrixError as exc:
            self.config.log(f"picture of {item['game']} not posted: {exc.message}")
            return
        from referee.judge.html import png_size

        width, height = png_size(png)
        self.link.send(room, events.image(url, f"{item['game']}.png", len(png), width, height),
                       txn + "p")

    def _draw(self, path: Path, item: dict[str, Any]) -> bytes | None:
        from referee.errors import RefereeError
        from referee.ledger import replay, secret
        from referee.pictures import draw_svg, svg_to_png

        try:
            gf = gamefile.read(path)
            if len(gf.log) != item["log"]:
                return None  # moved on since: a newer post shows the newer board
            seed = secret.find_seed(gf, None, path)
            if seed is None:
                return None
            match = replay.replay(gf, seed)
            viewer = None if item["reader"] == WATCHER else item["reader"]
            return svg_to_png(draw_svg(dict(match.game.view(match.state, viewer))))
        except (RefereeError, OSError, ValueError) as exc:
            self.config.log(f"picture of {item['game']} not drawn: {exc}")
            return None

    def fatal(self, exc: Exception) -> bool:
        """The homeserver refused or is down: the round stops, the posts wait."""
        return isinstance(exc, MatrixError)
