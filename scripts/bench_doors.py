"""What one move costs the judge at each door: the judge's own CPU for one move through
the chat door against the same through the mail door, in a long-running judge. Figures
go in docs/speed.md ("One move at each door").

    .venv/bin/python -m scripts.bench_doors [--moves 24] [--pictures]

Needs Synapse (.ci/install-matrix.sh: a throwaway homeserver on loopback is started and
stopped here, as the tests do). Two judges in this process, each over a folder of its
own with one sealed three-seat Staufer game: one with the mail door (a Maildir inbox, an
outbox that delivers at once) and one with the chat door (logged in once, as a
long-running judge is). After each judge's first pass, MOVES times, a move at each door
in turn (so that both meet the same load): the seat to
move sends its first legal move (by mail: a reply to its latest mail, delivered into the
inbox; in chat: a message in the game's room, sent by a matrix-nio client), and the judge
runs passes until the move is in the file and its answers are out; the judge's CPU time
(``time.process_time``, this process: the players' clients run their own event loops in
this process too, so their sending is timed outside) is counted over those passes.
Reported: the median CPU per move at each door and their ratio (the chat door's bar:
at most 1.5x the mail door's). Without ``--pictures`` neither door draws the board (the
pictures extra set aside for both), so the figure is the doors' own work.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts`, `tests` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.doors.chat.door import MatrixDoor
from referee.doors.chat.link import Link
from referee.doors.mail import MailJudge, run_once
from referee.doors.mail.transport import MaildirInbox
from referee.engine import legal_strings
from referee.judge import Config, serve
from referee.judge.core import Judge
from referee.ledger import gamefile, replay, secret
from scripts.bench_scale import ROOT

SENDER = "Referee <referee@example.org>"


class Kept:
    """An outbox that keeps every mail (delivering costs nothing)."""

    def __init__(self) -> None:
        self.mails: list[bytes] = []

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        self.mails.append(raw)
        return []

    def close(self) -> None:
        return None


def new_game(folder: Path, seats: str, option: str) -> Path:
    from referee.cli import main

    path = folder / "g.json"
    try:
        main(["new", "staufer", str(path), "--players", seats, *option.split(), "--id",
              f"bench-{folder.name}"])
    except SystemExit as exc:
        if exc.code:
            raise
    return path


def mover(path: Path) -> tuple[str, str]:
    gf = gamefile.read(path)
    match = replay.replay(gf, secret.find_seed(gf, None, path))
    who = match.game.to_move(match.state)[0]
    return who, legal_strings(match.game, match.state, who)[0]


def mail_moves(tmp: Path, moves: int) -> Iterator[float]:
    from tests.judge.support import deliver, parse, reply

    games, inbox = tmp / "mail", tmp / "in"
    games.mkdir()
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    path = new_game(games, "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,"
                    "cat=Cat <cat@example.org>",
                    "--sealed")
    out = Kept()
    judge = MailJudge(Config(games, SENDER), out)
    box = MaildirInbox(inbox)
    run_once(judge, box)
    yield 0.0  # (set up)
    for _ in range(moves):
        who, move = mover(path)
        latest = [parse(m) for m in out.mails if f"X-Referee-Player: {who}".encode() in m]
        deliver(inbox, reply(latest[-1], move))
        before = len(gamefile.read(path).log)
        started = time.process_time()
        stats = run_once(judge, box)
        spent = time.process_time() - started
        assert stats.played == 1 and len(gamefile.read(path).log) > before
        yield spent
    judge.close()


def chat_moves(tmp: Path, moves: int, synapse: Any) -> Iterator[float]:
    from tests.matrixclient import Person
    from tests.matrixserver import password_for

    games = tmp / "chat"
    games.mkdir()
    people = {p: Person(synapse, f"{p}bench") for p in ("ann", "ben", "cat")}
    referee = synapse.register("refereebench")
    path = new_game(games, "ann,ben,cat", "--matrix " + ",".join(
        f"{p}={person.user_id}" for p, person in people.items()))
    link = Link(synapse.url, referee, password=password_for("refereebench"))
    link.connect()
    config = Config(games, "")
    judge = Judge(config, [MatrixDoor(config, link)])
    serve.run_once(judge)
    rooms = {}
    for p, person in people.items():
        joined = person.accept_invites()
        names = person.rooms()
        rooms[p] = next(r for r in joined if not names[r].endswith(f": {p}"))
    yield 0.0  # (set up)
    for _ in range(moves):
        who, move = mover(path)
        before = len(gamefile.read(path).log)
        people[who].send(rooms[who], move)
        spent = 0.0
        for _ in range(20):  # passes until the move is in and its answers are out
            started = time.process_time()
            serve.run_once(judge)
            spent += time.process_time() - started
            if len(gamefile.read(path).log) > before and not judge.store.queue("chat"):
                break
        else:
            raise SystemExit("the chat judge did not play the move")
        yield spent
    judge.close()
    link.close()
    for person in people.values():
        person.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=24)
    parser.add_argument("--pictures", action="store_true",
                        help="let both doors draw the board (the pictures extra)")
    args = parser.parse_args(argv)
    if not args.pictures:
        import referee.pictures

        referee.pictures.available = lambda: False  # type: ignore[assignment]
    from tests.matrixserver import Synapse, synapse_python

    python = synapse_python()
    if python is None:
        raise SystemExit("needs Synapse: run .ci/install-matrix.sh")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-doors-") as folder:
        tmp = Path(folder)
        os.environ["REFEREE_CACHE_DIR"] = str(tmp / "cache")
        synapse = Synapse(tmp / "synapse", python)
        synapse.start()
        try:  # one move at each door in turn, so that both meet the same machine
            mail, chat = [], []
            for m, c in zip(mail_moves(tmp, args.moves), chat_moves(tmp, args.moves, synapse),
                            strict=True):
                mail.append(m)
                chat.append(c)
            mail, chat = mail[1:], chat[1:]
        finally:
            synapse.stop()
    m, c = statistics.median(mail), statistics.median(chat)
    print(f"# {time.strftime('%Y-%m-%d')}, commit {commit}, load {os.getloadavg()[0]:.2f}, "
          f"{args.moves} moves each, pictures {'on' if args.pictures else 'off'}")
    print(f"one move, the judge's CPU (median): mail {m * 1000:.1f} ms, chat {c * 1000:.1f} ms,"
          f" chat/mail {c / m:.2f}x")


if __name__ == "__main__":
    main()
