"""The judge's Matrix client: matrix-nio's AsyncClient behind a few blocking calls.

One :class:`Link` is one login of the judge's account on its homeserver. Every call
returns plain values or raises :class:`MatrixError`, which says whether the homeserver
refused for good (:attr:`MatrixError.permanent`: a 4xx other than a rate limit; sending
it again would not help) or could not be reached or asked to wait (the caller logs one
line and tries again later). Nothing waits longer than its timeout and nothing retries by
itself. The device id is fixed (:data:`DEVICE_ID`), so the transaction ids of the posts
(made from the judge's own message ids) stay the same across restarts and a post sent
again after a crash is not shown twice: the homeserver keeps one event per transaction
id and device.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.errors import RefereeError

DEVICE_ID = "REFEREEJUDGE"
TIMELINE_LIMIT = 200  # events per room and sync (more: paged back, see :meth:`Link.sync`)
PAGE_LIMIT = 100  # events per page back
PAGED_MAX = 2000  # events paged back per room and sync (more: logged as a gap)
REQUEST_SECONDS = 30.0
ROOM_KEY = "org.referee.room"  # the judge's key in a room's creation content
T = TypeVar("T")

TIMELINE_TYPES = ["m.room.message", "m.room.redaction", "m.room.member"]
# what the judge asks a sync for: messages, redactions and memberships of its rooms, its
# invites; no presence, typing, receipts or account data
SYNC_FILTER: dict[str, Any] = {
    "presence": {"not_types": ["*"]},
    "account_data": {"not_types": ["*"]},
    "room": {
        "timeline": {"limit": TIMELINE_LIMIT, "types": TIMELINE_TYPES},
        "state": {"types": ["m.room.member"], "lazy_load_members": True},
        "ephemeral": {"not_types": ["*"]},
        "account_data": {"not_types": ["*"]},
    },
}
# who may do what in a room the judge makes: only the judge invites, kicks, bans, redacts
# others' messages and changes the room; players post
POWER_LEVELS: dict[str, Any] = {
    "invite": 100, "kick": 100, "ban": 100, "redact": 100, "state_default": 100,
    "events_default": 0, "users_default": 0,
    "events": {"m.room.message": 0, "m.room.redaction": 0, "m.reaction": 0},
}


class MatrixError(RefereeError):
    """The homeserver refused a request, or cannot be reached. ``status``: the HTTP
    status of a refusal (None: no answer); ``permanent``: refused for good."""

    def __init__(self, message: str, status: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.status, self.code = status, code

    @property
    def permanent(self) -> bool:
        return self.status is not None and 400 <= self.status < 500 and self.status != 429 \
            and self.code != "M_LIMIT_EXCEEDED"


@dataclass
class Room:
    """One joined room's part of a sync: its events in order (their JSON), and whether
    some could not be read (more than :data:`PAGED_MAX` since the last sync)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    gap: bool = False


@dataclass
class Batch:
    """What one sync brought: the position to sync from next, each joined room's new
    events, the rooms the judge is invited to (room -> who invited)."""

    next_batch: str
    rooms: dict[str, Room] = field(default_factory=dict)
    invites: dict[str, str] = field(default_factory=dict)

    @property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        return [(room, e) for room, found in self.rooms.items() for e in found.events]


