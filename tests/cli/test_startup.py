"""Start-up at the floor: each command imports only what it uses.

`referee status` and `referee move` run in a fresh interpreter that writes its
``sys.modules`` at exit; the modules they must not import are listed here (the heavy
dependencies and the parts of the referee that other commands use), and the referee's
own modules they may import are an explicit list, so a new top-level import anywhere on
their path fails here by name. `referee --help` lists every command from the static table
in referee/cli/__init__.py without importing any command's module, and the table is held
equal to the real commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from referee import cli
from referee.cli import COMMANDS, load_all, main

# Never on the path of `status` or `move` (a plain game, no bot seat, no mail).
FORBIDDEN = (
    "jsonschema", "pyrage", "bech32", "nacl", "imapclient", "jinja2", "resvg_py", "chess",
    "referee.bots", "referee.judge", "referee.pictures", "referee.mail", "referee.git.history",
    "referee.git.drivers", "referee.trust.agebox", "referee.upgrade", "referee.play.upgrades",
    "referee.play.reading",  # (the doors' reading: `move` needs referee.play.lines only)
    "referee.reports.checking", "referee.git.commits", "referee.play.commands",
    "referee.ledger.schemagen",
    "referee.cli.bot", "referee.cli.check", "referee.cli.git", "referee.cli.info",
    "referee.cli.judge", "referee.cli.mail", "referee.cli.pictures", "referee.cli.upgrade",
    "referee.reports.pending", "referee.reports.pendingcache", "referee.mail.gamemail",
    "referee.git.views", "referee.git.viewcache", "referee.git.viewfiles",
    "referee.git.viewcheck", "referee.git.places",
    "referee.games.dynasties", "referee.games.staufer.explain",
    "subprocess", "tempfile", "email", "smtplib", "imaplib", "difflib", "secrets",
    "traceback", "base64", "random", "statistics", "shutil",
)
# The referee's modules that `status` of a Staufer game needs.
STATUS_NEEDS = {
    "referee", "referee.cli", "referee.cli.common", "referee.cli.play", "referee.ledger",
    "referee.play",
    "referee.ledger.dataversions",
    "referee.i18n",  # the language of what a player reads (English opens no catalog)
    "referee.cli.clicktext",  # click's words in the language of --as's player (opens none)
    "referee.engine", "referee.errors", "referee.ledger.fileformat", "referee.ledger.fileio",
    "referee.ledger.gamefile",
    "referee.ledger.nonces", "referee.ledger.replay", "referee.engine.registry",
    "referee.engine.rng",
    "referee.ledger.schema",
    "referee.ledger.seats",
    "referee.ledger.secret", "referee.ledger.secretplace", "referee.play.statusview",
    "referee.ledger.strictjson",
    "referee.engine.textlayout",
    "referee.ledger.vouch",
    "referee.games",
    "referee.games.staufer", "referee.games.staufer.basics",
    "referee.games.staufer.components", "referee.games.staufer.gamesetup",
    "referee.games.staufer.moves", "referee.games.staufer.render",
    "referee.games.staufer.rounds", "referee.games.staufer.rules",
    "referee.games.staufer.scoring", "referee.games.staufer.state",
    "referee.games.staufer.texts",  # the German words (tables; no catalog opened in English)
    "referee.games.staufer.views", "referee.__main__",
}
# `move` also writes the file (and lets any bot seat play after it, so it asks submit).
MOVE_NEEDS = STATUS_NEEDS | {"referee.play.submit", "referee.play.writecore",
                             "referee.engine.bounds",
                             "referee.play.lines"}  # the moves read as mail reads them

_RUN = """
import atexit, json, sys
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["referee", *sys.argv[2:]]
from referee.cli import main
main()
"""


def modules_of(tmp_path: Path, *args: str, env: dict[str, str] | None = None
               ) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _RUN, str(out), *args], text=True,
                          capture_output=True, check=False,
                          env=None if env is None else {**os.environ, **env})
    assert out.exists(), done.stderr
    return set(json.loads(out.read_text())), done


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    done = subprocess.run([sys.executable, "-m", "referee", "new", "staufer", str(path),
                           "--players", "ann,ben,cat", "--seed", "startup"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return path


def _unwanted(loaded: set[str], needs: set[str],
              forbidden: tuple[str, ...] = FORBIDDEN) -> list[str]:
    heavy = [m for m in loaded if any(m == f or m.startswith(f + ".") for f in forbidden)]
    extra = [m for m in loaded if m.startswith("referee") and m not in needs]
    return sorted(set(heavy) | set(extra))


def test_status_imports_only_what_it_uses(tmp_path: Path, game: Path) -> None:
    for args in (["status", str(game), "--as", "ann"], ["status", str(game), "--json"]):
        loaded, done = modules_of(tmp_path, *args)
        assert done.returncode == 0, done.stderr
        assert _unwanted(loaded, STATUS_NEEDS) == []
        assert "referee.games.staufer.state" in loaded  # (the probe sees the imports)


def test_move_imports_only_what_it_uses(tmp_path: Path, game: Path) -> None:
    loaded, done = modules_of(tmp_path, "move", str(game), "--as", "ann", "supply 2")
    assert done.returncode == 0, done.stderr
    assert "move 1: ann: supply 2" in done.stdout
    assert _unwanted(loaded, MOVE_NEEDS) == []
    assert "referee.play.submit" in loaded


def test_a_move_in_a_game_under_way_imports_only_what_it_uses(tmp_path: Path,
                                                             game: Path) -> None:
    """The second move decodes the first from the log (the game's move types)."""
    _, first = modules_of(tmp_path, "move", str(game), "--as", "ann", "supply 2")
    assert first.returncode == 0, first.stderr
    loaded, done = modules_of(tmp_path, "move", str(game), "--as", "ben", "supply 1")
    assert done.returncode == 0, done.stderr
    assert "move 2: ben: supply 1" in done.stdout
    assert _unwanted(loaded, MOVE_NEEDS) == []


# `pending` with every row in its cache reads, hashes and prints: no game is parsed.
PENDING_CACHED_NEEDS = {
    "referee", "referee.__main__", "referee.cli", "referee.cli.common", "referee.cli.pending",
    "referee.ledger", "referee.reports",
    "referee.cli.clicktext",
    "referee.errors", "referee.ledger.fileio", "referee.i18n", "referee.ledger.identity",
    "referee.reports.pending", "referee.reports.pendingcache", "referee.reports.filecache",
    "referee.ledger.secretplace",
    "referee.ledger.cachedb", "referee.ledger.codedigest",  # the one cache database
    "referee.reports.folders",  # the files of the folders named (no game, no engine)
}


PENDING_FORBIDDEN = tuple(f for f in FORBIDDEN if not f.startswith("referee.reports.pending"))


def test_pending_from_its_cache_imports_no_game(tmp_path: Path, game: Path) -> None:
    env = {"REFEREE_CACHE_DIR": str(tmp_path / "cache")}
    _, cold = modules_of(tmp_path, "pending", str(game), env=env)
    assert cold.returncode == 0, cold.stderr
    loaded, cached = modules_of(tmp_path, "pending", str(game), env=env)
    assert cached.returncode == 0, cached.stderr
    assert cached.stdout == cold.stdout
    assert f"{game}: waiting for ann since " in cached.stdout
    assert _unwanted(loaded, PENDING_CACHED_NEEDS, PENDING_FORBIDDEN) == []
    assert "referee.reports.pendingcache" in loaded


def test_a_refused_move_still_explains_itself(tmp_path: Path, game: Path) -> None:
    """The explanation of an illegal move is imported when it is needed."""
    loaded, done = modules_of(tmp_path, "move", str(game), "--as", "ann", "privilege 5")
    assert done.returncode == 1
    assert "not legal" in done.stderr and "Traceback" not in done.stderr
    assert "referee.games.staufer.explain" in loaded


def test_help_lists_every_command_without_importing_one(tmp_path: Path) -> None:
    loaded, done = modules_of(tmp_path, "--help")
    assert done.returncode == 0, done.stderr
    assert [m for m in loaded if m.startswith("referee.cli.")] == []
    assert done.stdout == _eager_help()
    for name in COMMANDS:
        assert f"\n  {name} " in done.stdout


def _eager_help() -> str:
    """The help click writes with every command imported (what the table must give)."""
    load_all()
    with click.Context(main, info_name="referee", **main.context_settings) as ctx:
        formatter = ctx.make_formatter()
        main.format_usage(ctx, formatter)
        main.format_help_text(ctx, formatter)
        click.Command.format_options(main, ctx, formatter)  # (without the commands)
        click.Group.format_commands(main, ctx, formatter)
        return formatter.getvalue()


def test_the_table_is_the_real_commands() -> None:
    """Every command's name, module and short help in the table are the real ones, and
    every command a module of referee/cli registers is in the table."""
    import pkgutil

    for info in pkgutil.iter_modules(cli.__path__):
        __import__(f"referee.cli.{info.name}")
    assert sorted(main.commands) == sorted(COMMANDS)
    for name, command in main.commands.items():
        module, text = COMMANDS[name]
        assert command.callback is not None
        assert command.callback.__module__ == f"referee.cli.{module}", name
        assert text == command.get_short_help_str(limit=10**6), name


def test_a_mistyped_command_gets_the_close_names(tmp_path: Path) -> None:
    _, done = modules_of(tmp_path, "stats", "x.json")
    assert done.returncode == 2
    assert "No such command 'stats'" in done.stderr and "status" in done.stderr


def test_imports_run_without_the_collector_and_leave_it_as_it_was() -> None:
    import gc

    from referee import collector_off, import_module

    assert gc.isenabled()
    with collector_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        assert import_module("referee.cli.play").__name__ == "referee.cli.play"
        assert not gc.isenabled()  # (a caller that turned it off keeps it off)
    finally:
        gc.enable()
    with pytest.raises(ImportError):
        import_module("referee.cli.nonexistent")
    assert gc.isenabled()
def test_the_groups_help_text_is_its_docstring() -> None:
    import inspect

    assert main.help is not None
    paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(main.help).split("\n\n")]
    assert paragraphs == cli.ABOUT.split("\n\n")  # click wraps either the same way
