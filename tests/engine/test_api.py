"""The declared API (docs/api.md): ``referee.engine.__all__`` is exactly the engine's public
names, and it is what the games, the Nim plug-in and the rest of the referee use; the
package root and ``referee.errors`` declare theirs.

Imports are read from the source with ``ast`` (module level, in functions, under
``if TYPE_CHECKING:``), as tests/test_layers.py reads them: ``from referee.engine import
X``, ``from referee.engine.M import X``, ``import referee.engine.M`` and ``engine.X`` after
``from referee import engine``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

import referee
from referee import engine, errors

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "referee" / "engine"
# the engine's public modules: the names of __all__ that are modules of the package
PUBLIC_MODULES = sorted(n for n in engine.__all__ if (ENGINE / f"{n}.py").is_file())
INTERNAL_MODULES = ("bounds", "registry")
PLUGIN = sorted((ROOT / "tests" / "plugin").rglob("*.py"))
GAMES = sorted((ROOT / "referee" / "games").rglob("*.py"))


def defined(path: Path) -> set[str]:
    """The names a module defines at its top: functions, classes, assignments."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return {n for n in names if not n.startswith("_")}


def engine_uses(paths: Iterable[Path]) -> dict[str, set[str]]:
    """What ``paths`` take from the engine: ``{"": names of referee.engine, "M": names of
    referee.engine.M}`` (a module imported whole: the name ``*``), each with where."""
    used: dict[str, set[str]] = {}
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = set()  # local names of the engine package (``from referee import engine``)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module == "referee":
                    bound |= {a.asname or a.name for a in node.names if a.name == "engine"}
                elif node.module == "referee.engine":
                    for alias in node.names:
                        used.setdefault("", set()).add(alias.name)
                elif node.module.startswith("referee.engine."):
                    module = node.module.removeprefix("referee.engine.")
                    used.setdefault("", set()).add(module)
                    used.setdefault(module, set()).update(a.name for a in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("referee.engine."):
                        used.setdefault("", set()).add(alias.name.split(".")[2])
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound):
                used.setdefault("", set()).add(node.attr)
    return used


def undeclared(used: dict[str, set[str]]) -> list[str]:
    """The names of ``used`` that the engine does not declare."""
    missing = [f"referee.engine.{n}" for n in sorted(used.get("", ())) if n not in engine.__all__]
    for module, names in sorted(used.items()):
        if not module:
            continue
        declared = getattr(importlib.import_module(f"referee.engine.{module}"), "__all__", ())
        missing += [f"referee.engine.{module}.{n}" for n in sorted(names) if n not in declared]
    return missing


def _resolves(module: ModuleType, name: str) -> bool:
    if hasattr(module, name):
        return True
    try:
        importlib.import_module(f"{module.__name__}.{name}")
    except ModuleNotFoundError:
        return False
    return True


# --- what the engine declares --------------------------------------------------------------


def test_every_declared_name_is_there() -> None:
    for module in (engine, *(importlib.import_module(f"referee.engine.{m}")
                             for m in PUBLIC_MODULES)):
        assert len(set(module.__all__)) == len(module.__all__), module.__name__
        assert [n for n in module.__all__ if not _resolves(module, n)] == [], module.__name__
    assert PUBLIC_MODULES == ["deal", "rng", "textlayout"]
    assert not set(INTERNAL_MODULES) & set(engine.__all__)


def test_the_engine_declares_exactly_its_public_names() -> None:
    """A name the engine defines without a leading ``_`` is declared, and a declared name
    is the engine's own, a re-export of its registry or ``Rng``, or a public module: a
    new name is public only when it is added to ``__all__`` (or it starts with ``_``)."""
    own = defined(ENGINE / "__init__.py")
    registry = defined(ENGINE / "registry.py")
    assert sorted(own - set(engine.__all__)) == []
    assert sorted(registry - set(engine.__all__)) == []
    assert set(engine.__all__) == own | registry | {"Rng"} | set(PUBLIC_MODULES)
    for name in PUBLIC_MODULES:
        module = importlib.import_module(f"referee.engine.{name}")
        assert set(module.__all__) == defined(ENGINE / f"{name}.py"), name


