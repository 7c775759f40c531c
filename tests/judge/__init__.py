"""The judge's core (referee/judge/): its loop, store, commands and mails, played through a
Maildir."""
