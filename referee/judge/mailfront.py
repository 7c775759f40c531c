"""The judge's mail door: each notice of the core as a mail, delivered through the outbox.

The core (:mod:`referee.judge.core`) decides who is told what (a
:class:`~referee.judge.door.Notice`); :class:`MailDoor` makes the mail of it: the fixed
subject with the seat's token, a fresh Message-ID with a MAC
(:mod:`referee.mail.tokens`), the thread under the reader's first mail (or under the mail
it answers), the HTML part with the picture of the board (:mod:`referee.judge.html`), the
notice to the reader's own channel too or instead (:mod:`referee.judge.notifications`),
and the queue in the judge's state, delivered through an outbox
(:mod:`referee.judge.transport`). :class:`MailJudge` is the judge served by mail (what
``referee judge`` runs); the dispatcher of incoming mail is
:mod:`referee.judge.incoming`. A second front door (chat) is a sibling of this module:
it implements :class:`referee.judge.door.Door` over the same core.
"""

from __future__ import annotations

import email.policy
from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses
from typing import TYPE_CHECKING

from referee import mail as mailmod
from referee.judge import html, meta, notifications
from referee.judge.basics import GM_TOKEN, WATCHER, Config, Loaded, plays
from referee.judge.core import Judge
from referee.judge.door import CHAT_PREFIXES, Door, Doors, Notice
from referee.ledger import gamefile
from referee.mail import mime, tokens
from referee.mail.delivery import DeliveryError, Refused

if TYPE_CHECKING:
    from referee.judge.store import Store
    from referee.judge.transport import Outbox


