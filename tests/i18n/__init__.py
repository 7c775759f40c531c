"""Languages (referee/i18n.py and the catalogs): German through the CLI, help, gaps."""
