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
of at most 500 characters (:func:`referee.mail.intake.say_text`), at most
:data:`SAY_RATE` says per player per hour of the judge's clock.

Auto-replies (Auto-Submitted, Precedence bulk/junk/list/auto_reply, X-Autoreply,
delivery reports) are dropped without an answer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from referee import gamefile, seats
from referee import mail as mailmod
from referee.errors import MoveError, RefereeError, UsageError
from referee.judge import meta, notifications, text
from referee.judge.core import GM_HELP, GM_TOKEN, Judge, Loaded, environment_failure
from referee.mail import intake, mime
from referee.mail.intake import Refusal
from referee.mail.tokens import MailId
from referee.submit import submit
from referee.writecore import Guard

PLAYER_COMMANDS = ("status", "help", "undo", "nonce", "say", "notify", "bot", "vacation",
                   "rematch")
GM_KINDS = ("replace", "address", "deadline", "bot", "watch", "unwatch", "notify", "status",
            "help", "clock")
SAY_RATE = 5  # says per player per hour of the judge's clock
SAY_WINDOW = dt.timedelta(hours=1)


@dataclass
class Outcome:
    """What happened to one incoming mail (for logs and tests)."""

    action: str  # played, rejected, answered, ignored, duplicate, command
    game: str | None = None
    detail: str = ""


