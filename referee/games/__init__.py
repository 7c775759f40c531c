"""The games that come with the referee, one package each (``staufer``, ``dynasties``).

A game package is a plug-in: it builds on :mod:`referee.engine`, :mod:`referee.pictures`,
:mod:`referee.errors` and :mod:`referee.i18n` only, and is found through the entry-point
group ``referee.games`` (docs/adding-a-game.md); nothing of the referee imports a game
by name.
"""
