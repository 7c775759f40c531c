"""The referee's own fingerprint: a digest of every file of the installed package and of
the libraries that shape what it writes. A cache of anything the referee made (a site's
pages, the players' views) is keyed by it, so that another referee, template, catalog or
component data never reuses what an earlier one made."""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import referee


@functools.cache
def code_digest() -> str:
    """The SHA-256 of every file of the referee package (its code, templates, data and
    catalogs: what a page or a view is made from) and of the libraries that shape a
    page."""
    from importlib import metadata

    root = Path(referee.__file__).parent
    digest = hashlib.sha256(f"referee {referee.__version__}\n".encode())
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            digest.update(f"{os.path.relpath(path, root)}\n".encode())
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    for dist in ("jinja2", "markupsafe", "openskill", "msgspec", "resvg-py"):
        try:
            digest.update(f"{dist} {metadata.version(dist)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{dist} none\n".encode())
    return digest.hexdigest()
