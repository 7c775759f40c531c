"""What comes into the chat door: one sync read event by event (:func:`take`), each
message of a game's rooms authenticated and handed to the core (docs/chat.md).

The sender is the Matrix id the homeserver vouches for; it counts only for a seat bound
to that id in the game whose table (or whose seat's direct room) the event is in. A
message becomes a :class:`~referee.judge.door.Said` of that seat, said at the table or
where the seat is alone with the referee, answering the play number of the judge's post
it replies to (a plain message answers the game as it is); the core does the rest
(:mod:`referee.judge.handling`: what at a table is for the referee, the rate, a hidden
choice withdrawn, the command table, the answers). Each event is handled once: its id is
kept with the handled references of the judge's state, and a move's log entry carries
it (``matrix``). A membership change is kept (who is in each room), and a seat who left
one of its rooms is invited again. An invitation to a room the judge did not make (a
stranger's direct message) is declined. A hostile or malformed event is logged and
passed over; it never stops the judge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from referee.doors.chat import events
from referee.doors.chat.link import MatrixError
from referee.doors.chat.rooms import Held
from referee.judge import handling
from referee.judge.basics import WATCHER, Config
from referee.judge.door import Door, Place, Said, Taken
from referee.judge.failures import describe
from referee.judge.outcome import Outcome
from referee.judge.readings import number
from referee.play.reading import read_text

if TYPE_CHECKING:
    from referee.doors.chat.link import Link
    from referee.doors.chat.rooms import Rooms
    from referee.judge.core import Judge
    from referee.judge.store import Store


class MatrixDoor(Protocol):
    """What reading asks of the chat door (:class:`referee.doors.chat.door.MatrixDoor`,
    a :class:`~referee.judge.door.Door`)."""

    judge: Judge
    store: Store
    link: Link
    rooms: Rooms
    config: Config
    _where: dict[str, str]

QUIET = ("the judge's own", "chat", "membership")  # outcomes not counted or logged


def take(door: MatrixDoor, wait: float) -> Taken:
    """One sync, read (see the module's docstring). Raises MatrixError (the homeserver)
    or RetryLater (the disk)."""
    judge, store = door.judge, door.store
    taken = Taken()
    kept = store.part("chat", {}, change=False)
    batch = door.link.sync(kept.get("since"), int(wait * 1000))
    for room, inviter in batch.invites.items():
        if events.valid_room(room) and door.rooms.place(room) is None:
            judge.config.log(f"declined an invitation from {inviter[:100] or 'someone'}: "
                             "the judge joins only its own rooms")
            try:
                door.link.leave(room)
            except MatrixError as exc:
                judge.config.log(f"could not decline {room[:80]}: {exc.message}")
    read: list[events.Event] = []
    for room, found in batch.rooms.items():
        if found.gap:
            judge.config.log(f"room {room[:80]}: more events came than the judge pages "
                             "back at once; the oldest were passed over")
        if events.valid_room(room):
            read += [e for e in (events.read(room, s) for s in found.events)
                     if e is not None]
    # who is in each room first (a message of one room may make a post to another)
    for event in [e for e in read if e.kind == "member"]:
        handle(door, event)
    for event in [e for e in read if e.kind != "member"]:
        outcome = handle(door, event)
        if outcome.detail in QUIET:
            continue
        taken.read += 1
        taken.played += outcome.action == "played"
        taken.lines.append(outcome.action)
    kept = store.part("chat", {})
    kept["since"] = batch.next_batch
    store.save()
    return taken


def handle(door: MatrixDoor, event: events.Event) -> Outcome:
    """Handle one event; a failure that is a bug is logged and the event passed over
    (marked handled); the disk and the homeserver raise."""
    judge = door.judge
    door._where[event.event_id] = event.room
    try:
        outcome = _handle(door, event)
    except MatrixError:
        raise
    except Exception as exc:
        judge.failed(exc)  # re-raises a failure of the disk or of a door
        judge.store.mark_answered(event.event_id)
        judge.store.save()
        outcome = Outcome("skipped", detail=describe(exc))
    finally:
        door._where.pop(event.event_id, None)
    if outcome.action == "failed":
        judge.store.mark_answered(event.event_id)
        judge.store.save()
    if outcome.detail not in QUIET:
        judge.config.log(f"chat {outcome.action}: {outcome.game or '-'} "
                         f"{event.sender} {outcome.detail}".rstrip())
    return outcome


def _handle(door: MatrixDoor, event: events.Event) -> Outcome:
    judge, store = door.judge, door.store
    place = door.rooms.place(event.room)
    if event.kind == "member":
        if place is not None:
            _membership(door, place[0], place[1], event)
        return Outcome("ignored", detail="membership")
    if event.sender == door.link.user_id:
        return Outcome("ignored", detail="the judge's own")
    if store.answered(event.event_id):
        return Outcome("duplicate", detail="already handled")
    path = judge.game_paths().get(place[0]) if place is not None else None
    game = judge.load(path) if path is not None else None
    if place is None or game is None:
        return _done(door, event, Outcome("ignored", detail="a room of no game here"))
    gid, reader = place
    seats = game.settings.matrix_of(event.sender)
    player = (reader if reader in seats else None) if reader != WATCHER else \
        (seats[0] if seats else None)
    if player is None:
        return _done(door, event, Outcome("ignored", gid, f"not a seat here: {event.sender}"))
    if event.kind == "redaction":
        return _done(door, event, Outcome("ignored", gid, "redaction: takes nothing back"))
    at = None
    if event.kind == "reply":
        at = door.rooms.post_at(gid, event.room, event.replies_to or "")
        at = -1 if at is None else at  # (a reply to anything else: of an earlier turn)
    text = read_text(event.text)
    if reader != WATCHER and text.moves and number(text.moves[0]) is not None:
        # a number plays a move of the last numbered post (referee/doors/chat/numbers.py)
        at = door.rooms.of(gid).get("numbered", {}).get(player, -1)
    kind = event.kind if event.kind in ("edit", "too_long") else "message"
    assert isinstance(door, Door)
    return handling.handle(judge, Said(
        door, event.event_id, "matrix", game, player, text,
        Place.TABLE if reader == WATCHER else Place.SEAT, at, kind=kind,
        sender=event.sender))


def _done(door: MatrixDoor, event: events.Event, outcome: Outcome) -> Outcome:
    door.store.mark_answered(event.event_id)
    door.store.save()
    return outcome


def _membership(door: MatrixDoor, gid: str, reader: str, event: events.Event) -> None:
    """Keep who is in the room; a seat who left one of its rooms is invited again (a
    failure tried again later, with back-off)."""
    door.rooms.seen(gid, event.room, event.member, event.text)
    if event.text not in ("leave", "ban") or event.sender != event.member:
        return  # (joined, invited, or removed by the referee)
    path = door.judge.game_paths().get(gid)
    game = door.judge.load(path) if path is not None else None
    if game is None:
        return
    seats = game.settings.matrix
    if reader == WATCHER and event.member not in seats.values():
        return
    if reader != WATCHER and seats.get(reader) != event.member:
        return
    try:
        door.rooms.invite(gid, reader, event.room, event.member)
        door.config.log(f"chat: {gid}: {event.member[:100]} left a room of theirs: invited "
                        "again")
    except Held:
        pass
    door.store.save()
