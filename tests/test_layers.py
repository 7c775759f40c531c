"""No import cycle among the modules of ``referee`` (docs/architecture.md#layers).

The imports are read from the source with ``ast``: module-level, function-level (lazy)
and ``if TYPE_CHECKING:`` ones alike, since an import that runs upward is a cycle all the
same, only hidden. ``lint-imports`` (the contracts in pyproject.toml) holds the layers in CI; this
test catches a cycle even where import-linter is not installed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "referee"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _known(name: str, known: Mapping[str, Path]) -> str | None:
    """The module of ``referee`` that ``name`` (a module or a name in one) lies in."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The ``referee`` modules that module ``name`` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    # every import counts: at the top, inside a function, under ``if TYPE_CHECKING:``
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from referee.ledger import gamefile`` imports the module referee.ledger.gamefile
            targets = [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            module = _known(target, known)
            if module is not None and module != name:
                found.add(module)
    return found


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted:
    every import cycle lies in one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_among_referee_modules() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles (each a set of modules importing one another): " + \
        "; ".join(" <-> ".join(c) for c in found)


def test_the_reader_sees_every_kind_of_import() -> None:
    graph = import_graph()
    # module level, ``from referee import module``
    assert "referee.ledger.gamefile" in graph["referee.ledger.replay"]
    # module level, ``from referee.module import name``
    assert "referee.engine" in graph["referee.ledger.replay"]
    # function level (the bots are imported only when a bot seat moves)
    assert "referee.bots.players" in graph["referee.play.submit"]
    # ``from referee.cli import main`` (in a function): the package itself
    assert "referee.cli" in graph["referee.cli.common"]


def test_a_cycle_is_found_however_it_is_hidden() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}) == [["a", "b"], ["c", "d"]]


def test_a_lazy_upward_import_makes_a_cycle(tmp_path: Path) -> None:
    """The reader counts an import inside a function: the cycle that gamefile's lazy
    import of replay once hid is found."""
    lazy = tmp_path / "gamefile.py"
    lazy.write_text("def read():\n    from referee.ledger import replay\n", encoding="utf-8")
    known = {**modules(), "referee.ledger.gamefile": lazy}
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    pair = {"referee.ledger.gamefile", "referee.ledger.replay"}
    assert any(pair <= set(c) for c in cycles(graph))
