"""A game from another installed package: Nim (tests/plugin), a distribution of its own
that declares an entry point in the group ``referee.games``. It is installed into a
temporary folder (as the conformance suite installs it, tests/conformance/registry.py)
and the referee runs with that folder on PYTHONPATH: `games`, `new`,
`status`, `move`, `undo`, `check`, `show`, `data`, `simulate`, `bot`, `upgrade` and the
judge's mails work for it with no edit inside referee/ (the generic picture, no legend,
moves counted by kind for `simulate`). Also the core-only toy (tests/toygame.py: no
capability at all) through the CLI: every optional member has its fallback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.registry import PLUGIN, plugin_site
from tests.conftest import run
from tests.judge.support import body_text, deliver, outbox_messages, reply

SENDER = "Referee <referee@example.org>"


@pytest.fixture(scope="module")
def site() -> Path:
    """The plug-in installed with pip into a folder of its own, from its wheel (the
    conformance suite's install, tests/conformance/registry.py: once per process)."""
    return plugin_site()


def referee(site: Path, *args: object, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-m", "referee", *map(str, args)], env=env,
                          capture_output=True, text=True, check=False)
    if ok:
        assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    return done


def test_the_plugin_needs_no_edit_inside_referee() -> None:
    """Nothing in referee/ names the plug-in or its game."""
    core = Path(__file__).resolve().parents[2] / "referee"
    for path in core.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "referee_nim" not in text and '"nim"' not in text, path


def test_a_game_from_another_package_plays_through_the_cli(site: Path, tmp_path: Path) -> None:
    listed = json.loads(referee(site, "games", "--json").stdout)
    nim = next(g for g in listed if g["name"] == "nim")
    assert nim["players"] == [2, 3] and nim["rules"].startswith("nim-2+data.")
    path = tmp_path / "g.json"
    referee(site, "new", "nim", path, "--players", "ann,ben", "--seed", "plug")
    shown = referee(site, "status", path, "--as", "ann").stdout
    assert "Heaps: a 3, b 5, c 7" in shown and "take: 1 from a,b,c |" in shown
    assert "move 1: ann: take 2 from c" in referee(site, "move", path, "--as", "ann",
                                                    "c2").stdout
    bad = referee(site, "move", path, "--as", "ben", "take 4 from a", ok=False)
    assert bad.returncode == 1
    assert "not legal: take 1 to 3 counters from a heap that has them" in bad.stderr
    referee(site, "undo", path, "--as", "ann")  # nothing hidden: the game allows it
    referee(site, "move", path, "--as", "ann", "take 1 from a")
    referee(site, "bot", path, "--as", "ben", "--level", "greedy", "--seed", "b")
    assert len(json.loads(path.read_text())["log"]) == 4
    referee(site, "check", path)
    svg = tmp_path / "board.svg"
    referee(site, "show", path, "--svg", svg, "--since", "2")
    text = svg.read_text()
    assert text.startswith("<svg") and "heaps.a: 2" in text and 'class="changed"' in text
    data = referee(site, "data", "nim").stdout
    assert "2 values are ASSUMED" in data and "nim-2+data." in data
    assert json.loads(referee(site, "data", "nim", "--json").stdout)["data"]["files"]["nim"]
    sim = json.loads(referee(site, "simulate", "nim", "--players", "3", "--games", "2",
                             "--bots", "random,greedy", "--json").stdout)
    assert sim["games"] == 2 and any(k.startswith("move:Take") for k in sim["components"])


def test_a_plugin_rules_version_upgrade(site: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game begun under nim-1 (the last counter wins) moves to nim-2 (misère): every
    move stays legal, the scores turn round, and the upgrade entry holds the full pin.
    (In this process, with the plug-in's folder on sys.path: found by its entry point.)"""
    from referee.ledger import gamefile
    from tests.ledger.test_data_versions import play

    monkeypatch.syspath_prepend(str(site))
    path = tmp_path / "g.json"
    assert run("new", "nim", path, "--players", "ann,ben", "--seed", "old").exit_code == 0
    data = json.loads(path.read_text())
    current = data["rules"]
    data["rules"] = current.replace("nim-2+", "nim-1+")
    path.write_text(gamefile.dumps(data))
    play(path, 20)
    assert json.loads(run("status", path, "--json").output)["finished"]
    report = json.loads(run("upgrade", path, "--dry-run", "--json").output)
    assert report["rules"] == {"pinned": "nim-1", "target": "nim-2"}
    assert report["upgradable"] and report["first_illegal"] is None
    pinned, target = report["scores"]["pinned"], report["scores"]["target"]
    assert sorted(pinned.values()) == [0, 1] and target == {p: 1 - s for p, s in pinned.items()}
    text = run("upgrade", path, "--dry-run").output
    assert "rules: nim-1 (pinned) -> nim-2" in text
    assert f"scores now: {', '.join(f'{p} {s}' for p, s in pinned.items())} -> " in text
    assert run("upgrade", path).exit_code == 0
    entry = json.loads(path.read_text())["log"][-1]
    assert entry["meta"] == {"kind": "upgrade", "data": current}
    assert json.loads(run("status", path, "--json").output)["scores"] == target


def test_the_judge_mails_a_plugin_game(site: Path, tmp_path: Path) -> None:
    games, inbox, outbox = tmp_path / "games", tmp_path / "in", tmp_path / "out"
    games.mkdir()
    for sub in ("new", "cur", "tmp"):
        (inbox / sub).mkdir(parents=True)
    path = games / "nim-1.json"
    referee(site, "new", "nim", path, "--sealed", "--seed", "judge-seed", "--insecure-seed",
            "--id", "nim-1", "--players", "ann=Ann <ann@example.org>,ben=Ben <ben@example.org>")
    judge = ("judge", games, "--maildir", inbox, "--outbox", outbox, "--from", SENDER, "--once")
    referee(site, *judge)
    first = {m["X-Referee-Player"]: m for m in outbox_messages(outbox)}
    ann = body_text(first["ann"])
    assert ann.splitlines()[0] == "Your turn, ann: ann to take from a heap"
    assert "Heaps: a 3, b 5, c 7" in ann and "Your legal moves, by kind:" in ann
    assert "Legend:" not in ann  # the game gives none; its board needs none
    deliver(inbox, reply(first["ann"], "take 2 from c"))
    referee(site, *judge)
    log = json.loads(path.read_text())["log"]
    assert [(e["by"], e["move"]) for e in log] == [("ann", {"type": "take", "heap": "c", "n": 2})]
    ben = [m for m in outbox_messages(outbox) if m["X-Referee-Player"] == "ben"][-1]
    assert "Since your last mail:\n  1. ann played: take 2 from c" in body_text(ben)
    assert body_text(ben).splitlines()[0] == "Your turn, ben: ben to take from a heap"


# --- the core-only toy: every capability by its fallback -----------------------------------


def test_a_core_only_game_works_through_the_fallbacks(tmp_path: Path) -> None:
    path = tmp_path / "core.json"
    assert run("new", "toycore", path, "--players", "ann,ben", "--seed", "c").exit_code == 0
    refused = run("move", path, "--as", "ann", "take 9")
    assert refused.exit_code == 1
    assert "'take 9' is not legal: it is not among the legal moves" in refused.output
    assert run("move", path, "--as", "ann", "take 2").exit_code == 0
    undo = run("undo", path, "--as", "ann")
    assert undo.exit_code == 1
    assert "does not say which moves reveal hidden information" in undo.output
    assert run("check", path).exit_code == 0
    data = run("data", "toycore")
    assert data.exit_code == 0 and "0 values are ASSUMED" in data.output
    bot = run("bot", path, "--as", "ben", "--level", "random")
    assert bot.exit_code != 0 and "cannot be played by bots" in bot.output
    svg = tmp_path / "core.svg"
    assert run("show", path, "--svg", svg).exit_code == 0
    assert "pile: 8" in svg.read_text()


def test_the_builtin_games_register_through_entry_points_too() -> None:
    """The direct lookup of referee/games/<name>/ (no metadata scan at start-up) finds
    exactly the games pyproject.toml declares in the entry-point group."""
    import tomllib

    from referee import engine

    pyproject = tomllib.loads((PLUGIN.parent.parent / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"][engine.ENTRY_POINTS]
    assert declared == {name: f"referee.games.{name}" for name in engine.packaged_games()}
    assert {n: engine.game_module(n) for n in declared} == declared


@pytest.mark.parametrize("name", ["staufer.explain", "../x", "Staufer", "games", "", "x" * 60])
def test_a_strange_game_name_is_unknown(name: str) -> None:
    from referee import engine
    from referee.errors import UsageError

    with pytest.raises(UsageError, match="unknown game"):
        engine.get_game(name)


def test_the_fallbacks_of_a_core_only_game() -> None:
    from referee import engine
    from referee.engine.rng import Rng
    from tests.toygame import CORE, Take

    state = CORE.setup(["ann", "ben"], {"pile": "10"}, Rng("f"))
    assert not isinstance(CORE, engine.Inspects) and isinstance(engine.get_game("toy"),
                                                                 engine.Inspects)
    assert engine.public_text(CORE, Take(2)) == "take 2"
    assert engine.private_fields(CORE, Take(2)) == ()
    assert engine.is_legal(CORE, state, "ann", Take(2))
    assert not engine.is_legal(CORE, state, "ben", Take(2))
    assert engine.reveals(CORE, state, state) is None
    assert engine.hidden_items(CORE, state, None) == [] and engine.invariants(CORE, state) == []
    copied = engine.copy_state(CORE, state)
    assert copied is not state and engine.fingerprint(CORE, copied) == \
        engine.fingerprint(CORE, state)
    CORE.apply(copied, "ann", Take(1))
    assert engine.fingerprint(CORE, copied) != engine.fingerprint(CORE, state)
    assert engine.pictures(CORE) is None and engine.usage(CORE) is None
    assert engine.legend(CORE) == [] and engine.data_files(CORE) == {}
