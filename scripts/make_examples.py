"""Play finished example games with seeded random legal moves and write them to examples/.

Each example is a game file (NAME.json) and its golden transcript (NAME.txt: the log in
notation, the final public board and the scores), which tests/test_examples.py replays
and diffs. Run after a deliberate rules or data change:

    .venv/bin/python scripts/make_examples.py
"""

from __future__ import annotations

import os
from pathlib import Path

from referee.engine import Match, get_game, random_playout
from referee.engine.rng import Rng
from referee.ledger import gamefile, replay

OUT = Path(__file__).resolve().parent.parent / "examples"
PLAYERS = ["ann", "ben", "cat", "dan", "eve"]
EXAMPLES = [("staufer", 3), ("staufer", 5), ("dynasties", 3), ("dynasties", 5)]
CREATED = "2026-11-30T00:00:00Z"


def play(game_name: str, n: int, seed: str) -> dict:
    """A finished game file (as data) of ``n`` players chosen by seeded random play."""
    game = get_game(game_name)
    os.environ["REFEREE_NOW"] = CREATED
    players = [{"id": p, "name": p.capitalize()} for p in PLAYERS[:n]]
    data = gamefile.new_data(game, players, {}, {"seed": seed}, f"{game_name}-{n}p-example")
    match = Match.start(game, [p["id"] for p in players], data["options"], seed)
    random_playout(match, Rng(f"choices-{seed}"))
    for player, move in match.log:
        gamefile.append_entry(data, player, move)
    return data


def transcript(data: dict) -> str:
    gf = gamefile.GameFile(data, get_game(data["game"]))
    match = replay.replay(gf)
    game = match.game
    lines = [f"{e['n']:>4}. {e['by']}: {game.format_move(m)}"
             for e, (_, m) in zip(gf.log, match.log, strict=True)]
    lines += ["", game.render(match.state, None), "", game.prompt(match.state)]
    lines.append("scores: " + ", ".join(f"{p} {s}" for p, s in game.scores(match.state).items()))
    lines.append(f"fingerprint: {game.fingerprint(match.state)}")
    return "\n".join(lines) + "\n"


def main() -> None:
    import sys

    only = set(sys.argv[1:])  # e.g. "staufer" to remake only that game's examples
    OUT.mkdir(exist_ok=True)
    for game_name, n in EXAMPLES:
        if only and game_name not in only:
            continue
        name = f"{game_name}-{n}p"
        data = play(game_name, n, f"example-{name}")
        (OUT / f"{name}.json").write_text(gamefile.dumps(data))
        (OUT / f"{name}.txt").write_text(transcript(data))
        print(f"wrote examples/{name}.json ({len(data['log'])} moves) and {name}.txt")


if __name__ == "__main__":
    main()
