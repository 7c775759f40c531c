"""Play finished example games with seeded random legal moves and write them to examples/.

Each example is a game file (NAME.json) and its golden transcript (NAME.txt: the log in
notation, the final public board, the prompt, the scores and the state's fingerprint),
which the conformance suite (tests/conformance/test_examples.py) replays and diffs. Every
game of this package (``referee/games/<name>/``, found as the referee finds its games)
has one at :func:`counts` players. Run after a deliberate rules or data change:

    .venv/bin/python scripts/make_examples.py                  # every game of the package
    .venv/bin/python scripts/make_examples.py staufer          # that game's examples only
    .venv/bin/python scripts/make_examples.py nim --out DIR    # any installed game, to DIR
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from referee import engine
from referee.engine import Game, Match, get_game, random_playout
from referee.engine.rng import Rng
from referee.ledger import gamefile, replay

OUT = Path(__file__).resolve().parent.parent / "examples"
PLAYERS = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]
CREATED = "2026-11-30T00:00:00Z"


def counts(game: Game) -> list[int]:
    """The player counts of a game's examples: 3 players (or the nearest count the game
    allows) and the most it allows."""
    low = min(max(3, game.min_players), game.max_players)
    return sorted({low, game.max_players})


def play(game_name: str, n: int, seed: str) -> dict[str, Any]:
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


def transcript(data: dict[str, Any]) -> str:
    gf = gamefile.GameFile(data, get_game(data["game"]))
    match = replay.replay(gf)
    game = match.game
    lines = [f"{e['n']:>4}. {e['by']}: {game.format_move(m)}"
             for e, (_, m) in zip(gf.log, match.log, strict=True)]
    lines += ["", game.render(match.state, None), "", game.prompt(match.state)]
    lines.append("scores: " + ", ".join(f"{p} {s}" for p, s in game.scores(match.state).items()))
    # (the game's own fingerprint, or the engine's hash of the state for a game without)
    lines.append(f"fingerprint: {engine.fingerprint(game, match.state)}")
    return "\n".join(lines) + "\n"


def write(game_name: str, out: Path) -> list[Path]:
    """The examples of ``game_name`` written to ``out``: each NAME.json and NAME.txt."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for n in counts(get_game(game_name)):
        name = f"{game_name}-{n}p"
        data = play(game_name, n, f"example-{name}")
        (out / f"{name}.json").write_text(gamefile.dumps(data))
        (out / f"{name}.txt").write_text(transcript(data))
        written += [out / f"{name}.json", out / f"{name}.txt"]
        print(f"wrote {out / name}.json ({len(data['log'])} moves) and {name}.txt")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", help="games to make examples of (default: "
                        "every game of this package)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder (default: examples/)")
    args = parser.parse_args(argv)
    for game_name in args.games or sorted(engine.packaged_games()):
        write(game_name, args.out)


if __name__ == "__main__":
    main()
