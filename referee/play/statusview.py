"""A game as its players read it: the text of `status` (also the body of the mails and
of the encrypted views), its JSON, the prompt line and the legal moves grouped by kind;
and :func:`load`, a game file read and replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.engine import Match, legal_strings, textlayout
from referee.i18n import domain
from referee.ledger import gamefile, replay, secret

_, N_, ngettext = domain("referee")


def status_json(gf: gamefile.GameFile, match: Match, viewer: str | None) -> dict[str, Any]:
    game = match.game
    state = match.state
    finished = game.finished(state)
    out: dict[str, Any] = {
        "game": game.name,
        "id": gf.game_id,
        "rules": gf.data["rules"],
        "players": gf.players,
        "moves": len(gf.log),
        "to_move": gamefile.waiting(gf, match),
        "prompt": prompt_line(gf, match),
        "finished": finished,
        "scores": game.scores(state),
        "ranking": game.ranking(state) if finished else None,
        "as": viewer,
        "view": game.view(state, viewer),
    }
    if viewer is not None:
        out["legal"] = (
            [] if gamefile.missing_nonces(gf) else legal_strings(game, state, viewer)
        )
    return out


def load(path: Path, secret_path: Path | None = None) -> tuple[gamefile.GameFile, Match]:
    """The game file at ``path`` and its replay (with its secret, if sealed)."""
    gf = gamefile.read(path)
    return gf, replay.replay(gf, secret.find_seed(gf, secret_path, path))


def prompt_line(gf: gamefile.GameFile, match: Match | None) -> str:
    missing = gamefile.missing_nonces(gf)
    if missing or match is None:
        return gamefile.nonce_prompt(gf)
    return match.game.prompt(match.state)


def status_text(gf: gamefile.GameFile, match: Match, viewer: str | None, name: str,
                wide: bool = False) -> str:
    """The text of `status` (also the body of the mails): lines of at most 80 characters,
    or with ``wide`` the same laid out for WIDE columns."""
    game = match.game
    width = textlayout.WIDE if wide else textlayout.WIDTH
    title = _("{title}: {name} (move {n})").format(title=game.title, name=name, n=len(gf.log))
    lines = [title, "=" * min(len(title), width)]
    if gamefile.missing_nonces(gf):
        lines.append(prompt_line(gf, match))
        return "\n".join(textlayout.fit_all(lines, width))
    lines += [game.render(match.state, viewer, width=width), "", prompt_line(gf, match)]
    if viewer is not None and not game.finished(match.state):
        lines += legal_lines(match, viewer, width)
    return "\n".join(textlayout.fit_all(lines, width))


def legal_lines(match: Match, player: str, width: int = textlayout.WIDTH) -> list[str]:
    """"legal moves for P (n):" and the moves grouped by kind (textlayout.grouped_lines),
    or that P has nothing to decide."""
    legal = legal_strings(match.game, match.state, player)
    if not legal:
        return [_("{player} has nothing to decide now.").format(player=player)]
    head = _("legal moves for {player} ({n}; {note}):").format(
        player=player, n=len(legal), note=_(textlayout.GROUPED_NOTE))
    return [head,
            *textlayout.grouped_lines(legal, width)]
