"""One event of a chat room: find its game and seat, act on it, answer it (docs/chat.md).

The sender is the Matrix id the homeserver vouches for; it counts only for a seat bound
to that id in the game whose room (or whose player's direct room) the event is in. In
the game's room a message is read only when it reads as a move or a command (the room
is also the table's chat: other lines are passed over without an answer); in a
player's direct room every message is for the referee. Never played: an edit
(``m.replace``), a redaction, a reply to a post of an earlier turn, a message of anyone
but the seat, a hidden choice or a plan typed in the game's room (refused without being
repeated, and removed from the room where the judge may remove it). Each event is
handled once: its id is kept with the answered ids of the judge's state, and a move's
log entry carries it (``matrix``), so a move sent again after a crash is refused as
already played. Answers go to the player's direct room; a message of the game's room
that was not played gets a one-line answer there too, which repeats nothing of it.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from referee import engine, i18n
from referee.errors import MalformedMove, MoveError, RefereeError
from referee.judge import language, mailcommands, meta, text
from referee.judge.basics import WATCHER, Loaded, plays
from referee.judge.door import ROOM_TO, Notice
from referee.judge.failures import environment_failure
from referee.judge.outcome import Outcome
from referee.ledger import gamefile, roster
from referee.mail import intake, replies
from referee.play import reading
from referee.play.reply import play_message
from referee.play.submit import BotMove, Submission

if TYPE_CHECKING:
    from referee.judge.chatfront import MatrixDoor
    from referee.judge.core import Judge
    from referee.matrix.events import Said

_, N_, ngettext = i18n.domain("referee")

COMMANDS = ("status", "help", "undo", "say")
# a player's own settings and hidden entropy: the direct room only
PRIVATE_WORDS = ("plan", "nonce", "notify", "bot", "vacation", "rematch", *language.WORDS)
RATE = 20  # events read per sender per RATE_WINDOW (the rest: passed over, logged)
RATE_WINDOW = dt.timedelta(minutes=10)
HELP = [
    N_("How to play in chat: type your move as a message, in the game's room or here"),
    N_("(`supply 2`; several moves as lines `move: ...`). Edits and replies to an old"),
    N_("turn are not played. Commands: status, help, undo (your last move, if it"),
    N_("revealed nothing), say TEXT (to every player). Hidden choices only here, and"),
    N_("in this direct room only: plan (then one line each), nonce WORDS,"),
    N_("notify turn|every|digest, bot LEVEL | bot off, vacation DAYS, rematch, lang de|en."),
]


def reply_of(said: Said) -> replies.Reply:
    """A chat message read as a mail's own lines are (the same forgiving reading: a
    trailing period, a chat line before the move, ``move:`` lines)."""
    own = [line.strip() for line in said.text.replace("\r", "\n").split("\n")]
    moves, lines, origins = reading.read_lines(own)
    return replies.Reply(sender=said.sender, game_id=None, player=None, token=None,
                         moves=moves, in_reply_to=None, message_id=said.event_id,
                         own=tuple(own), lines=lines, origins=origins)


def reads_as_move(game: Any, state: Any, player: str, line: str) -> bool:
    """Whether ``line`` reads as a move in the game's notation (legal or not, the
    player's turn or not): "cannot read" is the only no."""
    legal = game.legal_moves(state, player) if player in game.to_move(state) else []
    try:
        game.parse_move(line, legal)
    except MalformedMove:
        return False
    except MoveError:
        return True
    return True


def hidden(match: Any, player: str, moves: list[str]) -> bool:
    """Whether a line of ``moves`` is a hidden choice of ``player`` now: a move with a
    field only its author may see (``engine.private_fields``)."""
    for line in moves:
        try:
            move = engine.resolve_move(match.game, match.state, player, line)
        except MoveError:
            continue
        if engine.private_fields(match.game, move):
            return True
    return False


