"""A person in Matrix, for tests: matrix-nio's AsyncClient behind blocking calls.

Each :class:`Person` registers on the test homeserver (tests/matrixserver.py), logs in
and has its own event loop; what it reads comes from the homeserver as any client reads
it (sync, room history), so a test sees what a player would see.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import nio

from tests.matrixserver import password_for

T = TypeVar("T")


@dataclass(frozen=True)
class Msg:
    sender: str
    body: str
    event_id: str
    content: dict[str, Any]


class Person:
    def __init__(self, server: Any, localpart: str) -> None:
        self.user_id = server.register(localpart)
        self._loop = asyncio.new_event_loop()
        self.client = nio.AsyncClient(server.url, self.user_id)
        answer = self._run(self.client.login(password_for(localpart)))
        assert isinstance(answer, nio.LoginResponse), answer

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(asyncio.wait_for(coro, 30))

    def close(self) -> None:
        self._run(self.client.close())
        self._loop.close()

    def sync(self, timeout: int = 0) -> None:
        answer = self._run(self.client.sync(timeout=timeout, full_state=True))
        assert isinstance(answer, nio.SyncResponse), answer

    def accept_invites(self, expect: int = 2, wait: float = 20.0) -> list[str]:
        """Join every room this person is invited to (waiting until ``expect`` are);
        the rooms joined."""
        joined: list[str] = []
        end = time.monotonic() + wait
        while time.monotonic() < end:
            self.sync()
            for room_id in list(self.client.invited_rooms):
                answer = self._run(self.client.join(room_id))
                assert isinstance(answer, nio.JoinResponse), answer
                joined.append(room_id)
            if len(joined) >= expect:
                break
            time.sleep(0.2)
        self.sync()
        return joined

    def rooms(self) -> dict[str, str]:
        """The rooms joined: room id -> its name."""
        self.sync()
        return {rid: room.name or "" for rid, room in self.client.rooms.items()}

    def _send(self, room: str, content: dict[str, Any]) -> str:
        answer = self._run(self.client.room_send(room, "m.room.message", content,
                                                 tx_id=uuid.uuid4().hex))
        assert isinstance(answer, nio.RoomSendResponse), answer
        return str(answer.event_id)

    def send(self, room: str, text: str) -> str:
        return self._send(room, {"msgtype": "m.text", "body": text})

    def edit(self, room: str, event_id: str, text: str) -> str:
        return self._send(room, {"msgtype": "m.text", "body": f"* {text}",
                                 "m.new_content": {"msgtype": "m.text", "body": text},
                                 "m.relates_to": {"rel_type": "m.replace",
                                                  "event_id": event_id}})

    def reply(self, room: str, event_id: str, text: str) -> str:
        return self._send(room, {"msgtype": "m.text", "body": text,
                                 "m.relates_to": {"m.in_reply_to": {"event_id": event_id}}})

    def redact(self, room: str, event_id: str) -> None:
        answer = self._run(self.client.room_redact(room, event_id))
        assert isinstance(answer, nio.RoomRedactResponse), answer

    def create_dm(self, other: str) -> str:
        answer = self._run(self.client.room_create(is_direct=True, invite=[other],
                                                   preset=nio.RoomPreset.trusted_private_chat))
        assert isinstance(answer, nio.RoomCreateResponse), answer
        return str(answer.room_id)

    def messages(self, room: str) -> list[Msg]:
        """Every message of ``room`` this person may read, oldest first (the room's
        history paged back to its start)."""
        found: list[Msg] = []
        start: str | None = None
        for _ in range(100):
            answer = self._run(self.client.room_messages(room, start=start, limit=100))
            if not isinstance(answer, nio.RoomMessagesResponse):
                raise AssertionError(f"cannot read {room}: {answer}")
            for event in answer.chunk:
                source = event.source
                if source.get("type") == "m.room.message":
                    content = source.get("content") or {}
                    found.append(Msg(source["sender"], str(content.get("body", "")),
                                     source["event_id"], content))
            if not answer.chunk or not answer.end or answer.end == start:
                break
            start = answer.end
        return found[::-1]

    def wait_for(self, room: str, predicate: Callable[[Msg], bool],
                 timeout: float = 20.0) -> Msg:
        end = time.monotonic() + timeout
        while True:
            for msg in self.messages(room):
                if predicate(msg):
                    return msg
            if time.monotonic() > end:
                shown = "\n---\n".join(f"{m.sender}: {m.body[:300]}"
                                       for m in self.messages(room))
                raise AssertionError(f"no such message in {room}:\n{shown}")
            time.sleep(0.3)
