"""Every door of the judge held to the same promises, each through its own transport.

Each test runs once per door (mail, chat, toy, github: drivers.py) on the same sealed
Staufer game of three seats and one seed (a test that cannot apply to a door is skipped
with the driver's reason):

1. a text is handled once across a kill -9 and a restart: the move is in the log once,
   under the text's reference, and the mover is told of it once;
2. one item the transport refuses for good stays one: the other seats are told, a move
   by another seat is played within two passes, and the refusal is not tried again;
3. a seat's private lines reach neither the table nor another seat (and reach the seat,
   where the door has a place for it alone);
4. whatever a seat types (1,999 control characters; 2,000 letters of 4 bytes each), the
   pass completes and every answer is bounded in bytes and repeats at most ECHO_MAX
   characters of the text in a row;
5. the same mistake (a move word misspelt by the seat to move) gets the same rejection
   lines at every door, the lines the engine's refusal gives.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee import engine
from referee.errors import MoveError
from referee.judge.readings import ECHO_MAX
from tests.doorconformance.drivers import (
    DRIVERS,
    REFUSED,
    SEATS,
    Driver,
    first_legal,
    game_log,
    game_state,
    only_theirs,
    private_lines,
    to_move,
)
from tests.leaks import leaks

CONTROL = "\x01" * 1999  # a text of control characters, one short of the chat door's bound
WIDE = "\U00010400" * 2000  # DESERET CAPITAL LONG I: a letter of 4 bytes in UTF-8


@pytest.fixture
def door(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Driver]:
    """The driver of the door named by the test's parameter (chat: the session's Synapse,
    which skips on a machine without it and fails under CI=true)."""
    driver = DRIVERS[request.param](request, tmp_path)
    reason = driver.not_applicable.get(request.node.originalname)
    if reason is not None:
        pytest.skip(f"{driver.name}: {reason}")
    try:
        yield driver
    finally:
        driver.close()


# (the chat door runs against a real Synapse: slow, out of the fast loop)
each_door = pytest.mark.parametrize(
    "door", [pytest.param(name, marks=pytest.mark.slow) if name == "chat" else name
             for name in DRIVERS], indirect=True)


def played_line(mover: str, move: str) -> str:
    """How a message tells that ``mover`` played ``move`` (the events since the reader's
    last message)."""
    return f"{mover} played: {move}"


# --------------------------------------------------------------------------- 1


@each_door
def test_a_text_is_handled_once_across_a_kill_9_and_a_restart(door: Driver) -> None:
    door.setup()
    mover = to_move(door.path)
    move = first_legal(door.path, mover)
    before = game_log(door.path)
    seen, table_seen = len(door.received(mover)), len(door.table())
    ref = door.kill_after_move(mover, move)  # (returns with the move in the file)
    door.judge()
    door.judge()
    log = game_log(door.path)
    entries = [e for e in log if e.get(door.field) == ref]
    assert len(entries) == 1, f"the text's reference {ref} in {len(entries)} log entries"
    assert entries[0]["by"] == mover
    assert len(log) == len(before) + 1, "something was played twice"
    after = [m.body for m in door.received(mover)[seen:]]
    told = [body for body in after if played_line(mover, move) in body]
    assert len(told) == 1, f"{mover} was told of the move {len(told)} times: " \
        f"{[body[:300] for body in after]}"
    # the text handed again after the kill is known, not read as a second (refused) move
    refused = [body[:300] for body in after if "not accepted" in body or "Not played" in body]
    assert not refused, f"the text was handled twice: {refused}"
    if door.has_table:
        shown = [m for m in door.table()[table_seen:] if played_line(mover, move) in m.body]
        assert len(shown) == 1, f"the table showed the move {len(shown)} times"


# --------------------------------------------------------------------------- 2


@each_door
def test_one_refused_item_stays_one(door: Driver) -> None:
    door.setup(refuse=True)
    first = door.logs[-1]
    assert len(door.refusals(first)) == 1, f"the transport refused not once:\n{first}"
    others = [seat for seat in SEATS if seat != REFUSED]
    for seat in others:
        assert door.received(seat), f"{seat} was not told of the game"
    if door.has_table:
        assert door.table(), "the table shows nothing"
    mover = to_move(door.path)
    assert mover != REFUSED
    move = first_legal(door.path, mover)
    before = len(game_log(door.path))
    seen = {seat: len(door.received(seat)) for seat in others}
    ref = door.send(mover, move)
    for _ in range(2):
        door.judge()
        if len(game_log(door.path)) > before:
            break
    assert [e.get(door.field) for e in game_log(door.path)[before:]] == [ref], \
        f"the move was not played within two passes:\n{door.logs[-2:]}"
    for seat in others:
        assert any(played_line(mover, move) in m.body
                   for m in door.received(seat)[seen[seat]:]), f"{seat} was not told"
    after = to_move(door.path)
    assert any("Your turn" in m.body for m in door.received(after)[seen[after]:])
    door.judge()
    again = [line for output in door.logs[1:] for line in door.refusals(output)]
    assert not again, f"the refused item was tried again: {again}"


# --------------------------------------------------------------------------- 3


@each_door
def test_private_text_is_shown_only_in_private_places(door: Driver) -> None:
    door.setup()
    snapshots = [private_lines(door.path)]
    for turn in range(3):
        mover = to_move(door.path)
        before = len(game_log(door.path))
        door.send(mover, first_legal(door.path, mover))
        door.judge()
        assert len(game_log(door.path)) == before + 1, f"turn {turn}: {door.logs[-1]}"
        snapshots.append(private_lines(door.path))
    theirs = only_theirs(snapshots)
    texts = {seat: "\n".join(m.everything for m in door.received(seat)) for seat in SEATS}
    table = "\n".join(m.everything for m in door.table())
    assert bool(table) == door.has_table
    for seat in SEATS:
        assert theirs[seat], f"{seat}'s view has no line of its own"
        if door.private_place:  # (a door without one shows them nowhere: checked below)
            assert any(line in texts[seat] for line in theirs[seat]), \
                f"{seat} never saw its own private lines"  # (the check reads the right text)
        for other in SEATS:
            if other != seat:
                shown = sorted(line for line in theirs[seat] if line in texts[other])
                assert not shown, f"{other} was shown {seat}'s private lines: {shown}"
        shown = sorted(line for line in theirs[seat] if line in table)
        assert not shown, f"the table showed {seat}'s private lines: {shown}"
    _, match = game_state(door.path)
    assert not leaks(table, engine.hidden_items(match.game, match.state, None))
    for seat in SEATS:
        hidden = engine.hidden_items(match.game, match.state, seat)
        assert not leaks(texts[seat], hidden), f"{seat} was shown what it may not see"


# --------------------------------------------------------------------------- 4


@each_door
def test_answers_are_bounded_in_bytes_whatever_a_seat_types(door: Driver) -> None:
    door.setup()
    seat = to_move(door.path)
    before = game_log(door.path)
    seen, table_seen = len(door.received(seat)), len(door.table())
    for typed in (CONTROL, WIDE):
        door.send(seat, typed, place="seat")
        if door.has_table:
            door.send(seat, typed)
    door.judge()
    assert game_log(door.path) == before
    answers = door.received(seat)[seen:]
    assert len(answers) >= 2, f"not every text was answered: {door.logs[-1]}"
    for m in [*answers, *door.table()[table_seen:]]:
        assert m.size <= door.limit, f"a message of {m.size} bytes: {m.body[:300]!r}"
        unwrapped = "".join(m.everything.split())  # (a long run is wrapped over lines)
        for char in ("\x01", "\ufffd", "\U00010400"):
            assert char * (ECHO_MAX + 1) not in unwrapped, \
                f"more than {ECHO_MAX} of {char!r} repeated: {m.body[:300]!r}"
    move = first_legal(door.path, seat)
    ref = door.send(seat, move)  # nothing was stopped: the seat still plays
    door.judge()
    assert [e.get(door.field) for e in game_log(door.path)[len(before):]] == [ref]


# --------------------------------------------------------------------------- 5

#: the rejection lines the first door answered (door, lines): every other door's must match
REJECTIONS: dict[str, tuple[str, list[str]]] = {}


def expected_rejection(path: Path, player: str, line: str) -> list[str]:
    """The core lines of the answer to ``line`` refused, from the engine's refusal."""
    _, match = game_state(path)
    with pytest.raises(MoveError) as refused:
        engine.resolve_move(match.game, match.state, player, line)
    exc = refused.value
    assert exc.legal, "the engine names no closest legal moves"
    return [f"Line 1 `{line}` was not accepted: {exc.message}",
            f"Closest legal moves: {', '.join(exc.legal)}"]


