"""One judge, many doors (referee/judge/door.py, docs/architecture.md#the-judge): the tree
shows it, and a door is one package.

Held by the import graph (every import counts, lazy and ``TYPE_CHECKING`` ones too;
``lint-imports`` holds the same in CI with the contracts of pyproject.toml): no module of
the core (referee/judge/) reaches a transport (a door, mail, Matrix, IMAP, SMTP, the email
package), no door imports another, the chat door reaches no mail. And by playing: a toy
door (tests/toydoor/, one small package) carries a game through the core.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from referee.judge.basics import Config
from referee.judge.core import Judge
from tests.test_layers import ROOT, import_graph, modules
from tests.toydoor import Text, ToyDoor, Wire, posts

TRANSPORT = ("referee.mail", "referee.doors", "nio", "imaplib", "smtplib")


def contract(name_start: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for found in config["tool"]["importlinter"]["contracts"]:
        if found["name"].startswith(name_start):
            return dict(found)
    raise AssertionError(f"no contract {name_start!r}... in pyproject.toml")


def core_modules() -> list[str]:
    return sorted(m for m in modules() if m == "referee.judge" or m.startswith("referee.judge."))


def outside_imports(path: Path) -> set[str]:
    """Every module name that the source at ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return found


def reached(start: str, forbidden: tuple[str, ...], direct_email: str = "referee.judge"
            ) -> list[list[str]]:
    """The import chains from ``start`` to a module of ``forbidden``, or to a module
    under ``direct_email`` that imports the email package itself (the ledger's roster
    formats an address as a header value: a fact of the game file, not of a door)."""
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
        if any(here == f or here.startswith(f + ".") for f in forbidden):
            chains.append(chain)
            continue
        if here.startswith(direct_email) and here in paths:
            direct = [m for m in outside_imports(paths[here])
                      if m.split(".")[0] in ("email", *forbidden)]
            chains += [[*chain, m] for m in sorted(direct)]
        todo += [[*chain, nxt] for nxt in sorted(graph.get(here, ()))]
    return chains


@pytest.mark.slow
@pytest.mark.parametrize("module", core_modules())
def test_no_module_of_the_judge_core_reaches_a_transport(module: str) -> None:
    found = reached(module, TRANSPORT)
    assert found == [], f"{module} reaches: " + "; ".join(" -> ".join(c) for c in found)


@pytest.mark.slow
def test_the_contracts_name_packages_and_the_check_sees_a_door() -> None:
    core = contract("The judge's core knows no transport")
    assert core["source_modules"] == ["referee.judge"]
    assert contract("No door imports another")["modules"] == ["referee.doors.mail",
                                                              "referee.doors.chat",
                                                              "referee.doors.github"]
    # the control: the same check finds the transport in each door
    assert reached("referee.doors.mail.incoming", ("referee.mail",))
    assert reached("referee.doors.chat.link", ("nio",), "referee.doors.chat")


@pytest.mark.slow
def test_no_door_imports_another_and_chat_reads_no_mail() -> None:
    assert reached("referee.doors.chat", ("referee.mail", "referee.doors.mail")) == []
    for module in [m for m in modules() if m.startswith("referee.doors.chat")]:
        assert reached(module, ("referee.mail", "referee.doors.mail", "imaplib",
                                "smtplib")) == [], module
    for module in [m for m in modules() if m.startswith("referee.doors.mail")]:
        assert reached(module, ("referee.doors.chat", "referee.doors.github", "nio")) == [], \
            module
    for module in [m for m in modules() if m.startswith("referee.doors.github")]:
        assert reached(module, ("referee.mail", "referee.doors.mail", "referee.doors.chat",
                                "imaplib", "smtplib", "nio")) == [], module


def test_no_module_directly_in_the_judge_belongs_to_one_door() -> None:
    """What is left in referee/judge/ is the core: no module there is named after a
    door, and none reaches a transport (above)."""
    names = [p.stem for p in (ROOT / "referee" / "judge").glob("*.py")]
    assert not [n for n in names if n.startswith(("mail", "chat", "matrix", "imap", "smtp"))]
    assert (ROOT / "referee" / "doors" / "mail" / "__init__.py").exists()
    assert (ROOT / "referee" / "doors" / "chat" / "__init__.py").exists()
    assert (ROOT / "referee" / "doors" / "github" / "__init__.py").exists()


