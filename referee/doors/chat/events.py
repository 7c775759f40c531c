"""The events the chat door reads, as plain values, and the messages it posts.

:func:`read` turns one event of a sync (its JSON, as the homeserver sent it) into an
:class:`Event` or None: a room message of text (``m.text``, ``m.emote``), a redaction
or a membership change is kept; its kind says what it is (a message, an edit
``m.replace`` with its new text, a reply, a redaction, a membership) and its bounds are
checked here: a body longer than :data:`BODY_MAX` is kept as "too long" with its first
:data:`BODY_MAX` characters only (looked at for a hidden choice, never played), an event
id or sender that is not well formed drops the event. Nothing in an event is trusted
but what the homeserver vouches for: the sender and the event id.

:func:`post` builds the content of a post bounded in encoded bytes (a Matrix event is at
most 64 KiB, its JSON included).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.ledger.fileformat import MATRIX_EVENT, MATRIX_ID_MAX, MATRIX_USER, full

BODY_MAX = 2000  # characters of a player's message that are read (a mail's own lines: 20)
POST_BYTES = 48_000  # bytes of one post's content as JSON (an event: at most 65,536)
_USER = re.compile(full(MATRIX_USER))
_EVENT = re.compile(full(MATRIX_EVENT))
_ROOM = re.compile(r"^![A-Za-z0-9._~+/=:-]{1,254}$")
# the fallback a client puts before a reply's text: "> <@ann:hs> quoted" lines, then ""
_FALLBACK = re.compile(r"\A(?:>[^\n]*\n)+\n?")
CUT = "\n[... cut short]\n"


@dataclass(frozen=True)
class Event:
    """One event of a room the judge reads.

    ``kind``: ``message``, ``edit`` (an ``m.replace``: ``text`` is the new text),
    ``reply`` (an ``m.in_reply_to``: ``replies_to`` names the event), ``redaction``,
    ``too_long`` (``text``: its first :data:`BODY_MAX` characters) or ``member`` (a
    membership change: ``member`` is whose, ``text`` the membership: join, invite,
    leave, ban); ``text`` the body without a reply's quoted fallback."""

    room: str
    event_id: str
    sender: str
    kind: str
    text: str = ""
    replies_to: str | None = None
    member: str = ""


def valid_user(user: object) -> bool:
    return isinstance(user, str) and len(user) <= MATRIX_ID_MAX and bool(_USER.match(user))


def valid_event(event_id: object) -> bool:
    return isinstance(event_id, str) and len(event_id) <= MATRIX_ID_MAX and \
        bool(_EVENT.match(event_id))


def valid_room(room: object) -> bool:
    return isinstance(room, str) and bool(_ROOM.match(room))


def read(room: str, source: Mapping[str, Any]) -> Event | None:
    """The event ``source`` of ``room`` as the door reads it, or None: not a text
    message, a redaction or a membership, or without a well-formed sender and event id."""
    event_id, sender = source.get("event_id"), source.get("sender")
    if not valid_event(event_id) or not valid_user(sender):
        return None
    assert isinstance(event_id, str) and isinstance(sender, str)
    content = source.get("content")
    content = content if isinstance(content, dict) else {}
    kind = source.get("type")
    if kind == "m.room.redaction":
        return Event(room, event_id, sender, "redaction")
    if kind == "m.room.member":
        member, membership = source.get("state_key"), content.get("membership")
        if not valid_user(member) or not isinstance(membership, str):
            return None
        return Event(room, event_id, sender, "member", membership[:20], member=str(member))
    if kind != "m.room.message" or "state_key" in source:
        return None
    if content.get("msgtype") not in ("m.text", "m.emote"):
        return None  # a notice (a bot's), an image, a file: nothing to play
    body = content.get("body")
    if not isinstance(body, str):
        return None
    relates = content.get("m.relates_to")
    relates = relates if isinstance(relates, dict) else {}
    if relates.get("rel_type") == "m.replace":
        new = content.get("m.new_content")
        new_body = new.get("body") if isinstance(new, dict) else None
        text = new_body if isinstance(new_body, str) else body.removeprefix("* ")
        return Event(room, event_id, sender, "edit", text[:BODY_MAX])
    if len(body) > BODY_MAX:
        return Event(room, event_id, sender, "too_long", body[:BODY_MAX])
    reply = relates.get("m.in_reply_to")
    target = reply.get("event_id") if isinstance(reply, dict) else None
    if target is not None:
        text = _FALLBACK.sub("", body, count=1)
        return Event(room, event_id, sender, "reply", text,
                     target if valid_event(target) else "")
    return Event(room, event_id, sender, "message", body)


def post(text: str, *, notice: bool = True, limit: int = POST_BYTES) -> dict[str, Any]:
    """The content of one post of the judge: the text as it is (``body``) and, for
    clients that show HTML, in a ``<pre>`` block so that the board keeps its columns.
    A notice (``m.notice``: clients and bridges know a bot wrote it, and bots do not
    answer it) unless ``notice`` is False. Cut so that the content, as JSON, is at most
    ``limit`` bytes."""
    content = _content(text, notice)
    size = _size(content)
    while size > limit:
        keep = max(0, int(len(text) * limit / size * 0.9) - len(CUT))
        text = text[:keep].rstrip() + CUT
        content = _content(text, notice)
        size = _size(content)
    return content


def _content(text: str, notice: bool) -> dict[str, Any]:
    return {"msgtype": "m.notice" if notice else "m.text", "body": text,
            "format": "org.matrix.custom.html",
            "formatted_body": f"<pre><code>{html.escape(text.rstrip())}</code></pre>"}


def _size(content: dict[str, Any]) -> int:
    return len(json.dumps(content).encode())


def image(url: str, name: str, size: int, width: int, height: int) -> dict[str, Any]:
    """The content of a posted picture (``m.image``) uploaded at ``url`` (``mxc://``)."""
    return {"msgtype": "m.image", "body": name, "url": url,
            "info": {"mimetype": "image/png", "size": size, "w": width, "h": height}}