class ChatIncoming:
    """Handles one event (:class:`referee.matrix.events.Said`) for a judge."""

    def __init__(self, judge: Judge, door: MatrixDoor, said: Said) -> None:
        self.judge, self.door, self.said = judge, door, said
        self.msgid = said.event_id
        self.in_room = False  # the game's room (True) or the player's direct room
        self.reply = reply_of(said)

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
        with i18n.language(i18n.ENGLISH):
            return self._handle()

    def _handle(self) -> Outcome:
        said, store = self.said, self.judge.store
        if store.answered(said.event_id):
            return Outcome("duplicate", detail="already handled")
        if said.sender == self.door.link.user_id:
            return Outcome("ignored", detail="the judge's own")
        where = self.door.game_of(said.room)
        game = self._game(where[0]) if where else None
        if where is None or game is None:
            return self._done(Outcome("ignored", detail="a room of no game here"))
        gid, owner = where
        seats = game.settings.matrix_of(said.sender)
        player = owner if owner in seats else None if owner else (seats[0] if seats else None)
        if player is None:
            return self._done(Outcome("ignored", gid, f"not a seat here: {said.sender}"))
        self.in_room = owner is None
        if not self._within_rate(said.sender):
            return self._done(Outcome("ignored", gid, "rate spent"))
        with i18n.language(game.settings.lang(player)):
            return self._for_seat(game, player)

    def _game(self, gid: str) -> Loaded | None:
        path = self.judge.game_paths().get(gid)
        return self.judge.load(path) if path else None

    def _done(self, outcome: Outcome) -> Outcome:
        """Mark the event handled (the state saved): never looked at again."""
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        return outcome

    def _within_rate(self, sender: str) -> bool:
        """Count the event against its sender's rate (the judge's state)."""
        now = self.judge.config.clock()
        rates = self.door.state.setdefault("rate", {})
        times = [t for t in rates.get(sender, [])
                 if now - dt.datetime.fromisoformat(t) < RATE_WINDOW]
        if len(times) >= RATE:
            rates[sender] = times
            return False
        rates[sender] = [*times, now.isoformat()]
        if len(rates) > 1000:  # (senders of long ago forgotten)
            for old in sorted(rates, key=lambda s: rates[s][-1])[:len(rates) - 1000]:
                del rates[old]
        return True

    # ------------------------------------------------------------------ a seat

    def _for_seat(self, game: Loaded, player: str) -> Outcome:
        said, gid = self.said, game.gf.game_id
        if said.kind == "redaction":
            return self._done(Outcome("ignored", gid, "redaction: takes nothing back"))
        if said.kind in ("edit", "too_long"):
            if self.in_room and said.kind == "too_long":
                return self._done(Outcome("ignored", gid, "long chat"))
            why = _("An edited message is not played: type your move again as a new "
                    "message.") if said.kind == "edit" else _(
                "Your message is too long to read: nothing was done.")
            return self.answer_state(game, player, [why], "rejected", said.kind)
        reply = self.reply
        taken = reading.take_line(reply, (*COMMANDS, *PRIVATE_WORDS, reading.PLAN_WORD),
                                 game.match.game, game.match.state, player)
        line = taken.line if taken else ""
        word = line.split()[0].lower() if line.split() else ""
        for_referee = word in (*COMMANDS, *PRIVATE_WORDS) or (
            bool(line) and reads_as_move(game.match.game, game.match.state, player, line))
        if self.in_room and not for_referee:
            return self._done(Outcome("ignored", gid, "chat"))
        if said.kind == "reply" and not self._answers_latest(game):
            return self.answer_state(game, player, [_(
                "This answers a post of an earlier turn, so nothing was played: type your "
                "move as a new message.")], "rejected", "old reply")
        if taken is not None and taken.index:
            reply = self.reply = reading.from_taken(reply, taken)
        if not reply.moves:
            return self.answer_state(game, player, [_("No move found in your message.")],
                                     "rejected", "no move")
        if word in PRIVATE_WORDS or word == reading.PLAN_WORD:
            return self._private_word(game, player, word)
        if len(reply.moves) == 1 and word in COMMANDS:
            return self._command(game, player, word, reply)
        if self.in_room and hidden(game.match, player, list(reply.moves)):
            self._remove()
            return self.answer_state(game, player, [_(
                "That is a hidden choice: type it in your direct room with the referee, "
                "never in the game's room. It was not played.")], "rejected", "hidden in room")
        return self._moves(game, player, list(reply.moves))

    def _answers_latest(self, game: Loaded) -> bool:
        """Whether the event replies to a post of the judge in this room made at the
        game's current play number (a reply to anything older is of an earlier turn)."""
        posted = self.door.state["posted"].get(self.said.room, [])
        return any(event == self.said.replies_to and at == plays(game.gf)
                   for event, at in posted)

    def _remove(self) -> None:
        """Take the event out of the game's room, where the judge may (best effort:
        the others may have read it already; a bridge may have copied it)."""
        from referee.matrix.link import MatrixError

        try:
            self.door.link.redact(self.said.room, self.said.event_id,
                                  "a hidden choice belongs in the direct room",
                                  f"redact-{self.said.event_id}"[:64])
        except MatrixError as exc:
            self.judge.config.log(f"could not remove {self.said.event_id}: {exc.message}")

    def _private_word(self, game: Loaded, player: str, word: str) -> Outcome:
        if self.in_room:
            return self.answer_state(game, player, [_(
                "`{command}` is for your direct room with the referee, never the game's "
                "room: nothing was done.").format(command=word)], "rejected", "private")
        return self._setting(game, player, word)

    def _setting(self, game: Loaded, player: str, word: str) -> Outcome:
        """A player's own setting in their direct room, through the handlers the mail
        door uses (referee/judge/mailcommands.py, language.py)."""
        from referee.judge.gmlines import bot_level

        rest = self.reply.moves[0].split(None, 1)[1:] if self.reply.moves else []
        arg = rest[0].strip() if rest else ""
        if word == reading.PLAN_WORD:
            return mailcommands.plan(self, game, player, reading.plan_lines(self.reply) or [],
                                     None)
        if word in language.WORDS:
            return language.command(self, game, player, word, arg, self.guard)
        if word == "rematch":
            return mailcommands.rematch(self, game, player, self.guard)
        if word == "notify" and arg.lower().split()[:1] == ["via"]:
            return mailcommands.notify_via(self, game, player, arg)
        try:
            if word == "nonce":
                mailcommands.add_nonce(game.path, player, arg, self.guard)
            elif word == "vacation":
                return mailcommands.vacation(self, game, player, arg, self.guard)
            elif word == "bot":
                meta.append(game.path, player, {"kind": "bot", "player": player,
                                                **bot_level(arg)},
                            extra=self.extra, guard=self.guard)
            else:
                meta.append(game.path, player,
                            {"kind": "notify", "player": player, "mode": arg.lower()},
                            extra=self.extra, guard=self.guard)
        except RefereeError as exc:
            return self.not_done(game, player, word, exc)
        self.judge.notify(game.path)
        fresh = self.judge.load(game.path) or game
        if word == "bot":
            done = _("Done: a bot plays your seat.") if bot_level(arg)["level"] else \
                _("Done: you play your seat again.")
        else:
            done = _("Done: your nonce step is taken.") if word == "nonce" else \
                _("Your notification setting is now {mode}.").format(mode=arg)
        return self.answer_state(fresh, player, [done], "command", word)

    # ------------------------------------------------------------------ Request

    @property
    def extra(self) -> dict[str, str]:
        """The field of a log entry this event made (docs/chat.md)."""
        return {"matrix": self.msgid}

    def still_fresh(self, mid: object) -> Any:
        """The write core's guard (a chat message answers no post: only "not played
        yet" is checked)."""
        return self.guard

    def read_note(self) -> list[str]:
        return []

    def queue(self, messages: Any) -> None:
        for message in messages:
            self.judge.queue(message)
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        self.judge.flush()

    # ------------------------------------------------------------------ answers

    def answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                     detail: str = "") -> Outcome:
        """Answer ``player`` in their direct room with the state after ``note``; for a
        message of the game's room, one line there too (repeating nothing of it)."""
        to = roster.MATRIX_TO + game.settings.matrix[player]
        body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                         note=note)
        self.judge.queue(self.judge.message(game, player, to, body, answers=self.msgid,
                                            board=True))
        if self.in_room:
            with i18n.language(i18n.ENGLISH):
                line = _("{player}: answered in your direct room with the referee.").format(
                    player=player)
            self.door.queue(self.door.prepare(game, Notice(WATCHER, ROOM_TO, line,
                                                           answers=self.msgid)))
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        self.judge.flush()
        return Outcome(action, game.gf.game_id, detail)

    def not_done(self, game: Loaded, player: str, command: str, exc: RefereeError
                 ) -> Outcome:
        if environment_failure(exc):
            raise exc
        return self.answer_state(game, player, [_("`{command}` not done: {reason}").format(
            command=command, reason=exc.message)], "rejected", exc.message)

    def guard(self, gf: gamefile.GameFile) -> None:
        """Inside the game file's lock: the event is not in the log yet."""
        for entry in gf.log:
            if entry.get("matrix") == self.msgid:
                raise intake.Refusal("replayed", _("this message was already played "
                                                   "(log entry {n})").format(n=entry["n"]))

    # ------------------------------------------------------------------ commands

    def _command(self, game: Loaded, player: str, word: str, reply: replies.Reply
                 ) -> Outcome:
        if word == "status":
            return self.answer_state(game, player, [_("The current state, as you asked.")],
                                     "command", "status")
        if word == "help":
            return self.answer_state(game, player, [_(line) for line in HELP], "command",
                                     "help")
        if word == "say":
            return self._say(game, player, reply)
        from referee.play.submit import undo

        try:
            undo(game.path, player, extra={"matrix": self.msgid}, guard=self.guard)
        except RefereeError as exc:
            return self.not_done(game, player, "undo", exc)
        self.judge.notify(game.path)
        return self._done(Outcome("command", game.gf.game_id, "undo"))

    def _say(self, game: Loaded, player: str, reply: replies.Reply) -> Outcome:
        """``say TEXT``: relayed to every other player, bounded as by mail (one
        paragraph, the rate of says)."""
        try:
            said = reading.say_text(reply)
            mailcommands.say_allowed(self, game.gf.game_id, player)
        except reading.Refused as exc:
            if exc.reason == "quiet":
                return self._done(Outcome("rejected", game.gf.game_id, "say rate"))
            return self.answer_state(game, player, [exc.message], "rejected", "say")
        for pid in game.gf.players:
            to = game.settings.to(pid)
            if pid == player or to is None or (self.in_room and pid in game.settings.matrix):
                continue  # (said in the room: the chat players read it there)
            with i18n.language(game.settings.lang(pid)):
                self.judge.queue(self.judge.message(game, pid, to,
                                                    text.say_text(player, said)))
        self._done(Outcome("command"))
        self.judge.flush()
        return Outcome("command", game.gf.game_id, "say")

    # ------------------------------------------------------------------ moves

    def _moves(self, game: Loaded, player: str, moves: list[str]) -> Outcome:
        message = ChatMoves(self, game, player, moves)
        play_message(game.path, message, keep_partial=True)
        assert message.outcome is not None
        return message.outcome

    def answer_rejected(self, game: Loaded, player: str, moves: list[str], index: int,
                        exc: MoveError) -> Outcome:
        note: list[str] = []
        if index:
            note.append(ngettext("Your first {n} move(s) were played; the rest were not.",
                                 "Your first {n} move(s) were played; the rest were not.",
                                 index).format(n=index))
        note.append(_("Line {line} `{move}` was not accepted: {reason}").format(
            line=index + 1, move=moves[index], reason=exc.message))
        if exc.legal:
            note.append(_("Closest legal moves: {moves}").format(moves=", ".join(exc.legal)))
        return self.answer_state(game, player, note, "rejected", exc.message)


