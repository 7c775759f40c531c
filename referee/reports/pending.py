"""`pending`, for a game master: which games wait on whom, and since when.

One row per game file (:func:`pending_rows`): whose turn since when and what is being
decided, the bot seats that owe a decision and when an awaited seat's clock runs out; or
why the file cannot say. Rows of files already seen byte for byte come from the cache
(:mod:`referee.reports.pendingcache`). A copy of a game is named beside the game; any
other second file of one game is an error, both files."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError, SealedError, internal_error
from referee.ledger import fileio, identity
from referee.reports import folders, pendingcache

if TYPE_CHECKING:
    from referee.ledger import gamefile


def pending_rows(targets: Sequence[Path]) -> list[dict[str, Any]]:
    """The rows of every game file among ``targets`` (:func:`folders.found_files`: a file
    in a folder that is other JSON than a game file is passed over), copies marked
    (:func:`mark_copies`)."""
    with pendingcache.session():  # the cache: opened once, written once
        rows = [pending_row(f.path, f) for f in folders.found_files(targets)]
        return mark_copies([row for row in rows if row is not None])


def pending_row(path: Path, found: folders.Found | None = None) -> dict[str, Any] | None:
    """What ``pending`` says of one file: whose turn since when, or why it cannot say;
    None for a file ``found`` in a folder that is no game file. Rows of files already
    seen byte for byte (at the same path, with the same secret and language) come from
    the cache (referee.reports.pendingcache)."""
    raw: bytes | None = None
    try:
        raw = fileio.read_bytes(path)
        if found is not None and found.passed_over(raw):
            return None
        key, row = pendingcache.lookup(raw, path)
        if row is None:
            row = _pending_state(raw, path)
            pendingcache.store(key, raw, path, row)
    except SealedError as exc:  # read, but not to be replayed here: `status` shows more
        return {"file": str(path), "error": exc.message, "sealed": True, **_identity_of(raw)}
    except RefereeError as exc:
        return {"file": str(path), "error": exc.message, **_identity_of(raw)}
    except Exception as exc:  # a bug: report it for this file and carry on
        return {"file": str(path), "error": internal_error(exc, str(path)).message}
    return {"file": str(path), **row}


def _identity_of(raw: bytes | None) -> dict[str, Any]:
    """The identity of a file that could not be replayed (it may still copy a game)."""
    from referee.git import history

    header = history.parse_header(raw)
    return {} if header is None else {"id": identity.game_id(header),
                                      "identity": identity.keys(header)}


def _pending_state(raw: bytes, path: Path) -> dict[str, Any]:
    """The row of a file the cache does not know: read, replayed and viewed (imported
    here: a run whose rows all come from the cache needs none of it)."""
    from referee.ledger import gamefile, replay, seats, secret
    from referee.play.statusview import prompt_line

    gf = gamefile.parse(raw, str(path))
    seed = secret.find_seed(gf, None, path)
    match = replay.replay(gf, seed)
    game = match.game
    waiting = gamefile.waiting(gf, match)
    bots = seats.seats_at(gf.data).bots
    row = {"game": game.name, "id": gf.game_id, "identity": identity.keys(gf),
           "finished": game.finished(match.state),
           "since": gf.log[-1].get("at") if gf.log else gf.data.get("created"),
           "waiting": waiting, "prompt": prompt_line(gf, match),
           "bots": [p for p in waiting if p in bots]}
    times = times_out(gf, seed)
    if times:
        row["times_out"] = times
    return row


def times_out(gf: gamefile.GameFile, seed: str | None) -> dict[str, str]:
    """When each awaited seat of a game with a clock times out, as the referee last saw
    the game (it depends only on the file, so `pending`'s cache may keep it)."""
    from referee.clocks import clock, clockview
    from referee.ledger import replay

    if seed is None or not replay.has_clock_records(gf.data):
        return {}

    try:
        tl = clock.timeline(gf, seed)
        rep = clockview.report(tl, clock.verify(gf, tl).at)
    except RefereeError:
        return {}
    return {p: row["times_out"] for p, row in rep["seats"].items() if "times_out" in row}


def mark_copies(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of files that are the same game as another file: a copy (the same header, its
    log the game's or a part of it from the start: referee/ledger/identity.py) is named
    in the game's row (``copies``) and its own row says whose copy it is (``copy_of``);
    every other second file of a game (another header under the same seed or id, logs
    that went apart) is an error naming both files (``not_listed``): neither is shown."""
    keyed = [(row["file"], row["identity"], str(row.get("id", "?")))
             for row in rows if "identity" in row]
    copies, refused = identity.sort_copies(identity.duplicates_of_keys(keyed), _held)
    out = []
    for row in rows:
        row = dict(row)
        row.pop("identity", None)
        if row["file"] in refused:
            out.append({"file": row["file"], "error": refused[row["file"]].message,
                        "not_listed": True})
            continue
        if row["file"] in copies:
            out.append(copies[row["file"]].to_json())
            continue
        if "error" in row:
            row.pop("id", None)
        found = [c.to_json() for c in copies.values() if c.of == row["file"]]
        out.append(row | ({"copies": found} if found else {}))
    return out


def _held(file: str) -> identity.Held | None:
    """A file of a game found twice, read again to sort the copy from the game: the
    oldest file ranks first among those with the same log (`cp` makes a newer one)."""
    from referee.ledger import gamefile

    try:
        gf = gamefile.read(Path(file))
        rank = (os.stat(file).st_mtime_ns,)
    except (RefereeError, OSError):
        return None
    return identity.held_of(file, gf, rank)
