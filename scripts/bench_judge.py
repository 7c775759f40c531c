"""Benchmark of `referee judge`: mails processed per second end to end, IMAP in and
SMTP out, over many games, with and without pictures in the same run; and the weight of
the HTML mails over whole games. Figures go in docs/speed.md.

    .venv/bin/python -m scripts.bench_judge [--games 50] [--rounds 3] [--game GAME|both]
        [--mode poll|idle|once] [--profile DIR]
    .venv/bin/python -m scripts.bench_judge --count     # mails and their weight, whole games

Starts a throwaway Dovecot and an SMTP server that delivers into its Maildirs (aiosmtpd
in a process of its own, the handler of tests/doors/mail/test_servers.py; needs dovecot-imapd,
see .ci/install-mail.sh). For each game, two judges side by side: one with the pictures
extra (HTML mails with PNG tiles of the board), one without it (resvg-py hidden, so
every mail is plain text), each with its own GAMES sealed 3-player games and its own
IMAP inbox. `referee judge --once` sends each one's start mails, then each gets one
long-running judge (``--mode poll``: ``--poll 0.05``; ``idle``: ``--idle``, which relies
on Dovecot noticing new mail at once). ROUNDS times, the two judges in turn (which one
goes first alternates), one reply per game (the player to move, a legal move) is put
into the judge's inbox at once and timed until the judge has logged them processed
(every answer already sent over SMTP): by the clock, by the judge's own CPU time from
/proc (user + system, which other work on a busy machine does not inflate), and the CPU
Dovecot and the SMTP server spent meanwhile. ``--mode once`` times a whole `referee
judge --once` process per round instead. Bytecode is written first
(PYTHONDONTWRITEBYTECODE is dropped), as an installed package has it. The run ends with
a block for docs/speed.md: each figure beside its anchor (the target, the judge without
pictures), with the date, the commit and the load. ``--profile DIR`` runs every judge
under cProfile (by CPU time, not the clock) and writes its statistics into DIR.

``--count`` plays one whole game of each game by mail (Maildir in and out, scripted
players, everyone on `turn`), then counts the mails and weighs them: the mean size of a
mail with an HTML part, of a plain one, and the total per seat.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run by path: make `scripts`, `tests` and `referee` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.doors.mail.test_servers import Delivering, Dovecot
from tests.judge.support import Player, outbox_messages, reply

ROOT = Path(__file__).resolve().parent.parent
SENDER = "Referee <referee@example.org>"


#: the judge without the pictures extra: resvg-py hidden, as if it were not installed
PLAIN = ("import sys; sys.modules['resvg_py'] = None; from referee.cli import main; "
         "sys.argv[0] = 'referee'; main()")


#: the environment of the judge processes: bytecode written, as an installed package has it
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: where --profile writes each judge process's cProfile statistics (None: no profile)
PROFILE: list[Path] = []
PROFILE_RUN = {
    True: "import sys; from referee.cli import main; sys.argv[0] = 'referee'; main()",
    False: PLAIN,
}


def judge_args(dovecot: Dovecot, games: Path, smtp_port: int, pictures: bool,
               *mode: str) -> list[str]:
    """The command line of a judge (under cProfile with --profile)."""
    start = ["-m", "referee"] if pictures else ["-c", PLAIN]
    if PROFILE:
        out = PROFILE[0] / f"judge-{'x' if pictures else 'n'}-{time.monotonic_ns()}.prof"
        start = ["-c", "import cProfile, time; profile = cProfile.Profile(time.process_time)\n"
                       f"try:\n    profile.run({PROFILE_RUN[pictures]!r})\n"
                       f"finally:\n    profile.dump_stats({str(out)!r})"]
    return [sys.executable, *start, "judge", str(games), "--imap",
            dovecot.url(INBOX[pictures]),
            "--smtp", f"127.0.0.1:{smtp_port}", "--from", SENDER, *mode]


def judge_once(dovecot: Dovecot, games: Path, smtp_port: int, pictures: bool = True
               ) -> tuple[float, float]:
    """One whole judge process: (wall seconds, its CPU seconds, user and system)."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    subprocess.run(judge_args(dovecot, games, smtp_port, pictures, "--once", "--quiet"),
                   cwd=ROOT, check=True, env=ENV)
    return time.perf_counter() - t0, _children_cpu() - cpu0


