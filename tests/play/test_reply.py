"""A player's message played: one use-case for `move --from-email` and the judge
(referee/play/reply.py). Both fronts go through it; its steps come in one order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.errors import MoveError, RefereeError, UsageError
from referee.ledger import gamefile
from referee.play import reply as reply_case
from referee.play.reply import play_message
from referee.play.submit import BotMove, Submission
from tests.conftest import run
from tests.judge.support import deliver, reply
from tests.judge.test_maildir_loop import Setup


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every submit the use-case makes, by the player identified."""
    real = reply_case.submit
    seen: list[str] = []

    def counting(*args: Any, **kwargs: Any) -> Submission:
        done = real(*args, **kwargs)
        seen.append(done.player)
        return done

    monkeypatch.setattr(reply_case, "submit", counting)
    return seen


def test_move_from_email_and_the_judge_play_through_the_one_use_case(
        tmp_path: Path, submitted: list[str]) -> None:
    setup = Setup(tmp_path)
    setup.judge()  # the first mails
    raw = tmp_path / "ann.eml"
    raw.write_bytes(reply(setup.latest("ann"), "take 1", msgid="<cli@player.example>"))
    result = run("move", setup.path, "--from-email", raw)
    assert result.exit_code == 0, result.output
    assert "ann: take 1" in result.output
    assert submitted == ["ann"]
    setup.judge()  # tells ben it is his turn
    deliver(setup.inbox, reply(setup.latest("ben"), "take 2", msgid="<judge@player.example>"))
    setup.judge()
    assert submitted == ["ann", "ben"]
    assert [e["by"] for e in gamefile.read(setup.path).log] == ["ann", "ben"]


class Recorded:
    """A front door's message that records the steps it is asked for."""

    def __init__(self, player: str, moves: list[str], refuse: RefereeError | None = None
                 ) -> None:
        self.player, self.moves, self.refuse = player, moves, refuse
        self.steps: list[str] = []

    def identify(self, gf: gamefile.GameFile, seed: str | None
                 ) -> tuple[str, list[str], dict[str, Any]]:
        self.steps.append("identify")
        if self.refuse is not None:
            raise self.refuse
        return self.player, self.moves, {}

    def refused(self, exc: MoveError, index: int) -> None:
        self.steps.append(f"refused {index}")

    def not_played(self, exc: RefereeError) -> None:
        self.steps.append(f"not played: {exc.message}")

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        self.steps.append(f"played {len(done.accepted)}")


def test_the_steps_come_in_one_order(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    first = Recorded("ann", ["take 1", "take 99"])
    found = play_message(setup.path, first, keep_partial=True)
    # the accepted move told first, the failing line answered after it
    assert first.steps == ["identify", "played 1", "refused 1"]
    assert found.done is not None and len(gamefile.read(setup.path).log) == 1
    wrong = Recorded("ben", ["take 99"])
    assert play_message(setup.path, wrong).done is None
    assert wrong.steps == ["identify", "refused 0"]
    stale = Recorded("ben", ["take 1"], refuse=UsageError("stale"))
    assert play_message(setup.path, stale).done is None
    assert stale.steps == ["identify", "not played: stale"]
    assert len(gamefile.read(setup.path).log) == 1  # nothing refused was written
