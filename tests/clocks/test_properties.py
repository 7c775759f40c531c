"""Property tests of the clock arithmetic (referee/clocks/clock.py, hypothesis): over random
timelines (turns that pass between seats after random delays, vacations, weekend pauses,
a referee that writes a timeout when one is due, as the judge and `tick` do), no bank
ever goes negative, a seat is never out of time without a timeout following, replaying
the log gives the same banks after every prefix, and charged time adds up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.clocks import clock

DAY, HOUR = clock.DAY, clock.HOUR
T0 = clock.seconds("2026-12-01T09:00:00Z")
PLAYERS = ["ann", "ben", "cat"]

step = st.one_of(
    st.tuples(st.just("turn"), st.integers(0, 4 * DAY),
              st.lists(st.sampled_from(PLAYERS), min_size=1, max_size=3, unique=True)),
    st.tuples(st.just("vacation"), st.integers(0, DAY), st.sampled_from(PLAYERS),
              st.integers(1, 3)),
    st.tuples(st.just("wait"), st.integers(0, 3 * DAY)),
)
controls = st.builds(
    lambda bank, inc, extra, vac, pause: {
        "bank": bank, "increment": inc, "cap": bank + extra, "vacation": vac,
        "timeout": "bot", **({"pause": "weekends"} if pause else {})},
    st.integers(HOUR, 3 * DAY), st.integers(0, DAY), st.integers(0, 2 * DAY),
    st.integers(0, 4), st.booleans())


def simulate(ctl: dict, steps: list) -> tuple[list[clock.Event], list[dict[str, int]]]:
    """Run a game's clock event by event, as a referee would: before each step, a
    timeout for every seat whose time ran out (the bot then ends its turn); keep the
    banks after each event."""
    events: list[clock.Event] = []
    awaited: tuple[str, ...] = ("ann",)
    clocks = clock.start(ctl, PLAYERS, T0, awaited, set())
    t = T0
    banks: list[dict[str, int]] = []
    taken = dict.fromkeys(PLAYERS, 0)

    def add(event: clock.Event) -> None:
        nonlocal awaited
        clock.apply(clocks, event, event.t or t)
        events.append(event)
        awaited = event.awaited
        banks.append({p: s.bank for p, s in clocks.seats.items()})
        for seat in clocks.seats.values():
            assert seat.bank >= 0

    for item in steps:
        t += item[1]
        settled = False
        for _ in range(6):  # the referee times out whoever ran out (with no increment
            # an empty bank runs out again at its next turn: a few rounds are enough)
            due_now = [(due, pid) for pid in clocks.running()
                       if (due := clocks.due(pid)) is not None and due <= t
                       and not clocks.seats[pid].timed_out]
            if not due_now:
                settled = True
                break
            due, pid = min(due_now)
            add(clock.Event(len(events) + 1, max(due, clocks.at), "gm",
                            {"kind": "timeout", "player": pid}, awaited, True))
            rest = tuple(p for p in awaited if p != pid) or (next_of(pid),)
            add(clock.Event(len(events) + 1, max(due, clocks.at), pid, None, rest, True))
        clocks.advance(t)
        for pid in clocks.running() if settled else ():  # nobody is out of time unseen
            seat = clocks.seats[pid]
            assert seat.out is None or seat.out > t - 1 or seat.timed_out
        if item[0] == "turn":
            add(clock.Event(len(events) + 1, t, awaited[0], None, tuple(item[2]), True))
        elif item[0] == "vacation":
            pid, days = item[2], item[3]
            if taken[pid] + days <= ctl["vacation"]:
                taken[pid] += days
                add(clock.Event(len(events) + 1, t, pid,
                                {"kind": "vacation", "player": pid, "days": days},
                                awaited, True))
    return events, banks


def next_of(pid: str) -> str:
    return PLAYERS[(PLAYERS.index(pid) + 1) % len(PLAYERS)]


@settings(max_examples=150, deadline=None)
@given(controls, st.lists(step, max_size=40))
def test_no_bank_goes_negative_and_replaying_gives_the_same_banks(ctl: dict,
                                                                  steps: list) -> None:
    events, banks = simulate(ctl, steps)
    for i in range(len(events)):
        again = clock.fold(ctl, PLAYERS, T0, ("ann",), set(), events[:i + 1])
        assert {p: s.bank for p, s in again.seats.items()} == banks[i]
        for seat in again.seats.values():
            assert 0 <= seat.bank <= ctl["cap"] or seat.bank == ctl["bank"]
            assert 0 <= seat.vacation_left <= ctl["vacation"]


@settings(max_examples=200, deadline=None)
@given(st.integers(T0, T0 + 60 * DAY), st.integers(0, 20 * DAY), st.integers(0, 20 * DAY),
       st.booleans(), st.lists(st.tuples(st.integers(0, 30 * DAY), st.integers(1, 5 * DAY)),
                               max_size=3))
def test_charged_time_adds_up_and_run_out_is_its_inverse(a: int, span: int, split: int,
                                                         pause: bool, holidays: list) -> None:
    vacations = sorted((a + s, a + s + n) for s, n in holidays)
    b = a + span
    m = a + min(split, span)
    whole = clock.charged(a, b, pause, vacations)
    assert whole == clock.charged(a, m, pause, vacations) + clock.charged(m, b, pause,
                                                                        vacations)
    assert 0 <= whole <= span
    if not pause and not vacations:
        assert whole == span
    end = clock.run_out(a, whole, pause, vacations)
    assert clock.charged(a, end, pause, vacations) == whole
    # the clock is empty at the first charged instant: b, or after the pause or holiday
    # that follows b
    assert end <= b or clock.charged(b, end, pause, vacations) == 0
