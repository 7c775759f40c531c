"""One incoming mail: find its game, authenticate it, act on it, answer it.

The checks are :mod:`referee.mail.intake`'s, shared with `referee move --from-email`: a
mail counts only if it answers a referee Message-ID with a right MAC (which names the
game and the seat), its own Message-ID is not in the log, it comes from one of the seat's
registered addresses with the seat's token, and it is fresh: the mail it answers was
written at the game's current play number. Freshness holds for a move and for every
command alike (``bot``, ``say``, ``notify``, ``undo``, ``nonce``, ``status``, ``help``
and all of the game master's): a stale mail is answered with the current state and
"this answers an old mail; reply to the latest one", and changes nothing. Besides, the
judge drops a mail it already answered, and bounds ``say``: plain text, one paragraph
of at most 500 characters (:func:`referee.mail.reading.say_text`), at most
:data:`SAY_RATE` says per player per hour of the judge's clock.

Auto-replies (Auto-Submitted, Precedence bulk/junk/list/auto_reply, X-Autoreply,
delivery reports) are dropped without an answer. A mail whose sender is not
authenticated (not the seat's registered address with its token, no referee mail
answered, a watcher's) is answered by :meth:`Incoming._answer_stranger` only: a fixed
subject and the referee's own words, quoting nothing of the mail, and only as often as
:meth:`referee.judge.store.Store.may_answer` allows (a forged From must not make the
judge mail anyone at will).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from referee import i18n
from referee import mail as mailmod
from referee.errors import AmbiguousMove, MalformedMove, MoveError, RefereeError
from referee.i18n import domain
from referee.judge import clocks, language, mailcommands, meta, notices, text
from referee.judge.basics import GM_TOKEN, Loaded
from referee.judge.failures import environment_failure
from referee.judge.gmlines import GM_HELP, bot_level, gm_meta
from referee.judge.mailfront import MailJudge
from referee.judge.outcome import Outcome
from referee.ledger import gamefile
from referee.mail import intake, mime
from referee.mail.intake import Refusal
from referee.mail.tokens import MailError, MailId
from referee.play import reading
from referee.play.reply import play_message
from referee.play.submit import BotMove, Submission

PLAYER_COMMANDS = ("status", "help", "undo", "nonce", "say", "notify", "bot", "vacation",
                   "rematch", *language.WORDS)
GM_KINDS = ("replace", "address", "deadline", "bot", "watch", "unwatch", "notify", "status",
            "help", "clock")

_, N_, ngettext = domain("referee")


class Incoming:
    """Handles one raw mail for a judge."""

    def __init__(self, judge: MailJudge, raw: bytes) -> None:
        self.judge, self.raw = judge, raw
        self.mail = intake.read(raw)
        self.reply = self.mail.reply
        self.msgid = self.mail.msgid
        self.taken: reading.Taken | None = None  # the line read, when chat came first

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
        """The mail handled; each answer in its reader's language (English: watchers,
        the game master, strangers)."""
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
        return self._unmatched(paths, forged)

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
                    note = [why, _(CURRENT)]
                    return self.answer_state(game, pid, note, "answered",
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
        self.queue([answer])
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

    def queue(self, messages: Sequence[mime.Mail | EmailMessage | object]) -> None:
        for msg in messages:
            self.judge.queue(msg)
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
                             log=game.gf.log)
            except Refusal as exc:
                return self._refused(game, seat, exc, mid)
        if player == meta.GM:
            return self._gm(game, mid)
        with i18n.language(game.settings.lang(player)):
            return self._player(game, player, mid)

    def _refused(self, game: Loaded, seat: intake.Seat, exc: Refusal, mid: MailId
                 ) -> Outcome:
        gid = game.gf.game_id
        if exc.reason == "replayed":  # delivered or sent again: no second answer
            return Outcome("duplicate", gid, "replayed: already in the log")
        if exc.reason != "stale":
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
        commands = GM_KINDS if seat.player == meta.GM else PLAYER_COMMANDS
        taken = reading.take_line(self.reply, commands)  # (a command after chat, too)
        first = (taken.line if taken else self.reply.moves[0] if self.reply.moves
                 else "").split()
        word = first[0].lower() if first else ""
        if seat.player != meta.GM and word not in PLAYER_COMMANDS:
            done = clocks.late_note(game.gf.log, seat.player, mid.n) or \
                _("Not played: {reason}.").format(reason=exc.message)
        else:
            done = _("`{command}` not done: {reason}.").format(command=word,
                                                                 reason=exc.message)
        note = [done, _(CURRENT)]
        if seat.player == meta.GM:
            return self._answer_gm(game, note, "rejected", "stale")
        return self.answer_state(game, seat.player, note, "rejected", "stale")

    def not_done(self, game: Loaded, player: str, command: str, exc: RefereeError
                  ) -> Outcome:
        """The answer to ``player``'s ``command`` that ``exc`` refused: "`command` not
        done: reason". A full or read-only disk is raised instead: the mail is tried
        again later."""
        if environment_failure(exc):
            raise exc
        return self.answer_state(game, player, [_("`{command}` not done: {reason}").format(
            command=command, reason=exc.message)], "rejected", exc.message)

    def answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                      detail: str = "") -> Outcome:
        to = game.settings.to(player)
        assert to is not None
        body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                         note=[*self.read_note(), *note])
        self.queue([self.judge.message(game, player, to, body, answers=self.msgid,
                                        board=True)])
        return Outcome(action, game.gf.game_id, detail)

    def _answer_gm(self, game: Loaded, note: list[str], action: str, detail: str) -> Outcome:
        """An answer to the game master, who reads English."""
        assert game.settings.gm is not None
        body = text.body(game.gf, game.match, game.seed, None, None, game.settings,
                         full=True, note=[*note, "", *(_(line) for line in GM_HELP)])
        self.queue([self.judge.message(game, meta.GM, game.settings.gm, body,
                                        answers=self.msgid, board=True)])
        return Outcome(action, game.gf.game_id, detail)

    def _player(self, game: Loaded, player: str, mid: MailId) -> Outcome:
        if not self.reply.moves:
            return self.answer_state(game, player, [
                _("No move found in your mail: write it on the first line.")], "rejected",
                "no move")
        self._take((*PLAYER_COMMANDS, reading.PLAN_WORD), game, player)
        moves = list(self.reply.moves)
        word = moves[0].split()[0].lower() if moves[0].split() else ""
        planned = reading.plan_lines(self.reply) if word == reading.PLAN_WORD else None
        if planned is not None:
            return mailcommands.plan(self, game, player, planned, mid)
        if len(moves) == 1 and word in PLAYER_COMMANDS:
            return self._command(game, player, word, moves[0].split(None, 1)[1:], mid)
        return self._moves(game, player, moves, mid)

    def _take(self, commands: Sequence[str], game: Loaded, player: str | None) -> None:
        """Read the line of the mail that is a command or (``player``'s) move, passing
        over chat before it (:func:`referee.mail.reading.take_line`); the answers then
        say which line was taken (:meth:`read_note`)."""
        match = game.match
        taken = reading.take_line(self.reply, commands, match.game if player else None,
                                 match.state, player)
        if taken is not None and taken.index:
            self.taken = taken
            self.reply = reading.from_taken(self.reply, taken)

    @property
    def extra(self) -> dict[str, str]:
        return {"mail": self.msgid}

    def read_note(self) -> list[str]:
        """The line that says which line of the mail was taken (none: the first)."""
        return reading.taken_note(self.taken)

    def _moves(self, game: Loaded, player: str, moves: list[str], mid: MailId) -> Outcome:
        """Play ``moves`` (the answer says which line was taken when chat came first)
        through the use-case `move --from-email` shares (referee/play/reply.py)."""
        message = MailMoves(self, game, player, moves, mid)
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
        if isinstance(exc, AmbiguousMove):
            note.append(_("Line {number} `{line}` is ambiguous: {reason}").format(
                number=index + 1, line=moves[index], reason=exc.message))
            candidates = readings(game, player, moves[index]) or exc.legal
            if candidates:
                note.append(_("It could be: {candidates}").format(
                    candidates=", ".join(candidates)))
        else:
            note.append(_("Line {line} `{move}` was not accepted: {reason}").format(
                line=index + 1, move=moves[index], reason=exc.message))
            if exc.legal:
                note.append(_("Closest legal moves: {moves}").format(moves=", ".join(exc.legal)))
        if isinstance(exc, MalformedMove) and not index and len(self.reply.lines) > 1:
            note.append(_("No line of your mail reads as a move, so nothing was played."))
        note.append(_("Reply to this mail with your decision."))
        return self.answer_state(game, player, note, "rejected", exc.message)

    # ------------------------------------------------------------------ commands

    def still_fresh(self, mid: MailId) -> Callable[[gamefile.GameFile], None]:
        """A check that the write core runs inside the game file's lock: the mail is
        still unplayed and still answers the latest mail (the file may have changed since
        the judge read it, e.g. by a `referee move` run by hand)."""
        mail = self.mail

        def guard(gf: gamefile.GameFile) -> None:
            intake.check_unplayed(mail, gf.log)
            intake.check_fresh(mid, gf.log)

        return guard

    def _command(self, game: Loaded, player: str, word: str, rest: list[str],
                 mid: MailId) -> Outcome:
        arg = rest[0].strip() if rest else ""
        if word == "status":
            return self.answer_state(game, player, [_("The current state, as you asked.")],
                                      "command", "status")
        if word == "help":
            return self.answer_state(game, player, [_(line) for line in HELP], "command",
                                      "help")
        if word == "say":
            return mailcommands.say(self, game, player)
        guard = self.still_fresh(mid)
        if word in language.WORDS:  # referee/judge/language.py
            return language.command(self, game, player, word, arg, guard)
        if word == "rematch":
            return mailcommands.rematch(self, game, player, guard)
        if word == "notify" and arg.lower().split()[:1] == ["via"]:  # notifications.py
            return mailcommands.notify_via(self, game, player, arg)
        try:
            if word == "undo":
                mailcommands.undo(game.path, player, self.msgid, guard)
            elif word == "nonce":
                mailcommands.add_nonce(game.path, player, arg, guard)
            elif word == "bot":
                meta.append(game.path, player, {"kind": "bot", "player": player,
                                                **bot_level(arg)},
                            extra={"mail": self.msgid}, guard=guard)
            elif word == "vacation":
                return mailcommands.vacation(self, game, player, arg, guard)
            else:
                meta.append(game.path, player,
                            {"kind": "notify", "player": player, "mode": arg.lower()},
                            extra={"mail": self.msgid}, guard=guard)
        except RefereeError as exc:
            return self.not_done(game, player, word, exc)
        read = self.read_note()
        self.judge.notify(game.path, {player: read} if read else None)
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        if word == "notify":
            fresh = self.judge.load(game.path) or game
            return self.answer_state(fresh, player, [_(
                "Your mail setting is now {mode}.").format(mode=arg)], "command", "notify")
        if word == "bot":
            fresh = self.judge.load(game.path) or game
            done = _("Done: a bot plays your seat.") if bot_level(arg)["level"] else \
                _("Done: you play your seat again.")
            return self.answer_state(fresh, player, [done], "command", "bot")
        return Outcome("command", game.gf.game_id, word)

    def _gm(self, game: Loaded, mid: MailId) -> Outcome:
        self._take(GM_KINDS, game, None)
        line = self.reply.moves[0] if self.reply.moves else "help"
        notes: dict[str, list[str]] | None = None
        try:
            change = gm_meta(line, game.gf.players)
            if change is not None:
                meta.append(game.path, meta.GM, change, extra={"mail": self.msgid},
                            guard=self.still_fresh(mid))
        except RefereeError as exc:
            if environment_failure(exc):  # a full or read-only disk: try again later
                raise
            change, result = None, _("Not done: {reason}").format(reason=exc.message)
        else:
            result = _("Done.") if change is not None else ""
        fresh = self.judge.load(game.path) or game
        if change is not None and change.get("kind") == "replace" and fresh is not game:
            notes = notices.replaced(self.judge, game, fresh, str(change["player"]))
        outcome = self._answer_gm(fresh, [*self.read_note(), f"> {line}", result], "command",
                                  f"gm {line}")
        self.judge.notify(game.path, notes)
        return outcome


class MailMoves:
    """The judge's side of the use-case it shares with `move --from-email`
    (:class:`referee.play.reply.Message`): the mail's moves for ``player``, identified
    again inside the lock (unplayed, fresh); a rejection answered with the state; the
    moves played remembered and notified to everyone; the outcome kept in ``outcome``."""

    def __init__(self, incoming: Incoming, game: Loaded, player: str, moves: list[str],
                 mid: MailId) -> None:
        self.incoming, self.game, self.player, self.moves, self.mid = \
            incoming, game, player, moves, mid
        self.read = incoming.read_note()  # (before the answers reset it)
        self.outcome: Outcome | None = None
        self.done: Submission | None = None

    def identify(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], dict[str, Any]]:
        mail = self.incoming.mail
        intake.check_unplayed(mail, gf.log)  # again inside the lock: the file may
        intake.check_fresh(self.mid, gf.log)  # have changed since it was read
        return self.player, self.moves, {"mail": self.incoming.msgid}

    def refused(self, exc: MoveError, index: int) -> None:
        incoming, game = self.incoming, self.game
        if self.done is None:  # nothing was played
            self.outcome = incoming.answer_rejected(game, self.player, self.moves, index, exc)
            return
        fresh = incoming.judge.load(game.path) or game
        incoming.taken = None  # (told in the mail just sent)
        outcome = incoming.answer_rejected(fresh, self.player, self.moves, index, exc)
        # the moves before the failing line are played: the mail counts as played
        self.outcome = Outcome("played", game.gf.game_id, f"{self._played()} (then "
                               f"{outcome.detail})")

    def not_played(self, exc: RefereeError) -> None:
        if environment_failure(exc):  # a full or read-only disk: try again later
            raise exc
        game = self.game
        reason = text.nonce_needed(game.gf) if gamefile.missing_nonces(game.gf) \
            else exc.message  # (before the nonces: in the words of a mail)
        self.outcome = self.incoming.answer_state(
            self.incoming.judge.load(game.path) or game, self.player,
            [_("Not played: {reason}").format(reason=reason)], "rejected", exc.message)

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        judge, game = self.incoming.judge, self.game
        self.done = done
        judge.bots_played(game.path, bots, problem)
        if done.match is not None and not bots:  # the state just written: no second replay
            judge.remember(Loaded(game.path, done.gf, game.seed, game.key, done.match,
                                  judge.settings(done.gf)))
        judge.notify(game.path, {self.player: self.read} if self.read else None, bots=False)
        if done.failed is None:
            # no save of its own: the log already says this mail was played; the next
            # save of the state keeps the mark that spares a re-delivered copy the replay
            judge.store.mark_answered(self.incoming.msgid)
            self.outcome = Outcome("played", game.gf.game_id, self._played())

    def _played(self) -> str:
        assert self.done is not None
        return " / ".join(a.text for a in self.done.accepted)


HELP = [  # each line translated where it is shown: _(line)
    N_("How to play by mail: reply to the referee's latest mail with your move on"),
    N_("the first line, or several moves as lines `move: ...`. Keep the subject."),
    N_("Commands (alone on the first line):"),
    N_("  status            the current state again"),
    N_("  help              this text"),
    N_("  undo              take back your last move (if it revealed nothing)"),
    N_("  nonce WORDS       your entropy, before the first move (games with nonces)"),
    N_("  say TEXT          a message to the other players: plain text, one"),
    N_("                    paragraph of at most 500 characters, 5 says an hour"),
    N_("  notify turn|every|digest   how often you get mail (default turn)"),
    N_("  notify via URL [also|only]  notices on your chat or push channel too, or"),
    N_("                    only there (docs: notifications); notify via off: none"),
    N_("  bot LEVEL | bot off   a bot (random, greedy, mcts) plays your seat, or you again"),
    N_("  rematch           after the game: agree to play again (seats rotated);"),
    N_("                    it starts when every player has agreed"),
    N_("  plan              then one line each: moves played for you when their"),
    N_("                    decision arises: MOVE, or if PLAYER MOVE then MOVE;"),
    N_("                    `plan --clear` withdraws it, `plan` alone shows it"),
    N_("  vacation DAYS     stop your clock for DAYS days (games with a clock)"),
    N_("  lang de|en        the language of your mails (German: sprache deutsch)"),
]
FORGED = N_("Your mail answers a Message-ID this referee did not write (forged or edited), "
            "so nothing was done.")
CURRENT = N_("Here is the current state: reply to this mail.")


def readings(game: Loaded, player: str, line: str) -> list[str]:
    """The legal moves of ``player`` that ``line`` abbreviates word by word (``deploy a
    3``: ``deploy aachen 3``, ``deploy augsburg 3``): the candidates of an ambiguous
    reading; [] when none is (the game's own candidates then)."""
    from referee.engine import legal_strings

    match = game.match
    if match.game.finished(match.state) or player not in match.game.to_move(match.state):
        return []
    words = line.lower().split()
    found = [m for m in legal_strings(match.game, match.state, player)
             if len(m.split()) == len(words) and all(
                 full.lower().startswith(w) for w, full in zip(words, m.split(), strict=True))]
    return found
