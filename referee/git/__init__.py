"""Git: game files as commits.

A game's history across commits (``history``), who made which commit (``commits``), git's
diff and merge drivers for game files (``drivers``), the players' encrypted views written
for a repository (``views``), what `views` remembers in the cache database
(``viewcache``) and how it tells a file from itself (``viewfiles``), a view a player
opens verified against its game (``viewcheck``) and where a game and its repository are
(``places``); what `tick` holds a game to before the referee vouches for it
(``vouching``); a move as a GitHub issue, its link made and read back (``issues``).

May import: :mod:`referee.play`, :mod:`referee.trust`, :mod:`referee.clocks`,
:mod:`referee.bots`, :mod:`referee.ledger` and below.
"""
