"""The mail door: each notice of the core as a mail, delivered through the outbox; each
mail of the inbox authenticated and handed to the core.

The core (:mod:`referee.judge.core`) decides who is told what (a
:class:`~referee.judge.door.Notice`); :class:`MailDoor` makes the mail of it: the fixed
subject with the seat's token, a fresh Message-ID with a MAC
(:mod:`referee.mail.tokens`), the thread under the reader's first mail (or under the mail
it answers), the HTML part with the picture of the board
(:mod:`referee.doors.mail.html`), the notice to the reader's own channel too or instead
(:mod:`referee.doors.mail.channels`), and the queue in the judge's state, delivered
through an outbox (:mod:`referee.doors.mail.transport`). What comes in is
:mod:`referee.doors.mail.incoming`'s.
"""

from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses
from typing import TYPE_CHECKING

from referee import mail as mailmod
from referee.doors.mail import channels as notifications
from referee.doors.mail import html, links
from referee.judge import meta
from referee.judge.basics import WATCHER, Config, Loaded, plays
from referee.judge.core import Judge
from referee.judge.door import MAIL_WORDS, Door, DoorDown, Notice, Taken
from referee.judge.text import more_moves
from referee.ledger import gamefile, roster
from referee.mail import mime, tokens
from referee.mail.delivery import DeliveryError, Refused
from referee.mail.tokens import GM_TOKEN

if TYPE_CHECKING:
    from referee.doors.mail.transport import Inbox, Outbox


class MailDoor(Door):
    """The mail door of one judge: mail out through ``outbox``, in from ``inbox`` (none:
    a judge that only sends, or reads one mail on standard input, :func:`process`)."""

    name = "mail"
    words = MAIL_WORDS

    def __init__(self, config: Config, outbox: Outbox, inbox: Inbox | None = None,
                 links: str = "plus") -> None:
        self.config = config
        self.outbox = outbox
        self.inbox = inbox
        self.links = links  # where a one-click link's tag goes (referee/doors/mail/links.py)
        self._dropped: set[str] = set()  # mails left out: their notice went to a channel

    def attach(self, judge: Judge) -> None:
        """Serve ``judge``: at start, and after a reset (what was not saved forgotten)."""
        config = self.config
        self.judge = judge
        self.store = judge.store
        self.channels = notifications.Channels(judge.store, notifications.Options(
            config.site_url, config.notify_private, config.sleep, config.log))
        self._dropped.clear()

    def reaches(self, to: str) -> bool:
        return roster.reached_by(to) == "mail"

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
        player's channel too, or instead (referee/doors/mail/channels.py)."""
        player, answers, board = notice.player, notice.answers, notice.board
        to = notice.to or ""
        gid = game.gf.game_id
        state = self.store.door_game(self.name, gid)
        state.setdefault("roots", {})
        msgid = tokens.make_id(game.key, gid, player, plays(game.gf), self.store.next_counter(gid))
        thread = f"{player}|{to}"  # a new address (or person) starts a new thread
        root = state["roots"].get(thread)
        subject = self.subject(game, player)
        headers = [("From", self.config.sender), ("To", to), ("Subject", subject),
                   ("Date", format_datetime(self.config.clock())), ("Message-ID", msgid)]
        refs = [r for r in [root] if r]
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
        made, more = links.links(game, player, self.config.sender, self.links)
        block = links.plain_lines(made, more)
        text = notice.body.rstrip("\n") + "\n"  # (the HTML part: the links as buttons)
        plain = text + ("\n" + "\n".join(block) if block else "") + "\n".join(footer) + "\n"
        content: mime.Leaf | mime.Multipart | None = None
        if board and not gamefile.missing_nonces(game.gf):
            viewer = player if player in game.gf.players else None
            content = html.board_body(
                plain, subject=subject, msgid=msgid, match=game.match, viewer=viewer,
                game_id=gid, moves=len(game.gf.log),
                cache=html.cache_for(self.config.games_dir),
                seen=state.setdefault("tiles", {}).setdefault(thread, {}),
                whole=answers is not None, links=made,
                links_more=more_moves(more) if more else "",
                shown=text + "\n".join(footer) + "\n")
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
        self.store.enqueue(self.name, {"id": str(message["Message-ID"]), "to": recipients,
                                       "raw": raw.decode("utf-8", "surrogateescape")},
                           str(message["X-Referee-Game"] or "") or None)

    def flush(self) -> int:
        """Deliver every queued mail, each taken off the queue once delivered. A recipient
        refused for good is dropped with a log line; the outgoing server down or
        refusing for now raises DoorDown (the queue waits)."""
        sent = 0
        queue = self.store.queue(self.name)
        while queue:
            item = queue[0]
            try:
                notes = self.outbox.deliver(item["id"], item["to"], item["raw"].encode(
                    "utf-8", "surrogateescape"))
            except Refused as exc:  # for good: sending it again would not help
                if not exc.permanent:
                    raise DoorDown(exc.message) from exc
                notes = [f"{exc.message} (dropped)"]
            except DeliveryError as exc:
                raise DoorDown(exc.message) from exc
            self.store.dequeue(self.name, item)
            for note in notes or ():
                self.config.log(f"mail not delivered: {note}")
            sent += 1
        return sent

    # ------------------------------------------------------------------ incoming

    def take(self, wait: float = 0.0) -> Taken:
        """Every pending mail of the inbox, handled and marked done (or quarantined)
        only after its answers are queued and delivered. A failure of the outgoing
        mail raises DoorDown and leaves the mail in the inbox, to be tried again."""
        from referee.doors.mail.incoming import QUARANTINED, process
        from referee.judge.failures import RetryLater

        taken = Taken()
        if self.inbox is None:
            return taken
        for item in self.inbox.pending():
            try:
                outcome = process(self.judge, self, item.raw, unread=item.unread)
                self.flush()
            except DoorDown:  # the mail stays in the inbox, its answers queued
                self.outbox.close()  # (a connection to the SMTP server made anew)
                raise
            try:
                if outcome.action == QUARANTINED:
                    where = self.inbox.quarantine(item)
                    self.config.log(f"{QUARANTINED}: mail {item.key}: {outcome.detail} "
                                    f"({where})")
                    taken.lines.append(QUARANTINED)
                else:
                    self.inbox.done(item)
            except OSError as exc:  # a Maildir on a full or read-only disk
                raise RetryLater(f"cannot move the mail {item.key} in the inbox: "
                                 f"{exc.strerror or exc}; it stays for the next run") from exc
            taken.read += 1
            taken.played += outcome.action == "played"
        return taken

    def wait(self, seconds: float) -> None:
        if self.inbox is not None:
            self.inbox.wait(seconds)
        else:
            super().wait(seconds)

    def summary(self, taken: Taken) -> str:
        from referee.doors.mail.incoming import QUARANTINED, Stats

        return Stats(taken.read, taken.played, taken.lines.count(QUARANTINED)).summary()

    def down_line(self, message: str) -> str:
        return f"mail delivery failed, will retry: {message}"

    def close(self) -> None:
        if self.inbox is not None:
            self.inbox.close()
        self.outbox.close()





class MailJudge(Judge):
    """A judge whose doors are mail (through ``outbox``, reading ``inbox``) and
    ``others``: what `referee judge` makes with the mail options."""

    def __init__(self, config: Config, outbox: Outbox, *others: Door,
                 inbox: Inbox | None = None) -> None:
        super().__init__(config, [MailDoor(config, outbox, inbox), *others])


mail_judge = MailJudge
