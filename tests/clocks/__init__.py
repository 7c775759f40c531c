"""Time banks (referee/clocks/): the arithmetic, the clock job, and the attacks on them."""
