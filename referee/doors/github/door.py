"""The GitHub door: one issue or comment of a players' repository handed to the judge's
core, and the core's answer to it collected as one Markdown answer (docs/git-and-ci.md,
"Moving through issues").

A door with no server: GitHub Actions runs it once per event (``referee judge GAMES
--github-event FILE --answer-out ANSWER``), and the workflow posts the answer as a
comment. An ``issues`` event (``opened``) or an ``issue_comment`` event (``created``) is
for the referee when its issue's title names a game (``[referee] GAME-ID ...``:
referee/git/issues.py); its sender is authenticated by login against the seats'
``github`` logins (without case; a seat a new person took over has none), and its body,
without its ``play N`` line, becomes a :class:`~referee.judge.door.Said` of that seat at
the game's table (an issue is public) answering play N, so that a link used after its
turn is refused by the core as stale. The core does the rest
(:mod:`referee.judge.handling`): what reads as a move or a command, a hidden choice
withdrawn and refused, the answer. Its answer to a text said here is public
(:attr:`~referee.judge.door.Door.answers_in_public`): the public view, and in a sealed
game nothing that may tell the seat's hand.

Handled once: a log entry the text makes keeps ``issue:ID`` or ``comment:ID`` in its field
``github`` (GitHub's global ids, not the issue's number, which the next issue's author
could guess), and an event sent again finds it there. What the door answers itself,
changing nothing: a title that names no game here, a login that holds no seat, a bot's
or an app's account, a text that is not its sender's, an edited or deleted text (an edit
is still looked at for a hidden choice, by the core). It delivers no other notice: the
seats' own addresses are for the doors that reach them (mail, chat).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.doors.github import answer
from referee.doors.github.event import BODY_MAX, Event
from referee.doors.github.words import GITHUB_WORDS
from referee.errors import UsageError
from referee.git import issues
from referee.judge import handling, text
from referee.judge.basics import Loaded, played_at
from referee.judge.door import Door, Notice, Place, Said, Taken
from referee.judge.outcome import Outcome
from referee.ledger import gamefile
from referee.play.reading import read_text

if TYPE_CHECKING:
    from referee.judge.core import Judge

_, N_, ngettext = i18n.domain("referee")

TEXTS = {("issue", "opened"): "message", ("comment", "created"): "message",
         ("issue", "edited"): "edit", ("comment", "edited"): "edit",
         ("issue", "deleted"): "deleted", ("comment", "deleted"): "deleted"}


@dataclass
class Result:
    """What the door did with its event: ``action`` (``played``, ``rejected``,
    ``withdrawn``, ``command``, ``duplicate``, ``answered``, ``failed``, or ``none``: not
    for the referee, no answer), the game, the text's reference, a detail for the log,
    and the answer (Markdown; None: nothing to post)."""

    action: str
    game: str | None = None
    ref: str = ""
    detail: str = ""
    answer: str | None = None

    def line(self) -> str:
        """One line for the job's log (and the workflow, which reads its first word)."""
        return f"{self.action}: {self.game or '-'} {self.ref or '-'} {self.detail}".rstrip()


