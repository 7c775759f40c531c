"""One authenticated player text, handled the same way whatever door it came through.

A door hands the core a :class:`~referee.judge.door.Said` (who, which game, where it was
said, what it answers); :class:`Handling` does the rest, once for every door:

* handled once: a text whose reference the judge answered, or that a log entry already
  keeps (its door's field), is passed over;
* at a game's table (a chat room every player reads) only what reads as a move or a
  command is for the referee: the table's chat is passed over without an answer; a word
  that is nearly a move word, from the player to move, is answered with the closest
  legal moves (``suply 3``); a hidden choice said there, as a message, an edit or inside
  a longer text, is withdrawn where the door can and never played or repeated; a private
  command is refused there;
* the rate: only what reads as a move or a command counts against a door's rate; one
  over it is kept for later (:meth:`referee.judge.core.Judge.later`) or, past what is
  kept, answered, never dropped;
* freshness: a text that answers a referee message of an earlier play number changes
  nothing and is answered with the current state; the write core checks it again
  inside the game file's lock (:meth:`Handling.guard`);
* the line read (chat before the move is passed over: :func:`referee.play.reading.
  take_line`), the one command table (:mod:`referee.judge.commands`), plans, ``say``,
  moves through the use-case every door shares (:func:`referee.play.reply.play_message`)
  and one rejection answer, in the door's words (:class:`~referee.judge.door.Words`);
* bounds: every line of the player's that an answer repeats is cut
  (:func:`echo`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.errors import AmbiguousMove, MalformedMove, MoveError, RefereeError
from referee.judge import clocks, commands, meta, notices, text
from referee.judge.basics import WATCHER, Loaded, decision_moves, played_at
from referee.judge.door import Notice, Place, Said, Words
from referee.judge.failures import describe, environment_failure
from referee.judge.gmlines import GM_HELP, gm_meta
from referee.judge.outcome import Outcome
from referee.judge.readings import (
    echo,
    echo_reason,
    hidden_in,
    near_miss,
    number,
    readings,
)
from referee.ledger import gamefile
from referee.play import reading
from referee.play.reply import play_message
from referee.play.submit import BotMove, Submission

if TYPE_CHECKING:
    from referee.judge.core import Judge

_, N_, ngettext = i18n.domain("referee")

LATER_KEPT = 20  # texts over the rate kept for later, per sender


class Handling:
    """One :class:`~referee.judge.door.Said` handled for a judge; what the command
    handlers of :mod:`referee.judge.commands` ask of the text they answer."""

    def __init__(self, judge: Judge, said: Said) -> None:
        self.judge, self.said = judge, said
        self.door = said.door
        self.words: Words = said.door.words
        self.ref = said.ref
        self.read: reading.Read = said.text
        self.taken: reading.Taken | None = None
        self.word = ""  # the command word read, as typed (``lang`` or ``sprache``)

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
        """The text handled; each answer in its reader's language (English: the game
        master)."""
        with i18n.language(i18n.ENGLISH):
            said = self.said
            if self.judge.store.answered(said.ref):
                return Outcome("duplicate", said.game.gf.game_id, "already answered")
            if said.player == meta.GM:
                return self._gm()
            with i18n.language(said.game.settings.lang(said.player)):
                return self._player()

    @property
    def extra(self) -> dict[str, str]:
        """The fields of a log entry this text makes (``{"mail": MESSAGE-ID}``,
        ``{"matrix": EVENT-ID}``)."""
        return {self.said.field: self.said.ref}

    def guard(self, gf: gamefile.GameFile) -> None:
        """Inside the game file's lock (the file may have changed since the judge read
        it): the text is not played yet, and still answers the latest play number."""
        replayed = self._replayed(gf.log)
        if replayed is not None:
            raise reading.Refused("replayed", replayed)
        stale = self._stale(gf.log)
        if stale is not None:
            raise reading.Refused("stale", stale)

    def _replayed(self, log: Sequence[dict[str, Any]]) -> str | None:
        found = played_at(log, self.said.field, self.said.ref)
        if found is None:
            return None
        return _(self.words.replayed).format(n=log[found].get("n"),
                                             now=gamefile.play_number(log))

    def _stale(self, log: Sequence[dict[str, Any]]) -> str | None:
        now = gamefile.play_number(log)
        at = self.said.at
        if at is None or at == now:
            return None
        return _(self.words.stale).format(old=at, now=now, advice=_(self.words.stale_advice))

    # ------------------------------------------------------------------ a seat

    def _player(self) -> Outcome:
        said, game, player = self.said, self.said.game, self.said.player
        match = game.match
        taken = reading.take_line(self.read, commands.PLAYER, match.game, match.state, player)
        line = taken.line if taken else ""
        word = line.split()[0].lower() if line.split() else ""
        if said.place is Place.TABLE:
            passed = self._at_table(line, word)
            if passed is not None:
                return passed
        if said.kind == "edit":
            return self.answer_state(game, player, [_(
                "An edited message is not played: type your move again as a new message.")],
                "rejected", "edit")
        if said.kind == "too_long":
            return self.answer_state(game, player, [_(
                "Your message is too long to read: nothing was done.")], "rejected",
                "too long")
        if not within_rate(self.judge, said):
            return later(self.judge, said, line)
        if self._replayed(game.gf.log) is not None:
            return self._done(Outcome("duplicate", game.gf.game_id,
                                      "replayed: already in the log"))
        stale = self._stale(game.gf.log)
        if stale is not None:
            return self._answer_stale(word, stale)
        if not self.read.moves:
            return self.answer_state(game, player, [_(self.words.no_move)], "rejected",
                                     "no move")
        if taken is not None and taken.index:
            self.taken = taken
            self.read = reading.from_taken(self.read, taken)
        numbered = self._numbered(line)
        if isinstance(numbered, Outcome):
            return numbered
        moves = [numbered] if numbered else list(self.read.moves)
        command = commands.PLAYER.get(word)
        if command is not None and command.private and said.place is Place.TABLE:
            refused = self.words.private_place or self.words.no_move
            return self.answer_state(game, player, [_(refused).format(command=word)],
                                     "rejected", "private")
        if word == reading.PLAN_WORD or (command is not None and len(moves) == 1):
            assert command is not None
            self.word = moves[0].split()[0]
            rest = moves[0].split(None, 1)[1:]
            return command.run(self, game, player, rest[0].strip() if rest else "")
        return self._moves(game, player, moves)

    def _numbered(self, line: str) -> str | Outcome | None:
        """The move a number plays (its door numbers the moves of its posts, the number
        said where the seat is alone, fresh: checked before), or the answer that there is
        no such number; None for any other text."""
        said = self.said
        k = number(line)
        if not (said.door.numbers and said.place is Place.SEAT and k is not None):
            return None
        legal = decision_moves(said.game, said.player)[:said.door.numbers]
        if 1 <= k <= len(legal):
            return legal[k - 1]
        return self.answer_state(said.game, said.player, [_(
            "There is no move {number} now: the numbers of your last post go from 1 to "
            "{last}.").format(number=k, last=len(legal)) if legal else _(
            "There is no move {number}: you have no decision now.").format(number=k)],
            "rejected", "no such number")

    def _at_table(self, line: str, word: str) -> Outcome | None:
        """A text said at the game's table: a hidden choice in it withdrawn and refused;
        table chat passed over (None: the text is for the referee)."""
        said, game, player = self.said, self.said.game, self.said.player
        if hidden_in(game, player, [*self.read.own, *self.read.lines]):
            self.door.withdraw(said, "a hidden choice belongs in the direct room")
            refused = self.words.hidden_at_table or self.words.no_move
            return self.answer_state(game, player, [_(refused)], "rejected",
                                     "hidden at the table")
        if said.kind == "too_long" or not self._for_referee(line, word):
            return self._done(Outcome("ignored", game.gf.game_id, "chat"))
        return None

    def _for_referee(self, line: str, word: str) -> bool:
        """Whether a line said at a table is for the referee: a command, a move (legal
        or not), or nearly a move word of the player to move."""
        if word in commands.PLAYER:
            return True
        if not line:
            return False
        match, player = self.said.game.match, self.said.player
        if reading.reads_as_move(match.game, match.state, player, line):
            return True
        return near_miss(match, player, word)

    def _answer_stale(self, word: str, reason: str) -> Outcome:
        game, player = self.said.game, self.said.player
        if word not in commands.PLAYER:
            done = clocks.late_note(game.gf.log, player, self.said.at or 0) or \
                _("Not played: {reason}.").format(reason=reason)
        else:
            done = _("`{command}` not done: {reason}.").format(command=word, reason=reason)
        return self.answer_state(game, player, [done, _(self.words.current)], "rejected",
                                 "stale")

    # ------------------------------------------------------------------ the game master

    def _gm(self) -> Outcome:
        game = self.said.game
        taken = reading.take_line(self.read, commands.GM_WORDS)
        stale = self._stale(game.gf.log)
        if stale is not None:
            line = taken.line if taken else ""
            word = line.split()[0].lower() if line.split() else ""
            done = _("`{command}` not done: {reason}.").format(command=word, reason=stale)
            return self._answer_gm(game, [done, _(self.words.current)], "rejected", "stale")
        if taken is not None and taken.index:
            self.taken = taken
            self.read = reading.from_taken(self.read, taken)
        line = self.read.moves[0] if self.read.moves else "help"
        notes: dict[str, list[str]] | None = None
        try:
            change = gm_meta(line, game.gf.players)
            if change is not None:
                meta.append(game.path, meta.GM, change, extra=self.extra, guard=self.guard)
        except RefereeError as exc:
            if environment_failure(exc):  # a full or read-only disk: try again later
                raise
            change, result = None, _("Not done: {reason}").format(reason=exc.message)
        else:
            result = _("Done.") if change is not None else ""
        fresh = self.judge.load(game.path) or game
        if change is not None and change.get("kind") == "replace" and fresh is not game:
            notes = notices.replaced(self.judge, game, fresh, str(change["player"]))
        outcome = self._answer_gm(fresh, [*self.read_note(), f"> {echo(line)}", result],
                                  "command", f"gm {echo(line)}")
        self.judge.notify(game.path, notes)
        return outcome

    def _answer_gm(self, game: Loaded, note: list[str], action: str, detail: str) -> Outcome:
        """An answer to the game master, who reads English."""
        to = game.settings.gm
        assert to is not None
        body = text.body(game.gf, game.match, game.seed, None, None, game.settings,
                         full=True, note=[*note, "", *(_(line) for line in GM_HELP)],
                         words=self.judge.doors.words_for(to))
        self.queue([self.judge.message(game, meta.GM, to, body, answers=self.answers_to(to),
                                       board=True)])
        return Outcome(action, game.gf.game_id, detail)

    # ------------------------------------------------------------------ answers

    def answers_to(self, to: str) -> str | None:
        """What an answer to ``to`` is threaded under: the text, when the answer goes
        out through the door it came in."""
        return self.said.thread if self.door.reaches(to) else None

    def at_table_of(self, to: str) -> bool:
        """Whether the reader at ``to`` read this text where it was said: at a table of
        this door, which every player it reaches reads."""
        return self.said.place is Place.TABLE and self.door.reaches(to) and \
            self.door.keeps_table(self.said.game)

    def read_note(self) -> list[str]:
        """The line an answer opens with when text before the line read was passed
        over (in the door's words; none where the door does not say it)."""
        taken = self.taken
        if taken is None or not taken.index or self.words.took is None:
            return []
        return [_(self.words.took).format(number=taken.number, line=echo(taken.line))]

    def answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                     detail: str = "", public: Sequence[str] | None = None) -> Outcome:
        """Answer ``player`` with the game's state after ``note``, where they are alone
        with the referee; a text said at a table gets one line there too, repeating
        nothing of it, or (a door that answers in public) the answer itself with the
        public view, in a sealed game with ``public`` instead of ``note`` where given
        (``note`` without what may tell the player's hand). The text is then handled."""
        to = game.settings.to(player)
        if to is not None:
            body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                             note=[*self.read_note(), *note],
                             words=self.judge.doors.words_for(to))
            self.judge.queue(self.judge.message(game, player, to, body,
                                                answers=self.answers_to(to), board=True))
        if self.said.place is Place.TABLE and self.door.answers_in_public:
            shown = public if public is not None and game.gf.sealed else note
            body = text.body(game.gf, game.match, game.seed, None, None, game.settings,
                             note=[*self.read_note(), *shown], words=self.words)
            self.door.queue(self.door.prepare(game, Notice(player, None, body,
                                                           answers=self.said.ref, board=True)))
        elif self.said.place is Place.TABLE and self.words.elsewhere:
            with i18n.language(i18n.ENGLISH):
                line = _(self.words.elsewhere).format(player=player)
            self.door.queue(self.door.prepare(game, Notice(WATCHER, None, line,
                                                           answers=self.said.ref)))
        self.queue([])
        return Outcome(action, game.gf.game_id, detail)

    def not_done(self, game: Loaded, player: str, command: str, exc: RefereeError
                 ) -> Outcome:
        """The answer to ``player``'s ``command`` that ``exc`` refused: "`command` not
        done: reason". A full or read-only disk is raised instead: the text is tried
        again later."""
        if environment_failure(exc):
            raise exc
        return self.answer_state(game, player, [_("`{command}` not done: {reason}").format(
            command=command, reason=exc.message)], "rejected", exc.message)

    def written(self, game: Loaded, player: str, word: str, done: str | None = None
                ) -> Outcome:
        """After a command's write: everyone told what changed (the author first reads
        which line was taken), the text handled, and ``done`` answered."""
        read = self.read_note()
        self.judge.notify(game.path, {player: read} if read else None)
        self.judge.store.mark_answered(self.ref)
        self.judge.store.save()
        if done is None:
            return Outcome("command", game.gf.game_id, word)
        fresh = self.judge.load(game.path) or game
        return self.answer_state(fresh, player, [done], "command", word)

    def queue(self, messages: Sequence[object]) -> None:
        """Queue ``messages`` (of :meth:`referee.judge.core.Judge.message`), mark the
        text handled, save and deliver."""
        for message in messages:
            self.judge.queue(message)
        self._done(Outcome("command"))
        self.judge.flush()

    def _done(self, outcome: Outcome) -> Outcome:
        """Mark the text handled (the state saved): never looked at again."""
        self.judge.store.mark_answered(self.ref)
        self.judge.store.save()
        return outcome

    # ------------------------------------------------------------------ moves

    def _moves(self, game: Loaded, player: str, moves: list[str]) -> Outcome:
        """Play ``moves`` through the use-case every door shares (referee/play/reply.py)."""
        message = Moves(self, game, player, moves)
        play_message(game.path, message, keep_partial=True)
        assert message.outcome is not None
        return message.outcome

    def answer_rejected(self, game: Loaded, player: str, moves: list[str], index: int,
                        exc: MoveError) -> Outcome:
        """Answer that line ``index`` of ``moves`` was not accepted (and that the lines
        before it were played), with the state and the closest legal moves."""
        note: list[str] = []
        if index:
            note.append(ngettext("Your first {n} move(s) were played; the rest were not.",
                                 "Your first {n} move(s) were played; the rest were not.",
                                 index).format(n=index))
        line = echo(moves[index])
        if isinstance(exc, AmbiguousMove):
            note.append(_("Line {number} `{line}` is ambiguous: {reason}").format(
                number=index + 1, line=line, reason=exc.message))
            candidates = readings(game, player, moves[index]) or exc.legal
            if candidates:
                note.append(_("It could be: {candidates}").format(
                    candidates=", ".join(candidates)))
        else:
            note.append(_("Line {line} `{move}` was not accepted: {reason}").format(
                line=index + 1, move=line, reason=echo_reason(exc.message, moves[index])))
            if exc.legal:
                note.append(_("Closest legal moves: {moves}").format(moves=", ".join(exc.legal)))
        if isinstance(exc, MalformedMove) and not index and len(self.read.lines) > 1:
            note.append(_(self.words.no_line))
        note.append(_(self.words.answer))
        public = [*note[:1 if index else 0], _(
            "Line {line} `{move}` was not accepted. Why, and the closest legal moves, are "
            "not shown where every player reads: in a sealed game they may tell your "
            "hand.").format(line=index + 1, move=line), _(self.words.answer)]
        return self.answer_state(game, player, note, "rejected", echo(exc.message), public)


