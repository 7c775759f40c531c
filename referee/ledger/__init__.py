"""The ledger: a game file's bytes to a verified log to a state, read-only.

The file format and its bounds (``fileformat``, ``strictjson``, ``schema``, ``schemagen``),
the one atomic file write (``fileio``), the header's players and seats (``roster``,
``seats``), the game's data versions (``dataversions``), the hash chain and the referee's
MAC (``vouch``), the sealed game's secret and nonces (``secret``, ``nonces``), players'
sealed plans (``plans``), parsing a file (``gamefile``), replaying its log (``replay``)
and who a player is (``identity``); the installed referee's fingerprint (``codedigest``)
and the one cache database that reports, the site and views keep their rows in
(``cachedb``).

Nothing here writes a game file (that is :mod:`referee.play.writecore`). May import:
:mod:`referee.engine`, :mod:`referee.errors`, :mod:`referee.i18n`.
"""
