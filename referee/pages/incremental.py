"""The site built from what changed: which games the manifest lets the builder keep,
the league from the games' kept results, and OUT updated in place.

A game is kept when the trusted manifest (referee/pages/manifest.py) has an entry for
its name and its bytes as read now (an open game's file not read again while its own
stamp says it holds the bytes hashed: manifest.file_holds), its seed is at hand as it
was then, and its folder is as written (its stamp unchanged, or else its files as
recorded: manifest.py says what is and is not noticed). Every other game is parsed and
drawn again, as a full build draws it. The copy check and the league use each game's
kept keys and result, so an unchanged game is neither parsed nor replayed; a sealed
game's result is always computed anew (whether its secret is at hand is not in its
bytes).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from referee import i18n
from referee.errors import RefereeError
from referee.ledger import fileformat, fileio, gamefile, identity
from referee.pages import manifest
from referee.pages.summary import MARKER, SITE_NAMES, GameSummary, seed_for

STAGE = ".referee-stage-"  # OUT/.referee-stage-PID: the changed games before they move in


@dataclass
class Item:
    """One game file of this build."""

    file: str  # its path, as a str (10,000 Path objects were a tenth of a rebuild)
    sha256: str
    sealed: bool  # its bytes name a commitment: the seed may or may not be at hand
    game_id: str
    keys: dict[str, str]
    seed: str | None = None
    seeded: bool = True
    entry: manifest.Entry | None = None  # kept from the last build: not drawn again
    summary: GameSummary | None = None
    state: tuple[str, int] = ("", 0)  # the folder's names digest and size
    stamp: list[int] | None = None  # the kept folder's stamp, seen to hold; None: taken anew
    file_stamp: list[int] = field(default_factory=list)  # the file's, as its bytes were hashed
    needs_secret: bool = False
    row: str = ""  # its row of the index (HTML)
    result: Any = None  # its league result (referee.reports.ratings.results.Result)
    skip: str | None = None

    name: str = field(init=False)  # the file's name: asked for many times a game

    def __post_init__(self) -> None:
        self.name = os.path.basename(self.file)

    @property
    def path(self) -> Path:
        return Path(self.file)


@dataclass
class Plan:
    items: list[Item]
    refused: dict[str, str]  # file -> why it is not served
    loaded: manifest.Loaded | None  # None: a full build
    key: str
    league: bool  # openskill is installed: league.html is written
    repo: str | None = None  # the repository each game page's issue links open
    entries: dict[tuple[str, str], manifest.Entry] = field(default_factory=dict)
    read_ns: int = 0  # the clock before the first game file was looked at
    copies: dict[str, identity.Copy] = field(default_factory=dict)  # (also in refused)


def plan(files: list[str], out: Path, secret_path: Path | None, full: bool,
         summaries: bool = True, repo: str | None = None) -> Plan:
    """Look at every game file (its bytes and their hash, unless its stamp says they are
    the bytes the manifest hashed; a game not kept is parsed). ``summaries``: every
    served game's summary is wanted (decoded from the manifest for a kept game)."""
    has_league = _has_openskill()
    key = manifest.build_key(i18n.current(), has_league, repo)
    read_ns = time.time_ns()
    loaded = None if full or not _live(out) else manifest.load(out, key, summaries)
    entries = loaded.entries if loaded is not None else {}
    found = [_item(file, secret_path, entries, loaded, out) for file in files]
    items = [i for i in found if i is not None]  # (None: a file that is no game file)
    copies, refused = _refused(items)
    ids = [i.game_id.casefold() for i in items if i.file not in refused]
    if loaded is not None and len(ids) != len(set(ids)):
        # (kept ids that clash: trust none)
        return plan(files, out, secret_path, True, summaries, repo)
    return Plan(items, refused, loaded, key, has_league, repo, entries, read_ns, copies)


def _live(out: Path) -> bool:
    return out.is_dir() and not out.is_symlink() and (out / MARKER).is_file()


def _has_openskill() -> bool:
    try:
        import openskill  # noqa: F401
    except ImportError:
        return False
    return True