class Moves:
    """The core's side of the use-case every door shares (:class:`referee.play.reply.
    Message`): the text's moves for ``player``, identified again inside the lock
    (unplayed, fresh); a rejection answered with the state; the moves played remembered
    and told to everyone; the outcome kept in ``outcome``."""

    def __init__(self, handling: Handling, game: Loaded, player: str, moves: list[str]
                 ) -> None:
        self.handling, self.game, self.player, self.moves = handling, game, player, moves
        self.read = handling.read_note()  # (before the answers reset it)
        self.outcome: Outcome | None = None
        self.done: Submission | None = None

    def identify(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], dict[str, Any]]:
        self.handling.guard(gf)
        return self.player, self.moves, self.handling.extra

    def refused(self, exc: MoveError, index: int) -> None:
        handling, game = self.handling, self.game
        if self.done is None:  # nothing was played
            self.outcome = handling.answer_rejected(game, self.player, self.moves, index, exc)
            return
        fresh = handling.judge.load(game.path) or game
        handling.taken = None  # (told in the message just sent)
        outcome = handling.answer_rejected(fresh, self.player, self.moves, index, exc)
        # the moves before the failing line are played: the text counts as played
        self.outcome = Outcome("played", game.gf.game_id, f"{self._played()} (then "
                               f"{outcome.detail})")

    def not_played(self, exc: RefereeError) -> None:
        handling, game = self.handling, self.game
        if isinstance(exc, reading.Refused) and exc.reason == "replayed":
            self.outcome = handling._done(Outcome("duplicate", game.gf.game_id,
                                                  "replayed: already in the log"))
            return
        if environment_failure(exc):  # a full or read-only disk: try again later
            raise exc
        reason = text.nonce_needed(game.gf) if gamefile.missing_nonces(game.gf) \
            else exc.message  # (before the nonces: in the words of a message)
        self.outcome = handling.answer_state(
            handling.judge.load(game.path) or game, self.player,
            [_("Not played: {reason}").format(reason=reason)], "rejected", exc.message)

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        judge, game = self.handling.judge, self.game
        self.done = done
        judge.bots_played(game.path, bots, problem)
        if done.match is not None and not bots:  # the state just written: no second replay
            judge.remember(Loaded(game.path, done.gf, game.seed, game.key, done.match,
                                  judge.settings(done.gf)))
        judge.notify(game.path, {self.player: self.read} if self.read else None, bots=False)
        if done.failed is None:
            # no save of its own: the log already says this text was played; the next
            # save of the state keeps the mark that spares a copy sent again the replay
            judge.store.mark_answered(self.handling.ref)
            self.outcome = Outcome("played", game.gf.game_id, self._played())

    def _played(self) -> str:
        assert self.done is not None
        return " / ".join(a.text for a in self.done.accepted)