class GitHubDoor(Door):
    """The GitHub door over one event (:mod:`referee.doors.github.event`)."""

    name = "github"
    words = GITHUB_WORDS
    answers_in_public = True

    def __init__(self, event: Event) -> None:
        self.event = event
        self.result: Result | None = None
        self._ref: str | None = None  # the text being handled
        self._texts: list[str] = []  # the core's answers to it
        self._withdrawn = False

    def attach(self, judge: Any) -> None:
        self.judge: Judge = judge

    def reaches(self, to: str) -> bool:
        return False  # (no seat's own place: an issue is public)

    def prepare(self, game: Loaded, notice: Notice) -> str | None:
        """The body of a notice that answers the text being handled; nothing else."""
        if notice.to is None and self._ref is not None and notice.answers == self._ref:
            return notice.body
        return None

    def queue(self, message: object) -> None:
        if isinstance(message, str):
            self._texts.append(message)

    def flush(self) -> int:
        return 0  # (the answer is posted by the workflow: :attr:`result`)

    def withdraw(self, said: Said, why: str) -> None:
        """Nothing here can take an issue back (the workflow deletes a comment, and
        replaces an issue's body); the answer never repeats it."""
        self._withdrawn = True

    # ------------------------------------------------------------------ the event

    def take(self, wait: float = 0.0) -> Taken:
        """Handle the event, once; its outcome and answer in :attr:`result`."""
        if self.result is not None:
            return Taken()
        self.result = self._take()
        played = self.result.action == "played"
        return Taken(read=int(self.result.action != "none"), played=int(played),
                     lines=[self.result.action])

    def _take(self) -> Result:
        ev = self.event
        kind = TEXTS.get((ev.kind, ev.action))
        gid = issues.game_in_title(ev.title)
        if kind is None or gid is None or ev.pull_request or ev.body.startswith(answer.MARK):
            return Result("none", detail="not for the referee")
        path = self._find(gid)
        game = self.judge.load(path) if path is not None else None
        if game is None:
            why = _("No game `{game}` can be played here: nothing was done.") if path is None \
                else _("The game `{game}` cannot be played here now (the job's log says "
                       "why): nothing was done.")
            return self._answered(gid, [why.format(game=gid)])
        return self._from_seat(game, kind)

    def _find(self, gid: str) -> Path | None:
        paths = self.judge.game_paths()
        return paths.get(gid) or next((p for p in paths.values() if p.stem == gid), None)

    def _from_seat(self, game: Loaded, kind: str) -> Result:
        ev, gid = self.event, game.gf.game_id
        seats = game.settings.github_of(ev.sender)
        refused = self._refusal(kind, seats)
        if refused is not None:
            with i18n.language(game.settings.lang(seats[0]) if seats else i18n.ENGLISH):
                return self._answered(gid, [_(refused).format(
                    login=login(ev.sender), game=gid)], game)
        waiting = gamefile.waiting(game.gf, game.match)
        player = next((s for s in seats if s in waiting), seats[0])
        with i18n.language(game.settings.lang(player)):
            return self._said(game, player, kind)

    def _refusal(self, kind: str, seats: list[str]) -> str | None:
        """Why the event's text is not handed to the core (a source string), or None."""
        ev = self.event
        if ev.bot:
            return N_("`{login}` is a bot's or an app's account: its texts are never "
                      "played. Nothing was done.")
        if ev.author.lower() != ev.sender.lower():
            return N_("This text is not `{login}`'s own: nothing was done.")
        if not seats:
            return N_("`{login}` holds no seat in `{game}`: nothing was played (a seat's "
                      "GitHub login is in the game file, `referee new ... --github`).")
        if kind == "deleted":
            return N_("A deleted text takes nothing back and plays nothing.")
        return None

    def _said(self, game: Loaded, player: str, kind: str) -> Result:
        ev = self.event
        body, at = issues.read_body(ev.body)
        ref = ev.ref if kind == "message" else f"{ev.ref}:{kind}"
        kind = "too_long" if ev.too_long and kind == "message" else kind
        before = len(game.gf.log)
        self._ref, self._texts = ref, []
        try:
            outcome = handling.handle(self.judge, Said(
                self, ref, "github", game, player, read_text(body), Place.TABLE, at,
                kind=kind, sender=ev.sender.lower()))
        finally:
            self._ref = None
        return self._result(game, player, outcome, ref, before)

    # ------------------------------------------------------------------ the answer

    def _result(self, game: Loaded, player: str, outcome: Outcome, ref: str,
                before: int) -> Result:
        gid = game.gf.game_id
        now = self.judge.load(game.path) or game
        action = "withdrawn" if self._withdrawn else outcome.action
        lines, texts, since = self._told(now, player, outcome, ref, before)
        if lines is None:
            return Result("none", gid, ref, outcome.detail)
        if since is not None:
            texts.append(text.body(now.gf, now.match, now.seed, None, since, now.settings,
                                   words=self.words))
        mention = action in ("played", "command")
        return Result(action, gid, ref, outcome.detail, answer.compose(
            lines, texts, self._links(now, mention)))

    def _told(self, game: Loaded, player: str, outcome: Outcome, ref: str, before: int
              ) -> tuple[list[str] | None, list[str], int | None]:
        """(the door's lines (None: no answer), the core's texts, the entry from which
        the public view tells what happened (None: no view of the door's own))."""
        texts = list(self._texts)
        if texts:
            return [], texts, None
        action, detail = outcome.action, outcome.detail
        if action == "played":
            return [_("Played for {player}: `{moves}`.").format(
                player=player, moves=handling.echo(detail))], [], before
        if action == "command":
            return [_("Done: `{command}`.").format(command=detail)], [], before
        if action == "duplicate":
            return self._duplicate(game, ref)
        if action == "failed":
            return [_("The referee failed on this text: nothing was played. The game "
                      "master finds why in the job's log.")], [], None
        if detail != "chat":
            return [_("Nothing was done.")], [], None
        if self.event.too_long:
            return [_("This text is too long to read (more than {n} characters): nothing "
                      "was done.").format(n=BODY_MAX)], [], None
        if (self.event.kind, self.event.action) != ("issue", "opened"):
            return None, [], None  # (table talk in a comment or an edit: not answered)
        return [_("Nothing in this issue reads as a move or a command for the referee: "
                  "nothing was done.")], [], None

    def _duplicate(self, game: Loaded, ref: str
                   ) -> tuple[list[str], list[str], int | None]:
        found = played_at(game.gf.log, "github", ref)
        if found is None:
            return [_("This text was answered before: nothing more was done.")], [], None
        n = game.gf.log[found]["n"]
        return [_("This text was played before, as log entry {n}: it is played once.").format(
            n=n)], [], found

    def _answered(self, gid: str, lines: list[str], game: Loaded | None = None) -> Result:
        links = self._links(game, False) if game is not None else []
        return Result("answered", gid, self.event.ref, lines[0][:200],
                      answer.compose(lines, [], links))

    def _links(self, game: Loaded | None, mention: bool) -> list[str]:
        """The game's links, after a line naming whose turn it is (``mention``: the
        GitHub logins of the players to move, so that GitHub tells them)."""
        repo = self.event.repository
        if game is None or not repo:
            return []
        try:
            found = issues.links(game.gf, game.match, issues.check_repo(repo))
        except UsageError:
            return []
        if found is None:
            return []
        out: list[str] = []
        logins = [game.settings.github.get(p) for p in found.waiting]
        if mention and any(logins):
            out.append(_("Your turn: {logins}.").format(logins=", ".join(
                f"@{name}" for name in logins if name)))
        out += issues.markdown(found)
        if self._withdrawn:
            out.append(self._sealing_hint(game))
        return out

    def _sealing_hint(self, game: Loaded) -> str:
        """Where a hidden choice goes instead: a pull request that appends it, sealed to
        the referee in a sealed game (referee move --unchecked)."""
        seat = next(iter(game.settings.github_of(self.event.sender)), "SEAT")
        where = f"{game.path.parent.name}/{game.path.name}"
        if game.gf.sealed:
            return _("Make a hidden choice in a pull request instead, sealed to the "
                     "referee: `referee move {file} --as {seat} \"YOUR CHOICE\" "
                     "--unchecked`, then commit, push and open a pull request (docs: "
                     "git-and-ci).").format(file=where, seat=seat)
        return _("Make it in a pull request instead: `referee move {file} --as {seat} "
                 "\"YOUR CHOICE\"`, then commit, push and open a pull request (an open "
                 "game hides nothing from whoever replays it).").format(file=where,
                                                                       seat=seat)


def login(name: str) -> str:
    """A login as an answer shows it: its own characters only (a GitHub login's, and an
    app's ``[bot]``), at most 40."""
    return "".join(c for c in name if c.isascii() and (c.isalnum() or c in "-[]"))[:40]
