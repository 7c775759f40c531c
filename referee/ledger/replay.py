"""Replaying a game's log (docs/file-format.md, docs/security.md): the four entry kinds,
the hash chain, the referee's MACs, and the replay that checks every entry.

Every read rebuilds the state by replaying the whole log: each entry must sit in the hash
chain, be by a player who may write it (the game master for its records), carry a valid
MAC where it has one, and be a legal move of a player who owed a decision, an allowed
undo, a void of a move that was not legal, or a record that leaves the state alone.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee import engine
from referee.engine import Match, Move, State, full_options
from referee.engine.rng import Rng
from referee.errors import GameFileError, ReplayError, SealedError, UsageError
from referee.i18n import domain
from referee.ledger import dataversions, nonces, vouch
from referee.ledger import seats as seatsmod
from referee.ledger.fileformat import CLOCK_KINDS, ENTRY_KINDS, GAME_MASTER
from referee.ledger.gamefile import (
    GameFile,
    decode_move,
    entry_hash,
    header_hash,
    missing_nonces,
    rng_key,
)

_, N_, ngettext = domain("referee")

if TYPE_CHECKING:  # plans are imported only by a log that holds some
    from referee.ledger.plans import Book


def entry_kind(entry: Mapping[str, Any]) -> str:
    """"move", "undo", "void" or "meta" (the schema guarantees exactly one)."""
    for kind in ENTRY_KINDS:  # (a plain loop: replay asks this of every entry)
        if kind in entry:
            return kind
    raise ReplayError("a log entry without move, undo, void or meta")


def _where(i: int) -> str:
    return f"$.log[{i}] (entry {i + 1})"


class _Voids:
    """The log's voids and the players, gathered once (a replay asks of every entry).
    (A plain class: a dataclass would cost every command its creation at import.)"""

    __slots__ = ("first", "players", "struck")

    def __init__(self, gf: GameFile) -> None:
        # struck move -> number of the (last) void entry striking it
        self.struck: dict[int, int] = voided(gf)
        # struck move -> index of the first void entry striking it
        self.first: dict[int, int] = {}
        for i, entry in enumerate(gf.log):
            if "void" in entry:
                self.first.setdefault(entry["void"], i)
        self.players = frozenset(gf.players)


def _check_chain(gf: GameFile, i: int, entry: Mapping[str, Any], prev: str,
                 voids: _Voids) -> str:
    """Check numbering, hash chain and authorship of entry ``i``; return its hash."""
    if entry["n"] != i + 1:
        raise ReplayError(f"{_where(i)}: numbered {entry['n']}, expected {i + 1}")
    if entry["prev"] != prev:
        raise ReplayError(
            f"{_where(i)}: the hash chain is broken: history before this entry was edited",
            hints=["a game file is append-only; restore the original log"],
        )
    kind = entry_kind(entry)
    by = entry["by"]
    if by not in voids.players and not (by == GAME_MASTER and kind in ("void", "meta")):
        raise ReplayError(f"{_where(i)}: {by!r} is not a player in this game")
    if i == 0 and missing_nonces(gf):
        raise ReplayError(
            f"{_where(i)}: moves began before every player gave a nonce "
            f"(missing: {', '.join(missing_nonces(gf))})"
        )
    if kind == "undo":
        _check_undo(gf, i, entry, voids)
    elif kind == "void":
        _check_void(gf, i, entry, voids)
    elif kind == "meta" and by != GAME_MASTER:
        _check_player_meta(i, entry)
        if entry["meta"]["kind"] == "channel" and "sealed" in entry["meta"] and not gf.sealed:
            raise ReplayError(f"{_where(i)}: a channel URL in an open game: only a sealed "
                              "game has a referee key to seal it to")
    if "plan" in entry or (kind == "meta" and entry["meta"]["kind"] == "plan"):
        from referee.ledger import plans

        plans.check_entry(gf, i, entry)
    return entry_hash(entry)


# The only records a player may write about the game: how they want to be notified, their
# own seat handed to a bot and back (referee/ledger/seats.py), their own plan
# (referee/ledger/plans.py),
# their vacation (referee/clocks/clock.py), their agreement to a rematch (referee/play/rematch.py)
# and
# the language they read (referee/i18n.py) and their notification channel (referee/mail/notify.py).
# All else (addresses, replacements, deadlines, watchers, data upgrades, time controls) is
# the game master's.
PLAYER_META_KINDS = ("notify", "bot", "plan", "vacation", "rematch", "lang", "channel")


def _check_player_meta(i: int, entry: Mapping[str, Any]) -> None:
    meta = entry["meta"]
    if meta["kind"] not in PLAYER_META_KINDS or meta.get("player") != entry["by"]:
        raise ReplayError(f"{_where(i)}: a {meta['kind']!r} record by {entry['by']}: only the "
                          "game master may write it (a player may only set their own "
                          "notification and plan, hand their own seat to a bot, take "
                          "vacation, agree to a rematch or choose their language)")


def _check_seat(gf: GameFile, i: int, entry: Mapping[str, Any],
                seats: seatsmod.Seats) -> None:
    """Bot seats: a ``bot`` record must be valid and by someone who may write it; a move
    by a bot seat must be marked as the bot's (``"bot": true``): nobody moves for a bot
    seat by hand. Updates ``seats``."""
    meta = entry.get("meta")
    if isinstance(meta, dict) and meta["kind"] == "bot":
        try:
            checked = seatsmod.validate_meta(meta, gf.players)
        except UsageError as exc:
            raise ReplayError(f"{_where(i)}: {exc.message}") from None
        refusal = seatsmod.meta_refusal(seats, entry["by"], checked)
        if refusal:
            raise ReplayError(f"{_where(i)}: {refusal}")
        seats.apply(entry["by"], checked)
    elif "move" in entry and entry["by"] in seats.bots and entry.get("bot") is not True:
        raise ReplayError(
            f"{_where(i)}: a move for {entry['by']}'s seat, which a bot plays "
            f"({seats.bots[entry['by']].describe()}), not marked as the bot's: nobody may "
            "move for a bot seat", hints=[f"give the seat back to a person first: `referee "
                                          f"seat FILE {entry['by']} --human --as gm`"])


def _check_undo(gf: GameFile, i: int, entry: Mapping[str, Any], voids: _Voids) -> None:
    target = entry["undo"]
    undone = gf.log[target - 1] if 0 < target <= i else None
    if target != i or undone is None or "move" not in undone or target in voids.struck:
        raise ReplayError(
            f"{_where(i)}: undo of move {target} refused: only the move just before "
            "may be undone, and only once"
        )
    if undone["by"] != entry["by"]:
        raise ReplayError(
            f"{_where(i)}: undo of move {target} refused: only its author "
            f"{undone['by']} may undo it"
        )


def _check_void(gf: GameFile, i: int, entry: Mapping[str, Any], voids: _Voids) -> None:
    target = entry["void"]
    struck = gf.log[target - 1] if 0 < target <= i else None
    if struck is None or "move" not in struck:
        raise ReplayError(f"{_where(i)}: void of entry {target} refused: only an earlier "
                          "move can be struck")
    if entry["by"] not in (struck["by"], GAME_MASTER):
        raise ReplayError(f"{_where(i)}: void of move {target} refused: only its author "
                          f"{struck['by']} or the game master may strike it")
    if voids.first.get(target, i) < i:  # an earlier void struck it
        raise ReplayError(f"{_where(i)}: move {target} was already struck")


def voided(gf: GameFile) -> dict[int, int]:
    """Struck moves: entry number -> number of the void entry that strikes it."""
    return {e["void"]: e["n"] for e in gf.log if "void" in e}


def _check_mac(gf: GameFile, i: int, entry: Mapping[str, Any], seed: str | None) -> None:
    """In a sealed game, with the secret: an entry's MAC must be the referee's, and the
    game master's entries must carry one (only the referee holds the key)."""
    if not gf.seed_hidden or seed is None:
        return
    if "mac" in entry:
        if not vouch.mac_ok(seed, entry):
            raise ReplayError(
                f"{_where(i)}: the referee's MAC does not match: this entry was edited or "
                "forged (a recomputed hash chain does not make it the referee's)"
            )
    elif entry["by"] == GAME_MASTER:
        raise ReplayError(f"{_where(i)}: a game master's entry without the referee's MAC")


