"""A static site of the games in a folder: an index and, per game, its board, scores,
log and one page (and one SVG) per position.

Public views only: the site is for everyone. A sealed game whose secret is not at hand
cannot be replayed, so its page shows the log and says that the board needs the secret.
The site is built in a temporary folder beside OUT and moved into place at the end, so a
failure leaves OUT as it was.
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import referee
from referee import i18n
from referee.errors import GameFileError, RefereeError, UsageError
from referee.ledger import gamefile, replay
from referee.pages.positions import Position, replay_positions
from referee.pages.summary import MARKER, GameSummary, MoveRow
from referee.pages.templating import environment
from referee.pages.words import SiteWords
from referee.pictures import Pieces, draw_svg
from referee.pictures.changes import Marks
from referee.pictures.svg import player_fill


def build_site(games_dir: Path, out: Path, secret_path: Path | None = None,
               workers: int | None = None) -> list[GameSummary]:
    """Write the site of every ``*.json`` game in ``games_dir`` to ``out``.

    Raises UsageError (no games, OUT is something else) or GameFileError / ReplayError
    naming the bad file; OUT is unchanged then.
    """
    return build_site_report(games_dir, out, secret_path, workers).games


@dataclass
class SiteReport:
    """What `referee site` wrote, and the game files it would not serve."""

    games: list[GameSummary]  # every served game's, when asked for (else the drawn ones')
    refused: list[dict[str, str]] = field(default_factory=list)  # file, message
    copies: list[dict[str, Any]] = field(default_factory=list)  # served as their games
    rendered: list[str] = field(default_factory=list)  # the games drawn by this build
    incremental: bool = False  # OUT was updated in place from its record (the cache)
    served: int = 0  # the games on the index
    needs_secret: int = 0  # of them, sealed games without their secret (log only)


def build_site_report(games_dir: Path, out: Path, secret_path: Path | None = None,
                      workers: int | None = None, full: bool = False,
                      summaries: bool = True, repo: str | None = None) -> SiteReport:
    """:func:`build_site`, with the files left out: a game file that is the same game as
    another (a copy: the same header, commitment or id; referee/ledger/identity.py) is served
    by neither, and a game whose id is a name the site itself uses is not served.

    When OUT is a site whose record this builder keeps for the same referee
    (referee/pages/sitecache.py), only the games whose files changed are drawn again, and
    the index, the league and the record rewritten: the same bytes as a full build.
    ``full`` ignores the record. Without ``summaries`` the report's games are only the
    drawn ones (a kept game's summary is not decoded: `referee site` without --json).
    ``repo`` (OWNER/NAME): each game page links the moves of whoever must decide to that
    repository's form for a new issue (referee/git/issues.py)."""

    from referee.pages import incremental

    files = _game_files(games_dir)
    _check_out(out)
    with referee.collector_off():  # (the plan lives to the end: frozen after it)
        plan = incremental.plan(files, out, secret_path, full, summaries,
                                  repo=repo)
    try:
        return _build(games_dir, out, plan, workers)
    finally:
        incremental.close(plan)


def _build(games_dir: Path, out: Path, plan: Any, workers: int | None) -> SiteReport:
    from referee.pages import incremental

    served = [i for i in plan.items if i.file not in plan.refused]
    if not served:
        raise UsageError(f"no game in {games_dir} can be served: "
                         + "; ".join(plan.refused.values()))
    if plan.loaded is not None:
        stage = out / f"{incremental.STAGE}{os.getpid()}"
    else:
        stage = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        todo = [i for i in served if i.entry is None]
        drawn = _render_games([(i.file, i.seed, i.game_id) for i in todo], stage, workers,
                              plan.repo)
        for item, summary in zip(todo, drawn, strict=True):
            item.summary, item.needs_secret = summary, summary.needs_secret
        pages = _front_pages(games_dir, plan, served)
        if plan.loaded is not None:
            incremental.update(out, stage, plan, [i.game_id for i in todo], pages)
        else:
            incremental.write_pages(stage, pages)
            incremental.forget(out, plan)
            if out.exists():
                shutil.rmtree(out)
            stage.rename(out)
            incremental.write_record(out, plan)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    summaries = [i.summary for i in served if i.summary is not None]
    refused = [{"file": f, "message": m} for f, m in plan.refused.items()
               if f not in plan.copies]
    return SiteReport(summaries, refused, [c.to_json() for c in plan.copies.values()],
                      [i.game_id for i in todo], plan.loaded is not None, len(served),
                      sum(1 for i in served if i.needs_secret))


def _front_pages(games_dir: Path, plan: Any, served: list[Any]) -> dict[str, str]:
    """The pages beside the games' folders, by name: style, index, league, marker."""
    from referee.pages import incremental

    env = environment("the site")
    pages = {"style.css": _STYLE_CSS, MARKER: "written by referee site\n"}
    league = incremental.league(games_dir, plan) if plan.league else None
    if league is not None:
        pages["league.html"] = _league_page(env, league.to_json(games=False))
    from markupsafe import Markup

    row, words = env.get_template("index_row.html"), SiteWords()
    for item in served:  # (a kept game's row is kept: rendering 10,000 rows costs)
        item.row = item.row or row.render(g=item.summary, w=words)
    # (the rows joined here, each a line: a loop over 10,000 of them in the template cost)
    rows = Markup("".join(f"{i.row}\n" for i in served))
    pages["index.html"] = env.get_template("index.html").render(
        rows=rows, count=len(served), league=league is not None, w=words)
    return pages


def _league_page(env: Any, league: dict[str, Any]) -> str:
    """The league page: the games still in play counted in one line, not listed (in an
    archive of 10,000 games the list was most of the page and of its cost); the other
    games not counted listed with their reasons."""
    from referee.reports.ratings.results import NOT_FINISHED

    skipped = league["skipped"]
    league["skipped"] = [s for s in skipped if s["reason"] != NOT_FINISHED]
    return env.get_template("league.html").render(
        league=league, in_play=len(skipped) - len(league["skipped"]),
        provisional=_provisional(), w=SiteWords())


def _provisional() -> int:
    from referee.reports import ratings

    return ratings.PROVISIONAL_GAMES


def _game_files(games_dir: Path) -> list[str]:
    from referee.reports import ratings

    # (names sorted as strings, hidden ones too, as `glob("*.json")` found them; paths
    # spelt as `games_dir / name` would spell them, kept as str: making 10,000 Path
    # objects was a tenth of a rebuild)
    base = str(games_dir)
    files = [name if base == "." else os.path.join(base, name)
             for name in ratings.game_names(games_dir, hidden=True)]
    if not files:
        raise UsageError(f"no game files (*.json) in {games_dir}")
    return files


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir())
                                              and not (out / MARKER).exists())):
        raise UsageError(
            f"{out} exists and is not a site written by `referee site`; refusing to replace it",
            hints=["choose an empty or new folder for -o"],
        )


