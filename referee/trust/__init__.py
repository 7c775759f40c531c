"""Trust: signed and encrypted outputs and the keys behind them.

XEdDSA signatures with a sealed game's key (``xeddsa``), signed and padded views
(``viewsign``), age encryption of views and hidden choices (``agebox``) and the players'
allowed signers (``signers``).

May import: :mod:`referee.ledger` and below.
"""