#: the IMAP user whose inbox each judge reads (both judges run side by side)
INBOX = {True: "referee", False: "gm"}

#: the judge's log lines of one mail
OUTCOMES = ("played:", "rejected:", "answered:", "command:", "ignored:")


#: how a long-running judge waits for mail: IMAP IDLE, or a look every 50 ms (Dovecot
#: wakes an IDLE session at once only where it can watch the Maildir with inotify; on a
#: machine out of inotify instances it looks every 30 s)
WAIT = {"idle": ("--idle",), "poll": ("--poll", "0.05")}


class Resident:
    """A long-running judge (``--poll`` or ``--idle``), as a deployment runs it: its log
    read line by line, its CPU time read from /proc."""

    def __init__(self, dovecot: Dovecot, games: Path, smtp_port: int, pictures: bool,
                 mode: str) -> None:
        # an automatic mail (dropped unanswered): logged as processed once the judge is up and has
        # looked at every game, which tells when it is ready
        dovecot.deliver(INBOX[pictures], b"From: probe@example.org\r\nSubject: probe\r\n"
                        b"Auto-Submitted: auto-replied\r\n\r\nhi\r\n")
        self.proc = subprocess.Popen(judge_args(dovecot, games, smtp_port, pictures,
                                                *WAIT[mode]),
                                     cwd=ROOT, env=ENV, stderr=subprocess.PIPE, text=True)
        self.processed = 0
        self.pictures = pictures
        self.stopping = False
        self._done = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        t0 = time.perf_counter()
        self.wait(1)  # the probe: handled after the judge's first look at every game
        self.start = (time.perf_counter() - t0, self.cpu())
        self.processed = 0

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            found = re.match(r"processed (\d+) mails?\b", line)
            if found:
                with self._done:
                    self.processed += int(found.group(1))
                    self._done.notify_all()
            elif not self.stopping and not line.startswith(OUTCOMES):
                print(f"  judge: {line.rstrip()}")

    def cpu(self) -> float:
        """The judge's CPU seconds so far (user and system)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait(self, processed: int, timeout: float = 600) -> None:
        """Until the judge has logged ``processed`` mails in all."""
        with self._done:
            if not self._done.wait_for(lambda: self.processed >= processed, timeout):
                raise RuntimeError(f"the judge processed {self.processed} of {processed}")

    def stop(self) -> None:
        self.stopping = True
        self.proc.send_signal(signal.SIGINT)  # (under cProfile: the statistics written)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def stamp(short: bool = False) -> str:
    """The date, the commit and the machine, for the figures' record (``short``: the
    time and the load only)."""
    import datetime as dt
    import os

    if short:
        return f"{dt.datetime.now(dt.UTC):%H:%M} UTC, load average {os.getloadavg()[0]:.1f}"
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "?"
    return (f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, commit `{commit}`, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


def count_mails(game: str, seed: int) -> dict[str, float]:
    """Play one whole sealed 3-player game by mail (Maildir in and out, scripted players,
    everyone on `turn`), count the mails and weigh them; return the weights."""
    from collections import Counter

    from referee.ledger import gamefile, replay, secret
    from tests.judge.support import STYLES, body_text, deliver
    from tests.judge.test_maildir_loop import Setup

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
    match = replay.replay(gf, secret.find_seed(gf, None, setup.path))
    moves = Counter(e["by"] for e in gf.log if "move" in e)
    sent = setup.sent()
    kinds = Counter(body_text(m).split(",")[0].split(":")[0] for m in sent)
    longest = max(len(line) for m in sent for line in body_text(m).splitlines())
    print(f"{game}: finished={match.game.finished(match.state)}, moves by player "
          f"{dict(moves)} ({sum(moves.values())}), mails {len(sent)}: "
          f"{dict(kinds)}; per player {dict(Counter(m['X-Referee-Player'] for m in sent))}; "
          f"longest line {longest}")
    return weigh(setup.outbox, game)


def weigh(outbox: Path, game: str) -> dict[str, float]:
    """The sizes of the mails in a Maildir: with an HTML part, plain, per seat."""
    from collections import defaultdict

    html, plain, seats, pictures = [], [], defaultdict(int), 0
    for path in sorted((outbox / "new").iterdir()):
        raw = path.read_bytes()
        head = raw.split(b"\n\n", 1)[0]
        player = next((line.split(b":", 1)[1].strip().decode() for line in head.splitlines()
                       if line.lower().startswith(b"x-referee-player:")), "?")
        seats[player] += len(raw)
        (html if b"text/html" in raw else plain).append(len(raw))
        pictures += raw.count(b"Content-Type: image/png")
    mean = sum(html) / max(1, len(html))
    print(f"  {game} mail weight: {len(html)} HTML mails, mean {mean / 1024:.1f} KB "
          f"(largest {max(html, default=0) / 1024:.0f} KB), {pictures} pictures; "
          f"{len(plain)} plain mails, mean {sum(plain) / max(1, len(plain)) / 1024:.1f} KB; "
          "per seat: " + ", ".join(f"{p} {n / 1024 / 1024:.2f} MB"
                                   for p, n in sorted(seats.items())))
    return {"mean": mean, "count": len(html), "bytes": sum(html)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default="both", choices=["staufer", "dynasties", "both"])
    parser.add_argument("--count", action="store_true",
                        help="only count and weigh the mails of whole games of both games")
    parser.add_argument("--no-count", action="store_true",
                        help="skip the whole games that weigh the mails")
    parser.add_argument("--mode", default="poll", choices=["poll", "idle", "once"],
                        help="poll, idle: one long-running judge (--poll 0.05, --idle) for "
                        "all rounds, as a deployment runs it; once: a whole `judge --once` "
                        "process per round")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="run each judge process under cProfile, statistics into DIR")
    args = parser.parse_args()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        PROFILE.append(args.profile.resolve())
    started = stamp()
    print(f"bench_judge: {started}")
    results = servers(args) if not args.count else {}
    weights: dict[str, dict[str, float]] = {}
    if not args.no_count:
        weights = {game: count_mails(game, 3) for game in ("staufer", "dynasties")}
        total = sum(w["bytes"] for w in weights.values()) / max(
            1, sum(w["count"] for w in weights.values()))
        print(f"HTML mails over whole games of both games: mean {total / 1024:.1f} KB a mail")
    print("\n--- for docs/speed.md ---\n")
    print(report(args, started, stamp(short=True), results, weights))


#: the issue's targets: mails a second by the clock with pictures, the most the pictures
#: may slow the judge, the most an HTML mail may weigh on average
TARGET_RATE, TARGET_SLOWER, TARGET_KB = 20.0, 2.0, 60.0


def report(args: argparse.Namespace, started: str, ended: str,
           results: dict[str, dict[bool, Figures]], weights: dict[str, dict[str, float]]
           ) -> str:
    """The run's figures as a Markdown table, each beside its anchor from the same run."""
    import platform

    how = {"poll": "one long-running `referee judge --poll 0.05`",
           "idle": "one long-running `referee judge --idle`",
           "once": "a whole `referee judge --once` process per round"}[args.mode]
    lines = [f"One run of `python -m scripts.bench_judge` ({args.games} sealed 3-player "
             f"games of each game for each judge, {args.rounds} rounds of one reply per "
             f"game, the judges with and without pictures in turn, {how} over IMAP "
             f"(Dovecot) and SMTP (aiosmtpd in its own process) on loopback): {started}; "
             f"ended {ended}; Python {platform.python_version()}.", "",
             "| | anchor (same run) | ratio | figure |", "| --- | --- | --- | --- |"]
    for game, pair in results.items():
        shown, plain = pair[True], pair[False]
        name = {"staufer": "Staufer", "dynasties": "Dynasties"}[game]
        lines += [
            f"| judge with pictures, {name}: mails a second by the clock | the target, "
            f"{TARGET_RATE:.0f} mails/s | {shown.rate / TARGET_RATE:.2f}x | "
            f"**{shown.rate:.1f} mails/s** ({shown.seconds / shown.mails * 1000:.0f} ms a mail) |",
            f"| the same, against the judge without pictures | without pictures: "
            f"{plain.rate:.1f} mails/s | **{plain.rate / shown.rate:.2f}x** slower (the target:"
            f" at most {TARGET_SLOWER:.0f}x) | |",
            f"| judge with pictures, {name}: mails per CPU-second of the judge | without "
            f"pictures: {plain.per_cpu:.1f} per CPU-second "
            f"({plain.judge_cpu / plain.mails * 1000:.0f} ms a mail) | "
            f"{plain.per_cpu / shown.per_cpu:.2f}x | {shown.per_cpu:.1f} per CPU-second "
            f"({shown.judge_cpu / shown.mails * 1000:.0f} ms a mail) |",
            f"| {name}: CPU a mail of Dovecot, of the SMTP server (with / without pictures) "
            f"| | | {shown.dovecot_cpu / shown.mails * 1000:.1f} / "
            f"{plain.dovecot_cpu / plain.mails * 1000:.1f} ms, "
            f"{shown.smtp_cpu / shown.mails * 1000:.1f} / "
            f"{plain.smtp_cpu / plain.mails * 1000:.1f} ms |"]
    if weights:
        mean = sum(w["bytes"] for w in weights.values()) / max(
            1, sum(w["count"] for w in weights.values()))
        each = ", ".join(f"{g.title()} {w['mean'] / 1024:.1f} KB" for g, w in weights.items())
        lines.append(f"| HTML mail, mean over a whole 3-player game | the target, "
                     f"{TARGET_KB:.0f} KB | {mean / 1024 / TARGET_KB:.2f}x | "
                     f"{mean / 1024:.1f} KB ({each}) |")
    return "\n".join(lines)


