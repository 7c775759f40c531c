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

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import GameFileError
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
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        new = False
    except FileNotFoundError:
        fd, new = -1, True
    except OSError as exc:
        raise _error(path, exc) from None
    try:
        if new:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
                         | os.O_CLOEXEC, 0o600)
            record = MAGIC + b" " + digest(base).encode() + b"\n" + record
        size = os.fstat(fd).st_size
        try:
            view = memoryview(record)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                if new:  # (no journal without its header)
                    os.unlink(path)
                else:  # (a torn record would be ignored all the same)
                    os.ftruncate(fd, size)
            raise
    except OSError as exc:
        raise _error(path, exc) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if new:
        fileio.fsync_dir(path.parent)
    return len(record)


def _error(path: Path, exc: OSError) -> GameFileError:
    return GameFileError(f"cannot write the judge state {path}: {exc.strerror or exc}; "
                         "nothing was changed")