class Link:
    """A login of the judge on ``url`` as ``user`` (a password, or an access token)."""

    def __init__(self, url: str, user: str, *, password: str | None = None,
                 token: str | None = None) -> None:
        import nio

        if password is None and token is None:
            raise MatrixError("give a password or an access token for the Matrix account")
        self._nio = nio
        self._loop = asyncio.new_event_loop()
        config = nio.AsyncClientConfig(max_timeouts=0, max_limit_exceeded=0,
                                       request_timeout=REQUEST_SECONDS,
                                       encryption_enabled=False, store_sync_tokens=False)
        self.client = nio.AsyncClient(url, user, device_id=DEVICE_ID, config=config)
        self.url, self.password, self.token = url, password, token
        self.user_id = user
        self.connected = False

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
            http = getattr(getattr(response, "transport_response", None), "status", None)
            raise MatrixError(f"the homeserver refused to {what}: "
                              f"{response.status_code or ''} {response.message}".replace(
                                  "  ", " "), http or _status(response),
                              str(response.status_code or ""))
        return response

    def connect(self) -> str:
        """Take the token (checked), else log in with the password; the judge's user id
        as the homeserver says. A token refused (expired, logged out) with a password
        at hand: a new login."""
        if self.token is not None:
            self.client.access_token = self.token
            self.client.user_id = self.user_id
            try:
                return self._whoami()
            except MatrixError as exc:
                if self.password is None or exc.status != 401:
                    raise
        self._ok(self._run(self.client.login(password=self.password,
                                             device_name="referee judge")), "log in")
        self.token = self.client.access_token
        return self._whoami()

    def _whoami(self) -> str:
        found = self._ok(self._run(self.client.whoami()), "say who the judge is")
        self.user_id = self.client.user_id = found.user_id
        self.connected = True
        return str(found.user_id)

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self.client.close())
        finally:
            self._loop.close()

    # ------------------------------------------------------------------ reading

    def _call(self, what: str, method: str, path: str, data: str | None = None,
              timeout: float = REQUEST_SECONDS) -> Any:
        """One request on matrix-nio's session (its paths, its login), its answer as
        plain JSON: the calls a judge makes on every pass (sync, post, a room's people)
        skip matrix-nio's parsing into objects, whose schema checks cost more than the
        rest of a move. Nothing in the answer is trusted: its readers check each field
        (:mod:`referee.doors.chat.events`). Raises MatrixError."""

        if self.client.client_session is None:
            raise MatrixError("the judge is not logged in to its homeserver")

        async def call() -> tuple[int, bytes]:
            response = await self.client.send(method, path, data, timeout=timeout)
            try:
                return response.status, await response.read()
            finally:
                response.release()

        status, body = self._run(call(), timeout)
        try:
            found = json.loads(body) if body else {}
        except ValueError:
            found = None
        if status >= 400:
            error = _dict(found)
            code = str(error.get("errcode") or "")[:60]
            message = str(error.get("error") or "")[:300]
            raise MatrixError(f"the homeserver refused to {what}: {status} {code} "
                              f"{message}".strip(), status, code)
        if not isinstance(found, dict | list):
            raise MatrixError(f"the homeserver answered {what} with no JSON (HTTP {status})",
                              502)
        return found

    def sync(self, since: str | None, wait_ms: int = 0) -> Batch:
        """The events since ``since`` (None: the first sync, whose timeline is the
        recent past), waiting up to ``wait_ms`` for one to come. A room whose timeline
        was cut (more events than one sync carries) is paged back to ``since``, so that
        nothing sent between two syncs is passed over."""
        nio = self._nio
        _, path = nio.Api.sync(self.client.access_token, since=since, timeout=wait_ms,
                               filter=SYNC_FILTER, full_state=False)
        found = _dict(self._call("sync", "GET", path,
                                 timeout=REQUEST_SECONDS + wait_ms / 1000))
        batch = Batch(str(found.get("next_batch") or since or ""))
        rooms = _dict(found.get("rooms"))
        for room_id, joined in _dict(rooms.get("join")).items():
            timeline = _dict(_dict(joined).get("timeline"))
            room = batch.rooms[room_id] = Room(_events(timeline.get("events")))
            start = timeline.get("prev_batch")
            if timeline.get("limited") and since is not None and isinstance(start, str):
                older, gap = self._page_back(room_id, start, since)
                room.events[:0] = older
                room.gap = gap
        for room_id, invited in _dict(rooms.get("invite")).items():
            inviter = ""
            for event in _events(_dict(_dict(invited).get("invite_state")).get("events")):
                if event.get("state_key") == self.user_id:
                    inviter = str(event.get("sender", ""))
            batch.invites[room_id] = inviter
        return batch

    def _page_back(self, room: str, start: str, since: str
                   ) -> tuple[list[dict[str, Any]], bool]:
        """The events of ``room`` before ``start`` back to the sync position ``since``,
        oldest first; whether more were left than :data:`PAGED_MAX`."""
        found: list[dict[str, Any]] = []
        token: str | None = start
        while token is not None and len(found) < PAGED_MAX:
            _, path = self._nio.Api.room_messages(
                self.client.access_token, room, start=token, end=since, limit=PAGE_LIMIT,
                message_filter={"types": TIMELINE_TYPES})
            page = _dict(self._call("read older messages", "GET", path))
            chunk = _events(page.get("chunk"))
            found += chunk
            end = page.get("end")
            if not chunk or not isinstance(end, str) or end == token:
                return list(reversed(found)), False
            token = end
        return list(reversed(found)), token is not None

    def members(self, room: str) -> dict[str, str]:
        """Everyone in ``room`` who joined or is invited: user id -> membership."""
        method, path = self._nio.Api.room_get_state(self.client.access_token, room)
        found: dict[str, str] = {}
        for event in _events(self._call("list a room's people", method, path)):
            if event.get("type") == "m.room.member":
                membership = _dict(event.get("content")).get("membership")
                if membership in ("join", "invite") and isinstance(event.get("state_key"), str):
                    found[str(event["state_key"])] = str(membership)
        return found

    def joined_rooms(self) -> list[str]:
        return list(self._ok(self._run(self.client.joined_rooms()), "list its rooms").rooms)

    def room_key(self, room: str) -> str | None:
        """The judge's key in ``room``'s creation content (None: not a room it made
        with one)."""
        try:
            found = self._ok(self._run(self.client.room_get_state_event(room, "m.room.create")),
                             "read a room's creation")
        except MatrixError as exc:
            if exc.permanent:
                return None
            raise
        key = (found.content or {}).get(ROOM_KEY)
        return key if isinstance(key, str) else None

    # ------------------------------------------------------------------ writing

    def create_room(self, name: str, topic: str, *, direct: bool, key: str) -> str:
        """A new invite-only room, without history for those who join later, where only
        the judge invites, kicks, bans and changes the room (:data:`POWER_LEVELS`);
        ``key`` in its creation content (how the judge finds it again). Nobody is
        invited here (:meth:`invite`). Its room id."""
        nio = self._nio
        initial = [{"type": "m.room.history_visibility", "state_key": "",
                    "content": {"history_visibility": "invited"}},
                   {"type": "m.room.guest_access", "state_key": "",
                    "content": {"guest_access": "forbidden"}},
                   {"type": "m.room.join_rules", "state_key": "",
                    "content": {"join_rule": "invite"}}]
        levels = dict(POWER_LEVELS)  # (the creator, the judge, is the room's admin: its
        # power is the preset's, or in room versions 12 and later the creator's own)
        method, path, data = nio.Api.room_create(
            self.client.access_token, visibility=nio.RoomVisibility.private, name=name,
            topic=topic, is_direct=direct, preset=nio.RoomPreset.private_chat,
            initial_state=initial, power_level_override=levels)
        body = json.loads(data)
        body["creation_content"] = {**body.get("creation_content", {}), ROOM_KEY: key}
        response = self._ok(self._run(self.client._send(
            nio.RoomCreateResponse, method, path, json.dumps(body))), "create a room")
        return str(response.room_id)

    def invite(self, room: str, user: str) -> None:
        self._ok(self._run(self.client.room_invite(room, user)), "invite a player")

    def kick(self, room: str, user: str, reason: str) -> None:
        self._ok(self._run(self.client.room_kick(room, user, reason)), "remove someone")

    def leave(self, room: str) -> None:
        self._ok(self._run(self.client.room_leave(room)), "leave a room")

    def send(self, room: str, content: dict[str, Any], txn: str) -> str:
        """Post ``content`` (an ``m.room.message``) in ``room`` under the transaction id
        ``txn``; the event id."""
        method, path, data = self._nio.Api.room_send(self.client.access_token, room,
                                                     "m.room.message", content, txn)
        event = _dict(self._call("post a message", method, path, data)).get("event_id")
        if not isinstance(event, str):
            raise MatrixError("the homeserver answered a post without its event id", 502)
        return event

    def redact(self, room: str, event_id: str, reason: str, txn: str) -> None:
        self._ok(self._run(self.client.room_redact(room, event_id, reason, tx_id=txn)),
                 "remove a message")

    def upload(self, data: bytes, name: str) -> str:
        """Upload a PNG picture; its ``mxc://`` URL."""
        import io

        response, _ = self._run(self.client.upload(
            io.BytesIO(data), content_type="image/png", filename=name, filesize=len(data)))
        return str(self._ok(response, "take a picture").content_uri)


def _status(response: Any) -> int | None:
    """The HTTP status of an error response of matrix-nio, from its errcode where the
    transport's is not kept."""
    code = str(getattr(response, "status_code", "") or "")
    if code == "M_LIMIT_EXCEEDED":
        return 429
    if code in ("M_UNKNOWN_TOKEN", "M_MISSING_TOKEN"):
        return 401
    if code == "M_FORBIDDEN":
        return 403
    if code in ("M_NOT_FOUND",):
        return 404
    if code in ("M_TOO_LARGE",):
        return 413
    if code.startswith("M_"):
        return 400
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _events(value: Any) -> list[dict[str, Any]]:
    """The events of a list in an answer: its objects, anything else passed over."""
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []
