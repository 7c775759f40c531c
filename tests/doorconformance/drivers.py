"""One driver per door: the door's own transport behind the same few calls.

A driver sets up a folder with one sealed Staufer game of three seats (ann, ben, cat;
the same seed at every door, so every door plays the same deal) at its door, and then:

* :meth:`Driver.judge`: one pass of the judge (mail and chat: ``referee judge ...
  --once`` through the CLI, in this process, as the other tests run it; toy: a
  :class:`referee.judge.core.Judge` over a :class:`tests.toydoor.ToyDoor` and one
  :func:`referee.judge.serve.run_once`);
* :meth:`Driver.send`: a text as a seat, at the table where the door keeps one, else
  (or with ``place="seat"``) where the seat is alone with the referee; its reference;
* :meth:`Driver.received` / :meth:`Driver.table`: what a seat received in its private
  place, in order, and what the table shows (mail has no table: ``[]``);
* :meth:`Driver.kill_after_move`: a long-running judge killed (SIGKILL) right after the
  text it was sent is a move in the game file (toy: the process "dies" at that moment,
  see :class:`Killed`);
* ``not_applicable``: the tests that cannot apply to the door, each with why (skipped
  with that reason);
* ``setup(refuse=True)``: the transport refuses one item for good, the seat
  :data:`REFUSED`'s (mail: an SMTP server answering 550 to its address; chat: a seat bound
  to a Matrix id on a server that cannot be reached; toy: :attr:`tests.toydoor.Wire.refuse`
  set to a line only that seat's view shows), and :meth:`Driver.refusals` finds the
  refusal in a pass's log.
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import hashlib
import html
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any, ClassVar

import pytest

from referee import engine
from referee.doors.chat.events import POST_BYTES
from referee.doors.github.answer import ANSWER_MAX
from referee.judge import text as judge_text
from referee.ledger import gamefile, replay, secret
from tests.conftest import run
from tests.support import games

ROOT = Path(__file__).resolve().parents[2]
SEATS = ("ann", "ben", "cat")
REFUSED = "cat"  # the seat whose item the transport refuses (not the first to move)
SEED = "door-conformance-seed"
SENDER = "Referee <referee@example.org>"
UNREACHABLE = "@zed:unreachable.invalid"  # a server the test homeserver never reaches
KILL_WAIT = 30.0  # seconds a long-running judge has to play a move
POLL = 0.01  # seconds between looks at the game file while waiting for it


# --------------------------------------------------------------------------- the game


def game_state(path: Path) -> tuple[gamefile.GameFile, engine.Match]:
    gf = gamefile.read(path)
    return gf, replay.replay(gf, secret.find_seed(gf, None, path))


def game_log(path: Path) -> list[dict[str, Any]]:
    return list(gamefile.read(path).log)


def to_move(path: Path) -> str:
    _, match = game_state(path)
    return str(match.game.to_move(match.state)[0])


def first_legal(path: Path, player: str) -> str:
    _, match = game_state(path)
    return str(engine.legal_strings(match.game, match.state, player)[0])


def new_game(path: Path, players: str, *extra: str) -> None:
    """A sealed three-seat Staufer game of :data:`SEED` at ``path``."""
    games.new_game(path, "staufer", "--sealed", "--insecure-seed", *extra, players=players,
                   seed=SEED, game_id=path.stem)


def private_lines(path: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Each seat's private lines now (the lines of its own view that only it sees,
    :func:`referee.judge.text.private_block`, stripped) and the lines of the public
    view."""
    _, match = game_state(path)
    game, now = match.game, match.state
    public = {line.strip() for line in game.render(now, None, width=judge_text.WIDTH)
              .splitlines()}
    own = {seat: {line.strip() for line in judge_text.private_block(
        game.render(now, seat, width=judge_text.WIDTH))} for seat in SEATS}
    return own, public


def only_theirs(snapshots: Sequence[tuple[dict[str, set[str]], set[str]]]
                ) -> dict[str, set[str]]:
    """Of the private lines of ``snapshots`` (:func:`private_lines` at several moments),
    each seat's that no other seat's view and no public view ever showed, long enough
    to be that seat's own (a wrapped line's lone last word is not)."""
    public = set().union(*(p for _, p in snapshots))
    every = {seat: set().union(*(own[seat] for own, _ in snapshots)) for seat in SEATS}
    return {seat: {line for line in lines if len(line) >= 12 and line not in public and
                   not any(line in every[other] for other in SEATS if other != seat)}
            for seat, lines in every.items()}


# --------------------------------------------------------------------------- messages


@dataclass(frozen=True)
class Msg:
    """One message of the judge as its reader gets it: ``body`` the text read (a mail's
    plain part, a post's body), ``extra`` its other renderings (a mail's HTML part, a
    post's formatted body: unescaped), ``size`` its bytes on the wire (a mail; a post's
    content as JSON)."""

    ref: str
    body: str
    size: int
    extra: str = ""

    @property
    def everything(self) -> str:
        return f"{self.body}\n{self.extra}"


def wait_for_move(path: Path, before: int, process: subprocess.Popen[bytes] | None = None,
                  timeout: float = KILL_WAIT) -> None:
    """Return as soon as the game file has more than ``before`` log entries."""
    end = time.monotonic() + timeout
    while len(game_log(path)) <= before:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the judge exited with {process.returncode}")
        if time.monotonic() > end:
            raise AssertionError(f"no move in {path.name} within {timeout:.0f} s")
        time.sleep(POLL)


class Driver:
    """The calls every door's driver answers (see the module's docstring)."""

    name: ClassVar[str]
    field: ClassVar[str]  # the log entry's field that keeps a text's reference
    has_table: ClassVar[bool]
    limit: ClassVar[int]  # the bytes one message may take on the wire
    private_place: ClassVar[bool] = True  # a seat has a place alone with the referee
    # the tests of test_doors.py that cannot apply to this door, each with the reason
    not_applicable: ClassVar[dict[str, str]] = {}

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        self.request, self.tmp = request, tmp_path
        self.games = tmp_path / "games"
        self.games.mkdir()
        self.path = self.games / "conformance.json"
        self.logs: list[str] = []  # each pass's log
        self.refusing = False

    def setup(self, refuse: bool = False) -> None:
        raise NotImplementedError

    def judge(self) -> str:
        raise NotImplementedError

    def send(self, seat: str, text: str, place: str = "table") -> str:
        raise NotImplementedError

    def received(self, seat: str) -> list[Msg]:
        raise NotImplementedError

    def table(self) -> list[Msg]:
        return []

    def kill_after_move(self, seat: str, text: str) -> str:
        raise NotImplementedError

    def refusals(self, output: str) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def _kill(self, args: Sequence[object], seat: str, text: str,
              env: dict[str, str] | None = None) -> str:
        """``referee ARGS`` as a process of its own, running until stopped; ``text`` sent
        as ``seat``; the process killed (SIGKILL) as soon as the move is in the game
        file. The text's reference."""
        before = len(game_log(self.path))
        err = self.tmp / "judge.err"
        with err.open("wb") as said:
            process = subprocess.Popen(
                [sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT,
                env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=said)
            try:
                ref = self.send(seat, text)
                wait_for_move(self.path, before, process)
            except AssertionError as exc:
                raise AssertionError(f"{exc}; the judge said:\n{err.read_text()[-3000:]}"
                                     ) from exc
            finally:
                process.send_signal(signal.SIGKILL)
                process.wait(10)
        return ref


# --------------------------------------------------------------------------- mail


class MailDriver(Driver):
    """Mail: a Maildir in; a Maildir out, or (refusing) an aiosmtpd server on localhost
    that refuses ``nobody@`` with 550 (tests/conftest.py's ``smtp_server``)."""

    name = "mail"
    field = "mail"
    has_table = False
    limit = 256 * 1024

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        super().__init__(request, tmp_path)
        self.inbox = tmp_path / "in"
        for sub in ("new", "cur", "tmp"):
            (self.inbox / sub).mkdir(parents=True)
        self.outbox = tmp_path / "out"
        self.smtp: tuple[Any, int] | None = None

    def address(self, seat: str) -> str:
        return "nobody@example.org" if self.refusing and seat == REFUSED else \
            f"{seat}@example.org"

    def setup(self, refuse: bool = False) -> None:
        self.refusing = refuse
        if refuse:
            self.smtp = self.request.getfixturevalue("smtp_server")()
        new_game(self.path, ",".join(f"{s}={s.title()} <{self.address(s)}>" for s in SEATS))
        self.judge()

    def _args(self) -> list[object]:
        out: list[object] = ["--smtp", f"127.0.0.1:{self.smtp[1]}"] if self.smtp else \
            ["--outbox", self.outbox]
        return ["judge", self.games, "--maildir", self.inbox, *out, "--from", SENDER]

    def judge(self) -> str:
        result = run(*self._args(), "--once")
        assert result.exit_code == 0, result.output
        self.logs.append(result.output)
        return result.output

    def _mails(self) -> list[tuple[bytes, EmailMessage]]:
        """Every mail the judge sent, in the order it made them (each once)."""
        from referee.mail import tokens

        if self.smtp:
            raws = [bytes(e.content) for e in self.smtp[0].envelopes]
        else:
            raws = [p.read_bytes() for sub in ("new", "cur") if (self.outbox / sub).exists()
                    for p in (self.outbox / sub).iterdir()]
        found: dict[str, tuple[int, bytes, EmailMessage]] = {}
        for raw in raws:
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            msgid = str(msg["Message-ID"])
            mid = tokens.parse_id(msgid)
            assert mid is not None, msgid
            found.setdefault(msgid, (mid.counter, raw, msg))
        return [(raw, msg) for _, raw, msg in sorted(found.values(), key=lambda f: f[0])]

    def received(self, seat: str) -> list[Msg]:
        from tests.judge.support import body_text

        out = []
        for raw, msg in self._mails():
            if str(msg["X-Referee-Player"]) != seat:
                continue
            part = msg.get_body(("html",))
            shown = html.unescape(str(part.get_content())) if part is not None else ""
            out.append(Msg(str(msg["Message-ID"]), body_text(msg), len(raw), shown))
        return out

    def _latest(self, seat: str) -> EmailMessage:
        mine = [msg for _, msg in self._mails() if str(msg["X-Referee-Player"]) == seat]
        assert mine, f"{seat} has no mail to reply to"
        return mine[-1]

    def send(self, seat: str, text: str, place: str = "table") -> str:
        """A reply to ``seat``'s latest mail (mail has no table: always the seat's)."""
        from tests.judge.support import deliver, reply

        ref = f"<{uuid.uuid4().hex}@player.example>"
        deliver(self.inbox, reply(self._latest(seat), text, msgid=ref))
        return ref

    def kill_after_move(self, seat: str, text: str) -> str:
        return self._kill([*self._args(), "--poll", "0.2"], seat, text)

    def refusals(self, output: str) -> list[str]:
        return [line for line in output.splitlines()
                if f"recipient refused: {self.address(REFUSED)} (550" in line]


# --------------------------------------------------------------------------- chat


class ChatDriver(Driver):
    """Chat: a real Synapse (the session's ``synapse``: skipped on a machine without
    it, a failure under CI=true), the seats matrix-nio clients who joined their rooms."""

    name = "chat"
    field = "matrix"
    has_table = True

    limit = POST_BYTES

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        super().__init__(request, tmp_path)
        self.synapse = request.getfixturevalue("synapse")
        self.tag = "dc" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:10]
        self.people: dict[str, Any] = {}
        self.rooms: dict[str, dict[str, str]] = {}

    def setup(self, refuse: bool = False) -> None:
        from tests.matrixclient import Person

        self.refusing = refuse
        self.referee = self.synapse.register(f"referee{self.tag}")
        for seat in SEATS:
            if not (refuse and seat == REFUSED):
                self.people[seat] = Person(self.synapse, f"{seat}{self.tag}")
        ids = {seat: self.people[seat].user_id if seat in self.people else UNREACHABLE
               for seat in SEATS}
        new_game(self.path, ",".join(SEATS), "--matrix",
                 ",".join(f"{seat}={ids[seat]}" for seat in SEATS))
        self.judge()
        for seat, person in self.people.items():
            joined = person.accept_invites()
            names = person.rooms()
            dm = [r for r in joined if names[r].endswith(f": {seat}")]
            table = [r for r in joined if not names[r].endswith(f": {seat}")]
            assert len(dm) == 1 and len(table) == 1, f"{seat} was invited to {names}"
            self.rooms[seat] = {"table": table[0], "seat": dm[0]}

    def _env(self) -> dict[str, str]:
        from tests.matrixserver import password_for

        return {"REFEREE_MATRIX_PASSWORD": password_for(self.referee[1:].split(":")[0])}

    def _args(self) -> list[object]:
        return ["judge", self.games, "--matrix", self.synapse.url, "--matrix-user",
                self.referee]

    def judge(self) -> str:
        result = run(*self._args(), "--once", env=self._env())
        assert result.exit_code == 0, result.output
        self.logs.append(result.output)
        return result.output

    def send(self, seat: str, text: str, place: str = "table") -> str:
        return str(self.people[seat].send(self.rooms[seat][place], text))

    def _posts(self, seat: str, place: str) -> list[Msg]:
        out = []
        for m in self.people[seat].messages(self.rooms[seat][place]):
            if m.sender != self.referee or m.content.get("msgtype") == "m.image":
                continue  # (a picture of the board follows the text it belongs to)
            shown = html.unescape(str(m.content.get("formatted_body", "")))
            out.append(Msg(m.event_id, m.body, len(json.dumps(m.content).encode()), shown))
        return out

    def received(self, seat: str) -> list[Msg]:
        return self._posts(seat, "seat")

    def table(self) -> list[Msg]:
        return self._posts(next(iter(self.people)), "table")

    def kill_after_move(self, seat: str, text: str) -> str:
        return self._kill([*self._args(), "--poll", "0.2"], seat, text, self._env())

    def refusals(self, output: str) -> list[str]:
        return [line for line in output.splitlines() if f"cannot invite {UNREACHABLE}" in line]

    def close(self) -> None:
        for person in self.people.values():
            person.close()


