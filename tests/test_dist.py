"""scripts/check_dist.py, which CI runs on the built wheel and sdist, finds a file of
referee/ that a distribution lacks (package data left out of pyproject.toml's
package-data, say) and passes complete ones."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

from scripts import check_dist


def make(folder: Path, wheel: list[str], sdist: list[str]) -> Path:
    folder.mkdir()
    with zipfile.ZipFile(folder / "referee-1.0-py3-none-any.whl", "w") as out:
        for name in wheel:
            out.writestr(name, "x")
    with tarfile.open(folder / "referee-1.0.tar.gz", "w:gz") as out:
        for name in sdist:
            source = folder.parent / "f"
            source.write_text("x")
            out.add(source, arcname=f"referee-1.0/{name}")
    return folder


def test_every_file_of_the_package_is_found_missing_or_present(tmp_path: Path) -> None:
    expected = check_dist.package_files()
    assert "referee/cli/common.py" in expected
    data = [name for name in expected if name.endswith((".json", ".md", ".html"))]
    assert "referee/pages/templates/base.html" in data and len(data) > 20
    whole = make(tmp_path / "whole", expected, expected)
    assert check_dist.check(whole, expected) == []
    lacking = make(tmp_path / "lacking", [n for n in expected if n != data[0]],
                   [n for n in expected if n != data[-1]])
    assert check_dist.check(lacking, expected) == [
        f"referee-1.0-py3-none-any.whl lacks {data[0]}",
        f"referee-1.0.tar.gz lacks {data[-1]}"]
    (tmp_path / "two").mkdir()
    assert "expected one wheel and one sdist, found 0 and 0" in check_dist.check(
        tmp_path / "two", expected)[0]