class SmtpProcess:
    """The bench's SMTP server (aiosmtpd, delivering each recipient into Dovecot's
    Maildir) in a process of its own, so that it shares no interpreter with the bench's
    own threads (the judge's log reader, the replies' parsing): ``count``, the mails it
    delivered so far; ``pid``, for its CPU time."""

    def __init__(self, dovecot: Dovecot) -> None:
        import multiprocessing

        from tests.conftest import free_port

        ctx = multiprocessing.get_context("fork")  # before any thread of the bench
        self.port = free_port()
        self._count = ctx.Value("q", 0)
        self._stop = ctx.Event()
        ready = ctx.Event()
        self.proc = ctx.Process(target=_smtp_serve, daemon=True,
                                args=(dovecot, self.port, self._count, ready, self._stop))
        self.proc.start()
        if not ready.wait(30):
            raise RuntimeError("the SMTP server did not start")

    @property
    def count(self) -> int:
        return int(self._count.value)

    @property
    def pid(self) -> int:
        return int(self.proc.pid or 0)

    def stop(self) -> None:
        self._stop.set()
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()


def _smtp_serve(dovecot: Dovecot, port: int, count, ready, stop) -> None:  # type: ignore[no-untyped-def]
    from aiosmtpd.controller import Controller

    class Counting(Delivering):
        async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
            answer = await super().handle_DATA(server, session, envelope)
            with count.get_lock():
                count.value += len(envelope.rcpt_tos)
            return answer

    controller = Controller(Counting(dovecot), hostname="127.0.0.1", port=port,
                            ready_timeout=10)
    controller.start()
    ready.set()
    stop.wait()
    controller.stop()