def test_importing_the_core_loads_no_transport() -> None:
    """What runs, not only what the source says: a fresh interpreter that imports the
    core, its handling and its serve loop has loaded nothing of mail, Matrix or a door."""
    code = ("import sys, referee.judge.core, referee.judge.tend, referee.judge.handling, "
            "referee.judge.serve\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('imaplib', 'smtplib', 'nio', 'email') or m.startswith(('referee.mail', "
            "'referee.doors'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"


# --------------------------------------------------------------------------- a toy door


def toy_game(tmp_path: Path) -> tuple[Path, Path]:
    from tests.conftest import ok

    games = tmp_path / "games"
    games.mkdir()
    path = games / "t.json"
    ok("new", "toy", path, "--players",
       "ann=Ann <ann@toy.invalid>,ben=Ben <ben@toy.invalid>", "--id", "toy-1")
    return games, path


def test_a_toy_door_of_one_package_carries_a_game_through_the_core(tmp_path: Path) -> None:
    from referee.judge import serve
    from referee.ledger import gamefile

    games, path = toy_game(tmp_path)
    wire = Wire()
    judge = Judge(Config(games, "referee@toy.invalid"), [ToyDoor(wire)])
    serve.run_once(judge)
    assert [p["room"] for p in wire.outbox].count("table") == 1  # the table's first post
    assert any("Your turn" in b for b in posts(wire, "seat:ann"))
    wire.inbox.append(Text("<t1@toy.invalid>", "ann", "table", "good luck, ben!"))
    wire.inbox.append(Text("<t2@toy.invalid>", "ann", "table", "take 2."))
    taken = serve.run_once(judge)["toy"]
    assert (taken.read, taken.played) == (1, 1)  # table chat passed over, the move played
    entry = gamefile.read(path).log[-1]
    assert entry["move"] and entry["mail"] == "<t2@toy.invalid>"
    wire.inbox.append(Text("<t2@toy.invalid>", "ann", "table", "take 2."))  # again
    serve.run_once(judge)
    assert len(gamefile.read(path).log) == 1
    judge.close()


def test_a_hidden_choice_at_the_table_is_withdrawn_however_it_comes(tmp_path: Path) -> None:
    """Through the toy door, at a Dynasties table: a hidden choice typed as an edit,
    with words around it, or inside a message too long to read is withdrawn and never
    played; the same choice alone with the referee is played."""
    from referee import engine
    from referee.judge import handling, readings
    from referee.judge.door import Place, Said
    from referee.ledger import gamefile
    from referee.play.reading import read_text
    from tests.conftest import ok

    games = tmp_path / "games"
    games.mkdir()
    path = games / "d.json"
    ok("new", "dynasties", path, "--players",
       "ann=Ann <ann@toy.invalid>,ben=Ben <ben@toy.invalid>,cat=Cat <cat@toy.invalid>",
       "--seed", "hidden", "--id", "dyn-toy")
    judge = Judge(Config(games, "referee@toy.invalid"), [door := ToyDoor(wire := Wire())])
    for _ in range(200):  # first legal moves until the one to move has a hidden choice
        game = judge.load(path)
        assert game is not None
        match = game.match
        mover = match.game.to_move(match.state)[0]
        legal = engine.legal_strings(match.game, match.state, mover)
        hidden = [m for m in legal if readings.hidden_in(game, mover, [m])]
        if hidden:
            break
        ok("move", path, "--as", mover, legal[0])
    else:
        raise AssertionError("no hidden choice in 200 moves")
    before = gamefile.read(path).log
    said = [("edit", hidden[0]), ("message", f"ok then, {hidden[0]} - good luck"),
            ("too_long", f"{'x' * 1500}\n{hidden[0]}\n{'y' * 600}")]
    for k, (kind, text) in enumerate(said):
        outcome = handling.handle(judge, Said(door, f"<h{k}@toy.invalid>", "mail", game,
                                              mover, read_text(text), Place.TABLE,
                                              kind=kind, sender=mover))
        assert outcome.action == "rejected" and outcome.detail == "hidden at the table"
    assert wire.withdrawn == ["<h0@toy.invalid>", "<h1@toy.invalid>", "<h2@toy.invalid>"]
    assert gamefile.read(path).log == before
    judge.flush()
    assert not [p for p in wire.outbox if p["room"] == "table" and hidden[0] in p["body"]]
    outcome = handling.handle(judge, Said(door, "<h9@toy.invalid>", "mail", game, mover,
                                          read_text(hidden[0]), Place.SEAT, sender=mover))
    assert outcome.action == "played", outcome
    judge.close()
