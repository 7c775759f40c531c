"""Reports (referee/reports/): `pending`, `ratings`, their cache, folders of games."""
