"""Plans by mail: the judge's `plan` command, a planned bonus chest pick played when
another player's move raises it, a conditional line dropped and told, and the other
players' mails never showing a plan (a sealed game, driven over Maildir)."""

from __future__ import annotations

from pathlib import Path

from referee.ledger import gamefile
from tests import leaks
from tests import plangames as pg
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup

PLAYERS = "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>,cat=Cat <cat@example.org>"
SEED = "judge-seed"


def _fresh(setup: Setup, pid: str):  # type: ignore[no-untyped-def]
    """A mail of ``pid``'s that answers the latest state (asking for the status)."""
    setup.send(reply(setup.latest(pid), "status"))
    return setup.latest(pid)


def _answer(mails: list) -> str:  # type: ignore[type-arg]
    """The body of the judge's answer to a plan command among the mails it sent."""
    return next(body_text(m) for m in mails if "Your plan" in body_text(m)
                or "You have no plan in force" in body_text(m))


def test_a_plan_by_mail_answers_an_out_of_turn_pick_and_stays_secret(tmp_path: Path) -> None:
    setup = Setup(tmp_path, game="staufer", gid="st-1", players=PLAYERS)
    setup.judge()
    mover, move, owing = pg.play_until(setup.path, "p0", pg.raised(("pick",)), seed=SEED)
    match = pg.state(setup.path, SEED)
    game = match.game
    picker = next(p for p in owing if p != mover)
    other = next(m for m in game.legal_moves(match.state, mover) if m != move)
    after = game.copy_state(match.state)
    game.apply(after, mover, move)
    pick = game.format_move(game.legal_moves(after, picker)[-1])
    dropped = f"if {mover} {game.format_move(other)} then done"
    setup.judge()
    setup.new_mail()

    told = _answer(setup.send(reply(_fresh(setup, picker), f"plan\n{dropped}\n{pick}")))
    assert "Your plan is set." in told and pick in told and "sealed to the referee" in told
    record = gamefile.read(setup.path).log[-1]
    assert record["by"] == picker and "sealed" in record["meta"]

    setup.send(reply(_fresh(setup, mover), pg.text(match, move)))
    log = gamefile.read(setup.path).log
    planned = log[-1]
    assert planned["by"] == picker and planned["plan"] == record["n"]
    assert planned["move"] == {"type": "pick", "chest": pick.split()[1]}

    mails = setup.sent()
    mine = body_text(setup.latest(picker))
    assert f"Entry {planned['n']} was played from your plan" in mine
    assert f"Your plan line `{dropped}` was dropped" in mine
    assert f"{planned['n']}. {picker} played: {pick} (planned)" in mine
    for msg in mails:
        if msg["X-Referee-Player"] != picker:
            text = body_text(msg)
            assert not leaks.found(dropped, text) and "set your plan" not in text

    withdrawn = _answer(setup.send(reply(_fresh(setup, picker), "plan --clear")))
    assert "Your plan is withdrawn." in withdrawn
    assert "You have no plan in force." in _answer(setup.send(reply(_fresh(setup, picker), "plan")))

