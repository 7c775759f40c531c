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


def test_the_manuals_index_links_every_page() -> None:
    """docs/index.md is where the manual starts: every page of docs/ is linked from it."""
    index = ROOT / "docs" / "index.md"
    linked = {(index.parent / t.partition("#")[0]).resolve()
              for t in LINK.findall(index.read_text())}
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert [p.name for p in pages if p != index and p.resolve() not in linked] == []


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


# the pages that describe the code as it is (the changelog is history: its paths are of then)
CURRENT = [p for p in PAGES if p.name != "CHANGELOG.md"]
PATH = re.compile(r"(?<![\w./-])(?:referee|tests)/[\w./<>*-]*[\w>*]")
MODULE = re.compile(r"(?<![\w./-])referee(?:\.[a-z_][a-z0-9_]*)+")
# the same shapes that are no path: key-derivation labels and example host names
NOT_CODE = {"referee/1", "referee/bot-seat/1", "referee/game-seed/2", "referee/xeddsa-nonce",
            "referee/ratings-deal", "referee.target",
            "referee.invalid"}


def _exists(named: str) -> bool:
    """A path of the repository, with ``<name>`` standing for any one part and ``*`` a
    glob."""
    pattern = re.sub(r"<[^>]+>", "*", named.rstrip("/"))
    return any(ROOT.glob(pattern)) if "*" in pattern else (ROOT / pattern).exists()


def _module_exists(dotted: str) -> bool:
    """``referee.a.b`` is a module or package, or names a member of one (``a.b.C``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        base = ROOT.joinpath(*parts[:cut])
        if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
            return True
    return False


def test_every_path_and_module_the_docs_name_exists() -> None:
    """The docs follow the tree: every ``referee/...`` and ``tests/...`` path and
    ``referee.x`` module named in the README, CONTRIBUTING and docs/ is there (the
    entry-point group ``referee.games`` is a package too)."""
    missing = []
    for page in CURRENT:
        text = page.read_text()
        for named in sorted(set(PATH.findall(text))):
            if named not in NOT_CODE and not _exists(named):
                missing.append(f"{page.relative_to(ROOT)}: {named}")
        for dotted in sorted(set(MODULE.findall(text))):
            if dotted not in NOT_CODE and not _module_exists(dotted):
                missing.append(f"{page.relative_to(ROOT)}: {dotted}")
    assert missing == []
