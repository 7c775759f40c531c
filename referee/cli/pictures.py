"""`referee show` (a picture of the position) and `referee site` (a static site).

The drawing code is imported inside the commands, so that other commands never pay for
it (nor for Jinja2 or the PNG library).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from referee.cli.common import PATH, command, count, emit_json, secret_option
from referee.errors import GameFileError, SealedError, UsageError
from referee.ledger import fileio, gamefile, secret


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "viewer", metavar="PLAYER",
              help="Draw this player's view (their hand, contracts); default: public only.")
@click.option("--since", type=int, metavar="N",
              help="Frame in magenta what the moves after move N changed.")
@click.option("--svg", "svg_out", type=PATH, metavar="OUT",
              help="Write an SVG picture here (- = stdout).")
@click.option("--png", "png_out", type=PATH, metavar="OUT",
              help="Write a PNG picture here.")
@click.option("--md", "md_out", type=PATH, metavar="OUT",
              help="Write the public board as Markdown here, for a README (- = stdout).")
@click.option("--github-repo", metavar="OWNER/NAME",
              help="With --md: each move of whoever must decide as a link that opens an "
                   "issue of this repository (docs/git-and-ci.md).")
@secret_option
def show(path: Path, viewer: str | None, since: int | None, svg_out: Path | None,
         png_out: Path | None, md_out: Path | None, github_repo: str | None,
         secret_path: Path | None, as_json: bool) -> None:
    """Draw the board of FILE as SVG or PNG, from the same view as `status --json`, or
    write it as Markdown (the public view, with issue links for the player to move)."""
    from referee.pages.positions import since_marks, view_at
    from referee.pictures import draw_svg, svg_to_png
    from referee.pictures.changes import NO_MARKS

    if sum(out is not None for out in (svg_out, png_out, md_out)) != 1:
        raise UsageError("give exactly one of --svg OUT, --png OUT or --md OUT")
    if png_out is not None and str(png_out) == "-":
        raise UsageError("--png needs a file name (PNG is binary)")
    if md_out is not None:
        _markdown(path, md_out, viewer, since, github_repo, secret_path, as_json)
        return
    if github_repo is not None:
        raise UsageError("--github-repo goes with --md (a picture holds no link)")
    gf = gamefile.read(path)
    if viewer is not None:
        gf.player(viewer)
    seed = _seed(gf, secret_path, path)
    if since is None:
        view, marks = view_at(gf, seed, viewer), NO_MARKS
    else:
        view, marks = since_marks(gf, seed, viewer, since)
    svg = draw_svg(view, marks, since, game=gf.game)
    if svg_out is not None and str(svg_out) == "-":
        sys.stdout.write(svg + "\n")
        return
    out = svg_out if svg_out is not None else png_out
    assert out is not None
    data = svg.encode() if svg_out is not None else svg_to_png(svg)
    _write_bytes(out, data)
    if as_json:
        emit_json({"file": str(out), "format": "svg" if svg_out else "png",
                   "bytes": len(data), "moves": len(gf.log), "as": viewer, "since": since,
                   "changed": bool(marks)})
        return
    click.echo(f"wrote {out} ({len(data)} bytes)")


def _markdown(path: Path, out: Path, viewer: str | None, since: int | None,
              repo: str | None, secret_path: Path | None, as_json: bool) -> None:
    """`show --md`: the public board as Markdown (referee/pages/markdown.py)."""
    from referee.git import issues
    from referee.ledger import replay
    from referee.pages import markdown

    if viewer is not None or since is not None:
        raise UsageError("--md writes the public board for a README everyone reads: "
                         "without --as and --since")
    if repo is not None:
        issues.check_repo(repo)
    gf = gamefile.read(path)
    seed = _seed(gf, secret_path, path)
    text = markdown.board(gf, replay.replay(gf, seed), repo)
    if str(out) == "-":
        sys.stdout.write(text)
        return
    _write_bytes(out, text.encode())
    if as_json:
        emit_json({"file": str(out), "format": "md", "bytes": len(text.encode()),
                   "moves": len(gf.log), "github_repo": repo})
        return
    click.echo(f"wrote {out} ({len(text.encode())} bytes)")


def _seed(gf: gamefile.GameFile, secret_path: Path | None, path: Path) -> str | None:
    """The game's seed for drawing its board. Raises SealedError for a sealed game
    without its secret."""
    seed = secret.find_seed(gf, secret_path, path)
    if gf.sealed and seed is None:
        raise SealedError("this game is sealed: its board cannot be drawn without the secret",
                          hints=["give --secret FILE (or REFEREE_SECRET)"])
    return seed


def _write_bytes(out: Path, data: bytes) -> None:
    if out.is_dir():
        raise UsageError(f"{out} is a folder; give a file name")
    if not out.parent.is_dir():
        raise UsageError(f"no such folder: {out.parent}")
    try:
        fileio.write_atomic(out, data, what="picture")
    except GameFileError as exc:
        raise UsageError(exc.message) from None


@command()
@click.argument("games_dir", metavar="GAMES_DIR", type=PATH)
@click.option("-o", "--out", "out", required=True, type=PATH,
              metavar="OUT", help="Folder to write the site to (replaced if it is a site).")
@click.option("--secret", "secret_path", type=PATH, metavar="SECRET",
              help="Secrets of sealed games: a folder of FILE.secret files or one game's "
                   "secret file (also REFEREE_SECRET, the repository secret or one game's "
                   "seed; REFEREE_SECRET_FILE; FILE.secret beside each game).")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes to draw with (default: one per CPU).")
@click.option("--full", is_flag=True,
              help="Draw every game again, whatever the cache remembers of OUT.")
@click.option("--github-repo", metavar="OWNER/NAME",
              help="On each game's page, the moves of whoever must decide as links that "
                   "open an issue of this repository (a sealed game's: one link, the move "
                   "typed; docs/git-and-ci.md).")
def site(games_dir: Path, out: Path, secret_path: Path | None, workers: int | None,
         full: bool, github_repo: str | None, as_json: bool) -> None:
    """Write a static site of the games in GAMES_DIR: an index, and per game (at
    OUT/GAME-ID/) its board, scores, log and every position. A copy of a game (the
    same header, its log the game's; a sealed game's: the very same log) is served once,
    as the game, and named; any other file that is the same game as another is not
    served, and said so. A .json file that is no game file is passed over. When OUT is a
    site this builder wrote, only the games that changed are drawn again (the same
    bytes). With --github-repo, each game's page links the moves of whoever must decide
    to a new issue of that repository."""
    from referee.git import issues
    from referee.pages.site import build_site_report, summaries_json

    if github_repo is not None:
        issues.check_repo(github_repo)
    report = build_site_report(games_dir, out, secret_path, workers, full,
                               summaries=as_json, repo=github_repo)
    if as_json:
        emit_json({"out": str(out), "games": summaries_json(report.games),
                   "not_served": report.refused, "copies": report.copies,
                   "drawn": report.rendered, "incremental": report.incremental})
        return
    for refused in report.refused:
        click.echo(f"not served: {refused['message']}", err=True)
    for copy in report.copies:
        click.echo(f"{copy['message']}: served once, as {copy['copy_of']}")
    sealed = report.needs_secret
    click.echo(f"wrote {out}/index.html: {count(report.served, 'game', 'games')}"
               + (f" ({sealed} sealed without their secret: log only)" if sealed else "")
               + (f"; {count(len(report.refused), 'file', 'files')} not served"
                  if report.refused else ""))
