"""One incoming mail: find its game, authenticate it, act on it, answer it.

Authentication of a player's mail (all must hold):

1. it answers (In-Reply-To / References) a judge Message-ID whose MAC is right
   (:mod:`referee.judge.ids`); that ID names the game and the player;
2. its From address is one of the player's registered addresses;
3. it carries the player's token (the subject's ``[#...]`` tag or a ``token:`` line);
4. its own Message-ID is not already in the game's log (an accepted mail is refused a
   second time) and was not answered before;
5. for a move: the ID it answers was issued at the current move number (a reply to an
   older mail is answered with the current state and is not played).

Auto-replies (Auto-Submitted, Precedence bulk/junk/list/auto_reply, X-Autoreply,
delivery reports) are dropped without an answer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from referee import gamefile, seats
from referee import mail as mailmod
from referee.errors import MoveError, RefereeError, UsageError
from referee.judge import ids, meta, text
from referee.judge.core import GM_HELP, GM_TOKEN, Judge, Loaded, plays
from referee.submit import submit

PLAYER_COMMANDS = ("status", "help", "undo", "nonce", "say", "notify", "bot")
GM_KINDS = ("replace", "address", "deadline", "bot", "watch", "unwatch", "notify", "status",
            "help")


@dataclass
class Outcome:
    """What happened to one incoming mail (for logs and tests)."""

    action: str  # played, rejected, answered, ignored, duplicate, command
    game: str | None = None
    detail: str = ""


def _msgids(msg: EmailMessage, name: str) -> list[str]:
    values = [str(v) for k, v in msg.raw_items() if k.lower() == name.lower()]
    return re.findall(r"<[^<>\s]+>", " ".join(values))


class Incoming:
    """Handles one raw mail for a judge."""

    def __init__(self, judge: Judge, raw: bytes) -> None:
        import email
        import email.policy

        self.judge, self.raw = judge, raw
        self.reply = mailmod.parse_reply(raw)
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        self.candidates = ids.find(_msgids(parsed, "In-Reply-To")
                                   + list(reversed(_msgids(parsed, "References"))))
        self.msgid = self.reply.message_id or (
            "<nomid." + hashlib.sha256(raw).hexdigest()[:24] + "@referee.invalid>")

    # ------------------------------------------------------------------ entry point

    def handle(self) -> Outcome:
        store = self.judge.store
        if store.answered(self.msgid):
            return Outcome("duplicate", detail="already answered")
        if self.reply.automatic:
            return Outcome("ignored", detail="automatic reply")
        paths = self.judge.game_paths()
        for jid in self.candidates:
            path = paths.get(jid.game)
            game = self.judge.load(path) if path else None
            if game is not None and ids.check(game.key, jid):
                return self._for_game(game, jid)
        return self._unmatched(paths)

    # ------------------------------------------------------------------ no game

    def _unmatched(self, paths: dict[str, Path]) -> Outcome:
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
                note = ["Your mail did not answer a referee mail, so nothing was played.",
                        "Here is the current state: reply to this mail."]
                return self._answer_state(game, pid, note, "answered")
        if not sender:
            return Outcome("ignored", detail="no game and no sender address")
        lines = ["Your mail does not answer a mail of this referee, so it matches no game.", ""]
        if mine:
            lines.append("Your games here (reply to the latest mail of a game):")
            lines += [f"  {g.gf.game_id}  {g.match.game.title}, as {pid}" for g, pid in mine]
        else:
            lines.append("This address plays no game here.")
        self._send_plain(sender, "\n".join(lines) + "\n")
        return Outcome("answered", detail="no game")

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

    def _queue(self, messages: list[EmailMessage]) -> None:
        for msg in messages:
            self.judge.queue(msg)
        self.judge.store.mark_answered(self.msgid)
        self.judge.store.save()
        self.judge.flush()

    # ------------------------------------------------------------------ a game

    def _for_game(self, game: Loaded, jid: ids.JudgeId) -> Outcome:
        gid = game.gf.game_id
        if any(e.get("mail") == self.msgid for e in game.gf.log):
            return Outcome("duplicate", gid, "already in the log")
        player = jid.player
        sender = self.reply.sender
        if player == meta.GM:
            return self._gm(game)
        if player not in game.gf.players:
            self._send_plain(sender, "Watchers' mails are not read: only players move.\n")
            return Outcome("answered", gid, "watcher")
        if not game.settings.accepts(player, sender):
            self._send_plain(sender, f"This address is not registered for {player} in game "
                             f"{gid}: nothing was done.\n")
            return Outcome("rejected", gid, "unregistered sender")
        token_name = game.settings.token_name(player)
        if not mailmod.check_token(game.key, gid, token_name, self.reply.token):
            why = ("the mail is a forward: its subject's token does not count"
                   if self.reply.forwarded else "its token is missing or wrong")
            self._send_plain(sender, f"Not accepted: {why}. Reply to the referee's mail and "
                             "keep the [#...] tag in the subject.\n")
            return Outcome("rejected", gid, "token")
        return self._player(game, player, jid)

    def _answer_state(self, game: Loaded, player: str, note: list[str], action: str,
                      detail: str = "") -> Outcome:
        to = game.settings.to(player)
        assert to is not None
        body = text.body(game.gf, game.match, game.seed, player, None, game.settings,
                         note=note)
        self._queue([self.judge.message(game, player, to, body, answers=self.msgid,
                                        board=True)])
        return Outcome(action, game.gf.game_id, detail)

    def _player(self, game: Loaded, player: str, jid: ids.JudgeId) -> Outcome:
        moves = list(self.reply.moves)
        if not moves:
            return self._answer_state(game, player, [
                "No move found in your mail: write it on the first line."], "rejected",
                "no move")
        word = moves[0].split()[0].lower() if moves[0].split() else ""
        if len(moves) == 1 and word in PLAYER_COMMANDS:
            return self._command(game, player, word, moves[0].split(None, 1)[1:])
        if jid.n != plays(game.gf):
            return self._answer_state(game, player, [
                f"Not played: your mail answers the referee's mail of move {jid.n}, but the "
                f"game is at move {plays(game.gf)} now.",
                "Here is the current state: reply to this mail."], "rejected", "stale")
        return self._moves(game, player, moves)

    def _moves(self, game: Loaded, player: str, moves: list[str]) -> Outcome:
        gid, msgid, n = game.gf.game_id, self.msgid, plays(game.gf)

        def identify(gf: gamefile.GameFile, seed: str | None
                     ) -> tuple[str, list[str], dict[str, Any]]:
            if any(e.get("mail") == msgid for e in gf.log):
                raise UsageError("this mail was already played")
            if plays(gf) != n:
                raise UsageError("the game changed while this mail was read: reply again")
            return player, moves, {"mail": msgid}

        try:
            done = submit(game.path, None, moves, keep_partial=True, identify=identify)
        except MoveError as exc:
            return self._rejected(game, player, moves, 0, exc)
        except RefereeError as exc:
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

    def _command(self, game: Loaded, player: str, word: str, rest: list[str]) -> Outcome:
        arg = rest[0].strip() if rest else ""
        if word == "status":
            return self._answer_state(game, player, ["The current state, as you asked."],
                                      "command", "status")
        if word == "help":
            return self._answer_state(game, player, HELP, "command", "help")
        if word == "say":
            return self._say(game, player, arg)
        try:
            if word == "undo":
                undo(game.path, player, self.msgid)
            elif word == "nonce":
                add_nonce(game.path, player, arg)
            elif word == "bot":
                meta.append(game.path, player, {"kind": "bot", "player": player,
                                                **bot_level(arg)},
                            extra={"mail": self.msgid})
            else:
                meta.append(game.path, player,
                            {"kind": "notify", "player": player, "mode": arg.lower()},
                            extra={"mail": self.msgid})
        except RefereeError as exc:
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

    def _say(self, game: Loaded, player: str, said: str) -> Outcome:
        if not said:
            return self._answer_state(game, player, ["say: nothing to say"], "rejected")
        out = []
        for pid in game.gf.players:
            to = game.settings.to(pid)
            if pid != player and to:
                out.append(self.judge.message(game, pid, to, text.wrap(
                    f"{player} says: {said}") + "\n\n(Reply to the referee's latest mail "
                    "with your move; `say TEXT` to answer everyone.)\n"))
        self._queue(out)
        return Outcome("command", game.gf.game_id, "say")

    def _gm(self, game: Loaded) -> Outcome:
        settings, sender = game.settings, self.reply.sender
        if not settings.gm or sender.lower() != settings.gm.lower() or not mailmod.check_token(
                game.key, game.gf.game_id, GM_TOKEN, self.reply.token):
            self._send_plain(sender, "Not accepted: game master commands need the game "
                             "master's address and token (reply to a game master mail).\n")
            return Outcome("rejected", game.gf.game_id, "gm auth")
        line = self.reply.moves[0] if self.reply.moves else "help"
        try:
            change = gm_meta(line, game.gf.players)
            if change is not None:
                meta.append(game.path, meta.GM, change, extra={"mail": self.msgid})
        except RefereeError as exc:
            change, result = None, f"Not done: {exc.message}"
        else:
            result = "Done." if change is not None else ""
        fresh = self.judge.load(game.path) or game
        body = text.body(fresh.gf, fresh.match, fresh.seed, None, None, fresh.settings,
                         full=True, note=[f"> {line}", result, "", *GM_HELP])
        self._queue([self.judge.message(fresh, meta.GM, settings.gm, body, answers=self.msgid,
                                        board=True)])
        self.judge.notify(game.path)
        return Outcome("command", game.gf.game_id, f"gm {line}")


HELP = [
    "How to play by mail: reply to the referee's latest mail with your move on",
    "the first line, or several moves as lines `move: ...`. Keep the subject.",
    "Commands (alone on the first line):",
    "  status            the current state again",
    "  help              this text",
    "  undo              take back your last move (if it revealed nothing)",
    "  nonce WORDS       your entropy, before the first move (games with nonces)",
    "  say TEXT          a message to the other players",
    "  notify turn|every|digest   how often you get mail (default turn)",
    "  bot LEVEL | bot off   a bot (random, greedy, mcts) plays your seat, or you again",
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


def undo(path: Path, player: str, msgid: str) -> None:
    """Take back ``player``'s last move by mail: the library's undo, as `referee undo`."""
    from referee.submit import undo as submit_undo

    submit_undo(path, player, extra={"mail": msgid})


def add_nonce(path: Path, player: str, value: str) -> None:
    """Take ``player``'s next nonce step by mail (:func:`referee.nonces.give`: commit,
    then reveal); between the two the nonce is kept beside the game file, owner-only, as
    `referee nonce` keeps it."""
    from referee import nonces

    keep = path.with_name(f"{path.name}.{player}.nonce")
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        if "nonces" not in gf.data["rng"]:
            raise UsageError("this game was not created with nonces")
        if gf.log:
            raise UsageError("nonces can only be added before the first move")
        nonces.give(gf, player, value.strip() or None, keep)
        gamefile.replace(path, old, gf.data)