def unvouched(gf: GameFile) -> list[int]:
    """Entries of a sealed game that the referee has not vouched for yet: those after the
    last entry with a MAC (a MAC covers everything before it through ``prev``)."""
    if not gf.sealed:
        return []
    last = max((e["n"] for e in gf.log if "mac" in e), default=0)
    return [e["n"] for e in gf.log if e["n"] > last]


# A player's meta records (notify, their own seat to a bot and back) and take-backs
# (a move and its undo, an unchecked move and its void) leave the game where it was: without
# a bound a player could append them until the file passes the read cap, and then nobody
# could write to it again. The write core refuses them on write (referee/play/writecore.py);
# every read refuses them too, so that a file appended by hand (a pull request) cannot
# carry them either. The game master's entries are not counted.
MAX_PLAYER_RECORDS = 4  # a player's records between two entries that are no records
MAX_TAKEBACKS = 5  # a player's undos and voids in a row, without another's entry


class _Pace:
    """The running counts behind :data:`MAX_PLAYER_RECORDS` and :data:`MAX_TAKEBACKS`,
    and the rule that nobody undoes a bot seat's move (its bot would play again under
    another key: a re-roll)."""

    def __init__(self) -> None:
        self.records: dict[str, int] = {}
        self.takebacks: tuple[str, int] = ("", 0)

    def check(self, gf: GameFile, i: int, entry: Mapping[str, Any],
              seats: seatsmod.Seats) -> None:
        by = entry["by"]
        if "meta" in entry:
            if by != GAME_MASTER:
                count = self.records.get(by, 0) + 1
                if count > MAX_PLAYER_RECORDS:
                    raise ReplayError(
                        f"{_where(i)}: {by}'s record is one too many: at most "
                        f"{MAX_PLAYER_RECORDS} records (notify, bot seat) by a player "
                        "between two plays")
                self.records[by] = count
        else:
            self.records.clear()
        who, count = self.takebacks
        count = count if who == by else 0
        if ("undo" in entry or "void" in entry) and by != GAME_MASTER:
            count += 1
            if count > MAX_TAKEBACKS:
                raise ReplayError(
                    f"{_where(i)}: {by} has already taken back {MAX_TAKEBACKS} moves in a "
                    "row (undo, void), the most allowed without another player's entry; "
                    "play on")
        self.takebacks = (by, count)
        if "undo" in entry:
            target = entry["undo"]
            undone = gf.log[target - 1] if 0 < target <= i else None
            if undone is not None and undone.get("bot") is True and \
                    undone["by"] in seats.bots:
                raise ReplayError(f"{_where(i)}: " + _(
                    "undo of move {n} refused: it is the move of {player}'s bot seat, which "
                    "nobody takes back").format(n=target, player=undone["by"]))