def _item(file: str, secret_path: Path | None, entries: dict[tuple[str, str], Any],
          loaded: manifest.Loaded | None, out: Path) -> Item | None:
    """The file as an item of this build (None: other JSON than a game file, as the
    index of the views or a clock view beside the games)."""
    if loaded is not None:
        entry = loaded.by_file.get(os.path.basename(file))
        if entry is not None and manifest.file_holds(entry, file, loaded.read_ns):
            kept, stamp = _kept_folder(entry, loaded, out)
            if kept:  # (the same bytes, not read again; an open game: never parsed)
                return _kept(Item(file, entry.sha256, False, entry.game_id,
                                  dict(entry.keys), entry=entry, stamp=stamp,
                                  file_stamp=entry.file_stamp), loaded)
    path = Path(file)
    fd, st = fileio.open_regular(path)
    try:
        raw = fileio.read_fd(fd, path)
    finally:
        os.close(fd)
    if fileformat.other_json(raw):
        return None
    sha = manifest.file_sha(raw)
    entry = entries.get((path.name, sha))
    # A sealed game names its commitment; a key may be spelt with \u escapes, so a file
    # holding one is treated as sealed too (parsed: its seed looked for, never trusted).
    sealed = b'"commitment"' in raw or b"\\u" in raw
    if entry is not None and not sealed:
        item = Item(file, sha, sealed, entry.game_id, dict(entry.keys), entry=entry)
    else:
        gf = gamefile.parse(raw, file)
        item = Item(file, sha, sealed, identity.game_id(gf), dict(identity.keys(gf)))
        item.seed = seed_for(gf, path, secret_path)
        item.seeded = item.seed is not None
        if entry is not None and entry.seeded == item.seeded and entry.game_id == item.game_id:
            item.entry = entry
    if item.entry is not None:
        kept, item.stamp = _kept_folder(item.entry, loaded, out)
        if not kept:
            item.entry = None
    if item.entry is None and item.sealed is False and item.seed is None:
        item.seed = seed_for(gamefile.parse(raw, file), path, secret_path)
    item.file_stamp = manifest.file_stamp(st)
    return _kept(item, loaded) if item.entry is not None else item


def _kept(item: Item, loaded: manifest.Loaded | None) -> Item:
    """The kept game's row, folder state and (when decoded) summary, from its entry."""
    entry = item.entry
    assert entry is not None and loaded is not None
    item.summary = loaded.summaries.get((entry.file, entry.sha256))
    item.needs_secret = entry.needs_secret
    item.state = (entry.names, entry.size)
    item.row = entry.row
    return item


def _kept_folder(entry: manifest.Entry, loaded: manifest.Loaded | None,
                 out: Path) -> tuple[bool, list[int] | None]:
    """Whether the entry's game was served and its folder is as written (first by the
    folder's own stamp, else file by file), and the stamp when it held."""
    if not manifest.served(entry):
        return False, None  # (a copy last time: drawn if it is served now)
    assert loaded is not None
    folder = os.path.join(out, entry.game_id)  # (a str: 10,000 Paths cost)
    if manifest.stamp_holds(entry, folder, loaded.mtime_ns):
        return True, entry.stamp
    found = manifest.folder_state(folder, loaded.mtime_ns)
    return found == (entry.names, entry.size), None


def _refused(items: list[Item]) -> tuple[dict[str, identity.Copy], dict[str, str]]:
    """(the copies of served games, each named; file -> why it is not served: the copies,
    the other files of one game (both sides, naming each other) and ids that are the
    site's own names). A copy (referee/ledger/identity.py) is served as its game, once; a
    game's page is at OUT/ID/, so a new file can never take over another game's page."""
    copies, clashes = identity.sort_copies(identity.duplicates_of_keys(
        [(i.file, i.keys, i.game_id) for i in items]), _held, served=True)
    found = {f: d.message for f, d in clashes.items()}
    found.update({f: c.message for f, c in copies.items()})
    for item in items:
        if item.game_id.casefold() in SITE_NAMES:
            found.setdefault(item.file, f"{item.path}: its game id {item.game_id!r} is a "
                                        "name the site uses for itself")
    return copies, found


def _held(file: str) -> identity.Held | None:
    """A file of a game found twice, read again to tell the copy from the game."""
    try:
        gf = gamefile.read(Path(file))
        rank = (os.stat(file).st_mtime_ns,)
    except (RefereeError, OSError):
        return None
    return identity.held_of(file, gf, rank)