class Incoming:
    """Handles one raw mail for a judge."""

    def __init__(self, judge: Judge, raw: bytes) -> None:
        self.judge, self.raw = judge, raw
        self.mail = intake.read(raw)
        self.reply = self.mail.reply
        self.msgid = self.mail.msgid

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
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
                why = ("Your mail answers a Message-ID this referee did not write (forged "
                       "or edited), so nothing was done." if forged else
                       "Your mail did not answer a referee mail, so nothing was played.")
                note = [why, "Here is the current state: reply to this mail."]
                return self._answer_state(game, pid, note, "answered",
                                          "forged id" if forged else "no referee mail")
        if not sender:
            return Outcome("ignored", detail="no game and no sender address")
        lines = ["Your mail does not answer a mail of this referee, so it matches no game.", ""]
        if forged:
            lines[0] = ("Your mail answers a Message-ID this referee did not write (forged "
                        "or edited), so nothing was done.")
        if mine:
            lines.append("Your games here (reply to the latest mail of a game):")
            lines += [f"  {g.gf.game_id}  {g.match.game.title}, as {pid}" for g, pid in mine]
        else:
            lines.append("This address plays no game here.")
        self._send_plain(sender, "\n".join(lines) + "\n")
        return Outcome("answered", detail="forged id" if forged else "no game")

    def _send_plain(self, to: str, body: str) -> None:
        import email.policy

        msg = EmailMessage(policy=email.policy.default)
        subject = self.reply.subject or "your mail"
        msg["From"] = self.judge.config.sender
        msg["To"] = to
        msg["Subject"] = subject if re.match(r"^\s*re\s*:", subject, re.I) else f"Re: {subject}"
        msg["Date"] = format_datetime(self.judge.config.clock())
        digest = hashlib.sha256(self.msgid.encode()).hexdigest()[:24]
        msg["Message-ID"] = f"<rf-answer.{digest}@{mailmod.DOMAIN}>"
        msg["In-Reply-To"] = self.msgid
        msg["References"] = self.msgid
        msg["Auto-Submitted"] = "auto-replied"
        mailmod.set_text(msg, body)
        self._queue([msg])

    def _queue(self, messages: Sequence[mime.Mail | EmailMessage]) -> None:
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
            self._send_plain(self.reply.sender,
                             "Watchers' mails are not read: only players move.\n")
            return Outcome("answered", gid, "watcher")
        seat = self._seat(game, player)
        try:
            intake.admit(self.mail, mid, seat, key=game.key, game_id=gid, log=game.gf.log)
        except Refusal as exc:
            return self._refused(game, seat, exc)
        if player == meta.GM:
            return self._gm(game, mid)
        return self._player(game, player, mid)

    def _refused(self, game: Loaded, seat: intake.Seat, exc: Refusal) -> Outcome:
        gid = game.gf.game_id
        if exc.reason == "replayed":  # delivered or sent again: no second answer
            return Outcome("duplicate", gid, "replayed: already in the log")
        if exc.reason != "stale":
            if not self.reply.sender:  # nobody to tell
                return Outcome("rejected", gid, f"{exc.reason}, no sender address")
            if seat.player == meta.GM:
                self._send_plain(self.reply.sender, "Not accepted: game master commands "
                                 "need the game master's address and token (reply to a "
                                 f"game master mail): {exc.message}.\n")
            else:
                self._send_plain(self.reply.sender,
                                 f"Not accepted: {exc.message}. Nothing was done.\n")
            return Outcome("rejected", gid, exc.reason)
        first = self.reply.moves[0].split() if self.reply.moves else []
        word = first[0].lower() if first else ""
        done = "Not played" if seat.player != meta.GM and word not in PLAYER_COMMANDS \
            else f"`{word}` not done"
        note = [f"{done}: {exc.message}.", "Here is the current state: reply to this mail."]
        if seat.player == meta.GM:
            return self._answer_gm(game, note, "rejected", "stale")
        return self._answer_state(game, seat.player, note, "rejected", "stale")

    def _answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                      detail: str = "") -> Outcome:
        to = game.settings.to(player)
        assert to is not None
        body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                         note=note)
        self._queue([self.judge.message(game, player, to, body, answers=self.msgid,
                                        board=True)])
        return Outcome(action, game.gf.game_id, detail)

    def _answer_gm(self, game: Loaded, note: list[str], action: str, detail: str) -> Outcome:
        assert game.settings.gm is not None
        body = text.body(game.gf, game.match, game.seed, None, None, game.settings,
                         full=True, note=[*note, "", *GM_HELP])
        self._queue([self.judge.message(game, meta.GM, game.settings.gm, body,
                                        answers=self.msgid, board=True)])
        return Outcome(action, game.gf.game_id, detail)

    def _player(self, game: Loaded, player: str, mid: MailId) -> Outcome:
        moves = list(self.reply.moves)
        if not moves:
            return self._answer_state(game, player, [
                "No move found in your mail: write it on the first line."], "rejected",
                "no move")
        word = moves[0].split()[0].lower() if moves[0].split() else ""
        planned = intake.plan_lines(self.reply) if word == intake.PLAN_WORD else None
        if planned is not None:
            return self._plan(game, player, planned, mid)
        if len(moves) == 1 and word in PLAYER_COMMANDS:
            return self._command(game, player, word, moves[0].split(None, 1)[1:], mid)
        return self._moves(game, player, moves, mid)

    def _moves(self, game: Loaded, player: str, moves: list[str], mid: MailId) -> Outcome:
        gid, msgid, mail = game.gf.game_id, self.msgid, self.mail

        def identify(gf: gamefile.GameFile, seed: str | None
                     ) -> tuple[str, list[str], dict[str, Any]]:
            intake.check_unplayed(mail, gf.log)  # again inside the lock: the file may
            intake.check_fresh(mid, gf.log)  # have changed since it was read
            return player, moves, {"mail": msgid}

        try:
            done = submit(game.path, None, moves, keep_partial=True, identify=identify)
        except MoveError as exc:
            return self._rejected(game, player, moves, 0, exc)
        except RefereeError as exc:
            if environment_failure(exc):  # a full or read-only disk: try again later
                raise
            return self._answer_state(self.judge.load(game.path) or game, player,
                                      [f"Not played: {exc.message}"], "rejected", exc.message)
        if done.match is not None:  # the state submit just wrote: no second replay
            self.judge.remember(Loaded(game.path, done.gf, game.seed, game.key, done.match,
                                       self.judge.settings(done.gf)))
        self.judge.notify(game.path)
        if done.failed is not None and done.failed_index is not None:
            fresh = self.judge.load(game.path) or game
            return self._rejected(fresh, player, moves, done.failed_index, done.failed)
        # no save of its own: the log already says this mail was played; the next save of
        # the state keeps the mark that spares a re-delivered copy the game's replay
        self.judge.store.mark_answered(msgid)
        return Outcome("played", gid, " / ".join(a.text for a in done.accepted))

    def _rejected(self, game: Loaded, player: str, moves: list[str], index: int,
                  exc: MoveError) -> Outcome:
        note = []
        if index:
            note.append(f"Your first {index} move(s) were played; the rest were not.")
        note.append(f"Line {index + 1} `{moves[index]}` was not accepted: {exc.message}")
        if exc.legal:
            note.append("Closest legal moves: " + ", ".join(exc.legal))
        note.append("Reply to this mail with your decision.")
        return self._answer_state(game, player, note, "rejected", exc.message)

    # ------------------------------------------------------------------ commands

    def _still_fresh(self, mid: MailId) -> Callable[[gamefile.GameFile], None]:
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
            return self._answer_state(game, player, ["The current state, as you asked."],
                                      "command", "status")
        if word == "help":
            return self._answer_state(game, player, HELP, "command", "help")
        if word == "say":
            return self._say(game, player)
        guard = self._still_fresh(mid)
        if word == "rematch":
            return self._rematch(game, player, guard)
        if word == "notify" and arg.lower().split()[:1] == ["via"]:  # notifications.py
            return notifications.command(self, game, player, arg)
        try:
            if word == "undo":
                undo(game.path, player, self.msgid, guard)
            elif word == "nonce":
                add_nonce(game.path, player, arg, guard)
            elif word == "bot":
                meta.append(game.path, player, {"kind": "bot", "player": player,
                                                **bot_level(arg)},
                            extra={"mail": self.msgid}, guard=guard)
            elif word == "vacation":
                return self._vacation(game, player, arg, guard)
            else:
                meta.append(game.path, player,
                            {"kind": "notify", "player": player, "mode": arg.lower()},
                            extra={"mail": self.msgid}, guard=guard)
        except RefereeError as exc:
            if environment_failure(exc):  # a full or read-only disk: try again later
                raise
            return self._answer_state(game, player, [f"`{word}` not done: {exc.message}"],
                                      "rejected", exc.message)
        self.judge.notify(game.path)
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        if word == "notify":
            fresh = self.judge.load(game.path) or game
            return self._answer_state(fresh, player, [f"Your mail setting is now {arg}."],
                                      "command", "notify")
        if word == "bot":
            fresh = self.judge.load(game.path) or game
            now = "a bot plays your seat" if bot_level(arg)["level"] else \
                "you play your seat again"
            return self._answer_state(fresh, player, [f"Done: {now}."], "command", "bot")
        return Outcome("command", game.gf.game_id, word)

    def _rematch(self, game: Loaded, player: str, guard: Guard) -> Outcome:
        """``rematch``: the player's agreement to a rematch of the finished game, recorded
        in its log; the other players are told who is still waiting. Once every human
        player has agreed, the judge starts the rematch beside the game
        (referee/rematch.py: ``g.json`` -> ``g-r2.json``) and mails its players."""
        from referee import rematch

        if not game.match.game.finished(game.match.state):
            return self._answer_state(game, player, [
                "`rematch` not done: the game is not finished yet."], "rejected", "rematch")
        if player not in game.settings.rematch:
            try:
                meta.append(game.path, player, {"kind": "rematch", "player": player},
                            extra={"mail": self.msgid}, guard=guard)
            except RefereeError as exc:
                if environment_failure(exc):
                    raise
                return self._answer_state(game, player, [f"`rematch` not done: {exc.message}"],
                                          "rejected", exc.message)
            game = self.judge.load(game.path) or game
        agreed = game.settings.rematch
        waiting = [p for p in rematch.waiting_for(game.gf.data, agreed)
                   if game.settings.address(p)]  # a seat without an address cannot agree
        if waiting:
            self._tell_rematch(game, player, agreed, waiting)
            return Outcome("command", game.gf.game_id, "rematch")
        new = rematch.next_path(game.path)
        try:
            if not new.exists():
                rematch.rematch(game.path, new)
        except RefereeError as exc:
            if environment_failure(exc):
                raise
            return self._answer_state(game, player, [f"The rematch was not started: "
                                                     f"{exc.message}"], "rejected", exc.message)
        self.judge.notify(new)
        return self._answer_state(game, player, [
            f"Everyone agreed: the rematch has started ({new.name}); its first mail comes "
            "on its own."], "command", "rematch")

    def _tell_rematch(self, game: Loaded, player: str, agreed: list[str],
                      waiting: list[str]) -> None:
        """The agreement to its author, and to every other human player who is waiting
        and who has agreed; each mail names who is waiting."""
        from referee import rematch

        names = ", ".join(waiting)
        for pid in rematch.humans(game.gf.data):
            to = game.settings.to(pid)
            if to is None:
                continue
            note = [f"Rematch: {', '.join(agreed)} agreed; waiting for {names}."]
            if pid in waiting:
                note.append("Reply `rematch` to this mail to agree.")
            body = text.body(game.gf, game.match, game.seed, pid, None, game.settings,
                             note=note)
            answers = self.msgid if pid == player else None
            self.judge.queue(self.judge.message(game, pid, to, body, answers=answers))
        self._queue([])

    def _plan(self, game: Loaded, player: str, lines: list[str], mid: MailId) -> Outcome:
        """``plan``: set the player's plan from the mail's lines (``plan --clear``
        withdraws it; ``plan`` alone shows it), then answer with the plan now in force:
        to the player only (docs/plans.md)."""
        from referee import plan_play, submit

        clear = [w.lower() for w in lines] in (["--clear"], ["clear"])
        if lines:
            try:
                submit.set_plan(game.path, player, [] if clear else lines,
                               extra={"mail": self.msgid}, guard=self._still_fresh(mid))
            except RefereeError as exc:
                if environment_failure(exc):  # a full or read-only disk: try again later
                    raise
                return self._answer_state(game, player, [f"`plan` not done: {exc.message}"],
                                          "rejected", exc.message)
            self.judge.store.mark_answered(self.msgid)
            self.judge.store.save()
        fresh = self.judge.load(game.path) or game
        note = ["Your plan is withdrawn." if clear else "Your plan is set." if lines else
                "Your plan, as you asked."]
        told = plan_play.mail_lines(fresh.gf, fresh.seed, player, 0, everything=True)
        note += told
        if not any(line.startswith("Your plan (entry") for line in told):
            note.append("You have no plan in force.")
        if lines and not clear:
            note.append("Note: " + (plan_play.SEALED_NOTE if fresh.gf.sealed else
                                     plan_play.OPEN_NOTE) + ".")
        return self._answer_state(fresh, player, note, "command", "plan")
    def _vacation(self, game: Loaded, player: str, arg: str, guard: Guard) -> Outcome:
        """``vacation DAYS``: the player's clock stops (referee/judge/clocks.py); the
        others are told. Raises RefereeError (answered by the caller)."""
        from referee.judge import clocks

        note = clocks.vacation(game.path, player, arg, self.msgid, guard)
        self.judge.store.mark_answered(self.msgid)
        fresh = self.judge.load(game.path) or game
        clocks.tell_vacation(self.judge, fresh, player, int(arg))
        return self._answer_state(fresh, player, [note], "command", "vacation")

    def _say(self, game: Loaded, player: str) -> Outcome:
        try:
            said = intake.say_text(self.reply)
            self._say_allowed(game.gf.game_id, player)
        except Refusal as exc:
            if exc.reason == "quiet":  # the player was told once in this hour
                self.judge.store.mark_answered(self.msgid)
                self.judge.store.save()
                return Outcome("rejected", game.gf.game_id, "say rate")
            return self._answer_state(game, player, [exc.message], "rejected", "say")
        out = []
        for pid in game.gf.players:
            to = game.settings.to(pid)
            if pid != player and to:
                out.append(self.judge.message(game, pid, to, text.wrap(
                    f"{player} says: {said}") + "\n\n(A message from a player, relayed "
                    "as written. Reply to the referee's latest mail with your move; `say "
                    "TEXT` to answer everyone.)\n"))
        self._queue(out)
        return Outcome("command", game.gf.game_id, "say")

    def _say_allowed(self, gid: str, player: str) -> None:
        """Count a say against the player's rate (the judge's state file), or refuse it:
        ``say`` once per hour with the reason, ``quiet`` for the rest of that hour."""
        now = self.judge.config.clock()
        state = self.judge.store.game(gid)
        said = state.setdefault("said", {})
        times = [t for t in said.get(player, [])
                 if now - dt.datetime.fromisoformat(t) < SAY_WINDOW]
        if len(times) < SAY_RATE:
            said[player] = [*times, now.isoformat()]
            return
        said[player] = times
        warned = state.setdefault("said_warned", {})
        if warned.get(player) == times[0]:
            raise Refusal("quiet", "say rate: already told")
        warned[player] = times[0]
        again = dt.datetime.fromisoformat(times[0]) + SAY_WINDOW
        raise Refusal("say", f"say not relayed: at most {SAY_RATE} says an hour; the next "
                      f"one can go at {again:%Y-%m-%d %H:%M} UTC")

    def _gm(self, game: Loaded, mid: MailId) -> Outcome:
        line = self.reply.moves[0] if self.reply.moves else "help"
        try:
            change = gm_meta(line, game.gf.players)
            if change is not None:
                meta.append(game.path, meta.GM, change, extra={"mail": self.msgid},
                            guard=self._still_fresh(mid))
        except RefereeError as exc:
            if environment_failure(exc):  # a full or read-only disk: try again later
                raise
            change, result = None, f"Not done: {exc.message}"
        else:
            result = "Done." if change is not None else ""
        fresh = self.judge.load(game.path) or game
        outcome = self._answer_gm(fresh, [f"> {line}", result], "command", f"gm {line}")
        self.judge.notify(game.path)
        return outcome


