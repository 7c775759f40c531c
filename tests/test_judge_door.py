"""The judge's core knows no mail (referee/judge/door.py, docs/judge.md#front-doors).

The core decides who is told what (a ``Notice``); mail is one front door over it
(referee/judge/mailfront.py). Held twice: by the import graph (every import counts,
lazy and ``TYPE_CHECKING`` ones too; ``lint-imports`` holds the same in CI with the
contracts of pyproject.toml) and by playing: the core runs a game's notices through a
door that is not mail, which sees who is told what and no mail at all.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from referee.judge.basics import Config, Loaded
from referee.judge.core import Judge
from referee.judge.door import Notice
from referee.judge.store import Store
from referee.mail import player_token
from tests.test_judge import SENDER, Setup
from tests.test_layers import ROOT, import_graph, modules

MAIL = ("referee.mail", "email", "imaplib", "smtplib")
CONTRACT = "The judge's core knows no mail: not referee.mail, IMAP or SMTP, at any depth"


def core_modules() -> list[str]:
    """The modules the forbidden contract of pyproject.toml names as the judge's core."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["name"] == CONTRACT:
            return list(contract["source_modules"])
    raise AssertionError(f"no contract {CONTRACT!r} in pyproject.toml")


def outside_imports(path: Path) -> set[str]:
    """Every module name that the source at ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return found


def mail_reached(start: str) -> list[list[str]]:
    """The import chains from ``start`` through referee/judge/ to something of mail:
    ``referee.mail``, or a judge module that imports email, imaplib or smtplib itself.
    (Outside judge/, only referee.mail counts: the ledger's roster formats a registered
    address as a header value, a fact of the game file.)"""
    graph, paths = import_graph(), modules()
    chains: list[list[str]] = []
    seen: set[str] = set()
    todo = [[start]]
    while todo:
        chain = todo.pop()
        here = chain[-1]
        if here in seen:
            continue
        seen.add(here)
        if here == "referee.mail" or here.startswith("referee.mail."):
            chains.append(chain)
            continue
        if here.startswith("referee.judge"):
            direct = [m for m in outside_imports(paths[here])
                      if m.split(".")[0] in ("email", "imaplib", "smtplib")]
            chains += [[*chain, m] for m in sorted(direct)]
        todo += [[*chain, nxt] for nxt in sorted(graph.get(here, ()))]
    return chains


@pytest.mark.parametrize("module", core_modules())
def test_no_module_of_the_judge_core_reaches_mail(module: str) -> None:
    assert module in modules(), f"{module}: named in pyproject.toml but not in referee/"
    found = mail_reached(module)
    assert found == [], f"{module} reaches mail: " + "; ".join(" -> ".join(c) for c in found)


def test_the_core_is_the_core_and_the_check_sees_the_mail_door() -> None:
    core = set(core_modules())
    assert {"referee.judge.core", "referee.judge.door", "referee.judge.tend",
            "referee.judge.clocks", "referee.judge.deadlines"} <= core
    # the control: the same check finds the mail in the mail door and the dispatcher
    for door in ("referee.judge.mailfront", "referee.judge.incoming"):
        assert door not in core
        assert mail_reached(door), f"{door}: the check does not see its mail"


def test_importing_the_core_loads_no_mail_module(tmp_path: Path) -> None:
    """What runs, not only what the source says: a fresh interpreter that imports the
    core and its sweep has loaded nothing of referee.mail, imaplib or smtplib."""
    import subprocess

    code = ("import sys, referee.judge.core, referee.judge.tend, referee.judge.door\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('imaplib', 'smtplib') or m.startswith('referee.mail')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"


class Recorded:
    """A front door that is not mail (a chat would be one): it keeps the notices."""

    def __init__(self) -> None:
        self.prepared: list[tuple[str, Notice]] = []
        self.queued: list[object] = []
        self.flushed = 0

    def attach(self, store: Store) -> None:
        self.store = store

    def prepare(self, game: Loaded, notice: Notice) -> tuple[str, Notice]:
        made = (game.gf.game_id, notice)
        self.prepared.append(made)
        return made

    def queue(self, message: object) -> None:
        self.queued.append(message)

    def flush(self) -> int:
        self.flushed += 1
        return 0

    def fatal(self, exc: Exception) -> bool:
        return False


def test_the_core_tells_the_players_through_a_door_that_is_not_mail(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    door = Recorded()
    judge = Judge(Config(setup.games, SENDER), door)
    judge.notify(setup.path)
    told = {n.player: n for gid, n in door.queued}  # type: ignore[misc]
    assert sorted(told) == ["ann", "ben", "cat"]
    assert told["ann"].to == "Ann <ann@example.org>"
    assert told["ann"].board and told["ann"].notice and told["ann"].answers is None
    assert "toy-1" in {gid for gid, _ in door.prepared}
    assert door.flushed >= 1
    assert not setup.outbox.exists()  # no mail anywhere
    # the seat's token is the mail door's: nothing the core says carries it
    game = judge.load(setup.path)
    assert game is not None
    for pid, notice in told.items():
        token = player_token(game.key, "toy-1", game.settings.token_name(pid))
        assert token not in notice.body
    judge.notify(setup.path)  # nothing changed: nobody is told again
    assert len(door.queued) == 3