def league(games_dir: Path, found_plan: Plan) -> Any:
    """The league of the folder as `referee ratings` computes it (referee/reports/ratings/),
    from each unchanged open game's kept result and the others replayed."""
    from referee.reports import ratings
    from referee.reports.ratings import copies as copiesmod
    from referee.reports.ratings import results

    found: list[results.Result] = []
    skipped: list[tuple[str, str]] = []
    for item in found_plan.items:
        if item.name.startswith("."):
            continue  # (ratings.game_names leaves these out)
        _result(games_dir, item, found_plan.entries.get((item.name, item.sha256)))
        if item.result is not None:
            found.append(item.result)
        else:
            skipped.append((item.name, item.skip or ""))
    kept, copies, disputed = copiesmod.dedupe(found)
    return ratings.league_of(kept, copies, sorted(skipped + disputed))


def _result(games_dir: Path, item: Item, entry: manifest.Entry | None) -> None:
    """The game's result for the league, or why it does not count (as ratings.read_all):
    kept for an open game's unchanged bytes (its pages may still be drawn again)."""
    from referee.reports.ratings import results

    kept = entry is not None and (entry.result is not None or entry.skip is not None)
    if entry is not None and kept and not item.sealed:
        item.result, item.skip = entry.result, entry.skip
        return
    name = item.path.relative_to(games_dir).as_posix()
    try:
        item.result = results.result_of(item.path, name)
    except RefereeError as exc:
        item.skip = exc.message
    except Exception as exc:  # a bug on this file: skipped with its kind, never a crash
        item.skip = (f"internal error while replaying it ({type(exc).__name__});"
                     " please report it with the file")


def entries(site: Path, found_plan: Plan) -> list[manifest.Entry]:
    """The manifest's entries, each served game's folder stamped as it is now (after
    every file of the site is written) and each file as its bytes were hashed."""
    out = []
    for item in found_plan.items:
        kept, served = item.entry, item.file not in found_plan.refused
        stamp = (item.stamp if item.stamp is not None
                 else manifest.folder_stamp(site / item.game_id) if served else None) or []
        if (kept is not None and served
                and (kept.result, kept.skip) == (item.result, item.skip)):
            # (the same game, the same bytes: the same entry, stamped anew)
            if (kept.stamp, kept.file_stamp) != (stamp, item.file_stamp):
                kept = msgspec.structs.replace(kept, stamp=stamp,
                                               file_stamp=item.file_stamp)
            out.append(kept)
            continue
        summary = manifest.NOT_SERVED
        if kept is not None and served:
            summary = kept.summary  # (as the manifest held it: not decoded)
        elif item.summary is not None and served:
            summary = manifest.encode_summary(replace(item.summary, log=[]))
        shown = summary is not manifest.NOT_SERVED
        out.append(manifest.Entry(item.name, item.sha256, item.sealed, item.seeded,
                                  item.game_id, item.keys, summary, item.needs_secret,
                                  item.row if shown else "", item.result, item.skip,
                                  *item.state, stamp=stamp if shown else [],
                                  file_stamp=item.file_stamp))
    return out


def write_pages(folder: Path, pages: dict[str, str]) -> None:
    """The site's own pages into FOLDER (its stale temporary files removed once: a
    listing of OUT, 10,000 game folders, for each page cost a tenth of a rebuild)."""
    fileio.remove_stale_temps(folder)
    for name, text in pages.items():
        fileio.write_atomic(folder / name, text.encode(), durable=False, what="site page",
                            tidy=False)


def write_manifest(out: Path, found_plan: Plan) -> None:
    """Last, so that every file of the site is no newer than the manifest."""
    manifest.save(out, found_plan.key, found_plan.read_ns, entries(out, found_plan))


def update(out: Path, stage: Path, found_plan: Plan, drawn: list[str],
           pages: dict[str, str]) -> None:
    """Move the drawn games into OUT, remove what a full build would not hold, write the
    pages beside them and the manifest last. The old manifest goes first: a build cut
    short leaves a site that the next build rebuilds in full."""
    manifest.forget(out)
    for slug in drawn:
        _remove(out / slug)
        (stage / slug).rename(out / slug)
    wanted = {i.game_id for i in found_plan.items if i.file not in found_plan.refused}
    wanted |= set(pages) | {stage.name}
    for name in sorted(os.listdir(out)):
        if name not in wanted:
            _remove(out / name)
    write_pages(out, pages)
    write_manifest(out, found_plan)


def _remove(path: Path) -> None:
    """Whatever is at ``path`` in OUT, never following a link out of it."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
