"""Helpers shared by the commands: error handling, JSON output, loading, status text."""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from referee import gamefile, secret
from referee.engine import Match, legal_strings
from referee.errors import RefereeError, UsageError

F = TypeVar("F", bound=Callable[..., Any])


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def handles_errors(func: F) -> F:
    """Turn library errors into a message on stderr (or JSON on stdout) and an exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except RefereeError as exc:
            if kwargs.get("as_json"):
                emit_json(exc.to_json())
            else:
                click.echo(f"error: {exc.message}", err=True)
                for hint in exc.hints:
                    click.echo(f"  {hint}", err=True)
                legal = getattr(exc, "legal", None)
                if legal:
                    click.echo("closest legal moves:", err=True)
                    for text in legal:
                        click.echo(f"  {text}", err=True)
            sys.exit(exc.exit_code)

    return wrapper  # type: ignore[return-value]


def wrap_list(items: Sequence[str], indent: str = "  ", width: int = 88) -> str:
    """Items separated by " | ", wrapped between items (never inside one)."""
    lines: list[str] = []
    line = ""
    for item in items:
        candidate = f"{line} | {item}" if line else item
        if line and len(indent) + len(candidate) > width:
            lines.append(indent + line)
            candidate = item
        line = candidate
    if line:
        lines.append(indent + line)
    return "\n".join(lines)


def secret_option(func: F) -> F:
    return click.option(
        "--secret", "secret_path", type=click.Path(path_type=Path), metavar="FILE",
        help="Secret file of a sealed game (or REFEREE_SECRET_FILE / REFEREE_SECRET; "
             "default FILE.secret beside the game).",
    )(func)



def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out



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
    gf = gamefile.read(path)
    return gf, gamefile.replay(gf, secret.find_seed(gf, secret_path, path))


def prompt_line(gf: gamefile.GameFile, match: Match | None) -> str:
    missing = gamefile.missing_nonces(gf)
    if missing or match is None:
        return gamefile.nonce_prompt(gf)
    return match.game.prompt(match.state)



def status_text(gf: gamefile.GameFile, match: Match, viewer: str | None, name: str) -> str:
    """The text of `status` (also the body of the mails)."""
    game = match.game
    title = f"{game.title}: {name} (move {len(gf.log)})"
    lines = [title, "=" * len(title)]
    if gamefile.missing_nonces(gf):
        lines.append(prompt_line(gf, match))
        return "\n".join(lines)
    lines += [game.render(match.state, viewer), "", prompt_line(gf, match)]
    if viewer is not None and not game.finished(match.state):
        lines += legal_lines(match, viewer)
    return "\n".join(lines)


def legal_lines(match: Match, player: str) -> list[str]:
    """"legal moves for P (n):" and the wrapped list, or that P has nothing to decide."""
    legal = legal_strings(match.game, match.state, player)
    if not legal:
        return [f"{player} has nothing to decide now."]
    return [f"legal moves for {player} ({len(legal)}):", wrap_list(legal)]



def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None



def mail_date() -> dt.datetime:
    return dt.datetime.fromisoformat(gamefile.now().replace("Z", "+00:00"))


