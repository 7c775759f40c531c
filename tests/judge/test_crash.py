"""Exactly once: the judge is killed (SIGKILL) at random moments during a scripted game
and restarted; no move is lost or doubled and no mail is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.ledger import gamefile, replay
from tests.judge.support import STYLES, Player, body_text, deliver, outbox_messages
from tests.judge.test_maildir_loop import SENDER, Setup
from tests.support.judgestate import read_state

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ("from referee.engine import register; register('toy', 'tests.toygame'); "
         "from referee.cli import main; main()")


def start(setup: Setup) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", JUDGE, "judge", str(setup.games), "--maildir",
         str(setup.inbox), "--outbox", str(setup.outbox), "--from", SENDER, "--poll", "0.02",
         "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_kill_9_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    setup = Setup(tmp_path, extra=("--option", "pile=21"))
    rng = random.Random(2026)
    players = [Player(p, f"{p}@example.org", STYLES[i], rng)
               for i, p in enumerate(("ann", "ben", "cat"))]
    judge = start(setup)
    kills, sent_replies = 0, 0
    # kill when the game reaches these numbers of replies sent, after a random delay (so
    # at a random moment of the judge's work on that mail), whatever the machine's speed
    kill_at = sorted(rng.sample(range(1, 8), 4))
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            if kill_at and sent_replies >= kill_at[0]:
                kill_at.pop(0)
                time.sleep(rng.uniform(0.0, 0.4))
                os.kill(judge.pid, signal.SIGKILL)
                judge.wait()
                kills += 1
                judge = start(setup)
            messages = outbox_messages(setup.outbox) if setup.outbox.exists() else []
            over = {str(m["X-Referee-Player"]) for m in messages
                    if body_text(m).startswith("Game over")}
            if over == {"ann", "ben", "cat"}:
                break
            for player in players:
                raw = player.act(messages, setup.path)
                if raw is not None:
                    deliver(setup.inbox, raw)
                    sent_replies += 1
            time.sleep(0.02)
    finally:
        judge.send_signal(signal.SIGTERM)
        judge.wait(10)
    assert kills == 4
    gf = gamefile.read(setup.path)
    match = replay.replay(gf, "judge-seed")
    assert match.game.finished(match.state), f"game stuck after {kills} kills"
    moves = [e for e in gf.log if "move" in e]
    mails = [e["mail"] for e in moves]
    assert len(mails) == len(set(mails)) == sent_replies  # every reply played exactly once
    messages = outbox_messages(setup.outbox)
    msgids = [str(m["Message-ID"]) for m in messages]
    assert len(msgids) == len(set(msgids))
    # every decision the game asked for was mailed: one "Your turn" per move at least
    turns = [m for m in messages if body_text(m).startswith("Your turn")]
    assert len(turns) >= len(moves)
    assert not list((setup.inbox / "new").iterdir())
    state = read_state(setup.games)
    assert state["queue"] == []
