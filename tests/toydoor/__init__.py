"""A toy door: the whole of a door in one small package, over an in-memory transport.

It shows what a door is (referee/judge/door.py): its transport's events (here: texts a
test puts in :attr:`Wire.inbox`, each with a sender, a room and an id) turned into
authenticated player texts for the core, the core's notices delivered (here: appended to
:attr:`Wire.outbox`), and its own bookkeeping (which texts it read) in its rows of the
judge's state. A seat is the toy door's when its address is at ``toy.invalid``
(``ann@toy.invalid``: the game file knows mail and Matrix only, and a toy needs no new
field); a game's table is the room ``table``, a seat's private room ``seat:ann``. A
text's id is kept in a log entry's ``mail`` field, so ids look like Message-IDs. The
transport can be told to refuse one message for good (:attr:`Wire.refuse`) or to be
down (:attr:`Wire.down`), as a door conformance test needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.judge import handling
from referee.judge.basics import WATCHER, Loaded, plays
from referee.judge.door import MAIL_WORDS, Door, DoorDown, Notice, Place, Said, Taken, Words
from referee.judge.outcome import Outcome
from referee.play.reading import read_text

TOY_WORDS = Words(**{**MAIL_WORDS.__dict__, "took": None,
                     "elsewhere": "{player}: answered in your own room.",
                     "private_place": "`{command}` is for your own room: nothing was done.",
                     "hidden_at_table": "That is a hidden choice: say it in your own room."})
DOMAIN = "@toy.invalid"


@dataclass
class Text:
    """One text on the wire: who sent it, where (``table`` or ``seat:NAME``), its id."""

    ref: str
    sender: str
    room: str
    body: str
    answers: int | None = None  # the play number it answers, if any


@dataclass
class Wire:
    """The toy transport: texts in, posts out."""

    inbox: list[Text] = field(default_factory=list)
    outbox: list[dict[str, Any]] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)  # posts whose body holds this: refused
    down: bool = False
    withdrawn: list[str] = field(default_factory=list)


class ToyDoor(Door):
    """The toy door over ``wire``."""

    name = "toy"
    words = TOY_WORDS

    def __init__(self, wire: Wire) -> None:
        self.wire = wire

    def attach(self, judge: Any) -> None:
        self.judge = judge
        self.store = judge.store

    def reaches(self, to: str) -> bool:
        return to.rstrip(">").endswith(DOMAIN)

    def keeps_table(self, game: Loaded) -> bool:
        return any(self.reaches(to) for to in map(game.settings.to, game.gf.players) if to)

    def prepare(self, game: Loaded, notice: Notice) -> dict[str, Any]:
        room = "table" if notice.to is None else f"seat:{name_of(notice.to)}"
        return {"game": game.gf.game_id, "room": room, "reader": notice.player,
                "body": notice.body, "plays": plays(game.gf), "answers": notice.answers,
                "id": f"{game.gf.game_id}.{self.store.next_counter(game.gf.game_id)}"}

    def queue(self, message: object) -> None:
        assert isinstance(message, dict)
        self.store.enqueue(self.name, message, message["game"])

    def flush(self) -> int:
        sent = 0
        for item in list(self.store.queue(self.name)):
            if self.wire.down:
                raise DoorDown("the toy wire is down")
            if any(word in item["body"] for word in self.wire.refuse):
                self.judge.config.log(f"toy: a post to {item['room']} was refused for good "
                                      "and dropped")
            else:
                self.wire.outbox.append({k: v for k, v in item.items() if k != "_seq"})
                sent += 1
            self.store.dequeue(self.name, item)
        return sent

    def take(self, wait: float = 0.0) -> Taken:
        if self.wire.down:
            raise DoorDown("the toy wire is down")
        taken = Taken()
        while self.wire.inbox:
            text = self.wire.inbox.pop(0)
            outcome = self._take(text)
            if outcome.detail != "chat":
                taken.read += 1
                taken.played += outcome.action == "played"
                taken.lines.append(outcome.action)
        return taken

    def _take(self, text: Text) -> Outcome:
        judge = self.judge
        seen = self.store.part("toy.read", [])
        if text.ref in seen:
            return Outcome("duplicate", detail="read before")
        seen.append(text.ref)
        for path in judge.game_paths().values():
            game = judge.load(path)
            if game is None:
                continue
            seats = [p for p in game.gf.players
                     if name_of(game.settings.to(p) or "") == text.sender]
            if not seats:
                continue
            place = Place.TABLE if text.room == "table" else Place.SEAT
            if place is Place.SEAT and text.room != f"seat:{text.sender}":
                continue
            return handling.handle(judge, Said(
                self, text.ref, "mail", game, seats[0], read_text(text.body), place,
                text.answers, sender=text.sender))
        self.store.save()
        return Outcome("ignored", detail="not a seat here")

    def withdraw(self, said: Said, why: str) -> None:
        self.wire.withdrawn.append(said.ref)


def name_of(to: str) -> str:
    """The toy name of an address: ``Ann <ann@toy.invalid>`` -> ``ann``."""
    address = to.rsplit("<", 1)[-1].rstrip(">")
    return address[:-len(DOMAIN)] if address.endswith(DOMAIN) else ""


def posts(wire: Wire, room: str) -> list[str]:
    """The bodies posted to ``room``."""
    return [p["body"] for p in wire.outbox if p["room"] == room]


__all__ = ["DOMAIN", "WATCHER", "Text", "ToyDoor", "Wire", "name_of", "posts"]
