"""The door conformance suite: the same tests for every door of the judge.

As the games have theirs (tests/conformance/: every game through the same checks), the
judge's doors have this one: each test of test_doors.py runs once per door, through that
door's own transport, driven by a driver of drivers.py:

* ``mail``: a Maildir in, a Maildir out (an aiosmtpd SMTP server where a recipient is
  refused); every pass ``referee judge ... --once`` through the CLI;
* ``chat``: a real Synapse (tests/matrixserver.py; federation off), the players
  matrix-nio clients (tests/matrixclient.py); every pass ``referee judge --matrix ...
  --once`` through the CLI;
* ``toy``: the toy door of tests/toydoor/ over its in-memory wire, every pass
  :func:`referee.judge.serve.run_once` in this process;
* ``github``: GitHub's own ``issues`` payloads (tests/githubevents.py), every event
  ``referee judge --github-event ... --answer-out ...`` through the CLI; a door with no
  private place and no delivery of its own, so two tests do not apply (the driver says
  why).

Each driver sets up one sealed three-seat Staufer game of the same seed at its door, runs
passes, sends a text as a seat, reads what a seat received and what the table shows,
kills a long-running judge right after a move is in the game file, and makes its
transport refuse one item for good. The tests (test_doors.py) ask the same of every door:
a text handled once across a kill -9, one refused item that stops nothing else, private
text only in private places, answers bounded in bytes whatever a seat types, and the same
rejection text for the same mistake.
"""