# --------------------------------------------------------------------------- entry point


def handle(judge: Judge, said: Said) -> Outcome:
    """Act on one authenticated player text. A failure that is a bug gives the outcome
    ``failed`` (with what was not saved forgotten; the door logs it and passes the text
    over); a failure of the disk raises RetryLater, a door that is down DoorDown."""
    try:
        return Handling(judge, said).handle()
    except Exception as exc:
        judge.failed(exc)
        return Outcome("failed", said.game.gf.game_id, describe(exc))


# --------------------------------------------------------------------------- rates


def rate_key(said: Said) -> str:
    """Whose rate a text counts against: its sender's at its door."""
    return f"{said.door.name}|{said.sender or said.player}"


def _recent(judge: Judge, said: Said) -> list[str]:
    assert said.door.rate is not None
    window = said.door.rate[1]
    now = judge.config.clock()
    return [t for t in judge.store.part("rates", {}, change=False).get(rate_key(said), [])
            if now - dt.datetime.fromisoformat(t) < window]


def within_rate(judge: Judge, said: Said) -> bool:
    """Count ``said`` (a text that reads as a move or a command) against its sender's
    rate at its door (:attr:`referee.judge.door.Door.rate`), or say it is over."""
    if said.door.rate is None:
        return True
    rates = judge.store.part("rates", {})
    times = _recent(judge, said)
    if len(times) >= said.door.rate[0]:
        rates[rate_key(said)] = times
        return False
    rates[rate_key(said)] = [*times, judge.config.clock().isoformat()]
    if len(rates) > 1000:  # (senders of long ago forgotten)
        for old in sorted(rates, key=lambda s: rates[s][-1])[:len(rates) - 1000]:
            del rates[old]
    return True


