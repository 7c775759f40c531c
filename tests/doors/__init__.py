"""The judge's doors (referee/doors/): mail, chat and GitHub."""
