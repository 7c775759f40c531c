"""Benchmark of `referee judge`: mails processed per second end to end, IMAP in and
SMTP out, over many games. Figures go in notes/judge.md (and the README).

    .venv/bin/python -m scripts.bench_judge [--games 50] [--rounds 3] [--game staufer]

Starts a throwaway Dovecot and an SMTP server that delivers into it (the classes of
tests/test_judge_servers.py; needs dovecot-imapd, see .ci/install-mail.sh), makes GAMES
sealed 3-player games, lets `referee judge --once` send the start mails, then ROUNDS
times puts one reply per game (the player to move, a legal move) into the judge's IMAP
inbox and times one `referee judge --imap ... --smtp ... --once` run that processes
them: a whole process (start, imports, IMAP, every game replayed, SMTP) per round.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.test_judge_servers import Delivering, Dovecot
from tests.test_judge_support import Player, outbox_messages, reply

ROOT = Path(__file__).resolve().parent.parent
SENDER = "Referee <referee@example.org>"


def judge_once(dovecot: Dovecot, games: Path, smtp_port: int) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "referee", "judge", str(games), "--imap",
                    dovecot.url("referee"), "--smtp", f"127.0.0.1:{smtp_port}", "--from",
                    SENDER, "--once", "--quiet"], cwd=ROOT, check=True)
    return time.perf_counter() - t0


def count_mails(game: str, seed: int) -> None:
    """Play one whole sealed 3-player game by mail (Maildir in and out, scripted players,
    everyone on `turn`) and count the mails."""
    from collections import Counter

    from referee import gamefile, secret
    from tests.test_judge import Setup
    from tests.test_judge_support import STYLES, body_text, deliver

    setup = Setup(Path(tempfile.mkdtemp(prefix="count-judge")), game=game, gid=f"{game}-1")
    rng = random.Random(seed)
    players = [Player(p, f"{p}@example.org", STYLES[i], rng)
               for i, p in enumerate(("ann", "ben", "cat"))]
    setup.judge()
    while True:
        replies = [r for p in players if (r := p.act(setup.sent(), setup.path)) is not None]
        if not replies:
            break
        for raw in replies:
            deliver(setup.inbox, raw)
        setup.judge()
    gf = gamefile.read(setup.path)
    match = gamefile.replay(gf, secret.find_seed(gf, None, setup.path))
    moves = Counter(e["by"] for e in gf.log if "move" in e)
    sent = setup.sent()
    kinds = Counter(body_text(m).split(",")[0].split(":")[0] for m in sent)
    longest = max(len(line) for m in sent for line in body_text(m).splitlines())
    print(f"{game}: finished={match.game.finished(match.state)}, moves by player "
          f"{dict(moves)} ({sum(moves.values())}), mails {len(sent)}: "
          f"{dict(kinds)}; per player {dict(Counter(m['X-Referee-Player'] for m in sent))}; "
          f"longest line {longest}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default="staufer")
    parser.add_argument("--count", action="store_true",
                        help="instead: count the mails of whole games of both games")
    args = parser.parse_args()
    if args.count:
        for game in ("staufer", "dynasties"):
            count_mails(game, 3)
        return
    from aiosmtpd.controller import Controller

    from tests.conftest import free_port

    dovecot = Dovecot()
    handler = Delivering(dovecot)
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        run(args, dovecot, port, handler)
    finally:
        controller.stop()
        dovecot.stop()


def run(args: argparse.Namespace, dovecot: Dovecot, port: int, handler: Delivering) -> None:
    games = Path(tempfile.mkdtemp(prefix="bench-judge"))
    spec = ",".join(f"{p}={p.title()} <{p}@example.org>" for p in ("ann", "ben", "cat"))
    for i in range(args.games):
        subprocess.run([sys.executable, "-m", "referee", "new", args.game,
                        str(games / f"g{i:03d}.json"), "--sealed", "--id", f"g{i:03d}",
                        "--players", spec], cwd=ROOT, check=True, capture_output=True)
    start = judge_once(dovecot, games, port)
    print(f"{args.game}: {args.games} new games, start mails: {handler.count} mails sent "
          f"in {start:.2f} s")
    rng = random.Random(1)
    players = {(f"g{i:03d}", p): Player(p, f"{p}@example.org", "top", rng, game=f"g{i:03d}")
               for i in range(args.games) for p in ("ann", "ben", "cat")}
    total_in, total_s = 0, 0.0
    for rnd in range(1, args.rounds + 1):
        sent_before = handler.count
        mails = {p: outbox_messages(dovecot.mail / p) for p in ("ann", "ben", "cat")}
        count = 0
        for (gid, pid), player in players.items():
            mail = player.turn_mail(mails[pid])
            if mail is not None:
                player.answered.add(str(mail["Message-ID"]))
                path = games / f"{gid}.json"
                dovecot.deliver("referee", reply(mail, player.choose(path)))
                count += 1
        seconds = judge_once(dovecot, games, port)
        total_in, total_s = total_in + count, total_s + seconds
        print(f"round {rnd}: {count} mails in, {handler.count - sent_before} out, "
              f"{seconds:.2f} s: {count / seconds:.1f} mails/s")
    print(f"overall: {total_in} mails processed in {total_s:.2f} s = "
          f"{total_in / total_s:.1f} mails/s ({total_s / total_in * 1000:.0f} ms a mail, "
          f"IMAP in, SMTP out, whole process per round)")


if __name__ == "__main__":
    main()
