"""No import cycle among the game packages and the engine: every module under
referee/games/ and referee/engine/, read with ast, counting every import statement: at
the top, under ``if TYPE_CHECKING:`` and inside functions (a loop hidden in a lazy or a
typing-only import is still a loop). A shared type goes down into a leaf module
(referee/games/dynasties/movetypes.py) instead.

Names that resolve outside this set (the standard library, ``referee.errors``) are not
edges. ``from . import x`` is an edge to the submodule ``x`` when there is one, else to
the package; a module's parent packages, which Python imports first, are not edges
(every submodule would loop with its ``__init__``)."""

from __future__ import annotations

import ast
import graphlib
import itertools
from pathlib import Path

import pytest

import referee

SOURCE = Path(referee.__file__).resolve().parent


def modules(root: Path, paths: list[Path]) -> dict[str, Path]:
    """The files ``paths`` (under ``root``, the folder that holds the top package) by
    their modules' dotted names."""
    out = {}
    for path in paths:
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _base(name: str, path: Path, level: int) -> str:
    """The package a relative import of ``level`` dots in module ``name`` starts from."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return package


def _known(target: str, known: dict[str, Path]) -> str | None:
    """``target`` or the longest of its prefixes that is one of ``known``."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def imports(name: str, known: dict[str, Path]) -> dict[str, int]:
    """The modules of ``known`` that module ``name`` imports, each with the line of its
    first import: every ``import`` and ``from ... import`` in the file, wherever it is."""
    path = known[name]
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = _base(name, path, node.level)
                module = f"{base}.{module}" if module else base
            targets = [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            found = _known(target, known)
            if found is not None and found != name:
                out.setdefault(found, node.lineno)
    return out


def first_cycle(known: dict[str, Path]) -> str | None:
    """One import cycle among ``known`` as text (each import with its file and line), or
    None when there is none."""
    graph = {name: imports(name, known) for name in known}
    try:
        graphlib.TopologicalSorter({n: set(e) for n, e in graph.items()}).prepare()
    except graphlib.CycleError as exc:
        loop = exc.args[1]  # [a, b, ..., a]: each one is imported by the one after it
        steps = [f"{known[b]}:{graph[b][a]} imports {a}"
                 for a, b in itertools.pairwise(loop)]
        return " <- ".join(loop) + "\n" + "\n".join(steps)
    return None


ENGINE = sorted((SOURCE / "engine").rglob("*.py"))
GAMES = modules(SOURCE.parent, [*sorted((SOURCE / "games").rglob("*.py")), *ENGINE])


def test_no_import_cycle_among_the_games_and_the_engine() -> None:
    found = first_cycle(GAMES)
    if found is not None:
        pytest.fail(f"an import cycle: {found}", pytrace=False)


def test_every_module_is_read_and_its_imports_seen() -> None:
    """The check covers the whole tree: every file, with its imports (the one that made
    a loop before data.py's move types moved down among them)."""
    files = sorted((SOURCE / "games").rglob("*.py"))
    assert len(GAMES) == len(files) + len(ENGINE) and "referee.engine" in GAMES
    edges = {name: imports(name, GAMES) for name in GAMES}
    assert sum(map(len, edges.values())) > 50
    assert "referee.games.dynasties.data" in edges["referee.games.dynasties.moves"]


def _plant(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = tmp_path / "top" / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules(tmp_path, sorted((tmp_path / "top").rglob("*.py")))


@pytest.mark.parametrize("hidden", [
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n",
    "def f():\n    from . import a\n    return a\n",
    "def f():\n    import top.pkg.a\n",
    "class C:\n    def m(self):\n        from .a import A\n",
])
def test_a_loop_hidden_in_a_typing_or_a_function_import_is_found(tmp_path: Path,
                                                                  hidden: str) -> None:
    """The planted loop a -> b -> a, b's import hidden in each way Python allows."""
    known = _plant(tmp_path, {"__init__.py": "", "a.py": "from .b import B\nA = 1\n",
                              "b.py": hidden + "B = 2\n"})
    found = first_cycle(known)
    assert found is not None and "top.pkg.a" in found and "top.pkg.b" in found, found
    assert "pkg/a.py:1 imports top.pkg.b" in found, found


def test_a_leaf_module_breaks_the_loop(tmp_path: Path) -> None:
    """The honest control: the shared name moved down into a leaf, no loop; and neither
    the package's own ``__init__`` (imported first by Python) nor an outside module is
    an edge."""
    known = _plant(tmp_path, {
        "__init__.py": "from . import a, b\n",
        "leaf.py": "import json\nfrom referee.errors import UsageError\nA = 1\n",
        "a.py": "from .leaf import A\nfrom .b import B\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .leaf import A\n"
                "B = 2\n"})
    assert first_cycle(known) is None
    assert imports("top.pkg", known) == {"top.pkg.a": 1, "top.pkg.b": 1}
    assert imports("top.pkg.b", known) == {"top.pkg.leaf": 3}
