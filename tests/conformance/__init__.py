"""The conformance suite: the same checks for every registered game.

The games are found as the referee finds them (tests/conformance/registry.py: the games
of referee/games/, the entry points of ``referee.games`` with the Nim plug-in of
tests/plugin/ installed, and the games registered in this process); each test is
parametrized over them, so that a new game is played by the suite as soon as the referee
knows it. The checks themselves are functions (checks.py, bounds.py) that raise
AssertionError naming the game, the position and the fault: test_planted_bugs.py runs
them on copies of the Nim plug-in with a bug planted and requires each to fail.
docs/adding-a-game.md lists what the suite checks."""
