"""Clocks: time banks, vacations and deadlines as the log proves them (``clock``, on the
arithmetic of ``clockmath``), and the one-line view of a game's clocks (``clockview``).

May import: :mod:`referee.ledger` and below.
"""
