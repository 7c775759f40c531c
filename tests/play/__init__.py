"""Writes (referee/play/): the write core, replies, plans, sealed play, rematches, and the
attacks on them."""
