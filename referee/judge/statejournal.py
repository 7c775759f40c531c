"""The write-ahead journal of the judge's state (``.referee-judge.wal``): what each save
changed, appended after the state file (the base) as one checksummed line.

The first line binds the journal to its base: ``referee-judge-wal/1 DIGEST``, the
SHA-256 of the base's bytes. Each record after it is one line ``DIGEST JSON``: the
SHA-256 of the JSON text, then the text (ASCII, no newline in it). A record is written
with one ``write`` and fsynced before the save returns; the journal's first write
(header and first record) fsyncs the folder too, so the journal's name is as durable as
its contents.

Reading stops at the first line that is not whole and right (no newline at its end, or
a digest that does not match): only a crash in the middle of an append leaves one, and
it can only be the last line. A journal whose header names other bytes than the base
(a base rewritten since: a compaction that died before removing the journal, or a base
restored from a backup by hand) is not the base's and is ignored whole.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.ledger import fileio

MAGIC = b"referee-judge-wal/1"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Read:
    """A journal as read: its records (in order), its size in bytes, and whether all of
    it was whole and the base's (else the next save rewrites the base)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    size: int = 0
    clean: bool = True


def read(path: Path, base: bytes | None) -> Read:
    """The records of the journal at ``path`` that apply to the base ``base`` (its bytes;
    None: there is none). Raises OSError (other than a missing journal)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Read()
    lines = data.split(b"\n")
    header = lines[0].split(b" ")
    if base is None or len(lines) < 2 or header != [MAGIC, digest(base).encode()]:
        return Read(size=len(data), clean=False)
    found = Read(size=len(data))
    for line in lines[1:-1]:
        record = _record(line)
        if record is None:
            found.clean = False
            return found
        found.records.append(record)
    found.clean = lines[-1] == b""  # (a last line without its newline: cut short)
    return found


def _record(line: bytes) -> dict[str, Any] | None:
    """One record line, or None if it is not whole and right."""
    check, _, text = line.partition(b" ")
    if digest(text).encode() != check:
        return None
    try:
        record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def line(record: dict[str, Any]) -> bytes:
    """The journal line of ``record``."""
    text = json.dumps(record, ensure_ascii=True, sort_keys=True).encode("ascii")
    return digest(text).encode() + b" " + text + b"\n"


def append(path: Path, base: bytes, record: bytes) -> int:
    """Append the line ``record`` to the journal of the base ``base`` (started with its
    header if there is none), fsynced. Returns the bytes written. Raises GameFileError
    (a full or read-only disk), the journal then as it was."""
    header = MAGIC + b" " + digest(base).encode() + b"\n"
    return fileio.append_durable(path, record, first=header, mode=0o600, what="judge state")


