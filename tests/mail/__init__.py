"""Mail (referee/mail/): tokens, composing, delivery, headers, intake, notifications."""