# --------------------------------------------------------------------------- toy


class Killed(BaseException):
    """The toy judge's process killed: raised right after a move is in the game file, it
    passes every ``except Exception`` (as SIGKILL would: no handler runs)."""


class ToyDriver(Driver):
    """The toy door of tests/toydoor/ over its in-memory wire; each pass a fresh
    :class:`~referee.judge.core.Judge` (as ``--once`` is a fresh process) in this
    process."""

    name = "toy"
    field = "mail"
    has_table = True
    limit = 256 * 1024

    def setup(self, refuse: bool = False) -> None:
        from tests.toydoor import Wire

        self.refusing = refuse
        new_game(self.path, ",".join(f"{s}={s.title()} <{s}@toy.invalid>" for s in SEATS))
        self.wire = Wire()
        if refuse:  # a line of the refused seat's view that no other message holds
            self.wire.refuse.add(sorted(only_theirs([private_lines(self.path)])[REFUSED])[0])
        self.judge()

    @contextlib.contextmanager
    def _judge(self) -> Iterator[Any]:
        from referee.judge.basics import Config
        from referee.judge.core import Judge
        from tests.toydoor import ToyDoor

        logs: list[str] = []
        judge = Judge(Config(self.games, "referee@toy.invalid", log=logs.append),
                      [ToyDoor(self.wire)])
        try:
            yield judge
        finally:
            judge.close()
            self.logs.append("\n".join(logs))

    def judge(self) -> str:
        from referee.judge import serve

        with self._judge() as judge:
            serve.run_once(judge, strict=True)
        return self.logs[-1]

    def send(self, seat: str, text: str, place: str = "table") -> str:
        from tests.toydoor import Text

        ref = f"<{uuid.uuid4().hex}@toy.invalid>"
        self.wire.inbox.append(Text(ref, seat, "table" if place == "table" else f"seat:{seat}",
                                    text))
        return ref

    def _posts(self, room: str) -> list[Msg]:
        found: dict[str, Msg] = {}
        for post in self.wire.outbox:
            if post["room"] == room:
                found.setdefault(post["id"], Msg(post["id"], post["body"], len(json.dumps(
                    post, ensure_ascii=False).encode())))
        return list(found.values())

    def received(self, seat: str) -> list[Msg]:
        return self._posts(f"seat:{seat}")

    def table(self) -> list[Msg]:
        return self._posts("table")

    def kill_after_move(self, seat: str, text: str) -> str:
        """The judge "dies" right after the move is in the file (before it tells anyone or
        saves anything); the wire then hands the text again, as a transport hands again
        what nobody acknowledged (a mail left in the inbox, a sync position not saved)."""
        from referee.judge import handling, serve

        before = len(game_log(self.path))
        ref = self.send(seat, text)
        sent = self.wire.inbox[-1]

        def dies(*args: Any, **kwargs: Any) -> None:
            raise Killed

        with self._judge() as judge, pytest.MonkeyPatch.context() as patch:
            patch.setattr(handling.Moves, "played", dies)
            with pytest.raises(Killed):
                serve.run_once(judge, strict=True)
        assert len(game_log(self.path)) == before + 1, "the move is not in the file"
        if sent not in self.wire.inbox:
            self.wire.inbox.append(sent)
        return ref

    def refusals(self, output: str) -> list[str]:
        return [line for line in output.splitlines()
                if f"post to seat:{REFUSED} was refused for good" in line]