class MailDoor:
    """The mail door of one judge (:class:`referee.judge.door.Door`)."""

    def __init__(self, config: Config, outbox: Outbox) -> None:
        self.config = config
        self.outbox = outbox
        self._dropped: set[str] = set()  # mails left out: their notice went to a channel

    def attach(self, store: Store) -> None:
        """Use ``store``: at start, and after a reset (what was not saved forgotten)."""
        config = self.config
        self.store = store
        self.channels = notifications.Channels(store, notifications.Options(
            config.site_url, config.notify_private, config.sleep, config.log))
        self._dropped.clear()

    def token(self, game: Loaded, player: str) -> str:
        name = GM_TOKEN if player == meta.GM else game.settings.token_name(player)
        return mailmod.player_token(game.key, game.gf.game_id, name)

    def subject(self, game: Loaded, player: str) -> str:
        """The subject of every mail of the game to ``player``: fixed for the whole game."""
        base = f"[referee] {game.gf.game_id} {game.match.game.title}"
        if player == WATCHER:
            return base
        return f"{base} [#{self.token(game, player)}]"

    def prepare(self, game: Loaded, notice: Notice) -> mime.Mail:
        """The mail of ``notice``: fixed subject, a fresh MAC'd Message-ID, threaded
        under the reader's root (this mail is the root if there is none yet), or under
        ``notice.answers``. ``board``: an HTML part too, with the picture of the board as
        the reader sees it (when the pictures extra is there). ``notice``: posted to the
        player's channel too, or instead (referee/judge/notifications.py)."""
        player, to, answers, board = notice.player, notice.to, notice.answers, notice.board
        gid = game.gf.game_id
        state = self.store.game(gid)
        msgid = tokens.make_id(game.key, gid, player, plays(game.gf), self.store.next_counter(gid))
        thread = f"{player}|{to}"  # a new address (or person) starts a new thread
        root = state["roots"].get(thread)
        subject = self.subject(game, player)
        headers = [("From", self.config.sender), ("To", to), ("Subject", subject),
                   ("Date", format_datetime(self.config.clock())), ("Message-ID", msgid)]
        refs = [r for r in [root, *notice.references] if r]
        if answers:
            headers.append(("In-Reply-To", answers))
            refs.append(answers)
        elif root:
            headers.append(("In-Reply-To", root))
        if refs:
            headers.append(("References", " ".join(dict.fromkeys(refs))))
        mime.check(headers)  # (a bad value fails before the state changes)
        if root is None:
            state["roots"][thread] = msgid
        shown = "watcher" if player == WATCHER else player
        headers += [("Auto-Submitted", "auto-generated" if answers is None else "auto-replied"),
                    ("X-Referee-Game", gid), ("X-Referee-Player", shown),
                    ("X-Referee-Move", str(len(game.gf.log)))]
        footer = ["", "-- ", f"game: {gid}", f"player: {shown}"]
        if player in game.gf.players:  # a notice to the player's channel too (or instead)
            if notice.notice and self.channels.notice(game, player, first=root is None):
                self._dropped.add(msgid)  # (left out by queue: no board, no tiles seen)
                board = False
            footer[:0] = self.channels.error_note(game, player)
        plain = notice.body.rstrip("\n") + "\n" + "\n".join(footer) + "\n"
        content: mime.Leaf | mime.Multipart | None = None
        if board and not gamefile.missing_nonces(game.gf):
            viewer = player if player in game.gf.players else None
            content = html.board_body(
                plain, subject=subject, msgid=msgid, match=game.match, viewer=viewer,
                game_id=gid, moves=len(game.gf.log),
                cache=html.cache_for(self.config.games_dir),
                seen=state.setdefault("tiles", {}).setdefault(thread, {}),
                whole=answers is not None)
        return mime.Mail(headers, content or mime.text(plain, mime_version=True))

    def queue(self, message: object) -> None:
        """Keep ``message`` (a mail :meth:`prepare` made, or an answer of
        :mod:`referee.mail` to a stranger) in the judge's state to be delivered."""
        assert isinstance(message, mime.Mail | EmailMessage)
        if str(message["Message-ID"]) in self._dropped:  # told on the player's channel only
            self._dropped.discard(str(message["Message-ID"]))
            return
        recipients = [a for _, a in getaddresses(
            [str(v) for v in message.get_all("To", []) or []]) if a]
        raw = message.as_bytes() if isinstance(message, mime.Mail) else \
            message.as_bytes(policy=email.policy.default.clone(linesep="\n"))
        self.store.enqueue(str(message["Message-ID"]), recipients, raw)

    def flush(self) -> int:
        """Deliver every queued mail, each taken off the queue once delivered and named
        in the store's journal (the next save writes the queue without it)."""
        sent = 0
        queue = self.store.data["queue"]
        while queue:
            item = queue[0]
            try:
                notes = self.outbox.deliver(item["id"], item["to"], item["raw"].encode(
                    "utf-8", "surrogateescape"))
            except Refused as exc:  # for good: sending it again would not help
                if not exc.permanent:
                    raise DeliveryError(exc.message) from exc
                notes = [f"{exc.message} (dropped)"]
            self.store.sent()
            for note in notes or ():
                self.config.log(f"mail not delivered: {note}")
            sent += 1
        return sent

    def fatal(self, exc: Exception) -> bool:
        """A failure of the outgoing mail: the round stops, the mail is tried again."""
        return isinstance(exc, DeliveryError)


class MailJudge(Judge):
    """The judge served by mail: the core with a :class:`MailDoor` over ``outbox``
    (exported as :class:`referee.judge.Judge`), and beside it the chat door ``chat``
    when the judge also plays in chat (:class:`referee.judge.door.Doors` routes each
    notice to its reader's door)."""

    def __init__(self, config: Config, outbox: Outbox, chat: Door | None = None) -> None:
        self.mail_door = MailDoor(config, outbox)
        super().__init__(config, Doors(self.mail_door, chat, config.log))

    @property
    def outbox(self) -> Outbox:
        return self.mail_door.outbox

    @property
    def channels(self) -> notifications.Channels:
        """The players' own notification channels (referee/judge/notifications.py)."""
        return self.mail_door.channels

    def subject(self, game: Loaded, player: str) -> str:
        return self.mail_door.subject(game, player)

    def message(self, game: Loaded, player: str, to: str, body: str,
                answers: str | None = None, references: Sequence[str] = (), *,
                board: bool = False, notice: bool = False) -> object:
        """The mail of the game to ``player`` (:meth:`MailDoor.prepare`), or for a
        reader in chat the chat door's message (an answer to a mail of a seat that
        plays in chat goes there)."""
        notice_ = Notice(player, to, body, answers, tuple(references), board, notice)
        if to.startswith(CHAT_PREFIXES):
            return self.door.prepare(game, notice_)
        return self.mail_door.prepare(game, notice_)
