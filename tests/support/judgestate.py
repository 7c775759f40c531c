"""The judge's state of a games folder as one JSON-like value, read and written whole: a
look at the judge's SQLite rows (referee/judge/store.py) and a state changed by hand, for
the tests. The referee itself never reads or writes its state this way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.judge.store import Store, load


def read_state(games_dir: Path) -> dict[str, Any]:
    """The judge's state of ``games_dir`` as one JSON-like value (for a look by hand and
    the tests): ``games`` (each with the mail door's ``roots``), ``queue`` (the mail
    door's), ``answered``, ``strangers`` and the other parts, and each door's rows
    under ``doors``."""
    store = Store(games_dir)
    try:
        db = store.db
        games = {gid: json.loads(state) for gid, state in
                 db.execute("SELECT id, state FROM games ORDER BY id")}
        doors: dict[str, dict[str, Any]] = {}
        for door, gid, value in db.execute("SELECT door, game, value FROM door_games"):
            doors.setdefault(door, {})[gid] = json.loads(value)
        for gid, mail in doors.get("mail", {}).items():
            games.setdefault(gid, {}).update(mail)
        out: dict[str, Any] = {
            "games": games, "answered": [r[0] for r in db.execute(
                "SELECT ref FROM answered ORDER BY rowid")],
            "queue": [json.loads(r[0]) for r in db.execute(
                "SELECT item FROM queue WHERE door = 'mail' ORDER BY seq")],
            "strangers": [], "doors": doors,
            "keys": {f"{d}|{k}": [g, json.loads(v)] for d, k, g, v in db.execute(
                "SELECT door, key, game, value FROM door_keys")},
            "queues": {}}
        for door, item in db.execute("SELECT door, item FROM queue ORDER BY seq"):
            out["queues"].setdefault(door, []).append(json.loads(item))
        for name, value in db.execute("SELECT name, value FROM parts"):
            out[name] = json.loads(value)
        return out
    finally:
        store.close()


def write_state(games_dir: Path, data: dict[str, Any]) -> None:
    """Replace the judge's state of ``games_dir`` by ``data`` (as :func:`read_state`
    gives it): for a state changed by hand."""
    emptied = Store(games_dir)
    try:
        emptied._write([(f"DELETE FROM {table}", ()) for table in (
            "games", "answered", "parts", "door_games", "door_keys", "queue")])
    finally:
        emptied.close()
    store = Store(games_dir)
    try:
        load(store, {k: v for k, v in data.items() if k not in ("doors", "keys", "queues")})
        for door, games in (data.get("doors") or {}).items():
            if door == "mail":
                continue
            for gid, value in games.items():
                store.door_game(door, gid).update(value)
        for joined, (gid, value) in (data.get("keys") or {}).items():
            door, _, key = joined.partition("|")
            store.set_door_key(door, key, gid, value)
        for door, items in (data.get("queues") or {}).items():
            if door != "mail":
                for item in items:
                    store.enqueue(door, dict(item))
        for name, value in data.items():
            if name not in ("games", "answered", "queue", "doors", "keys", "queues",
                            "format") and value is not None:
                store.set_part(name, value)
        store.save()
    finally:
        store.close()
