"""One incoming mail authenticated: its game and seat found, then handed to the core.

The checks are :mod:`referee.mail.intake`'s, shared with `referee move --from-email`: a
mail counts only if it answers a referee Message-ID with a right MAC (which names the
game, the seat and the play number it was written at), and comes from one of the seat's
registered addresses with the seat's token. Such a mail becomes a
:class:`~referee.judge.door.Said` of that seat, said where the seat is alone with the
referee, answering that play number: the core (:mod:`referee.judge.handling`) does the
rest, freshness and "handled once" included (its Message-ID is in the log entry it
makes, its field ``mail``).

Auto-replies (Auto-Submitted, Precedence bulk/junk/list/auto_reply, X-Autoreply,
delivery reports) are dropped without an answer. A mail whose sender is not
authenticated (not the seat's registered address with its token, no referee mail
answered, a watcher's) is answered by :meth:`IncomingMail._answer_stranger` only: a fixed
subject and the referee's own words, quoting nothing of the mail, and only as often as
:meth:`referee.judge.store.Store.may_answer` allows (a forged From must not make the
judge mail anyone at will).
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from referee import i18n
from referee import mail as mailmod
from referee.i18n import domain
from referee.judge import handling, language, meta, text
from referee.judge.basics import Loaded
from referee.judge.door import MAIL_WORDS, Place, Said
from referee.judge.failures import describe
from referee.judge.outcome import Outcome
from referee.mail import intake, tokens
from referee.mail.intake import Refusal
from referee.mail.tokens import GM_TOKEN, MailError, MailId

if TYPE_CHECKING:
    from referee.judge.core import Judge
    from referee.judge.door import Door

_, N_, ngettext = domain("referee")

QUARANTINED = "quarantined"
FORGED = N_("Your mail answers a Message-ID this referee did not write (forged or edited), "
            "so nothing was done.")


class IncomingMail:
    """One raw mail for a judge: authenticated, then handed to the core."""

    def __init__(self, judge: Judge, door: Door, raw: bytes) -> None:
        self.judge, self.door, self.raw = judge, door, raw
        self.mail = intake.read(raw)
        self.reply = self.mail.reply
        self.msgid = self.mail.msgid

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
        """The mail handled; a door's own answer in English (to strangers), or in the
        language of the address it goes to."""
        with i18n.language(i18n.ENGLISH):
            return self._handle()

    def _handle(self) -> Outcome:
        store = self.judge.store
        if store.answered(self.msgid):
            return Outcome("duplicate", detail="already answered")
        if self.reply.automatic:
            return Outcome("ignored", detail="automatic reply")
        paths = self.judge.game_paths()
        forged = False
        for gid in dict.fromkeys(mid.game for mid in self.mail.answers):
            path = paths.get(gid)
            game = self.judge.load(path) if path else None
            if game is None:
                continue
            try:
                mid = intake.answered(self.mail, gid, game.key)
            except Refusal:
                forged = True
                continue
            return self._for_game(game, mid)
        linked = self._linked(paths)
        if linked is not None:
            return linked
        return self._unmatched(paths, forged)

    # ------------------------------------------------------------------ a one-click link

    def _linked(self, paths: dict[str, Path]) -> Outcome | None:
        """A mail made from a one-click link (referee/mail/tokens.py, "link tags"): its
        tag names the game, the seat and the play number under the game's MAC; with
        the seat's registered From address it is the seat's text, answering that play
        number (a link used after its turn is stale: the core refuses it). A link is
        answered once: the same link sent again is passed over. None: no tag of a game
        here."""
        tags = tokens.find_tags(self.reply.tags)
        if not tags:
            return None
        wanted = {tag.game_hash for tag in tags}
        for gid, path in paths.items():
            if tokens.game_hash(gid) not in wanted:
                continue
            game = self.judge.load(path)
            if game is None:
                continue
            for tag in tags:
                if tokens.check_tag(game.key, gid, tag) and tag.seat < len(game.gf.players):
                    return self._for_link(game, tag)
        return None

    def _for_link(self, game: Loaded, tag: tokens.LinkTag) -> Outcome:
        gid, player = game.gf.game_id, game.gf.players[tag.seat]
        used, told = f"link:{gid}:{tag.text}", f"link-told:{gid}:{tag.text}"
        if self.judge.store.answered(told):  # (a used or stale link is answered once)
            self.judge.store.mark_answered(self.msgid)
            self.judge.store.save()
            return Outcome("duplicate", gid, "a link used before")
        seat = self._seat(game, player)
        with i18n.language(game.settings.lang(player) if game.settings.accepts(
                player, self.reply.sender or "") else i18n.ENGLISH):
            try:
                intake.admit_link(self.mail, seat, game_id=gid, log=game.gf.log)
            except Refusal as exc:
                return self._refused(game, seat, exc)
        self.judge.store.mark_answered(told if self.judge.store.answered(used) else used)
        return handling.handle(self.judge, Said(
            self.door, self.msgid, "mail", game, player, self.reply, Place.SEAT, at=tag.n,
            sender=self.reply.sender or ""))

    # ------------------------------------------------------------------ no game

    def _unmatched(self, paths: dict[str, Path], forged: bool) -> Outcome:
        sender = self.reply.sender
        mine: list[tuple[Loaded, str]] = []
        for path in paths.values():
            game = self.judge.load(path)
            if game is None:
                continue
            mine += [(game, pid) for pid in game.settings.players_of(sender)] if sender else []
        for game, pid in mine:  # a lost In-Reply-To: the token still tells the game
            if mailmod.check_token(game.key, game.gf.game_id, game.settings.token_name(pid),
                                   self.reply.token):
                with i18n.language(game.settings.lang(pid)):
                    why = (_(FORGED) if forged else
                           _("Your mail did not answer a referee mail, so nothing was "
                             "played."))
                    return self._answer_seat(game, pid, [why, _(MAIL_WORDS.current)],
                                             "forged id" if forged else "no referee mail")
        if not sender:
            return Outcome("ignored", detail="no game and no sender address")
        with i18n.language(language.of_address(mine[0][0].settings, sender) if mine
                           else i18n.ENGLISH):
            unsent = self._answer_stranger(sender, "\n".join(self._no_game(mine, forged)))
        return Outcome("ignored" if unsent else "answered",
                       detail=("forged id" if forged else "no game") + unsent)

    @staticmethod
    def _no_game(mine: list[tuple[Loaded, str]], forged: bool) -> list[str]:
        lines = [_(FORGED) if forged else
                 _("Your mail does not answer a mail of this referee, so it matches no game."),
                 ""]
        if mine:
            lines.append(_("Your games here (reply to the latest mail of a game):"))
            lines += ["  " + _("{game}  {title}, as {player}").format(
                game=g.gf.game_id, title=g.match.game.title, player=pid) for g, pid in mine]
        else:
            lines.append(_("This address plays no game here."))
        return lines

    def _answer_seat(self, game: Loaded, player: str, note: list[str], detail: str
                     ) -> Outcome:
        """Answer a seat whose mail did not name its game (its token is right): the
        state, threaded under the mail."""
        to = game.settings.to(player)
        assert to is not None
        body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                         note=note)
        self._queue([self.judge.message(game, player, to, body, answers=self.msgid,
                                        board=True)])
        return Outcome("answered", game.gf.game_id, detail)

    def _answer_stranger(self, to: str, body: str) -> str:
        """Answer a sender who is not authenticated (:func:`referee.mail.stranger_answer`:
        a fixed subject and ``body``, the referee's own words, quoting nothing of the
        mail), unless the rate for such answers to ``to`` is spent
        (:meth:`referee.judge.store.Store.may_answer`: a forged From must not make the
        judge mail anyone often) or no mail can go to ``to``. "" when it was sent, else
        what the log line adds; the mail counts as answered either way."""
        store = self.judge.store
        now = self.judge.config.clock()
        try:
            answer = mailmod.stranger_answer(to, body, sender=self.judge.config.sender,
                                             msgid=self.msgid, date=now)
        except MailError:  # (the From was read as an address the writer refuses)
            answer, why = None, ", not answered (no mail can go to that address)"
        else:
            why = ", not answered (the rate of answers to unauthenticated senders is spent)"
        if answer is None or not store.may_answer(to, now.timestamp(), self._known(to)):
            store.mark_answered(self.msgid)
            store.save()
            return why
        self._queue([answer])
        return ""

    def _known(self, address: str) -> bool:
        """Whether ``address`` is registered in a game here: a seat's, the game
        master's or a watcher's."""
        lowered = address.lower()
        for path in self.judge.game_paths().values():
            game = self.judge.load(path)
            if game is None:
                continue
            found = game.settings
            if found.players_of(address) or (found.gm or "").lower() == lowered or \
                    lowered in (w.lower() for w in found.watchers):
                return True
        return False

    def _queue(self, messages: list[object]) -> None:
        """Queue the door's own answers (a mail, or the core's messages), mark the mail
        answered, save and deliver."""
        for message in messages:
            if isinstance(message, EmailMessage):
                self.door.queue(message)
            else:
                self.judge.queue(message)
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        self.judge.flush()

    # ------------------------------------------------------------------ a game

    def _seat(self, game: Loaded, player: str) -> intake.Seat:
        settings = game.settings
        if player == meta.GM:
            return intake.Seat(meta.GM, GM_TOKEN, (settings.gm,) if settings.gm else ())
        return intake.Seat(player, settings.token_name(player),
                           tuple(settings.emails.get(player, [])))

    def _for_game(self, game: Loaded, mid: MailId) -> Outcome:
        gid, player = game.gf.game_id, mid.player
        if player != meta.GM and player not in game.gf.players:
            if not self.reply.sender:
                return Outcome("ignored", gid, "watcher, no sender address")
            unsent = self._answer_stranger(self.reply.sender,
                                           "Watchers' mails are not read: only players move.")
            return Outcome("ignored" if unsent else "answered", gid, "watcher" + unsent)
        seat = self._seat(game, player)
        # the seat's language for an answer to its registered address; else English
        lang = game.settings.lang(player) if player != meta.GM and game.settings.accepts(
            player, self.reply.sender or "") else i18n.ENGLISH
        with i18n.language(lang):
            try:
                intake.admit(self.mail, mid, seat, key=game.key, game_id=gid,
                             log=game.gf.log, fresh=False)
            except Refusal as exc:
                return self._refused(game, seat, exc)
        return handling.handle(self.judge, Said(
            self.door, self.msgid, "mail", game, player, self.reply, Place.SEAT, at=mid.n,
            sender=self.reply.sender or ""))

    def _refused(self, game: Loaded, seat: intake.Seat, exc: Refusal) -> Outcome:
        """A mail of a game that does not count (a forgery, a forward, the wrong
        address): its sender is told why, as a stranger is; a mail played already is
        passed over."""
        gid = game.gf.game_id
        if exc.reason == "replayed":  # delivered or sent again: no second answer
            return Outcome("duplicate", gid, "replayed: already in the log")
        if not self.reply.sender:  # nobody to tell
            return Outcome("rejected", gid, f"{exc.reason}, no sender address")
        if seat.player == meta.GM:
            unsent = self._answer_stranger(self.reply.sender, "Not accepted: game "
                                           "master commands need the game master's "
                                           "address and token (reply to a game master "
                                           f"mail): {exc.public}.")
        else:
            unsent = self._answer_stranger(self.reply.sender, _(
                "Not accepted: {reason}. Nothing was done.").format(reason=exc.public))
        return Outcome("rejected", gid, exc.reason + unsent)


@dataclass
class Stats:
    processed: int = 0
    played: int = 0
    quarantined: int = 0

    def summary(self) -> str:
        """The log line of a pass: ``processed 1 mail, 1 played, 0 quarantined`` (a mail
        counts as played when any of its moves was)."""
        mails = "mail" if self.processed == 1 else "mails"
        return f"processed {self.processed} {mails}, {self.played} played, " \
               f"{self.quarantined} quarantined"


def process(judge: Judge, door: Door, raw: bytes, unread: str = "") -> Outcome:
    """Handle one incoming mail through the mail door ``door`` (deliver what is still
    queued first). A mail that cannot be read (``unread``: why its bytes were not read at
    all), or whose handling fails (a bug), is "quarantined" (logged by the caller);
    raises RetryLater (the disk) or DoorDown (the outgoing mail)."""
    if unread:
        return Outcome(QUARANTINED, detail=unread)
    door.flush()
    try:
        try:
            incoming = IncomingMail(judge, door, raw)
        except MailError as exc:
            return Outcome(QUARANTINED, detail=exc.message)
        outcome = incoming.handle()
    except Exception as exc:
        judge.failed(exc)  # re-raises a failure of the disk or of the outgoing mail
        return Outcome(QUARANTINED, detail=describe(exc))
    if outcome.action == "failed":  # (a bug in handling: quarantined, logged by the caller)
        return Outcome(QUARANTINED, outcome.game, outcome.detail)
    judge.config.log(f"{outcome.action}: {outcome.game or '-'} {outcome.detail}".rstrip())
    return outcome
