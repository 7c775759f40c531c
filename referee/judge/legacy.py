"""The judge's state before SQLite (``.referee-judge.json`` with its write-ahead
journal ``.referee-judge.wal`` and its list of mails sent ``.referee-judge.sent``), read
once to be moved into the SQLite state (:mod:`referee.judge.store`).

The base is a JSON object; the journal's first line binds it to the base
(``referee-judge-wal/1 DIGEST``, the SHA-256 of the base's bytes) and each line after it
is ``DIGEST JSON``, one save's changes (the games changed, the Message-IDs answered, the
rest of the state). A journal of another base, and a last line cut short or whose digest
fails, are ignored; every Message-ID the sent list names whole was delivered, and is
dropped from the queue.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

STATE_NAME = ".referee-judge.json"
JOURNAL_NAME = ".referee-judge.wal"
SENT_NAME = ".referee-judge.sent"
MAGIC = b"referee-judge-wal/1"
FORMAT = "referee-judge/1"


def names() -> tuple[str, str, str]:
    return STATE_NAME, JOURNAL_NAME, SENT_NAME


def read(games_dir: Path) -> dict[str, Any] | None:
    """The old state of ``games_dir`` as a judge would have loaded it (None: there is
    none). Raises OSError or ValueError for a state that cannot be read."""
    try:
        base = (games_dir / STATE_NAME).read_bytes()
    except FileNotFoundError:
        return None
    data = json.loads(base)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{games_dir / STATE_NAME} is not a judge state file")
    for record in _records(games_dir / JOURNAL_NAME, base):
        _apply(data, record)
    try:
        sent = (games_dir / SENT_NAME).read_bytes()
    except FileNotFoundError:
        sent = b""
    done = set(sent.decode("ascii", "replace").split("\n")[:-1])
    data["queue"] = [item for item in data.get("queue", []) if item.get("id") not in done]
    return data


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _records(path: Path, base: bytes) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    if lines[0].split(b" ") != [MAGIC, _digest(base).encode()]:
        return []
    found = []
    for line in lines[1:-1]:  # (a last line without its newline: cut short)
        check, _, text = line.partition(b" ")
        if _digest(text).encode() != check:
            break
        try:
            record = json.loads(text)
        except ValueError:
            break
        if not isinstance(record, dict):
            break
        found.append(record)
    return found


def _apply(data: dict[str, Any], record: dict[str, Any]) -> None:
    games = data.setdefault("games", {})
    for gid, entry in (record.get("games") or {}).items():
        if entry is None:
            games.pop(gid, None)
        else:
            games[gid] = entry
    answered = data.setdefault("answered", [])
    for msgid in record.get("answered") or []:
        if msgid not in answered:
            answered.append(msgid)
    for key, value in (record.get("rest") or {}).items():
        if key not in ("games", "answered"):
            data[key] = value
