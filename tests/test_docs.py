"""The docs stand alone: every relative link in the README and docs/ resolves (a file,
and its #anchor where one is given), and no code or doc cites a document that is not in
the repository (the design notes a user never has)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md",
         *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as
    hyphens."""
    out = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            title = re.sub(r"[^\w\- ]", "", title)
            out.add(title.replace(" ", "-"))
    return out


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue  # an absolute URL (https:, mailto:)
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_nothing_cites_a_document_outside_the_repository() -> None:
    cited = []
    package = [p for ext in ("py", "json", "md", "po", "html")
               for p in sorted((ROOT / "referee").rglob(f"*.{ext}"))]  # its data and catalogs too
    files = [*package, *sorted((ROOT / "scripts").glob("*.py")), *PAGES]
    for path in files:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"DESIGN(\.md| §)|\.\./shared|\bshared/(rules|reference)\b", line):
                cited.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert cited == []