def start_state(gf: GameFile, seed: str | None = None) -> Match:
    """The match before the first move (header checks included)."""
    check_header(gf)
    return Match.start(gf.game, gf.players, gf.data["options"], rng_key(gf, seed))


def check_header(gf: GameFile) -> None:
    """The rules pin, the player count, the options and the nonces. Raises GameFileError.

    The pin in force (the header's ``rules``, or the latest upgrade entry's ``data``) must
    name this referee's rules and a data version released in the package; ``gf.game``
    becomes the game playing by that data version (referee.ledger.dataversions)."""
    gf.game = game = dataversions.game_of(gf)
    n = len(gf.players)
    if not game.min_players <= n <= game.max_players:
        raise GameFileError(
            f"{game.title} is for {game.min_players} to {game.max_players} players, "
            f"this file has {n}"
        )
    try:
        full_options(game, gf.data["options"])
    except UsageError as exc:
        raise GameFileError(f"$.options: {exc.message}", hints=exc.hints) from None
    nonces.check(gf)


def check_structure(gf: GameFile) -> None:
    """What can be verified without the seed: numbering, hash chain, authorship, undo
    and void shape, move decoding (sealed moves: their public part). Raises ReplayError
    or GameFileError."""
    check_header(gf)
    prev = header_hash(gf.data)
    seats = seatsmod.seats_at(gf.data, 0)
    voids = _Voids(gf)
    pace = _Pace()
    for i, entry in enumerate(gf.log):
        prev = _check_chain(gf, i, entry, prev, voids)
        pace.check(gf, i, entry, seats)
        _check_seat(gf, i, entry, seats)
        if "move" in entry and "sealed" not in entry:
            decode_move(gf.game, entry["move"], f"$.log[{i}].move")


