"""Check a built package: `python -m scripts.check_dist DIR` (after `python -m build
--outdir DIR`). DIR must hold one wheel and one sdist, and each must carry every file the
repository keeps under referee/ (the code, and the package data: component data and its
released versions, research notes, page templates), so that an installed referee plays
exactly as the checkout does. Exit 1, naming the files, if any is missing.

.ci/run builds the package into a temporary folder and runs this after `twine check`."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_files(root: Path = ROOT) -> list[str]:
    """Every file git keeps under referee/, as a path from the repository's root."""
    done = subprocess.run(["git", "ls-files", "-z", "referee"], cwd=root, check=True,
                          capture_output=True)
    return sorted(name for name in done.stdout.decode().split("\0") if name)


def wheel_names(path: Path) -> set[str]:
    with zipfile.ZipFile(path) as wheel:
        return set(wheel.namelist())


def sdist_names(path: Path) -> set[str]:
    """The sdist's files without its top folder (``referee-0.3.0/``)."""
    with tarfile.open(path) as sdist:
        return {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}


def missing(expected: Iterable[str], present: set[str]) -> list[str]:
    return [name for name in expected if name not in present]


def check(folder: Path, expected: list[str]) -> list[str]:
    """The problems of the distributions in ``folder`` (empty: all is well)."""
    wheels, sdists = sorted(folder.glob("*.whl")), sorted(folder.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"{folder}: expected one wheel and one sdist, found {len(wheels)} and "
                f"{len(sdists)}"]
    problems = [f"{dist.name} lacks {name}"
                for dist, names in ((wheels[0], wheel_names(wheels[0])),
                                    (sdists[0], sdist_names(sdists[0])))
                for name in missing(expected, names)]
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m scripts.check_dist DIR", file=sys.stderr)
        return 2
    expected = package_files()
    problems = check(Path(argv[0]), expected)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        data = sum(not name.endswith(".py") for name in expected)
        print(f"wheel and sdist hold all {len(expected)} files of referee/ "
              f"({data} of them package data)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