def _render_games(jobs: list[tuple[str, str | None, str]], tmp: Path,
                  workers: int | None, repo: str | None = None) -> list[GameSummary]:
    lang = i18n.current()  # (a worker process starts in English: it is told)
    tasks = [(path, seed, str(tmp / slug), slug, lang, repo) for path, seed, slug in jobs]
    count = workers if workers is not None else min(len(tasks), os.cpu_count() or 1)
    if count <= 1 or len(tasks) == 1:
        return [_game_task(*t) for t in tasks]
    with ProcessPoolExecutor(max_workers=count) as pool:
        return list(pool.map(_game_task, *zip(*tasks, strict=True)))


def _game_task(path: str, seed: str | None, folder: str, slug: str,
               lang: str = i18n.ENGLISH, repo: str | None = None) -> GameSummary:
    """Write one game's pages in ``lang`` (run in a worker process); returns its
    summary."""
    try:
        with i18n.language(lang):
            return render_game(gamefile.read(Path(path)), seed, Path(folder), slug, path,
                               repo)
    except RefereeError as exc:
        raise GameFileError(f"{path}: {exc.message}", hints=exc.hints) from None


def render_game(gf: gamefile.GameFile, seed: str | None, folder: Path, slug: str,
                file: str, repo: str | None = None) -> GameSummary:
    """Write ``folder``/index.html, pos-N.html and pos-N.svg for every position; with
    ``repo``, the issue links of whoever must decide (:func:`issue_links`)."""
    folder.mkdir(parents=True)
    game = gf.game
    last = gf.log[-1].get("at") if gf.log else None
    summary = GameSummary(slug=slug, file=Path(file).name, game=game.name, title=game.title,
                          game_id=gf.game_id, players=gf.data["players"], moves=len(gf.log),
                          since=last or gf.data.get("created", ""))
    env = environment("the site")
    words = SiteWords()
    if gf.sealed and seed is None:
        replay.check_structure(gf)
        summary.needs_secret = True
        summary.log = [_sealed_row(gf, i, e) for i, e in enumerate(gf.log)]
        summary.links = issue_links(gf, None, repo)
        _write(folder / "index.html", env.get_template("game.html").render(g=summary,
                                                                           w=words))
        return summary
    from markupsafe import Markup

    match, steps = replay_positions(gf, seed)
    summary.finished = game.finished(match.state)
    summary.to_move = gamefile.waiting(gf, match)
    summary.prompt = game.prompt(match.state)
    summary.scores = dict(game.scores(match.state))
    summary.ranking = game.ranking(match.state) if summary.finished else []
    summary.clock = _clock_lines(gf, seed)
    summary.log = [MoveRow(p.n, p.by or "", p.text, p.words, p.at) for p in steps[1:]]
    summary.colours = _colours(steps[-1].view)
    summary.links = issue_links(gf, match, repo)
    page = env.get_template("position.html")
    moves = Markup(env.get_template("moves.html").render(g=summary, w=words))  # once a game
    previous: dict[str, Any] | None = None
    pieces = Pieces()  # unchanged regions / countries are drawn once per game
    for step in steps:
        svg = draw_svg(step.view, Marks.between(previous, step.view),
                       step.n - 1 if step.n else None, pieces, game)
        _write(folder / f"pos-{step.n}.svg", svg)
        _write(folder / f"pos-{step.n}.html", page.render(
            g=summary, p=_position(step), last=len(steps) - 1, moves=moves, w=words))
        previous = step.view
    _write(folder / "index.html", env.get_template("game.html").render(g=summary, w=words))
    return summary


