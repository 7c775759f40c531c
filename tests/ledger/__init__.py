"""The game file (referee/ledger/): bounds, identity, data versions, replay, strict JSON,
schemas, the cache database."""
