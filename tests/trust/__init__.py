"""Trust (referee/trust/): allowed signers, sealed games, age views, the view signature, and the
attacks on them."""
