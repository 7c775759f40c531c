"""The GitHub door (referee/doors/github/): GitHub's own payloads."""