def test_what_the_star_import_gives() -> None:
    found: dict[str, object] = {}
    exec("from referee.engine import *", found)
    assert set(found) - {"__builtins__"} == set(engine.__all__)


# --- who uses it --------------------------------------------------------------------------


def test_the_games_and_the_plugin_use_only_declared_names() -> None:
    """Nothing a game package, the Nim plug-in (and its test, as a plug-in's own tests
    would ask the engine) or the toy games of the tests take from the engine is missing
    from its ``__all__`` (or a public module's)."""
    used = engine_uses([*GAMES, *PLUGIN, ROOT / "tests" / "toygame.py",
                        ROOT / "tests" / "engine" / "test_plugin_game.py"])
    assert undeclared(used) == []
    # the reader saw the kinds of import the games use
    assert {"functions_from", "Option", "Assumption", "HiddenItem", "rng", "deal",
            "textlayout"} <= used[""]
    assert {"redeal", "slots_of"} <= used["deal"] and "Rng" in used["rng"]


def test_the_plugin_imports_the_declared_api_only() -> None:
    """The Nim plug-in, the example of docs/adding-a-game.md, imports of the referee only
    names that ``referee.engine`` and ``referee.errors`` declare."""
    found = []
    for path in PLUGIN:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(a.name, "*") for a in node.names if a.name.startswith("referee")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("referee"):
                found += [(node.module or "", a.name) for a in node.names]
    declared = {"referee.engine": engine.__all__, "referee.errors": errors.__all__}
    assert found, "the plug-in imports nothing of the referee?"
    assert [f"{m}.{n}" for m, n in found if n not in declared.get(m, ())] == []
    assert ("referee.engine", "Rng") in found


def test_the_referee_itself_uses_only_declared_names() -> None:
    """Outside the engine, the referee's own packages and the scripts reach no further
    into the engine than its declared API (no internal module, no private name)."""
    paths = [p for p in sorted((ROOT / "referee").rglob("*.py"))
             if ENGINE not in p.parents]
    used = engine_uses([*paths, *sorted((ROOT / "scripts").rglob("*.py"))])
    assert undeclared(used) == []
    assert not set(INTERNAL_MODULES) & set(used)


@pytest.mark.parametrize("case", ["plain", "submodule", "attribute", "lazy"])
def test_the_reader_finds_an_undeclared_name(tmp_path: Path, case: str) -> None:
    source = {
        "plain": "from referee.engine import _closest\n",
        "submodule": "from referee.engine.bounds import within_bounds\n",
        "attribute": "from referee import engine as e\nx = e._capability\n",
        "lazy": "def f():\n    from referee.engine.deal import nothing\n",
    }[case]
    path = tmp_path / "game.py"
    path.write_text(source, encoding="utf-8")
    assert undeclared(engine_uses([path])) != []


# --- the package root and the errors ------------------------------------------------------


def test_the_package_root_declares_its_public_names() -> None:
    assert referee.__all__ == ["__version__", "engine", "errors", "i18n", "pictures"]
    assert all(_resolves(referee, name) for name in referee.__all__)
    # everything else of the root (the import helpers) is internal
    assert defined(ROOT / "referee" / "__init__.py") - set(referee.__all__) == \
        {"collector_off", "import_module"}


def test_every_error_type_is_declared() -> None:
    types = {name for name, obj in vars(errors).items()
             if inspect.isclass(obj) and issubclass(obj, errors.RefereeError)}
    assert set(errors.__all__) == types


# --- the page that says so ----------------------------------------------------------------


def test_the_api_page_names_every_public_name() -> None:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    names = [*engine.__all__, *referee.__all__, *errors.__all__,
             *(f"{m}.{n}" for m in PUBLIC_MODULES
               for n in importlib.import_module(f"referee.engine.{m}").__all__)]
    missing = [n for n in names if f"`{n.rpartition('.')[2]}`" not in page]
    assert missing == []
    for internal in ("registry", "bounds", "collector_off", "import_module"):
        assert f"`{internal}`" in page
