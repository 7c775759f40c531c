"""The chat door (referee/doors/chat/): events, seats and a real Synapse."""
