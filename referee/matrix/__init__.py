"""Matrix, the chat protocol the judge's chat door speaks (docs/chat.md).

:mod:`referee.matrix.link` is the client (matrix-nio, the ``[matrix]`` extra, imported
only when a judge plays in chat); :mod:`referee.matrix.events` reads the events of a
sync into plain values and bounds them, and builds the content of the messages the
judge posts. Nothing here knows a game: the door in :mod:`referee.judge.chatfront` and
the handler of a player's message in :mod:`referee.judge.chatincoming` do.
"""