def entry_move(gf: GameFile, i: int, seed: str | None) -> Move:
    """The move of log entry ``i``, with its sealed private fields opened (needs the
    seed). Raises GameFileError, SealedError."""
    entry = gf.log[i]
    path = f"$.log[{i}].move"
    if "sealed" not in entry:
        return decode_move(gf.game, entry["move"], path)
    if seed is None:
        raise SealedError(f"$.log[{i}] holds a sealed choice; it needs the game's secret")
    private = vouch.unseal(seed, entry["sealed"], f"$.log[{i}]")
    clash = sorted(set(private) & set(entry["move"]))
    if clash:
        raise GameFileError(f"{path}: {', '.join(clash)} both sealed and in clear")
    move = decode_move(gf.game, {**entry["move"], **private}, path)
    if sorted(private) != sorted(engine.private_fields(gf.game, move)):
        raise GameFileError(f"$.log[{i}].sealed: holds {sorted(private)}, not the move's "
                            "private fields")
    if entry.get("public") != engine.public_text(gf.game, move):
        raise GameFileError(f"$.log[{i}].public does not describe the sealed move")
    return move


def entry_text(gf: GameFile, i: int, seed: str | None = None, viewer: str | None = None
               ) -> str:
    """Entry ``i`` as people read it. A sealed move is shown by its public text, except
    to its author (``viewer``) when the seed is given. Never needs the seed otherwise."""
    entry = gf.log[i]
    kind = entry_kind(entry)
    if kind == "undo":
        return f"undo {entry['undo']}"
    if kind == "void":
        return f"void {entry['void']} (struck: it was not legal)"
    if kind == "meta" and entry["meta"]["kind"] == "bot":
        return seatsmod.meta_text(entry["meta"])
    if kind == "meta" and entry["meta"]["kind"] == "plan":
        return "[plan] (secret: shown to its player, and to all after the game)"
    if kind == "meta" and entry["meta"]["kind"] == "channel":
        via = entry["meta"]["via"]
        return f"[channel] {entry['meta']['player']} via {via}" + (
            "" if via == "off" else " (the URL sealed to the referee)")
    if kind == "meta":
        details = ", ".join(f"{k} {v}" for k, v in entry["meta"].items() if k != "kind")
        return f"[{entry['meta']['kind']}] {details}".rstrip()
    if "sealed" in entry:
        if seed is not None and viewer == entry["by"]:
            return gf.game.format_move(entry_move(gf, i, seed))
        return str(entry.get("public", f"{entry['move'].get('type')} (hidden choice)"))
    return gf.game.format_move(decode_move(gf.game, entry["move"], f"$.log[{i}].move"))


def undo_refusal(match: Match, before: Match) -> str | None:
    """Why the last move of ``match`` may not be undone (None if it may): a move that
    drew from a shuffled stack, rolled a die or showed a hidden card revealed something
    (docs/playing.md: undo); a move that ended the game is said so, whatever its end
    showed. ``before`` is the state without that move."""
    why = _revealed(match, before)
    if why is not None and match.game.finished(match.state):
        return _("the game is over: the move that ended it cannot be taken back")
    return why


