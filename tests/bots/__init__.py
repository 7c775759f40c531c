"""Bots (referee/bots/): bot seats, determinization, levels and `simulate`."""
