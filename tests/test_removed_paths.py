"""The four module paths that 0.5 deprecated are gone (0.7): ``referee.rng``,
``referee.deal``, ``referee.textlayout`` and ``referee.fileformat``. An old import fails
with Python's own ModuleNotFoundError naming the old path (no module hands anything over
any more), and nothing the project ships or shows a reader (the library, the Nim plug-in,
the scripts, the examples, the manual) imports or names one of them; CHANGELOG.md names
each one's home."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MOVED = {"referee.rng": "referee.engine.rng", "referee.deal": "referee.engine.deal",
         "referee.textlayout": "referee.engine.textlayout",
         "referee.fileformat": "referee.ledger.fileformat"}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_gone(old: str) -> None:
    """In a fresh interpreter, so that no module of this process answers for it."""
    name = old.rpartition(".")[2]
    assert not (ROOT / "referee" / f"{name}.py").exists()
    assert not (ROOT / "referee" / name).exists()
    code = (f"import importlib\ntry:\n    importlib.import_module({old!r})\n"
            f"except ModuleNotFoundError as exc:\n    print(type(exc).__name__, exc.name, exc)\n"
            f"try:\n    from referee import {name}\nexcept ImportError as exc:\n"
            f"    print(type(exc).__name__, exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"ModuleNotFoundError {old} No module named '{old}'"
    assert lines[1].startswith(f"ImportError cannot import name '{name}' from 'referee' ")
    __import__(MOVED[old])  # the module lives at its new path


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append((node.lineno, node.module or ""))
            if node.module == "referee":
                found += [(node.lineno, f"referee.{a.name}") for a in node.names]
    return found


@pytest.mark.slow
def test_nothing_imports_an_old_path() -> None:
    """The library, the tests (the Nim plug-in among them) and the scripts."""
    found = [f"{path.relative_to(ROOT)}:{line} {name}"
             for folder in ("referee", "tests", "scripts")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for line, name in _imports(path)
             if name in MOVED and path != Path(__file__).resolve()]
    assert found == []


def test_no_page_names_an_old_path() -> None:
    """The manual, the README and the examples name only the new paths (the changelog
    keeps its history)."""
    old = re.compile(r"\breferee[./](?:rng|deal|textlayout|fileformat)\b")
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "examples").rglob("*.*"))]
    found = [f"{page.relative_to(ROOT)}:{n} {line.strip()}" for page in pages
             for n, line in enumerate(page.read_text(encoding="utf-8", errors="replace")
                                      .splitlines(), 1)
             if old.search(line)]
    assert found == []


def test_the_changelog_names_each_new_home() -> None:
    unreleased = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").split("\n## ")[1]
    assert unreleased.startswith("Unreleased")
    unreleased = " ".join(unreleased.split())
    for old, new in MOVED.items():
        assert f"`{old}` (now `{new}`)" in unreleased, old
