"""referee: a command-line referee for board games played by e-mail or through git."""

__version__ = "0.5.0"