def issue_links(gf: gamefile.GameFile, match: Any, repo: str | None) -> dict[str, Any]:
    """The game's links to ``repo``'s form for a new issue (referee/git/issues.py: an
    open game's legal moves of whoever must decide, a sealed game's one link that opens
    an issue, the move typed), as the page shows them; {} without a repository or when
    nobody may move."""
    from referee.git import issues

    found = issues.links(gf, match, repo) if repo else None
    if found is None:
        return {}
    return {"players": [{"player": p, "moves": [{"label": m.label, "url": m.url}
                                               for m in found.moves.get(p, [])],
                         "more": found.more.get(p, 0)} for p in found.waiting],
            "typed": {"label": found.typed.label, "url": found.typed.url}}


def _colours(view: dict[str, Any]) -> dict[str, str]:
    players = view.get("players", {})
    rows = players.items() if isinstance(players, dict) else ((p["id"], p) for p in players)
    return {who: player_fill(str(pv.get("colour", "")))[0] for who, pv in rows}


def _position(step: Position) -> dict[str, Any]:
    return {"n": step.n, "by": step.by, "text": step.text, "words": step.words,
            "prompt": step.view.get("prompt", ""), "at": step.at}


def _sealed_row(gf: gamefile.GameFile, i: int, entry: dict[str, Any]) -> MoveRow:
    text = replay.entry_text(gf, i)
    return MoveRow(entry["n"], entry["by"], text, [], entry.get("at"))


def _clock_lines(gf: gamefile.GameFile, seed: str | None) -> list[str]:
    """The clocks of a game with a time bank, as the referee last saw it (the site
    changes only with the file), or none."""
    if seed is None or not replay.has_time_control(gf.data):
        return []
    from referee.clocks import clock, clockview
    from referee.errors import RefereeError

    try:
        tl = clock.timeline(gf, seed)
        return clockview.lines(clockview.report(tl, clock.verify(gf, tl).at))
    except RefereeError as exc:
        return [f"clock: cannot be computed: {exc.message}"]


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def summaries_json(summaries: list[GameSummary]) -> list[dict[str, Any]]:
    out = []
    for s in summaries:
        row = asdict(s)
        row.pop("log")
        out.append(row)
    return out


_STYLE_CSS = """\
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 0;
       background: #f4f1ea; color: #1b1b1b; }
header, main, footer { max-width: 1240px; margin: 0 auto; padding: 0 16px; }
header h1 { margin: 16px 0 4px; font-size: 1.6em; }
a { color: #1f4fa0; }
table { border-collapse: collapse; background: #fff; }
th, td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left;
         vertical-align: top; }
th { background: #ece6d6; }
td.num { text-align: right; }
.board { max-width: 100%; height: auto; border: 1px solid #bbb; background: #fbf8f1; }
.boardbox { margin: 1em 0; }
nav.steps { display: flex; gap: 12px; align-items: center; margin: 10px 0;
            flex-wrap: wrap; }
nav.steps a, nav.steps span.off { padding: 4px 10px; border: 1px solid #999;
    border-radius: 4px; background: #fff; text-decoration: none; }
nav.steps span.off { color: #aaa; }
.notice { background: #fff4cc; border: 1px solid #d8b64a; padding: 8px 12px; }
.words { color: #444; font-size: 0.92em; }
.turn { font-weight: bold; }
ol.log { padding-left: 3.5em; }
ol.log li { margin: 2px 0; }
ol.log li.current { background: #ffe0f0; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; border: 1px solid #000;
          vertical-align: middle; margin-right: 4px; }
.scroll { max-width: 100%; overflow-x: auto; }
pre.clock { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  header, main, footer { padding: 0 10px; }
  header h1 { font-size: 1.35em; }
  th, td { padding: 4px 6px; }
  nav.steps { gap: 6px; }
  nav.steps a, nav.steps span.off { padding: 6px 8px; }
  ol.log { padding-left: 2.6em; }
  .boardbox { overflow-x: auto; }
  .boardbox .board { max-width: none; }  /* its own size: the writing stays readable */
  /* the index on a phone: each game a card, each value under its heading's name */
  table.games, table.games tbody, table.games tr, table.games td { display: block; }
  table.games thead { display: none; }
  table.games tr { border-bottom: 1px solid #ddd; padding: 6px 0; }
  table.games td { border: none; padding: 2px 8px; }
  table.games td.num { text-align: left; }
  table.games td[data-label]::before { content: attr(data-label) ": "; color: #555; }
}
"""