def rejection_lines(body: str) -> list[str]:
    """The lines of ``body`` that say why a line was refused and what is closest, each
    with its wrapped continuation, whitespace made single."""
    lines = body.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.startswith(("Line 1 `", "Closest legal moves:")):
            parts = [line]
            for more in lines[i + 1:]:
                if not more.startswith(" ") or not more.strip():
                    break
                parts.append(more)
            found.append(" ".join(" ".join(parts).split()))
    return found


@each_door
def test_a_misspelt_move_word_gets_the_same_rejection_at_every_door(door: Driver) -> None:
    door.setup()
    mover = to_move(door.path)
    word, *rest = first_legal(door.path, mover).split()
    typo = " ".join([word[0] + word[2:], *rest])  # a letter dropped: `spply 1`
    expected = expected_rejection(door.path, mover, typo)
    before = game_log(door.path)
    seen = len(door.received(mover))
    door.send(mover, typo)
    door.judge()
    assert game_log(door.path) == before
    answers = door.received(mover)[seen:]
    assert len(answers) == 1, f"{len(answers)} answers: {door.logs[-1]}"
    got = rejection_lines(answers[0].body)
    assert got == [" ".join(line.split()) for line in expected], answers[0].body
    assert f"{word} " in got[1], f"the closest moves do not spell `{word}`: {got[1]}"
    first, lines = REJECTIONS.setdefault("lines", (door.name, got))
    assert lines == got, f"{door.name} answers otherwise than {first}"
