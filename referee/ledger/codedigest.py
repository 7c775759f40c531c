"""The referee's own fingerprint: a digest of every file of the installed package and of
the libraries that shape what it writes. A cache of anything the referee made (a report's
row, a site's pages, the players' views: referee/ledger/cachedb.py) is keyed by it, so
that another referee, template, catalog or component data never reuses what an earlier
one made."""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

import referee

# The libraries whose version shapes a page, a row or a view.
LIBRARIES = ("jinja2", "markupsafe", "openskill", "msgspec", "resvg-py")


@functools.cache
def code_digest() -> str:
    """The SHA-256 of every file of the referee package (its code, templates, data and
    catalogs: what a page or a view is made from) and of the versions of LIBRARIES."""
    root = str(Path(referee.__file__).parent)
    digest = hashlib.sha256(f"referee {referee.__version__}\n".encode())
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        inside = folder[len(root) + 1:]
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            digest.update(f"{os.path.join(inside, name)}\n".encode())
            digest.update(hashlib.sha256(_read(os.path.join(folder, name))).digest())
    versions = library_versions()
    for dist in LIBRARIES:
        digest.update(f"{dist} {versions.get(_normal(dist), 'none')}\n".encode())
    return digest.hexdigest()


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(fd, os.fstat(fd).st_size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
    finally:
        os.close(fd)
    return b"".join(chunks)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def library_versions() -> dict[str, str]:
    """The installed version of each of LIBRARIES (by normalised name), as
    ``importlib.metadata`` finds it, the first ``NAME-VERSION.dist-info`` (or
    ``.egg-info``) on ``sys.path``, read from the folders' names: importing
    ``importlib.metadata`` costs more than a cached `pending` run."""
    wanted = {_normal(d) for d in LIBRARIES}
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for item in names:
            if not item.endswith((".dist-info", ".egg-info")):
                continue
            name, _, version = item.rsplit(".", 1)[0].partition("-")
            key = _normal(name)
            if key in wanted and key not in found and version:
                found[key] = version.split("-")[0]
        if len(found) == len(wanted):
            break
    return found