HELP = [
    "How to play by mail: reply to the referee's latest mail with your move on",
    "the first line, or several moves as lines `move: ...`. Keep the subject.",
    "Commands (alone on the first line):",
    "  status            the current state again",
    "  help              this text",
    "  undo              take back your last move (if it revealed nothing)",
    "  nonce WORDS       your entropy, before the first move (games with nonces)",
    "  say TEXT          a message to the other players: plain text, one",
    "                    paragraph of at most 500 characters, 5 says an hour",
    "  notify turn|every|digest   how often you get mail (default turn)",
    "  notify via URL [also|only]  notices on your chat or push channel too, or",
    "                    only there (docs: notifications); notify via off: none",
    "  bot LEVEL | bot off   a bot (random, greedy, mcts) plays your seat, or you again",
    "  rematch           after the game: agree to play again (seats rotated);",
    "                    it starts when every player has agreed",
    "  plan              then one line each: moves played for you when their",
    "                    decision arises: MOVE, or if PLAYER MOVE then MOVE;",
    "                    `plan --clear` withdraws it, `plan` alone shows it",
    "  vacation DAYS     stop your clock for DAYS days (games with a clock)",
]


def gm_meta(line: str, players: list[str]) -> dict[str, Any] | None:
    """The meta object of one game master command line (None: status or help).
    Raises UsageError for a line that is no command."""
    words = line.split()
    kind = words[0].lower() if words else "help"
    args = words[1:]
    if kind in ("status", "help"):
        return None
    if kind == "replace" and len(args) >= 2:
        m = re.match(r"^(.*?)\s*<([^<>\s]+)>$", " ".join(args[1:]))
        name, address = (m.group(1), m.group(2)) if m else (args[1], args[-1])
        return {"kind": "replace", "player": args[0], "name": name or args[0],
                "email": address.strip("<>")}
    if kind == "address" and len(args) >= 2:
        return {"kind": "address", "player": args[0], "emails": [a.strip("<>") for a in args[1:]]}
    if kind == "deadline" and len(args) in (1, 3) and args[0].rstrip("h").isdigit() and (
            len(args) == 1 or args[1].lower() == "bot"):
        out: dict[str, Any] = {"kind": "deadline", "hours": int(args[0].rstrip("h"))}
        if len(args) == 3:
            out["bot"] = bot_level(args[2])["level"]
        return out
    if kind == "bot" and len(args) == 2:
        return {"kind": "bot", "player": args[0], **bot_level(args[1])}
    if kind == "clock":  # a time bank (referee/judge/clocks.py)
        from referee.judge.clocks import gm_record

        return gm_record(args)
    if kind in ("watch", "unwatch") and len(args) == 1:
        return {"kind": "watcher", "email": args[0].strip("<>"), "on": kind == "watch"}
    if kind == "watch" and len(args) in (2, 3) and args[1].lower() == "digest":
        return {"kind": "watcher", "email": args[0].strip("<>"), "on": True,
                "digest": meta.digest(args[2].lower() if len(args) == 3 else "round")}
    if kind == "notify" and len(args) == 2:
        return {"kind": "notify", "player": args[0], "mode": args[1].lower()}
    raise UsageError(f"not a game master command: {line!r}", hints=GM_HELP[1:])


def bot_level(word: str) -> dict[str, Any]:
    """``mcts``, ``mcts:200``, ``greedy``, ``random`` or ``off`` as the level fields of a
    ``bot`` meta entry. Raises UsageError."""
    if word.strip().lower() in ("off", "human", "none"):
        return {"level": None}
    if not word.strip():
        raise UsageError("bot: give a level (random, greedy, mcts, mcts:N) or off")
    return seats.parse_spec(word).to_json()


def undo(path: Path, player: str, msgid: str, guard: Guard | None = None) -> None:
    """Take back ``player``'s last move by mail: the library's undo, as `referee undo`."""
    from referee.submit import undo as submit_undo

    submit_undo(path, player, extra={"mail": msgid}, guard=guard)


def add_nonce(path: Path, player: str, value: str, guard: Guard | None = None) -> None:
    """Take ``player``'s next nonce step by mail (:func:`referee.nonces.give`: commit,
    then reveal); between the two the nonce is kept beside the game file, owner-only, as
    `referee nonce` keeps it."""
    from referee.submit import give_nonce

    keep = path.with_name(f"{path.name}.{player}.nonce")
    give_nonce(path, player, value.strip() or None, keep, guard=guard)
