"""One GitHub event as the GitHub door reads it: the file GitHub names in
``$GITHUB_EVENT_PATH`` for an ``issues`` or ``issue_comment`` event, read as data and
bounded before anything else is done.

The file is read up to :data:`EVENT_MAX` bytes (larger: refused), its JSON nested at most
:data:`DEPTH_MAX` deep (counted over its bytes before it is decoded), and decoded into
the few fields the door uses (msgspec; every other field is passed over unread): the
action, the issue (its id, number, title, body, author, state, whether it is a pull
request), the comment (its id, body, author), the sender (login, type) and the
repository. A body longer than :data:`BODY_MAX` characters is kept as "too long" with
its first :data:`BODY_MAX` characters only (looked at for a hidden choice, never
played). Nothing of the event is ever run or put into a command.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec

from referee.errors import UsageError

EVENT_MAX = 4 * 1024 * 1024  # bytes of an event file (an issue body is at most 65,536
#                              characters, and an issue_comment event carries two bodies)
DEPTH_MAX = 32  # nesting of the event's JSON (GitHub's own events: under 10)
BODY_MAX = 2000  # characters of an issue's or a comment's body that are read
LOGIN_MAX = 100  # characters of a login kept (a GitHub login: 39; an app's: more)
TITLE_MAX = 1024  # characters of a title kept (GitHub's: 256)
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = bytes(c for c in range(256) if c not in _DEPTH)
Id = Annotated[int, msgspec.Meta(gt=0)]  # GitHub's ids: positive (and in 64 bits)


class _User(msgspec.Struct):
    login: str
    type: str = "User"


class _Issue(msgspec.Struct):
    id: Id
    number: Id
    title: str
    user: _User
    body: str | None = None
    state: str = "open"
    pull_request: dict[str, Any] | None = None


class _Comment(msgspec.Struct):
    id: Id
    user: _User
    body: str | None = None
    updated_at: str = ""


class _Repository(msgspec.Struct):
    full_name: str = ""


class _Event(msgspec.Struct):
    action: str
    issue: _Issue
    sender: _User
    comment: _Comment | None = None
    repository: _Repository | None = None


@dataclass(frozen=True)
class Event:
    """What the door reads of an event. ``kind``: ``issue`` (an ``issues`` event) or
    ``comment`` (``issue_comment``); ``text_id``: the issue's or the comment's id
    (GitHub's global id, never the issue's number in its repository); ``author``: who
    wrote the text; ``too_long``: its body was longer than :data:`BODY_MAX`."""

    kind: str
    action: str
    issue: int  # the issue's number in its repository
    title: str
    text_id: int
    body: str
    author: str
    sender: str
    bot: bool
    repository: str
    pull_request: bool
    closed: bool
    too_long: bool
    updated_at: str = ""

    @property
    def ref(self) -> str:
        """The reference a log entry keeps in its field ``github``: ``issue:ID`` or
        ``comment:ID``."""
        return f"{self.kind}:{self.text_id}"


def read(path: Path) -> Event:
    """The event in the file at ``path``. Raises UsageError (exit 2): no such file, too
    large, not JSON, nested too deeply, or not an issues or issue_comment event."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(EVENT_MAX + 1)
    except OSError as exc:
        raise UsageError(f"--github-event: cannot read {path}: {exc.strerror or exc}"
                         ) from None
    return parse(raw, str(path))


def parse(raw: bytes, where: str = "the event") -> Event:
    """:func:`read` of bytes."""
    if len(raw) > EVENT_MAX:
        raise UsageError(f"--github-event: {where} is larger than {EVENT_MAX} bytes")
    if depth(raw) > DEPTH_MAX:
        raise UsageError(f"--github-event: {where} is JSON nested more than {DEPTH_MAX} "
                         "deep")
    try:
        found = msgspec.json.decode(raw, type=_Event)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise UsageError(f"--github-event: {where} is not an issues or issue_comment event "
                         f"as GitHub delivers it: {str(exc)[:200]}") from None
    return _event(found)


def depth(raw: bytes) -> int:
    """How deep ``raw``'s JSON nests (brackets inside strings not counted)."""
    brackets = _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(map(_DEPTH.__getitem__, brackets), initial=0))


def _event(found: _Event) -> Event:
    issue, comment = found.issue, found.comment
    text = comment if comment is not None else issue
    body = text.body or ""
    sender = found.sender
    return Event(
        kind="comment" if comment is not None else "issue", action=found.action[:40],
        issue=issue.number, title=issue.title[:TITLE_MAX], text_id=text.id,
        body=body[:BODY_MAX], author=text.user.login[:LOGIN_MAX],
        sender=sender.login[:LOGIN_MAX], bot=sender.type != "User" or
        text.user.type != "User" or sender.login.endswith("[bot]"),
        repository=(found.repository.full_name if found.repository else "")[:200],
        pull_request=issue.pull_request is not None, closed=issue.state == "closed",
        too_long=len(body) > BODY_MAX,
        updated_at=(comment.updated_at if comment is not None else "")[:40])