# --------------------------------------------------------------------------- github


class GitHubDriver(Driver):
    """GitHub issues: each text an issue opened (GitHub's own payload,
    tests/githubevents.py) by the seat's login; a pass runs ``referee judge
    --github-event ... --answer-out ...`` through the CLI once for every event that came
    since the last pass, in order (a workflow runs once per event); every answer is
    posted in a public issue, so the table is every answer and a seat "receives" the
    answers to its own texts. A restart after a kill is the job run again on the same
    event (GitHub's re-run)."""

    name = "github"
    field = "github"
    has_table = True
    private_place = False  # (an issue is public: a seat's own lines go to its mail or chat)
    limit = ANSWER_MAX
    not_applicable: ClassVar[dict[str, str]] = {
        "test_one_refused_item_stays_one":
            "the GitHub door delivers nothing itself: its one answer is a file the workflow "
            "posts, and no seat's notice goes through it, so there is no item a transport "
            "could refuse while others go on",
        "test_a_misspelt_move_word_gets_the_same_rejection_at_every_door":
            "the game is sealed, and a public issue never shows why a move was refused or "
            "the closest legal moves (they may tell the mover's hand): the answer names "
            "the refused line only (tests/doors/github/test_door.py)",
    }

    def setup(self, refuse: bool = False) -> None:
        self.pending: list[tuple[str, str, Path]] = []  # (seat, reference, event file)
        self.answers: list[tuple[str, Msg]] = []  # (the seat that sent the text, answer)
        self.ids = 1000
        new_game(self.path, ",".join(SEATS), "--github",
                 ",".join(f"{seat}={seat}-gh" for seat in SEATS))
        self.judge()

    def judge(self) -> str:
        outputs = []
        while self.pending:
            seat, ref, path = self.pending.pop(0)
            out = self.tmp / f"answer-{ref.replace(':', '-')}.md"
            out.unlink(missing_ok=True)
            result = run("judge", self.games, "--github-event", path, "--answer-out", out)
            assert result.exit_code == 0, result.output
            outputs.append(result.output)
            if out.exists():
                raw = out.read_bytes()
                self.answers.append((seat, Msg(ref, raw.decode(), len(raw))))
        self.logs.append("\n".join(outputs))
        return self.logs[-1]

    def send(self, seat: str, text: str, place: str = "table") -> str:
        """An issue opened by ``seat`` (there is no other place: ``place`` is the table
        whatever it says)."""
        from tests.githubevents import github_event

        self.ids += 1
        path = self.tmp / f"event-{self.ids}.json"
        path.write_text(json.dumps(github_event(
            "issues.opened", title=f"[referee] {self.path.stem}", body=text,
            login=f"{seat}-gh", text_id=self.ids)), encoding="utf-8")
        ref = f"issue:{self.ids}"
        self.pending.append((seat, ref, path))
        return ref

    def received(self, seat: str) -> list[Msg]:
        return [msg for who, msg in self.answers if who == seat]

    def table(self) -> list[Msg]:
        return [msg for _, msg in self.answers]

    def kill_after_move(self, seat: str, text: str) -> str:
        """The job's process "dies" right after the move is in the file (before it
        answers); the job is then run again on the same event."""
        from referee.judge import handling

        before = len(game_log(self.path))
        ref = self.send(seat, text)
        sent = self.pending[-1]

        def dies(*args: Any, **kwargs: Any) -> None:
            raise Killed

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(handling.Moves, "played", dies)
            with pytest.raises(Killed):
                self.judge()
        assert len(game_log(self.path)) == before + 1, "the move is not in the file"
        self.pending.append(sent)
        return ref


DRIVERS: dict[str, type[Driver]] = {"mail": MailDriver, "chat": ChatDriver, "toy": ToyDriver,
                                    "github": GitHubDriver}