def _revealed(match: Match, before: Match) -> str | None:
    """What the last move of ``match`` revealed that forbids its undo, or None."""
    game = match.game
    if match.rng.counters != before.rng.counters:
        return _("it used the random generator (a draw, shuffle or roll revealed something)")
    revealed = engine.reveals(game, before.state, match.state)
    if revealed is None:
        return _("{game} does not say which moves reveal hidden information").format(
            game=game.title)
    if revealed:
        return _("it changed hidden information (a card or tile was drawn or shown)")
    return None


def _replay_effective(gf: GameFile, moves: list[tuple[str, Move]], seed: str | None) -> Match:
    match = start_state(gf, seed)
    for by, move in moves:
        match.play(by, move)
    return match


def copy_position(match: Match) -> tuple[State, Rng]:
    """An independent copy of the state and its generator, for an undo to return to:
    ``Game.copy_state`` where the state carries the match's generator (both games do),
    else one deep copy of the two together (which keeps them one object)."""
    state, copier = match.state, getattr(match.game, "copy_state", None)  # engine.Bots
    if copier is not None and getattr(state, "rng", None) is match.rng:
        copied = copier(state)
        rng = getattr(copied, "rng", None)
        if isinstance(rng, Rng) and rng is not match.rng:
            return copied, rng
    return copy.deepcopy((state, match.rng))


def _undone_next(log: Sequence[Mapping[str, Any]], i: int) -> bool:
    """Whether entry ``i + 1`` claims to undo entry ``i`` (then the position before entry
    ``i`` is kept: an undo can only take back the entry just before it)."""
    nxt = log[i + 1] if i + 1 < len(log) else None
    return nxt is not None and nxt.get("undo") == i + 1


def replay(gf: GameFile, seed: str | None = None, upto: int | None = None,
           on_entry: Callable[[int, Match], None] | None = None,
           book: Book | None = None) -> Match:
    """Rebuild the state by replaying the log, checking the hash chain, the referee's
    MACs (sealed games), and that every entry was a legal move of a player who owed a
    decision, an allowed undo, or a void of a move that was not legal.
    Linear in the log: the voids are gathered once, and an undo returns to a copy of the
    position kept before the move it takes back (identical to replaying from setup).
    A log with plans is walked with a :class:`referee.ledger.plans.Book` (``book``, or one of
    its own), which checks every planned move against its plan.
    Raises GameFileError, ReplayError, SealedError."""
    match = start_state(gf, seed)
    prev = header_hash(gf.data)
    log = gf.log[:upto]
    if book is None and has_plans(log):
        from referee.ledger import plans

        book = plans.Book(gf, seed)
    voids = _Voids(gf)
    for i, entry in enumerate(log):
        if "void" in entry:  # who may strike what, before the struck move is replayed
            _check_void(gf, i, entry, voids)
    seats = seatsmod.seats_at(gf.data, 0)
    kept: tuple[int, State, Rng] | None = None  # (entry, position before it)
    pace = _Pace()
    for i, entry in enumerate(log):
        prev = _check_chain(gf, i, entry, prev, voids)
        _check_mac(gf, i, entry, seed)
        pace.check(gf, i, entry, seats)
        _check_seat(gf, i, entry, seats)
        kind = entry_kind(entry)
        count = len(match.log)
        if book is not None:
            book.before(i, entry, match, _undone_next(log, i))
        if kind == "undo":
            match = _undo(gf, i, entry, match, kept, seed)
        elif kind == "move":
            void_n = voids.struck.get(i + 1)
            try:
                move = entry_move(gf, i, seed)
            except GameFileError:
                if void_n is None:
                    raise
                continue  # a struck move whose sealed part cannot even be opened
            played = len(match.log)
            position = copy_position(match) if _undone_next(log, i) else None
            _replay_move(gf, match, i, move, void_n)
            if position is not None and len(match.log) == played + 1:
                kept = (i, *position)
        if book is not None:
            book.after(i, entry, match, kind == "move" and len(match.log) == count + 1,
                       seats.bots)
        if on_entry is not None:
            on_entry(i, match)
    return match