def later(judge: Judge, said: Said, line: str) -> Outcome:
    """Keep ``said``, over its sender's rate, to be handled when the rate allows
    (:func:`run_later`); past :data:`LATER_KEPT` kept for that sender, it is answered
    instead: once per window, naming it and saying that what follows it in that window
    is not read either."""
    gid = said.game.gf.game_id
    kept = judge.store.part("later", [])
    key = rate_key(said)
    if sum(1 for k in kept if k["key"] == key) < LATER_KEPT:
        kept.append({"key": key, "door": said.door.name, "ref": said.ref,
                     "field": said.field, "game": gid, "player": said.player,
                     "text": "\n".join(said.text.own)[:4000], "place": said.place.value,
                     "at": said.at, "sender": said.sender, "answers": said.answers,
                     "kind": said.kind})
        judge.store.save()
        return Outcome("later", gid, "over the rate: kept for later")
    most, window = said.door.rate or (0, dt.timedelta(0))
    told = judge.store.part("later_told", {})
    now = judge.config.clock()
    last = told.get(key)
    judge.store.mark_answered(said.ref)
    if last is not None and now - dt.datetime.fromisoformat(last) < window:
        judge.store.save()
        return Outcome("ignored", gid, "over the rate: told already")
    told[key] = now.isoformat()
    to = said.game.settings.to(said.player)
    if to is not None:
        with i18n.language(said.game.settings.lang(said.player)):
            note = _("Not read: `{line}`. You sent more than {n} moves and commands in "
                     "{minutes} minutes; it and what you send in the next minutes are not "
                     "read: send them again later.").format(
                         line=echo(line), n=most, minutes=int(window.total_seconds() // 60))
            judge.queue(judge.message(said.game, said.player, to, note + "\n"))
    judge.store.save()
    judge.flush()
    return Outcome("rejected", gid, "over the rate")


def run_later(judge: Judge) -> list[Outcome]:
    """Handle the texts kept over a rate whose senders' rates allow them now, in the
    order they came."""
    if not judge.store.part("later", [], change=False):
        return []
    kept = judge.store.part("later", [])
    outcomes: list[Outcome] = []
    paths = judge.game_paths()
    for item in list(kept):
        door = judge.doors.named(item["door"])
        path = paths.get(item["game"])
        game = judge.load(path) if path is not None else None
        if door is None or game is None:
            continue
        said = Said(door, item["ref"], item["field"], game, item["player"],
                    reading.read_text(item["text"]), Place(item["place"]), item["at"],
                    kind=item.get("kind", "message"), answers=item["answers"],
                    sender=item["sender"])
        if door.rate is not None and len(_recent(judge, said)) >= door.rate[0]:
            continue
        kept.remove(item)
        judge.store.save()
        outcomes.append(handle(judge, said))
    return outcomes