class ChatMoves:
    """The chat door's side of the use-case every door shares
    (:class:`referee.play.reply.Message`)."""

    def __init__(self, incoming: ChatIncoming, game: Loaded, player: str,
                 moves: list[str]) -> None:
        self.incoming, self.game, self.player, self.moves = incoming, game, player, moves
        self.outcome: Outcome | None = None
        self.done: Submission | None = None

    def identify(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], dict[str, Any]]:
        self.incoming.guard(gf)
        return self.player, self.moves, {"matrix": self.incoming.msgid}

    def refused(self, exc: MoveError, index: int) -> None:
        incoming, game = self.incoming, self.game
        if self.done is None:
            self.outcome = incoming.answer_rejected(game, self.player, self.moves, index, exc)
            return
        fresh = incoming.judge.load(game.path) or game
        outcome = incoming.answer_rejected(fresh, self.player, self.moves, index, exc)
        self.outcome = Outcome("played", game.gf.game_id, f"{self._played()} (then "
                               f"{outcome.detail})")

    def not_played(self, exc: RefereeError) -> None:
        if isinstance(exc, intake.Refusal) and exc.reason == "replayed":
            self.outcome = self.incoming._done(Outcome("duplicate", self.game.gf.game_id,
                                                       "replayed: already in the log"))
            return
        if environment_failure(exc):
            raise exc
        game = self.game
        self.outcome = self.incoming.answer_state(
            self.incoming.judge.load(game.path) or game, self.player,
            [_("Not played: {reason}").format(reason=exc.message)], "rejected", exc.message)

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        judge, game = self.incoming.judge, self.game
        self.done = done
        judge.bots_played(game.path, bots, problem)
        judge.notify(game.path, bots=False)
        if done.failed is None:
            judge.store.mark_answered(self.incoming.msgid)
            judge.store.save()
            self.outcome = Outcome("played", game.gf.game_id, self._played())

    def _played(self) -> str:
        assert self.done is not None
        return " / ".join(a.text for a in self.done.accepted)
