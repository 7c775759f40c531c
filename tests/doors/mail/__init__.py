"""The mail door (referee/doors/mail/): links, HTML mails, the IMAP and SMTP servers."""
