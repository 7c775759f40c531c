"""The library's writes: moves, undo, nonces, reveal, void, seats and bot replies, each
one transaction of the write core (referee/play/writecore.py): lock, replay, resolve, append,
check, write.

``submit`` is what `referee move`, `move --from-email`, the mail judge and the bots call;
the CLI only parses arguments and prints. It returns what happened, so that each caller
decides what to tell whom.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from referee import engine
from referee.engine import Match, resolve_move
from referee.errors import MoveError, RefereeError, ReplayError, SealedError, UsageError
from referee.i18n import domain
from referee.ledger import gamefile, nonces, replay, seats
from referee.ledger.fileformat import GAME_MASTER
from referee.play import writecore

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:  # plans are imported only for a game that has some
    from referee.ledger.records import ClockRecord, Entry  # (types only)
    from referee.play.plan_play import Planned


class Accepted(msgspec.Struct):
    """One accepted move: its log number and canonical notation."""

    n: int
    text: str


class Submission(msgspec.Struct):
    """The outcome of :func:`submit`."""

    gf: gamefile.GameFile
    player: str
    match: Match | None  # None when appended unchecked (no secret: no replay)
    accepted: list[Accepted] = msgspec.field(default_factory=list)
    unchecked: bool = False
    # With keep_partial: the move that failed after the accepted ones (0-based index).
    failed: MoveError | None = None
    failed_index: int | None = None
    rest: list[str] = msgspec.field(default_factory=list)  # the texts from the failed one
    # moves the referee played from the players' plans after these (referee/ledger/plans.py)
    planned: list[Planned] = msgspec.field(default_factory=list)


#: the fields a door or a bot adds to the entries it makes (``mail``, ``matrix``,
#: ``github``: the Message-ID, event or issue that made them; ``bot``: true)
Fields = Mapping[str, str | bool]
# Called inside the lock with the parsed file and the seed (None if unknown); returns the
# player, the move texts and extra log-entry fields (e.g. the Message-ID of a mail). It may
# raise a RefereeError to refuse.
Identify = Callable[[gamefile.GameFile, str | None], tuple[str, list[str], Fields]]


def submit(
    path: Path,
    player: str | None,
    texts: Sequence[str],
    *,
    secret_path: Path | None = None,
    unchecked: bool = False,
    keep_partial: bool = False,
    identify: Identify | None = None,
    extra: Fields | None = None,
) -> Submission:
    """Play ``texts`` (one move each) for ``player`` in the game file at ``path``.

    Every move is checked against the rules; all are written in one atomic write, or
    none. With ``keep_partial``, the moves before a rejected one are kept (nothing after
    it is played) and the rejection is returned in ``failed`` instead of raised; a
    rejected first move is raised. ``unchecked`` appends the moves of a sealed game
    whose secret is not at hand after checking only their notation.

    Raises the MoveError kinds, ReplayError, GameFileError, SealedError, UsageError.
    """
    with writecore.transaction(path, secret_path=secret_path) as tx:
        gf = tx.gf
        if gamefile.missing_nonces(gf):
            raise ReplayError(gamefile.nonce_prompt(gf))
        fields = dict(extra or {})
        if identify is not None:
            player, texts, more = identify(gf, tx.seed)
            fields.update(more)
        if player is None or not texts:
            raise UsageError(_("a move needs the player and the move"))
        gf.player(player)
        refuse_bot_seat(gf, player)
        if tx.seed is None and unchecked:
            done = _append_unchecked(tx, player, texts, keep_partial, fields)
        else:
            done = _play(tx, player, texts, keep_partial, fields)
    done.gf = tx.gf
    return done


def _append_unchecked(tx: writecore.Transaction, player: str, texts: Sequence[str],
                      keep_partial: bool, fields: Fields) -> Submission:
    """Each move appended after checking only its notation, in order; with
    ``keep_partial`` one that cannot be read stops the rest (as :func:`_play`)."""
    gf = tx.gf
    replay.check_structure(gf)
    done = Submission(gf, player, None, unchecked=True)
    for i, text in enumerate(texts):
        try:
            chosen = gf.game.parse_move(text, [])
        except MoveError as exc:
            if not keep_partial or not done.accepted:
                raise
            done.failed, done.failed_index, done.rest = exc, i, list(texts[i:])
            break
        entry = tx.append_unchecked(player, chosen, fields)
        done.accepted.append(Accepted(entry["n"], gf.game.format_move(chosen)))
    return done


def _play(tx: writecore.Transaction, player: str, texts: Sequence[str],
          keep_partial: bool, fields: Fields) -> Submission:
    match = tx.state()
    done = Submission(tx.gf, player, match)
    for i, text in enumerate(texts):
        try:
            chosen = resolve_move(match.game, match.state, player, text)
        except MoveError as exc:
            if not keep_partial or not done.accepted:
                raise
            done.failed, done.failed_index, done.rest = exc, i, list(texts[i:])
            break
        entry = tx.play(player, chosen, fields)
        done.accepted.append(Accepted(entry["n"], match.game.format_move(chosen)))
        # plans answer the decisions this move raised; the mover's own wait for the end
        done.planned += play_plans(tx, skip=player if i < len(texts) - 1 else None)
    return done


def play_plans(tx: writecore.Transaction, skip: str | None = None) -> list[Planned]:
    """The moves due from the players' plans after the transaction's last move, played
    in it (:func:`referee.ledger.plans.play_due`); nothing to do in a game without plans."""
    if not replay.has_plans(tx.gf.log):
        return []
    from referee.play import plan_play

    return plan_play.play_due(tx, skip)


def undo(path: Path, player: str, *, secret_path: Path | None = None,
         extra: Fields | None = None,
         guard: writecore.Guard | None = None) -> Submission:
    """Take back ``player``'s last move with an undo entry (history is never rewritten):
    only the last entry, only by its author, and never once it revealed anything (the
    replay of the new entry is the one definition of an allowed undo). Used by `referee
    undo` and by the judge (``guard``: see :func:`referee.play.writecore.transaction`).
    Raises UsageError, ReplayError, GameFileError, SealedError."""
    with writecore.transaction(path, secret_path=secret_path, guard=guard) as tx:
        gf = tx.gf
        gf.player(player)
        tx.state()
        if not gf.log or "move" not in gf.log[-1]:
            raise UsageError(_("there is no move to undo: only the last entry may be undone"))
        last = gf.log[-1]
        entry = tx.record({"by": player, "undo": last["n"]}, extra)
        try:
            tx.verify()
        except ReplayError as exc:
            raise ReplayError(exc.message.split(": ", 1)[-1]) from None
    assert tx.match is not None
    return Submission(tx.gf, player, tx.match, [Accepted(entry["n"], f"undo {last['n']}")])


def give_nonce(path: Path, player: str, value: str | None, keep: Path, *,
               guard: writecore.Guard | None = None) -> tuple[str, gamefile.GameFile]:
    """``player``'s next nonce step (:func:`referee.ledger.nonces.give`: commit, then reveal) in
    the game at ``path``; returns the step taken and the new file. Used by `referee nonce`
    and by the judge. Raises UsageError and the errors of a write."""
    with writecore.transaction(path, replayed=False, guard=guard) as tx:
        gf = tx.gf
        gf.player(player)
        if "nonces" not in gf.data["rng"]:
            raise UsageError(_("this game was not created with --nonces"))
        if gf.log:
            raise UsageError(_("nonces can only be added before the first move"))
        step = nonces.give(gf, player, value, keep)
        tx.touch_header()
    return step, tx.gf


def reveal_seed(path: Path, *, secret_path: Path | None = None,
                channels_revoked: bool = False) -> None:
    """Write the secret seed into the finished sealed game at ``path`` (`referee reveal`),
    so that anyone can verify every draw; refused while the log holds a sealed channel
    URL (the seed would open it: referee/mail/notify.py) unless ``channels_revoked``. Raises
    UsageError, SealedError and the errors of a write."""
    with writecore.transaction(path, secret_path=secret_path, replayed=False) as tx:
        gf = tx.gf
        if not gf.sealed:
            raise UsageError(_("this game is not sealed: its seed is already in the file"))
        if "seed" in gf.data["rng"]:
            raise UsageError(_("the seed has already been revealed"))
        if tx.seed is None:
            raise SealedError(_("reveal needs the game's secret"), hints=[_("give --secret FILE")])
        match = replay.replay(gf, tx.seed)
        if not match.game.finished(match.state):
            raise UsageError(_("the game is not finished; revealing the seed now would show "
                             "every hidden card and the order of every stack"))
        channels = [e["n"] for e in gf.log  # (notify.is_record's test: notify is above)
                    if isinstance(e.get("meta"), dict) and e["meta"].get("kind") == "channel"
                    and "sealed" in e["meta"]]
        if channels and not channels_revoked:
            raise UsageError(
                f"the log holds notification channels sealed to the referee (entry "
                f"{', '.join(map(str, channels))}): the seed would let anyone read their "
                "URLs", hints=["have their players revoke those webhooks, then reveal "
                               "with --channels-revoked"])
        gf.data["rng"]["seed"] = tx.seed
        tx.touch_header()


def strike(path: Path, number: int, player: str, *, secret_path: Path | None = None
           ) -> tuple[Entry, gamefile.GameFile, Match | None]:
    """A void entry by ``player`` (the move's author, or the game master) that strikes
    move ``number``, appended unchecked and found illegal (`referee void`). Without the
    secret of a sealed game it is appended unchecked (no MAC). Returns the entry, the new
    file and its state (None when unchecked). Raises UsageError, SealedError, and
    ReplayError when the replay refuses the void (a legal move: an undo in disguise)."""
    with writecore.transaction(path, secret_path=secret_path, replayed=False) as tx:
        gf = tx.gf
        if player != GAME_MASTER:
            gf.player(player)
        if tx.seed is None and player == GAME_MASTER and gf.sealed:
            raise SealedError(_("the game master's void needs the game's secret"),
                              hints=[_("give --secret FILE")])
        entry = tx.record({"by": player, "void": number})
        match = tx.verify()
    return entry, tx.gf, match


# --- bot seats ------------------------------------------------------------------------


def refuse_bot_seat(gf: gamefile.GameFile, player: str) -> None:
    """A person may not move for a bot seat (referee/ledger/seats.py). Raises UsageError."""
    seat = seats.seats_at(gf.data).bots.get(player)
    if seat is not None:
        raise UsageError(
            _("{player}'s seat is played by a bot ({level}): its moves are the bot's").format(
                player=player, level=seat.describe()),
            hints=[_("to play it yourself, take the seat back first: `referee seat FILE "
                     "{player} --human --as {player}` (or --as gm)").format(player=player)])


class BotMove(msgspec.Struct):
    """A move a bot played for a seat (a bot seat, or a player who missed a deadline)."""

    n: int
    player: str
    text: str
    level: str


MAX_BOT_MOVES = 2000  # more than any game has decisions: a loop that cannot end


def play_bots(path: Path, *, secret_path: Path | None = None,
              stand_in: dict[str, seats.SeatBot] | None = None,
              extra: Fields | None = None,
              into: list[BotMove] | None = None) -> list[BotMove]:
    """Play every decision that a bot seat owes, one after the other, until a person must
    move or the game is over; each through the one path (lock, replay, append, atomic
    write), each entry ``"bot": true`` by the seat's player. ``stand_in``: players a bot
    plays for now although their seats are people's (a missed deadline), for as long as
    they owe a decision without a break. Does nothing without the state (a sealed game
    without its secret, nonces still missing). The moves played are appended to ``into``
    as they are written. Raises the errors of a replay."""
    played: list[BotMove] = [] if into is None else into
    standing = dict(stand_in or {})
    while len(played) < MAX_BOT_MOVES:
        step = _bot_step(path, secret_path, standing, extra or {})
        if step is None:
            break
        played.append(step)
    return played


def bots_after(path: Path, secret_path: Path | None = None
               ) -> tuple[list[BotMove], str | None]:
    """:func:`play_bots` after a command that has done its own work: what the bots
    played, and why they stopped early (None: they did all they owed)."""
    played: list[BotMove] = []
    try:
        play_bots(path, secret_path=secret_path, into=played)
    except RefereeError as exc:
        return played, exc.message
    return played, None


def check_bots_can_play(match: Match, players: Sequence[str]) -> None:
    """Refuse bot seats in a game the bots cannot play (no determinize). Raises
    UsageError."""
    from referee.engine.rng import Rng

    for pid in players:
        engine.determinize(match.game, match.state, pid, Rng(b"referee/probe"))


def _bot_step(path: Path, secret_path: Path | None, standing: dict[str, seats.SeatBot],
              extra: Fields) -> BotMove | None:
    with writecore.transaction(path, secret_path=secret_path) as tx:
        gf = tx.gf
        if gamefile.missing_nonces(gf) or (tx.seed is None and gf.sealed):
            return None
        match = tx.state()
        waiting = gamefile.waiting(gf, match)
        for pid in list(standing):
            if pid not in waiting:
                del standing[pid]  # their decision is made: the stand-in's work is done
        bots = {**standing, **seats.seats_at(gf.data).bots}
        mover = next((p for p in waiting if p in bots), None)
        if mover is None:
            return None
        seat = bots[mover]
        key = seats.seat_rng_key(gamefile.rng_key(gf, tx.seed), len(gf.log) + 1)
        from referee.bots.players import seat_move  # the bots only when a bot moves

        chosen = seat_move(match.game, match.state, mover, seat.level, seat.iterations, key)
        entry = tx.play(mover, chosen, {**extra, "bot": True})
        play_plans(tx)  # the people's plans answer what the bot's move raised
    text = engine.public_text(match.game, chosen) if gf.sealed else match.game.format_move(chosen)
    return BotMove(entry["n"], mover, text, seat.level)


def set_seat(path: Path, by: str, player: str, seat: seats.SeatBot | None, *,
             secret_path: Path | None = None,
             extra: Fields | None = None,
             guard: writecore.Guard | None = None) -> dict[str, Any]:
    """Hand ``player``'s seat to a bot (``seat``) or back to a person (None): a ``bot``
    meta entry by ``by`` (the game master, or the player for their own seat), with the
    referee's MAC when the secret is at hand; the game master needs it in a sealed game.
    Returns the entry. Raises UsageError, SealedError, ReplayError, GameFileError."""
    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        gf = tx.gf
        if by != GAME_MASTER:
            gf.player(by)
        gf.player(player)
        if tx.seed is None and by == GAME_MASTER and gf.sealed:
            raise SealedError(_("the game master's entries need the game's secret (the "
                              "referee's MAC vouches for them)"), hints=[_("give --secret FILE")])
        meta = seats.validate_meta(seats.bot_entry(player, seat), gf.players)
        now = seats.seats_at(gf.data)
        refusal = seats.meta_refusal(now, by, meta)
        if refusal:
            raise UsageError(refusal)
        if seat is None and player not in now.bots:
            raise UsageError(_("{player}'s seat is already played by a person").format(
                player=player))
        if seat is not None and now.bots.get(player) == seat:
            raise UsageError(_("{player}'s seat is already played by this bot "
                               "({level})").format(player=player, level=seat.describe()))
        entry = tx.append({"by": by, "meta": meta}, extra)
        match = tx.verify()
        if seat is not None and match is not None:
            check_bots_can_play(match, [player])
    return entry


def set_plan(path: Path, player: str, texts: Sequence[str], *,
             secret_path: Path | None = None, extra: Fields | None = None,
             guard: Any = None) -> tuple[Entry, gamefile.GameFile]:
    """Write ``player``'s plan (``texts``: its lines; none withdraws it) as one plan
    record through the write core; returns the entry and the new file. In a sealed game
    the lines are sealed to the referee recipient, so that a player without the secret
    can write a plan too. Raises UsageError and the errors of a write."""
    from referee.ledger import plans

    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        gf = tx.gf
        gf.player(player)
        refuse_bot_seat(gf, player)
        plans.parse_lines(gf.game, gf.players, player, texts, gf.sealed)
        if gf.data["rng"].get("seed") is not None and gf.sealed:
            raise UsageError(_("the game is over and its seed revealed: no more plans"))
        entry = tx.record({"by": player, "meta": plans.record(gf.data, player, texts)}, extra)
        tx.verify()
    return entry, tx.gf


def set_language(path: Path, player: str, lang: str, *, secret_path: Path | None = None,
                 extra: Fields | None = None, guard: writecore.Guard | None = None
                 ) -> Entry | None:
    """Record the language ``player`` reads the game in (``en``, ``de``: a ``lang``
    record by the player, `referee lang`): their `status`, errors and mails follow it.
    Returns the entry, or None when that language is already recorded (nothing is
    written). Raises UsageError and the errors of a write."""
    from referee import i18n
    from referee.ledger import roster

    code = i18n.normalize(lang)
    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        gf = tx.gf
        gf.player(player)
        if roster.settings(gf.data).lang(player) == code:
            return None
        entry = tx.record({"by": player,
                           "meta": {"kind": "lang", "player": player, "lang": code}}, extra)
        tx.verify()
    return entry


# --- clocks: vacations, stamps, timeouts, a new time control (referee/clocks/clock.py) ---------


def _check_clocks(tx: writecore.Transaction) -> None:
    """The new entries replayed (the write core's own check), then the clocks: a record
    the vouched times do not support is refused before anything is written."""
    from referee.clocks import clock

    tx.verify()
    if tx.seed is not None:
        clock.verify(tx.gf, clock.timeline(tx.gf, tx.seed))


def vacation(path: Path, player: str, days: int, *, secret_path: Path | None = None,
             extra: Fields | None = None,
             guard: writecore.Guard | None = None) -> Entry:
    """``player`` takes ``days`` vacation days: a ``vacation`` record by the player, from
    its vouched time their clock stops for that long (`referee vacation`, the judge's
    ``vacation DAYS``). Only within the allowance; without the secret of a sealed game
    the record is appended unchecked (the days taken are counted, those used
    automatically only by a referee with the secret). Returns the entry. Raises
    UsageError, ClockError and the errors of a write."""
    with writecore.transaction(path, secret_path=secret_path, guard=guard) as tx:
        gf = tx.gf
        gf.player(player)
        if not replay.has_time_control(gf.data):
            raise UsageError(_("this game has no clock, so there is no vacation to take"),
                             hints=[_("a game gets a clock with `referee new ... --clock`")])
        if tx.match is not None and tx.match.game.finished(tx.match.state):
            raise UsageError(_("the game is over"))
        if tx.seed is None:
            _declared_vacation(gf, player, days)
        entry = tx.record({"by": player,
                           "meta": {"kind": "vacation", "player": player, "days": days}},
                          extra)
        _check_clocks(tx)
    return entry


def _declared_vacation(gf: gamefile.GameFile, player: str, days: int) -> None:
    """Without the secret: the days asked for and those already taken are within the
    header's allowance (the full check, with days used automatically, needs the
    secret). Raises UsageError."""
    allowance = int(gf.data.get("clock", {}).get("vacation", 0))
    taken = sum(int(e["meta"]["days"]) for e in gf.log
                if e.get("meta", {}).get("kind") == "vacation" and e["by"] == player)
    if taken + days > allowance:
        raise UsageError(_("{player} has {left} vacation day(s) left, not {days}").format(
            player=player, left=max(0, allowance - taken), days=days))


def stamp(path: Path, *, secret_path: Path | None = None) -> Entry | None:
    """The referee's MAC'd ``stamp``: every entry before it was seen now (the clock of a
    git game: `referee tick` after each push). None when there is nothing new to vouch
    for. Raises SealedError without the secret, and the errors of a write."""
    with writecore.transaction(path, secret_path=secret_path, replayed=False) as tx:
        gf = tx.gf
        if not gf.seed_hidden or tx.seed is None:
            raise SealedError(_("a stamp needs the secret of a sealed game (its MAC vouches "
                              "for the time)"), hints=[_("give --secret FILE")])
        if not gf.log or "mac" in gf.log[-1]:
            return None
        entry = tx.record({"by": GAME_MASTER, "meta": {"kind": "stamp"}})
        _check_clocks(tx)
    return entry


class TimedOut(msgspec.Struct):
    """A seat the referee timed out: its player, what happens (``bot``, ``gm``,
    ``forfeit``), the bot's level, and the timeout's log number."""

    player: str
    then: str
    level: str | None
    n: int


def timeouts(path: Path, *, secret_path: Path | None = None,
             extra: Fields | None = None) -> list[TimedOut]:
    """Write a ``timeout`` record for every awaited seat whose bank and vacation ran out
    by now (its MAC'd time is the referee's clock, :func:`referee.clocks.clock.now`); a seat
    that forfeits is handed to a bot in the same write. The bots' moves are
    :func:`play_timed_out`'s. Needs the secret. Raises the errors of a write."""
    from referee.clocks import clock

    with writecore.transaction(path, secret_path=secret_path, replayed=False) as tx:
        gf = tx.gf
        if tx.seed is None or not gf.sealed or not replay.has_time_control(gf.data):
            return []
        clocks = clock.timeline(gf, tx.seed).clocks(clock.now())
        done: list[TimedOut] = []
        for pid in clocks.running():
            seat = clocks.seats[pid]
            due = clocks.due(pid)
            if seat.timed_out or due is None or due > clocks.at:
                continue
            ctl = clocks.control
            then = ctl["timeout"] if ctl else "gm"
            level = ctl.get("level") if ctl else None
            entry = tx.record({"by": GAME_MASTER, "meta": {"kind": "timeout",
                                                           "player": pid}}, extra)
            if then == "forfeit":
                tx.record({"by": GAME_MASTER, "meta": {
                    "kind": "bot", "player": pid, "level": level or clock.DEFAULT_LEVEL}})
            done.append(TimedOut(pid, then, level, entry["n"]))
        if done:
            _check_clocks(tx)
    return done


def play_timed_out(path: Path, done: Sequence[TimedOut], *,
                   secret_path: Path | None = None) -> list[BotMove]:
    """After :func:`timeouts`: a bot of the time control's level plays the decisions each
    ``bot`` seat owes now (a stand-in, as for a missed deadline); a forfeited seat is a
    bot seat from now on and plays too. Raises the errors of a replay."""
    stand_in = {t.player: seats.make_seat(t.level or "greedy") for t in done
                if t.then == "bot"}
    if not stand_in and not any(t.then == "forfeit" for t in done):
        return []
    return play_bots(path, secret_path=secret_path, stand_in=stand_in)


def set_clock(path: Path, control: ClockRecord | None, *,
              secret_path: Path | None = None, extra: Fields | None = None,
              guard: writecore.Guard | None = None) -> dict[str, Any]:
    """The game master's new time control (None: no clock from here on): a ``clock``
    record, MAC'd, so it needs the secret. Each bank carries on within the new cap.
    Returns the entry. Raises SealedError, UsageError and the errors of a write."""
    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        gf = tx.gf
        if not gf.sealed or tx.seed is None:
            raise SealedError(_("a time control needs a sealed game and its secret: only the "
                              "referee's MACs vouch for time"), hints=[_("give --secret FILE")])
        entry = tx.append({"by": GAME_MASTER, "meta": {"kind": "clock",
                                                       "control": control}}, extra)
        _check_clocks(tx)
    return entry
