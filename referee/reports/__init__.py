"""Reports: reading many game files at once.

``check`` and ``check --since`` (``checking``), whose turn it is across games (``pending``,
with its cache ``pendingcache``) and the league's ratings (``ratings``).

May import: :mod:`referee.git`, :mod:`referee.play` and below.
"""