def has_time_control(data: Mapping[str, Any]) -> bool:
    """Whether the game file ``data`` has a time control: in its header, or set by the
    game master's ``clock`` record (referee/clocks/clock.py; null then means "none from here
    on", still a game whose clocks are computed)."""
    return "clock" in data or any(_meta_kind(e) == "clock" for e in data["log"])


def has_clock_records(data: Mapping[str, Any]) -> bool:
    """Whether ``data`` has a time control or any clock record (a stamp, a vacation, a
    timeout): what ``check`` must verify, and refuse in a game without a clock."""
    return "clock" in data or any(_meta_kind(e) in CLOCK_KINDS for e in data["log"])


def _meta_kind(entry: Mapping[str, Any]) -> Any:
    meta = entry.get("meta")
    return meta.get("kind") if type(meta) is dict else None


def has_plans(log: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the log holds a plan record or a planned move (referee/ledger/plans.py)."""
    for entry in log:
        meta = entry.get("meta")
        if "plan" in entry or (type(meta) is dict and meta["kind"] == "plan"):
            return True
    return False


def _undo(gf: GameFile, i: int, entry: Mapping[str, Any], match: Match,
          kept: tuple[int, State, Rng] | None, seed: str | None) -> Match:
    """The match without its last move (entry ``i`` undoes it, as _check_undo found):
    the position kept before entry ``i - 1``, else the effective moves replayed from
    setup. Raises ReplayError if the move revealed something."""
    if kept is not None and kept[0] == i - 1:
        before = Match(match.game, match.players, match.options, kept[1], kept[2],
                       match.log[:-1])
    else:
        before = _replay_effective(gf, match.log[:-1], seed)
    refusal = undo_refusal(match, before)
    if refusal:
        raise ReplayError(f"{_where(i)}: " + _("undo of move {n} refused: {why}").format(
            n=entry["undo"], why=refusal))
    return before


def _replay_move(gf: GameFile, match: Match, i: int, move: Move, void_n: int | None) -> None:
    """Play entry ``i`` if it is legal; skip it if a later void strikes it (and then it
    must indeed be illegal: a void is no covert undo)."""
    by = gf.log[i]["by"]
    problem = _illegal(gf, match, i, move)
    if void_n is not None:
        if problem is None:
            raise ReplayError(f"$.log[{void_n - 1}] (entry {void_n}): void of move {i + 1} "
                              "refused: that move was legal (use undo, or play on)")
        return
    if problem is not None:
        raise ReplayError(
            problem,
            hints=[f"if this move was appended unchecked, strike it with `referee void FILE "
                   f"{i + 1} --as {by}` and play on"],
        )
    match.play(by, move)


def _illegal(gf: GameFile, match: Match, i: int, move: Move) -> str | None:
    """Why entry ``i``'s move is not legal now, or None (:func:`refusal`, located)."""
    why = refusal(match, gf.log[i]["by"], move, gf.sealed)
    return None if why is None else f"{_where(i)}: {why}"


def refusal(match: Match, by: str, move: Move, sealed: bool) -> str | None:
    """Why ``move`` by ``by`` is not legal in ``match`` now, or None: the one check that a
    replay makes of every logged move and the write core of every move it appends. The
    text names the move as other players may read it (``public_text`` in a sealed game)
    and never another player's hidden state."""
    game = match.game
    if game.finished(match.state):
        return "the game was already over"
    if by not in game.to_move(match.state):
        return f"it was not {by}'s turn ({game.prompt(match.state)})"
    if not engine.is_legal(game, match.state, by, move):
        shown = engine.public_text(game, move) if sealed else game.format_move(move)
        why = engine.why_illegal(game, match.state, by, move)
        return f"{shown!r} by {by} is not legal: {why}"
    return None
