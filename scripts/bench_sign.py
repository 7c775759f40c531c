"""Benchmark the signature of views (referee/trust/xeddsa.py): one XEdDSA signature, one
verification, and one whole signed view document (referee/trust/viewsign.py), per call, in
CPU milliseconds of this process (the median of several rounds). Figures go in
docs/sealed-games.md (the referee's signature on views).

    .venv/bin/python -m scripts.bench_sign [--runs 200] [--rounds 5]

The same script runs against an older tree (``PYTHONPATH=OLD_TREE python
scripts/bench_sign.py``) to give the figure before a change.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def per_call_ms(func: Callable[[], object], runs: int, rounds: int) -> float:
    """The median over ``rounds`` of the CPU time of one call, in milliseconds."""
    found = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(runs):
            func()
        found.append(1000 * (time.process_time() - start) / runs)
    return round(statistics.median(found), 3)


def bench(runs: int, rounds: int) -> dict[str, Any]:
    from referee.ledger import gamefile, vouch
    from referee.trust import viewsign, xeddsa

    seed = "bench-sign"
    secret = vouch._derive(seed, b"age-identity")
    u = viewsign.recipient_u(vouch.recipient(seed))
    assert u is not None
    message = b"referee-view/2\0" + b"x" * 2000  # about a view's size
    signature = xeddsa.sign(secret, message)
    assert xeddsa.verify(u, message, signature)
    gf = gamefile.read(ROOT / "examples" / "staufer-5p.json")
    return {
        "sign_ms": per_call_ms(lambda: xeddsa.sign(secret, message), runs, rounds),
        "verify_ms": per_call_ms(lambda: xeddsa.verify(u, message, signature), runs, rounds),
        "view_document_ms": per_call_ms(
            lambda: viewsign.document(gf, seed, "games/g.json", "ann", "text", {}),
            max(1, runs // 4), rounds),
        "xeddsa_module": xeddsa.__file__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (the median is kept)")
    args = parser.parse_args()
    print(json.dumps(bench(args.runs, args.rounds), indent=2))


if __name__ == "__main__":
    main()
