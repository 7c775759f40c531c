"""`pending`, for a game master: which games wait on whom, and since when.

One row per game file (:func:`pending_rows`): whose turn since when and what is being
decided, the bot seats that owe a decision and when an awaited seat's clock runs out; or
why the file cannot say. Rows of files already seen byte for byte come from the cache
(:mod:`referee.reports.pendingcache`). Two files of one game (a copy) are both errors."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError, internal_error
from referee.ledger import fileio, identity
from referee.reports import pendingcache

if TYPE_CHECKING:
    from referee.ledger import gamefile


def pending_rows(targets: Sequence[Path]) -> list[dict[str, Any]]:
    """The rows of every game file among ``targets`` (see :func:`game_files`), copies
    marked (:func:`mark_copies`)."""
    with pendingcache.session():  # the cache's index: read once, written once
        return mark_copies([pending_row(path) for path in game_files(targets)])


def game_files(targets: Sequence[Path]) -> list[Path]:
    """The files named, and every ``*.json`` under the folders named (sorted; symlinked
    folders are not entered). Under a folder, names that start with ``.`` are no game
    files: the judge's own state, caches and quarantine, ``.git`` (as the judge serves
    only ``[!.]*.json``; ``check --since`` still looks at every file git tracks)."""
    files: list[Path] = []
    for target in targets:
        if not target.is_dir():
            files.append(target)
            continue
        for folder, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = Path(folder)  # (a child of it costs less than a Path of two parts)
            files += [base / n for n in sorted(names)
                      if n.endswith(".json") and not n.startswith(".")]
    return files


def pending_row(path: Path) -> dict[str, Any]:
    """What ``pending`` says of one file: whose turn since when, or why it cannot say.
    Rows of files already seen byte for byte (at the same path, with the same secret and
    language) come from the cache (referee.reports.pendingcache)."""
    raw: bytes | None = None
    try:
        raw = fileio.read_bytes(path)
        key, row = pendingcache.lookup(raw, path)
        if row is None:
            row = _pending_state(raw, path)
            pendingcache.store(key, raw, path, row)
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
    """Rows of files that are the same game as another file (a copy: the same header,
    commitment or id) become errors naming both files: neither is served."""
    keyed = [(row["file"], row["identity"], str(row.get("id", "?")))
             for row in rows if "identity" in row]
    copies = identity.duplicated_files(identity.duplicates_of_keys(keyed))
    out = []
    for row in rows:
        if row["file"] in copies:
            out.append({"file": row["file"], "error": copies[row["file"]].message})
            continue
        row = dict(row)
        row.pop("identity", None)
        if "error" in row:
            row.pop("id", None)
        out.append(row)
    return out