def tree_cpu(top: int) -> float:
    """The CPU seconds (user and system) of a process and its live descendants (Dovecot's
    master and its IMAP session processes)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    tree, grew = {top}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(times.get(pid, 0.0) for pid in tree)


@dataclass
class Figures:
    """One judge's rounds: mails in, seconds by the clock, CPU seconds of the judge, of
    Dovecot and of the SMTP server."""

    mails: int = 0
    seconds: float = 0.0
    judge_cpu: float = 0.0
    dovecot_cpu: float = 0.0
    smtp_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.mails / max(self.seconds, 1e-9)

    @property
    def per_cpu(self) -> float:
        return self.mails / max(self.judge_cpu, 1e-9)

    def add(self, other: Figures) -> None:
        self.mails += other.mails
        self.seconds += other.seconds
        self.judge_cpu += other.judge_cpu
        self.dovecot_cpu += other.dovecot_cpu
        self.smtp_cpu += other.smtp_cpu


def servers(args: argparse.Namespace) -> dict[str, dict[bool, Figures]]:
    dovecot = Dovecot()
    smtp = SmtpProcess(dovecot)
    results: dict[str, dict[bool, Figures]] = {}
    try:
        for game in ("staufer", "dynasties") if args.game == "both" else (args.game,):
            results[game] = run(args, dovecot, smtp, game)
            shown, plain = results[game][True], results[game][False]
            print(f"{game}: with pictures {shown.rate:.1f} mails/s ({shown.per_cpu:.1f} per "
                  f"CPU-second), without {plain.rate:.1f} mails/s ({plain.per_cpu:.1f} per "
                  f"CPU-second): {plain.rate / shown.rate:.2f}x slower with pictures by the "
                  f"clock, {plain.per_cpu / shown.per_cpu:.2f}x by the CPU ({stamp()})")
    finally:
        smtp.stop()
        dovecot.stop()
    return results


class Side:
    """One judge of a game's run, with or without pictures: its own games (new, sealed,
    the start mails sent by a `judge --once`), players, inbox and long-running judge."""

    def __init__(self, args: argparse.Namespace, dovecot: Dovecot, smtp: SmtpProcess,
                 game: str, pictures: bool) -> None:
        self.args, self.dovecot, self.smtp, self.pictures = args, dovecot, smtp, pictures
        self.games = Path(tempfile.mkdtemp(prefix="bench-judge"))
        self.label = f"{game}, {'pictures' if pictures else 'plain'}"
        prefix = f"{game[0]}{'x' if pictures else 'n'}"
        spec = ",".join(f"{p}={p.title()} <{p}@example.org>" for p in ("ann", "ben", "cat"))
        for i in range(args.games):
            subprocess.run([sys.executable, "-m", "referee", "new", game,
                            str(self.games / f"{prefix}{i:03d}.json"), "--sealed", "--id",
                            f"{prefix}{i:03d}", "--players", spec], cwd=ROOT, check=True,
                           capture_output=True, env=ENV)
        before = smtp.count
        start, start_cpu = judge_once(dovecot, self.games, smtp.port, pictures)
        print(f"{self.label}: {args.games} new games, start mails: {smtp.count - before} "
              f"mails sent in {start:.2f} s ({start_cpu:.2f} s CPU)")
        self.resident = Resident(dovecot, self.games, smtp.port, pictures, args.mode) \
            if args.mode != "once" else None
        if self.resident is not None:
            print(f"  the judge started ({' '.join(WAIT[args.mode])}) and read the "
                  f"{args.games} games in {self.resident.start[0]:.2f} s "
                  f"({self.resident.start[1]:.2f} s CPU)")
        rng = random.Random(1)
        self.players = {(f"{prefix}{i:03d}", p): Player(p, f"{p}@example.org", "top", rng,
                                                        game=f"{prefix}{i:03d}")
                        for i in range(args.games) for p in ("ann", "ben", "cat")}
        self.total = Figures()

    def round(self, rnd: int) -> None:
        """One reply per game, the player to move, a legal move: put into the judge's
        inbox at once, timed until the judge has processed them all."""
        dovecot, smtp = self.dovecot, self.smtp
        sent_before = smtp.count
        mails = {p: outbox_messages(dovecot.mail / p) for p in ("ann", "ben", "cat")}
        replies = []
        for (gid, pid), player in self.players.items():
            mail = player.turn_mail(mails[pid])
            if mail is not None:
                player.answered.add(str(mail["Message-ID"]))
                replies.append(reply(mail, player.choose(self.games / f"{gid}.json")))
        others = tree_cpu(dovecot.proc.pid), tree_cpu(smtp.pid)
        if self.resident is None:
            for raw in replies:
                dovecot.deliver(INBOX[self.pictures], raw)
            seconds, cpu = judge_once(dovecot, self.games, smtp.port, self.pictures)
        else:
            seconds, cpu = _round(dovecot, self.resident, replies, self.total.mails)
        one = Figures(len(replies), seconds, cpu, tree_cpu(dovecot.proc.pid) - others[0],
                      tree_cpu(smtp.pid) - others[1])
        self.total.add(one)
        print(f"  {self.label}, round {rnd}: {one.mails} mails in, "
              f"{smtp.count - sent_before} out, {seconds:.2f} s: {one.rate:.1f} mails/s; "
              f"judge CPU {cpu:.2f} s: {one.per_cpu:.1f} mails per CPU-second; Dovecot "
              f"{one.dovecot_cpu:.2f} s, SMTP server {one.smtp_cpu:.2f} s CPU; load "
              f"{os.getloadavg()[0]:.1f}")

    def summary(self) -> None:
        total, mode = self.total, self.args.mode
        how = f"one judge ({' '.join(WAIT[mode])}) for all rounds" if mode != "once" else \
            "a whole process per round"
        print(f"  {self.label}: {total.mails} mails processed in {total.seconds:.2f} s = "
              f"{total.rate:.1f} mails/s ({total.seconds / total.mails * 1000:.0f} ms a mail, "
              f"IMAP in, SMTP out, {how}); judge CPU {total.judge_cpu:.2f} s = "
              f"{total.per_cpu:.1f} mails per CPU-second "
              f"({total.judge_cpu / total.mails * 1000:.0f} ms a mail); Dovecot "
              f"{total.dovecot_cpu / total.mails * 1000:.1f} ms, SMTP server "
              f"{total.smtp_cpu / total.mails * 1000:.1f} ms of CPU a mail")

    def stop(self) -> None:
        if self.resident is not None:
            self.resident.stop()


def run(args: argparse.Namespace, dovecot: Dovecot, smtp: SmtpProcess, game: str
        ) -> dict[bool, Figures]:
    """The judge with pictures and the judge without, side by side over their own new
    games, their rounds alternating (the first judge of a round alternates too), so
    that both meet the same load: the mails processed, by the clock and by the CPU of
    the judge (what a busy shared machine cannot slow), of Dovecot and of the SMTP
    server."""
    sides: dict[bool, Side] = {}
    try:
        for pictures in (True, False):
            sides[pictures] = Side(args, dovecot, smtp, game, pictures)
        for rnd in range(1, args.rounds + 1):
            for pictures in (True, False) if rnd % 2 else (False, True):
                sides[pictures].round(rnd)
    finally:
        for side in sides.values():
            side.stop()
    for side in sides.values():
        side.summary()
    return {pictures: side.total for pictures, side in sides.items()}


def _round(dovecot: Dovecot, resident: Resident, replies: list[bytes], before: int
           ) -> tuple[float, float]:
    """Put a round's replies into the judge's inbox at once (written into ``tmp/``, then
    moved into ``new/``) and wait until the running judge has processed them: (wall
    seconds, the judge's CPU seconds)."""
    box = dovecot.mail / INBOX[resident.pictures]
    names = []
    for raw in replies:
        name = f"{time.time_ns()}.{hashlib.sha256(raw).hexdigest()[:16]}.smtp"
        (box / "tmp" / name).write_bytes(raw)
        if os.geteuid() == 0:
            os.chown(box / "tmp" / name, dovecot.uid, dovecot.gid)
        names.append(name)
    t0, cpu0 = time.perf_counter(), resident.cpu()
    for name in names:
        os.replace(box / "tmp" / name, box / "new" / name)
    resident.wait(before + len(replies))
    return time.perf_counter() - t0, resident.cpu() - cpu0


if __name__ == "__main__":
    main()
