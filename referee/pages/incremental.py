"""The site built from what changed: which games OUT's record (referee/pages/sitecache.py,
in the cache database) lets the builder keep, the league from the games' kept results,
and OUT updated in place.

Every game file is read and its bytes hashed. A game is kept when the record has an
entry for its name and these bytes, its seed is at hand as it was then, and its folder
is in OUT, a real folder (one listing of OUT). What is inside a kept game's folder is
not looked at: OUT is the builder's own, as its cache is, and `referee site --full`
draws everything. Every other game is parsed and drawn again, as a full build draws it. The
copy check and the league use each game's kept keys and result, so an unchanged open
game is neither parsed nor replayed; a sealed game's result comes from `ratings`' rows,
found with the secret at hand now (referee/reports/ratings/cache.py).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee import i18n
from referee.errors import RefereeError
from referee.ledger import cachedb, fileformat, fileio, gamefile, identity
from referee.pages import sitecache
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
    entry: sitecache.Entry | None = None  # kept from the last build: not drawn again
    summary: GameSummary | None = None
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
    loaded: sitecache.Loaded | None  # None: a full build
    key: str
    league: bool  # openskill is installed: league.html is written
    repo: str | None = None  # the repository each game page's issue links open
    cache: cachedb.Cache | None = None  # None: no cache (every build full)
    copies: dict[str, identity.Copy] = field(default_factory=dict)  # (also in refused)


def plan(files: list[str], out: Path, secret_path: Path | None, full: bool,
         summaries: bool = True, cache: cachedb.Cache | None = None,
         repo: str | None = None) -> Plan:
    """Read every game file and hash its bytes; a game not kept is parsed.
    ``summaries``: every served game's summary is wanted (decoded from the record for a
    kept game). The cache is opened here (``cache``: already open) and closed by
    :func:`close`."""
    has_league = _has_openskill()
    key = sitecache.build_key(i18n.current(), has_league, repo)
    if cache is None:
        cache = cachedb.open_cache()
    loaded = (None if full or cache is None or not _live(out)
              else sitecache.load(cache, out, key, summaries))
    found = [_item(file, secret_path, loaded, out) for file in files]
    items = [i for i in found if i is not None]  # (None: a file that is no game file)
    copies, refused = _refused(items)
    ids = [i.game_id.casefold() for i in items if i.file not in refused]
    if loaded is not None and len(ids) != len(set(ids)):
        # (kept ids that clash: trust none)
        return plan(files, out, secret_path, True, summaries, cache, repo)
    return Plan(items, refused, loaded, key, has_league, repo, cache, copies)


def close(found_plan: Plan) -> None:
    """Write what the build learnt into the cache (the league's rows) and close it."""
    if found_plan.cache is not None:
        found_plan.cache.flush()
        found_plan.cache.close()
        found_plan.cache = None


def _live(out: Path) -> bool:
    return out.is_dir() and not out.is_symlink() and (out / MARKER).is_file()


def _has_openskill() -> bool:
    try:
        import openskill  # noqa: F401
    except ImportError:
        return False
    return True


def _item(file: str, secret_path: Path | None, loaded: sitecache.Loaded | None,
          out: Path) -> Item | None:
    """The file as an item of this build (None: other JSON than a game file, as the
    index of the views or a clock view beside the games)."""
    fd, st = fileio.open_regular(file)  # (a str: 10,000 Path objects cost)
    try:
        raw = fileio.read_fd(fd, file, st.st_size)
    finally:
        os.close(fd)
    if fileformat.other_json(raw):
        return None
    sha = sitecache.file_sha(raw)
    entry = loaded.by_file.get(os.path.basename(file)) if loaded is not None else None
    if entry is not None and entry.sha256 != sha:
        entry = None  # (an entry for other bytes stands for nothing)
    # A sealed game names its commitment; a key may be spelt with \u escapes, so a file
    # holding one is treated as sealed too (parsed: its seed looked for, never trusted).
    sealed = b'"commitment"' in raw or b"\\u" in raw
    if entry is not None and not sealed:  # (an open game as recorded: never parsed)
        item = Item(file, sha, sealed, entry.game_id, entry.keys, entry=entry)
    else:
        gf = gamefile.parse(raw, file)
        item = Item(file, sha, sealed, identity.game_id(gf), dict(identity.keys(gf)))
        item.seed = seed_for(gf, Path(file), secret_path)
        item.seeded = item.seed is not None
        if entry is not None and entry.seeded == item.seeded and entry.game_id == item.game_id:
            item.entry = entry
    if item.entry is not None and not _kept_folder(item.entry, loaded, out):
        item.entry = None
    if item.entry is None and item.sealed is False and item.seed is None:
        item.seed = seed_for(gamefile.parse(raw, file), Path(file), secret_path)
    return _kept(item, loaded) if item.entry is not None else item


def _kept(item: Item, loaded: sitecache.Loaded | None) -> Item:
    """The kept game's row and (when decoded) summary, from its entry."""
    entry = item.entry
    assert entry is not None and loaded is not None
    item.summary = loaded.summaries.get(entry.file)
    item.needs_secret = entry.needs_secret
    item.row = entry.row
    return item


def _kept_folder(entry: sitecache.Entry, loaded: sitecache.Loaded | None, out: Path) -> bool:
    """Whether the entry's game was served and its folder is in OUT, a real folder (no
    link: found by the one listing of OUT); what is inside it is the builder's own."""
    if entry.summary is None:
        return False  # (a copy last time: drawn if it is served now)
    assert loaded is not None
    return entry.game_id in loaded.folders


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
    from each unchanged open game's kept result and `ratings`' rows for the others."""
    from referee.reports import filecache, ratings
    from referee.reports.ratings import cache, results
    from referee.reports.ratings import copies as copiesmod

    found: list[results.Result] = []
    skipped: list[tuple[str, str]] = []
    index = filecache.Index(cache.KIND, cache.Entry, found_plan.cache)
    for item in found_plan.items:
        if item.name.startswith("."):
            continue  # (ratings.game_names leaves these out)
        _result(games_dir, item, index)
        if item.result is not None:
            found.append(item.result)
        else:
            skipped.append((item.name, item.skip or ""))
    kept, copies, disputed = copiesmod.dedupe(found)
    return ratings.league_of(kept, copies, sorted(skipped + disputed))


def _result(games_dir: Path, item: Item, index: Any) -> None:
    """The game's result for the league, or why it does not count (as ratings.read_all):
    kept for an open game's unchanged bytes (its pages may still be drawn again), else
    from `ratings`' rows (keyed by the secret at hand now) or replayed."""
    from referee.reports.ratings import cache

    entry = item.entry
    if entry is not None and not item.sealed and (entry.result, entry.skip) != (None, None):
        item.result, item.skip = entry.result, entry.skip
        return
    name = item.path.relative_to(games_dir).as_posix()
    try:
        item.result = cache.result_of(index, item.path, name)
    except RefereeError as exc:
        item.skip = exc.message
    except Exception as exc:  # a bug on this file: skipped with its kind, never a crash
        item.skip = (f"internal error while replaying it ({type(exc).__name__});"
                     " please report it with the file")


def entries(found_plan: Plan) -> list[sitecache.Entry]:
    """The record's entries: each game as this build saw and served it."""
    out = []
    for item in found_plan.items:
        kept, served = item.entry, item.file not in found_plan.refused
        if (kept is not None and served
                and (kept.result, kept.skip) == (item.result, item.skip)):
            out.append(kept)  # (the same game, the same bytes: the same entry)
            continue
        summary = None
        if kept is not None and served:
            summary = kept.summary  # (as the record held it: not decoded)
        elif item.summary is not None and served:
            summary = sitecache.encode_summary(replace(item.summary, log=[]))
        shown = summary is not None
        result, skip = (None, None) if item.sealed else (item.result, item.skip)
        out.append(sitecache.Entry(item.name, item.sha256, item.sealed, item.seeded,
                                   item.game_id, item.keys, summary, item.needs_secret,
                                   item.row if shown else "", result, skip))
    return out


def write_pages(folder: Path, pages: dict[str, str]) -> None:
    """The site's own pages into FOLDER (its stale temporary files removed once: a
    listing of OUT, 10,000 game folders, for each page cost a tenth of a rebuild)."""
    fileio.remove_stale_temps(folder)
    for name, text in pages.items():
        fileio.write_atomic(folder / name, text.encode(), durable=False, what="site page",
                            tidy=False)


def write_record(out: Path, found_plan: Plan) -> None:
    """OUT's record, written last (after every file of the site)."""
    sitecache.save(found_plan.cache, out, found_plan.key, entries(found_plan),
                   found_plan.loaded)


def forget(out: Path, found_plan: Plan) -> None:
    """Drop OUT's record before OUT changes; if it cannot be dropped, remember nothing
    more of OUT in this build (the next one is full)."""
    if not sitecache.forget(found_plan.cache, out):
        close(found_plan)


def update(out: Path, stage: Path, found_plan: Plan, drawn: list[str],
           pages: dict[str, str]) -> None:
    """Move the drawn games into OUT, remove what a full build would not hold, write the
    pages beside them and OUT's record last. The old record goes first: a build cut
    short leaves a site that the next build rebuilds in full."""
    forget(out, found_plan)
    for slug in drawn:
        _remove(out / slug)
        (stage / slug).rename(out / slug)
    wanted = {i.game_id for i in found_plan.items if i.file not in found_plan.refused}
    wanted |= set(pages) | {stage.name}
    for name in sorted(os.listdir(out)):
        if name not in wanted:
            _remove(out / name)
    write_pages(out, pages)
    write_record(out, found_plan)


def _remove(path: Path) -> None:
    """Whatever is at ``path`` in OUT, never following a link out of it."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
