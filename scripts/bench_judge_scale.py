"""Scale bench of the mail judge: does handling one incoming mail cost the same beside 50
idle games as beside 10,000? Figures go in docs/speed.md ("One judge mail against the
archive").

    .venv/bin/python -m scripts.bench_judge_scale [--sizes 50,500,2000,10000] [--rounds 3]
        [--first-pass-up-to 2000]

For each size, in a process of its own (so that its peak memory is its own), it builds
a games directory of that many games with the builders of scripts/bench_scale.py (copies
of the example files under fresh ids, every other one cut short so that it is still
running; the players of one running game given addresses), lets an in-process judge
(``MailJudge`` over a Maildir inbox and an outbox that keeps only the mails of one game)
take its first look at all of them (timed for sizes up to ``--first-pass-up-to``), then
ROUNDS times puts into the inbox one reply that plays one legal move
in one running game and times :func:`referee.doors.mail.run.run_once` over it: what a
long-running judge (``referee judge --poll``) does per look: deliver the queue, sweep,
handle the mail (its answers queued, the state saved, the answers sent), sweep again,
save. Reported: the best of ROUNDS, the process's peak memory (``ru_maxrss``, the first
pass included), the ratio to the smallest size and the exponent of time against size
fitted on a log-log scale.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run by path: make `scripts`, `tests` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.doors.mail import MailJudge as Judge
from referee.doors.mail import run_once
from referee.doors.mail.transport import MaildirInbox
from referee.engine import legal_strings
from referee.judge import Config
from referee.ledger import gamefile, replay
from scripts.bench_scale import EXAMPLES, ROOT, exponent, game_copy
from tests.judge.support import deliver, parse, reply

SENDER = "Referee <referee@example.org>"


class Keeping:
    """An outbox that keeps the mails of one game (the one the bench plays in) and drops
    the others: delivering costs nothing, as with a fast local MTA."""

    def __init__(self) -> None:
        self.game: str | None = None
        self.kept: list[EmailMessage] = []

    def deliver(self, msgid: str, recipients: list[str], raw: bytes) -> list[str]:
        if (self.game is not None and f"X-Referee-Game: {self.game}\r\n".encode() in raw) \
                or (self.game is not None and f"X-Referee-Game: {self.game}\n".encode() in raw):
            self.kept.append(parse(raw))
        return []

    def close(self) -> None:
        return None


def templates(addresses: bool) -> list[dict[str, Any]]:
    """The example games; with ``addresses``, each player given one (the judge mails them)."""
    out = []
    for path in EXAMPLES:
        data = json.loads(path.read_bytes())
        if addresses:
            data["players"] = [{**p, "email": f"{p['id']}@example.org"}
                               for p in data["players"]]
        out.append(data)
    return out


def make_games(games: Path, n: int) -> str:
    """``n`` games in ``games``; returns the id of the one running game in the middle
    whose players have addresses (the others' have none: the first pass then replays
    each game and keeps its state without writing three mails for it)."""
    plain, mailed = templates(False), templates(True)
    target = None
    for i in range(n):
        data, rest = game_copy(plain[i % len(plain)], i)
        if target is None and len(rest) > 10 and i >= n // 2:
            data, rest = game_copy(mailed[i % len(mailed)], i)
            target = str(data["id"])
        (games / f"{data['id']}.json").write_text(gamefile.dumps(data))
    assert target is not None
    return target


def a_move(games: Path, gid: str, kept: list[EmailMessage]) -> bytes:
    """A reply to the newest mail of ``gid`` asking someone to decide, with a legal move."""
    path = games / f"{gid}.json"
    match = replay.replay(gamefile.read(path), None)
    for msg in reversed(kept):
        player = str(msg["X-Referee-Player"])
        if str(msg.get_body(("plain",)).get_content()).startswith(f"Your turn, {player}"):
            legal = sorted(legal_strings(match.game, match.state, player))
            return reply(msg, legal[0], "plain")
    raise SystemExit(f"no turn mail in {gid}")


def child(n: int, rounds: int, first_up_to: int) -> dict[str, Any]:
    """Build ``n`` games, first pass, ROUNDS timed mails: the figures of one size."""
    with tempfile.TemporaryDirectory(prefix="bench-judge-scale-") as tmp:
        games, inbox = Path(tmp) / "games", Path(tmp) / "in"
        games.mkdir()
        for sub in ("new", "cur", "tmp"):
            (inbox / sub).mkdir(parents=True)
        started = time.perf_counter()
        gid = make_games(games, n)
        built = time.perf_counter() - started
        outbox = Keeping()
        outbox.game = gid
        judge = Judge(Config(games, SENDER), outbox)
        box = MaildirInbox(inbox)
        started = time.perf_counter()
        run_once(judge, box)  # the first look: every game's start mails
        first = time.perf_counter() - started
        times = []
        for _ in range(rounds):
            deliver(inbox, a_move(games, gid, outbox.kept))
            before = len(gamefile.read(games / f"{gid}.json").log)
            started = time.perf_counter()
            stats = run_once(judge, box)
            times.append(time.perf_counter() - started)
            assert stats.played == 1, stats.summary()
            assert len(gamefile.read(games / f"{gid}.json").log) > before
        return {"games": n, "built": built, "first": first if n <= first_up_to else None,
                "mail": min(times), "maxrss_kib": resource.getrusage(
                    resource.RUSAGE_SELF).ru_maxrss}


def report(rows: Sequence[dict[str, Any]]) -> list[str]:
    fit = exponent([r["games"] for r in rows], [r["mail"] for r in rows])
    lines = [f"one mail (run_once, warm judge): exponent {fit:.2f}"]
    lines += [f"  {r['games']:>6} games  {r['mail'] * 1000:7.1f} ms  "
              f"{r['mail'] / rows[0]['mail']:5.2f}x  peak {r['maxrss_kib'] / 1024:6.1f} MiB"
              for r in rows]
    firsts = [r for r in rows if r["first"] is not None]
    if firsts:
        fit = exponent([r["games"] for r in firsts], [r["first"] for r in firsts])
        lines.append(f"first pass (the judge's first look at N new games): exponent {fit:.2f}")
        lines += [f"  {r['games']:>6} games  {r['first']:8.2f} s  "
                  f"{r['first'] / r['games'] * 1000:6.1f} ms a game" for r in firsts]
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="50,500,2000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--first-pass-up-to", type=int, default=2000)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.rounds, args.first_pass_up_to)))
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        out = subprocess.run([sys.executable, "-m", "scripts.bench_judge_scale", "--child",
                              str(n), "--rounds", str(args.rounds), "--first-pass-up-to",
                              str(args.first_pass_up_to)], cwd=ROOT, check=True,
                             stdout=subprocess.PIPE, text=True, env={
                                 **os.environ, "PYTHONPATH": str(ROOT)}).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
        row = rows[-1]
        first = "" if row["first"] is None else f", first pass {row['first']:.2f} s"
        print(f"{n} games: built in {row['built']:.1f} s{first}, one mail "
              f"{row['mail'] * 1000:.1f} ms (load {os.getloadavg()[0]:.2f})", flush=True)
    print(f"# {time.strftime('%Y-%m-%d')}, commit {commit}, load {os.getloadavg()[0]:.2f}, "
          f"{len(os.sched_getaffinity(0))} cores, best of {args.rounds}")
    for line in report(rows):
        print(line)


if __name__ == "__main__":
    main()
