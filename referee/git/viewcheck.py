"""A view a player opens with `view`, verified against the game file: whose view its
name says it is, the game file it is of (the file it names at its path in the
repository, else the one beside it), and that it is the referee's, the player's, of this
game and no older than the file (a sealed game's view by its signature, an open game's
by the game replayed to its move).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import UsageError
from referee.git.places import repo_root
from referee.ledger import gamefile, replay, secret
from referee.play.statusview import status_json, status_text
from referee.trust import viewsign

if TYPE_CHECKING:
    from referee.trust.viewsign import ViewDoc


def expected_of(path: Path, player: str | None) -> tuple[str, str | None]:
    """(whose view ``path`` must be, the game file stem its name says or None)."""
    parts = path.name[:-4].rsplit(".", 1) if path.name.endswith(".age") else []
    if player is not None:
        return player, parts[0] if len(parts) == 2 and parts[1] == player else None
    if len(parts) != 2 or not parts[0]:
        raise UsageError(f"cannot tell whose view {path} is meant to be: its name is not "
                         "STEM.PLAYER.age", hints=["give --as YOUR_PLAYER_ID"])
    return parts[1], parts[0]


def locate_game(doc: ViewDoc, view_path: Path, game_path: Path | None) -> Path:
    """The game file to verify the view with: ``game_path``, else the file the view
    names at its path in the repository (signed, in a sealed game's view), else the file
    of that name beside the view. Raises ViewError."""
    if game_path is not None:
        return game_path
    named = Path(str(doc["file"]))
    candidates = []
    top = repo_root(view_path)
    if top is not None and not named.is_absolute() and ".." not in named.parts:
        candidates.append(top / named)  # first: a copy beside the view may be an old one
    candidates.append(view_path.parent / named.name)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise viewsign.ViewError(f"cannot verify {view_path}: the game file it is of "
                             f"({doc['file']}) is not at hand",
                             hints=["give --game FILE (the game file from the repository)"])


def verify_view(doc: ViewDoc, path: Path, game_path: Path | None, player: str,
                stem: str | None) -> str | None:
    """Refuse a view that is not the referee's, not ``player``'s, not of this game or
    older than the game file (viewsign). Returns a note for a view newer than the game
    file at hand. Raises RefereeError."""
    game = locate_game(doc, path, game_path)
    gf = gamefile.read(game)
    if game_path is not None and Path(str(doc["file"])).name != game.name \
            and doc["game"] == gf.game_id:
        stem = Path(str(doc["file"])).stem  # a copy under another name: the id decides
    if gf.seed_hidden:
        viewsign.check_signature(doc, gf, str(path), str(game))
        return viewsign.check_binding(doc, gf, str(path), str(game), player, stem)
    if game_path is None:  # anybody may commit an open game for a forged view to match
        raise viewsign.ViewError(
            f"{game} is an open game (its seed is public, so anyone could write a view "
            f"that matches it): {path} is checked only against a game file you name",
            hints=[f"give --game FILE, or simply `referee status FILE --as {player}`"])
    note = viewsign.check_binding(doc, gf, str(path), str(game), player, stem)
    if note is not None:
        entries = f"{len(gf.log)} entr{'y' if len(gf.log) == 1 else 'ies'}"
        raise viewsign.ViewError(f"{path} is of move {doc['moves']}, but {game} has only "
                                 f"{entries}: pull, then view it again")
    check_replayed(doc, gf, path, game, player)
    return None


def check_replayed(doc: ViewDoc, gf: gamefile.GameFile, path: Path, game: Path,
                   player: str) -> None:
    """An open game's view (anyone could sign it: the seed is public) is the game
    replayed to the view's move. Raises ViewError."""
    part = gamefile.GameFile({**gf.data, "log": gf.log[:int(doc["moves"])]}, gf.game)
    match = replay.replay(part, secret.find_seed(part, None, game))
    name = Path(str(doc["file"])).name
    status = json.loads(json.dumps(status_json(part, match, player)))
    if doc["text"] != status_text(part, match, player, name) or doc["status"] != status:
        raise viewsign.ViewError(f"{path} does not show what {game} shows {player} at move "
                                 f"{doc['moves']}: it is forged, do not trust it",
                                 hints=["`referee status --as YOU` shows the real view of "
                                        "an open game"])
