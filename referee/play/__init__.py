"""Play: every write to a game file and the use-cases built on it.

The one write core (``writecore``: lock, replay, check, append, MAC, size check, atomic
write), submitting a move (``submit``), a player's message played, the use-case of
the judge and ``move --from-email`` (``reply``), plans played when their turn comes
(``plan_play``), new games and rematches (``newgame``, ``rematch``), rules-version
upgrades (``upgrades``), the library behind the command line's commands (``commands``) and
what ``status`` shows (``statusview``).

May import: :mod:`referee.clocks`, :mod:`referee.bots`, :mod:`referee.ledger` and below.
"""
