"""The chat door: a judge's games played in Matrix rooms (docs/chat.md).

:class:`~referee.doors.chat.door.MatrixDoor` posts each notice of the core to a game's
table (an invite-only room) or to a seat's direct room with the referee
(:mod:`referee.doors.chat.rooms`), and hands each message of those rooms to the core
(:mod:`referee.doors.chat.incoming`); :mod:`referee.doors.chat.link` is the Matrix
client (matrix-nio, the ``[matrix]`` extra, imported only when a judge plays in chat) and
:mod:`referee.doors.chat.events` reads a sync's events into plain values. It reads no
mail and imports no other door.
"""
