"""Pages: HTML pages and pictures made from game files.

The static site of a folder of games (``site``), the positions of a game file drawn move by
move (``positions``), the Jinja2 templates and their environment (``templating``,
``templates/``), the page words (``words``), the on-disk picture cache (``cache``), and
the site built from what changed: what it remembers of OUT in the cache database
(``sitecache``), what it keeps and how it updates OUT (``incremental``) and what both
builds know of a game (``summary``); a
game's board as Markdown for a README (``markdown``).
Jinja2 and the PNG library are imported only when a page or a PNG is made.

May import: :mod:`referee.reports`, :mod:`referee.pictures` and everything below them.
"""
