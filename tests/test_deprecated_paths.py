"""The paths that games and plug-ins imported before the package tree keep working for one
release: each warns (DeprecationWarning) and is the very module at its new path; nothing
in the referee itself imports them."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MOVED = {"referee.rng": "referee.engine.rng", "referee.deal": "referee.engine.deal",
         "referee.textlayout": "referee.engine.textlayout",
         "referee.fileformat": "referee.ledger.fileformat"}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_warns_and_is_the_new_module(old: str) -> None:
    """In a fresh interpreter (the warning is given once, at the first import)."""
    code = (f"import warnings, importlib\nwarnings.simplefilter('error')\n"
            f"try:\n    importlib.import_module({old!r})\nexcept DeprecationWarning as w:\n"
            f"    print('warned:', w)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert f"warned: {old} is now {MOVED[old]}" in done.stdout
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])


def test_the_old_names_are_there() -> None:
    """What the Nim plug-in and the games of 0.5 import by the old paths."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from referee.deal import redeal  # noqa: F401
        from referee.fileformat import NAME_MAX, NUMBER_DIGITS_MAX  # noqa: F401
        from referee.rng import Rng  # noqa: F401
        from referee.textlayout import fit  # noqa: F401


def test_nothing_in_the_referee_imports_an_old_path() -> None:
    found = []
    for path in sorted((ROOT / "referee").rglob("*.py")):
        if path.parent == ROOT / "referee" and f"referee.{path.stem}" in MOVED:
            continue  # the deprecated modules themselves
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
                if node.module == "referee":
                    names += [f"referee.{a.name}" for a in node.names]
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                      if n in MOVED]
    assert found == []

