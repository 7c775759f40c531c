"""What a change since a revision touched, found from git's own records so that
`check --since REV` reads only those files (docs/git-and-ci.md, "What a check reads").

Git knows, in C and from the index's stat data, which work-tree files differ from the
revision (``git diff --raw``); a game file it reports unchanged holds the bytes it held
at the revision, which were checked when they came in. That is true only while git
writes the work tree exactly as the blob: a checkout filter (LFS, a clean/smudge
driver), ``ident``, a working-tree encoding or an end-of-line conversion can make the
file the referee reads differ from the blob git compares, and an index entry marked
skip-worktree or assume-unchanged is not compared at all. Every such file is *in
doubt* and treated as changed: read and checked as if the fast path did not exist.

Copies of another game (referee/ledger/identity.py) are looked for with ``git grep -F``
of the new games' ids and commitments: a file that can hold the same value in other
bytes (a JSON ``\\u`` escape, a non-ASCII letter that case-folds to an ASCII one) is
found by a second search for those bytes and parsed too. Anything the search cannot
vouch for (a new game without a plain id) makes the caller read every file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import UsageError
from referee.ledger.fileformat import GAME_ID

# The only values searched for as they are: a game id's alphabet and the colon of a
# commitment ("sha256:HEX"). Any other id or commitment: the caller reads every file.
PLAIN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# Bytes that let a file hold one of those values without its plain bytes: a JSON escape
# (the strict reader and json.loads both decode \uXXXX), and the non-ASCII letters whose
# case folding is ASCII (ids are compared case-folded: "ſ" folds to "s", "K" to "k");
# tests/git/test_check_scale.py recomputes this list from every code point.
FOLDS_TO_ASCII = "\u00df\u017f\u1e9e\u212a\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
MARKERS = ("\\u", *FOLDS_TO_ASCII)
# Attributes under which the work-tree file may not be the blob's bytes: any value but
# unspecified puts a file in doubt, except that ``text`` (set, unset or auto: the
# common ``* text=auto``) converts on checkout only with an ``eol`` attribute (itself
# in doubt) or core.autocrlf / core.eol=crlf (every file in doubt: _converts_everything).
CONVERTING = ("filter", "ident", "working-tree-encoding", "eol", "crlf", "text")
NEUTRAL = {"text": (b"unspecified", b"set", b"unset", b"auto")}


@dataclass
class Delta:
    """The ``.json`` paths of the work tree that may differ from the revision: changed,
    added, deleted, untracked, or in doubt; every other tracked ``.json`` path holds
    exactly its bytes at the revision."""

    changed: set[str] = field(default_factory=set)
    doubt: set[str] = field(default_factory=set)


def _json_names(raw: bytes) -> list[str]:
    return [n.decode(errors="surrogateescape") for n in raw.split(b"\0")
            if n.endswith(b".json")]


def _diffed(root: Path, rev: str) -> set[str]:
    """Paths ``git diff --raw`` reports changed between ``rev`` and the work tree."""
    out = _git(root, "-c", "core.quotePath=false", "diff", "--raw", "-z", "--no-renames",
                   "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", rev, "--")
    fields = out.split(b"\0")
    # -z --raw: ":modes shas status\0path\0" per entry (no renames: one path each)
    return set(_json_names(b"\0".join(fields[i + 1] for i in range(0, len(fields) - 1, 2)
                                      if fields[i].startswith(b":"))))


def _in_doubt(root: Path, tracked: Sequence[str], flags: Mapping[str, str]) -> set[str]:
    """Tracked paths whose work-tree bytes git may not compare as they are: a flag other
    than a plain cached entry, or a converting attribute (:data:`NEUTRAL`)."""
    doubt = {p for p, tag in flags.items() if tag != "H"}
    if not tracked:
        return doubt
    stdin = b"".join(p.encode(errors="surrogateescape") + b"\0" for p in tracked)
    done = _run(root, ["check-attr", "-z", "--stdin", *CONVERTING], stdin)
    parts = done.split(b"\0")
    for i in range(0, len(parts) - 2, 3):  # path\0attribute\0value\0
        if parts[i + 2] not in NEUTRAL.get(parts[i + 1].decode(), (b"unspecified",)):
            doubt.add(parts[i].decode(errors="surrogateescape"))
    return doubt


def _run(root: Path, args: list[str], stdin: bytes = b"", ok: tuple[int, ...] = (0,)
         ) -> bytes:
    """git ``args`` in ``root`` (C locale, no optional locks); raises UsageError for an
    exit status not in ``ok``."""
    import subprocess

    try:
        done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True,
                              check=False, env=_git_env())
    except FileNotFoundError:
        raise UsageError("--since needs git, and git is not installed") from None
    if done.returncode not in ok:
        raise UsageError(f"git {args[0]} failed: "
                         f"{done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout


def _git(root: Path, *args: str) -> bytes:
    return _run(root, list(args))


def _git_env() -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


def working_changes(root: Path, rev: str) -> Delta:
    """The :class:`Delta` of the work tree against ``rev``: one ``git diff``, one
    listing of the index and the untracked files and one attribute lookup, all in C."""
    listed = _git(root, "ls-files", "-z", "-v", "--cached", "--", "*.json").split(b"\0")
    flags = {n[2:].decode(errors="surrogateescape"): n[:1].decode()
             for n in listed if n.endswith(b".json") and n[1:2] == b" "}
    untracked = _json_names(_git(root, "ls-files", "-z", "--others", "--exclude-standard",
                                     "--", "*.json"))
    doubt = _in_doubt(root, sorted(flags), flags)
    if _converts_everything(root):
        doubt |= set(flags)
    changed = _diffed(root, rev) | set(untracked) | doubt
    return Delta(changed, doubt)


def _converts_everything(root: Path) -> bool:
    """Whether the configuration converts line endings of text files on checkout."""
    autocrlf = _run(root, ["config", "--get", "core.autocrlf"], ok=(0, 1)).strip().lower()
    eol = _run(root, ["config", "--get", "core.eol"], ok=(0, 1)).strip().lower()
    return autocrlf not in (b"", b"false", b"input") or eol == b"crlf"


def blobs(root: Path, rev: str, paths: Iterable[str]) -> dict[str, bytes | None]:
    """The bytes of each path at ``rev`` (None where it has no blob), in one
    ``git cat-file --batch`` (a name with a newline, which its input cannot carry: one
    ``git show`` each)."""
    names = list(paths)
    found = {p: _show(root, rev, p) for p in names if "\n" in p}
    batch = [p for p in names if p not in found]
    if not batch:
        return found
    asked = [f"{rev}:{p}".encode(errors="surrogateescape") for p in batch]
    out = _run(root, ["cat-file", "--batch"], b"".join(a + b"\n" for a in asked))
    at = 0
    for p, name in zip(batch, asked, strict=True):
        # not found: the name as asked, then the reason; found: "SHA TYPE SIZE" and the body
        if any(out.startswith(name + why, at) for why in (b" missing\n", b" ambiguous\n")):
            found[p] = None
            at = out.index(b"\n", at + len(name)) + 1
            continue
        end = out.index(b"\n", at)
        _, kind, size = out[at:end].split(b" ")
        body = out[end + 1:end + 1 + int(size)]
        found[p] = body if kind == b"blob" else None
        at = end + 2 + int(size)
    return found


def _show(root: Path, rev: str, rel: str) -> bytes | None:
    import subprocess

    done = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=root, capture_output=True,
                          check=False, env=_git_env())
    return done.stdout if done.returncode == 0 else None


def search_terms(headers: Sequence[Mapping[str, Any]]) -> list[str] | None:
    """The strings every game file that is the same game as one of ``headers`` must
    contain (or hold escaped: :data:`MARKERS`): each id and commitment. None when one
    of them cannot be searched for as it is (no id, or an id or commitment outside the
    plain alphabet): then every file must be read."""
    terms: list[str] = []
    for header in headers:
        gid = header.get("id")
        if not isinstance(gid, str) or not re.fullmatch(GAME_ID, gid):
            return None  # the same header without an id: nothing to search for
        terms.append(gid)
        rng = header.get("rng")
        value = rng.get("commitment") if isinstance(rng, Mapping) else None
        if value is not None:
            if not isinstance(value, str) or not PLAIN.fullmatch(value):
                return None
            terms.append(value)
    return terms


def grep(root: Path, terms: Sequence[str]) -> set[str]:
    """The tracked ``.json`` files of the work tree that contain any of ``terms``, ASCII
    case ignored, by one ``git grep -F -l -i`` in the C locale (bytes only, in C; a
    byte outside ASCII matches only itself)."""
    if not terms:
        return set()
    args = ["grep", "-l", "-z", "-F", "-i", "-a", "--no-color", "--no-textconv",
            "--full-name"]
    for term in terms:
        args += ["-e", term]
    args += ["--", "*.json"]
    return set(_json_names(_run(root, args, ok=(0, 1))))  # 1: nothing found


def candidates(root: Path, headers: Sequence[Mapping[str, Any]]) -> set[str] | None:
    """Tracked ``.json`` paths that may be the same game as one of ``headers`` (a
    superset: the caller parses each and decides), or None if the search cannot vouch
    for its answer."""
    terms = search_terms(headers)
    if terms is None:
        return None
    return grep(root, [*terms, *MARKERS])
