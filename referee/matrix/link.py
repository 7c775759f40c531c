"""The judge's Matrix client: matrix-nio's AsyncClient behind a few blocking calls.

One :class:`Link` is one login of the judge's account on its homeserver. Every call
returns plain values or raises :class:`MatrixError` (the homeserver refused, or cannot
be reached: the caller logs one line and tries again later); nothing waits longer than
its timeout and nothing retries by itself. The device id is fixed
(:data:`DEVICE_ID`), so the transaction ids of the posts (made from the judge's own
message ids) stay the same across restarts and a post sent again after a crash is
not shown twice: the homeserver keeps one event per transaction id and device.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.errors import RefereeError

DEVICE_ID = "REFEREEJUDGE"
TIMELINE_LIMIT = 200  # events per room and sync (a longer gap is logged)
REQUEST_SECONDS = 30.0
T = TypeVar("T")

# what the judge asks a sync for: messages and redactions of its rooms, its invites; no
# presence, typing, receipts or account data
SYNC_FILTER: dict[str, Any] = {
    "presence": {"not_types": ["*"]},
    "account_data": {"not_types": ["*"]},
    "room": {
        "timeline": {"limit": TIMELINE_LIMIT, "types": ["m.room.message", "m.room.redaction"]},
        "state": {"types": ["m.room.member"], "lazy_load_members": True},
        "ephemeral": {"not_types": ["*"]},
        "account_data": {"not_types": ["*"]},
    },
}


class MatrixError(RefereeError):
    """The homeserver refused a request, or cannot be reached."""


@dataclass
class Batch:
    """What one sync brought: the position to sync from next, each room's new events
    (their JSON, in order), the rooms the judge is invited to (room -> who invited),
    and the rooms whose timeline had more events than one sync carries."""

    next_batch: str
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    invites: dict[str, str] = field(default_factory=dict)
    gaps: list[str] = field(default_factory=list)


class Link:
    """A login of the judge on ``url`` as ``user`` (a password, or an access token)."""

    def __init__(self, url: str, user: str, *, password: str | None = None,
                 token: str | None = None) -> None:
        import nio

        if (password is None) == (token is None):
            raise MatrixError("give a password or an access token for the Matrix account")
        self._nio = nio
        self._loop = asyncio.new_event_loop()
        config = nio.AsyncClientConfig(max_timeouts=0, max_limit_exceeded=0,
                                       request_timeout=REQUEST_SECONDS,
                                       encryption_enabled=False, store_sync_tokens=False)
        self.client = nio.AsyncClient(url, user, device_id=DEVICE_ID, config=config)
        self.url, self.password, self.token = url, password, token
        self.user_id = user

    # ------------------------------------------------------------------ plumbing

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float = REQUEST_SECONDS) -> T:
        import aiohttp

        try:
            return self._loop.run_until_complete(asyncio.wait_for(coro, timeout + 5))
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise MatrixError(f"cannot reach the homeserver {self.url}: "
                              f"{type(exc).__name__} {exc}".rstrip()) from None

    def _ok(self, response: Any, what: str) -> Any:
        if isinstance(response, self._nio.ErrorResponse):
            code = getattr(response, "status_code", None) or ""
            raise MatrixError(f"the homeserver refused to {what}: {code} "
                              f"{response.message}".replace("  ", " "))
        return response

    def connect(self) -> str:
        """Log in (a password) or take the token, and check who the judge is: its
        user id as the homeserver says."""
        if self.token is not None:
            self.client.access_token = self.token
            self.client.user_id = self.user_id
        else:
            self._ok(self._run(self.client.login(password=self.password,
                                                 device_name="referee judge")), "log in")
        found = self._ok(self._run(self.client.whoami()), "say who the judge is")
        self.user_id = self.client.user_id = found.user_id
        return str(found.user_id)

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self.client.close())
        finally:
            self._loop.close()

    # ------------------------------------------------------------------ reading

    def sync(self, since: str | None, wait_ms: int = 0) -> Batch:
        """The events since ``since`` (None: the first sync, whose timeline is the
        recent past), waiting up to ``wait_ms`` for one to come."""
        response = self._ok(self._run(self.client.sync(
            timeout=wait_ms, since=since, sync_filter=SYNC_FILTER, full_state=False),
            REQUEST_SECONDS + wait_ms / 1000), "sync")
        batch = Batch(str(response.next_batch))
        for room_id, joined in response.rooms.join.items():
            if joined.timeline.limited and since is not None:
                batch.gaps.append(room_id)
            batch.events += [(room_id, dict(e.source)) for e in joined.timeline.events]
        for room_id, invited in response.rooms.invite.items():
            inviter = ""
            for event in invited.invite_state:
                source = getattr(event, "source", {}) or {}
                if source.get("state_key") == self.user_id:
                    inviter = str(source.get("sender", ""))
            batch.invites[room_id] = inviter
        return batch

    # ------------------------------------------------------------------ writing

    def create_room(self, name: str, topic: str, invite: list[str], *, direct: bool) -> str:
        """A new invite-only room, without history for those who join later, the judge
        its only admin; ``invite`` invited. Its room id."""
        nio = self._nio
        initial = [{"type": "m.room.history_visibility", "state_key": "",
                    "content": {"history_visibility": "invited"}},
                   {"type": "m.room.guest_access", "state_key": "",
                    "content": {"guest_access": "forbidden"}}]
        response = self._ok(self._run(self.client.room_create(
            visibility=nio.RoomVisibility.private, name=name, topic=topic,
            is_direct=direct, preset=nio.RoomPreset.private_chat, invite=invite,
            initial_state=initial, federate=True)), "create a room")
        return str(response.room_id)

    def invite(self, room: str, user: str) -> None:
        self._ok(self._run(self.client.room_invite(room, user)), "invite a player")

    def leave(self, room: str) -> None:
        self._ok(self._run(self.client.room_leave(room)), "leave a room")

    def send(self, room: str, content: dict[str, Any], txn: str) -> str:
        """Post ``content`` (an ``m.room.message``) in ``room`` under the transaction id
        ``txn``; the event id."""
        response = self._ok(self._run(self.client.room_send(
            room, "m.room.message", content, tx_id=txn, ignore_unverified_devices=True)),
            "post a message")
        return str(response.event_id)

    def redact(self, room: str, event_id: str, reason: str, txn: str) -> None:
        self._ok(self._run(self.client.room_redact(room, event_id, reason, tx_id=txn)),
                 "remove a message")

    def upload(self, data: bytes, name: str) -> str:
        """Upload a PNG picture; its ``mxc://`` URL."""
        import io

        response, _ = self._run(self.client.upload(
            io.BytesIO(data), content_type="image/png", filename=name, filesize=len(data)))
        return str(self._ok(response, "take a picture").content_uri)
