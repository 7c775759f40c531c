"""The command line: parse arguments, call the library, print, map errors to exit codes.

Exit codes (DESIGN §7): 0 success; 1 rejected move or invalid game file; 2 usage error.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from referee import __version__, gamefile, history, secret
from referee import rng as rngmod
from referee.engine import Game, Match, game_names, get_game, legal_strings, resolve_move
from referee.errors import MoveError, RefereeError, ReplayError, SealedError, UsageError
from referee.schema import schema_names, schema_text

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """A referee for board games played by e-mail or through git.

    One game is one JSON file: a header and an append-only move log. Every command
    replays the whole log and checks every move against the rules.
    """


# --- games ----------------------------------------------------------------------------


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def games(as_json: bool) -> None:
    """List the games, their player counts and options."""
    rows = []
    for name in game_names():
        game = get_game(name)
        rows.append({
            "name": game.name,
            "title": game.title,
            "players": [game.min_players, game.max_players],
            "rules": game.data_version(),
            "assumed_values": len(game.assumptions()),
            "options": [
                {"name": o.name, "default": o.default, "choices": list(o.choices),
                 "help": o.help}
                for o in game.options
            ],
        })
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        lo, hi = row["players"]
        click.echo(f"{row['name']:<10} {row['title']} ({lo}-{hi} players), rules {row['rules']}")
        for o in row["options"]:
            choices = f" [{', '.join(o['choices'])}]" if o["choices"] else ""
            click.echo(f"    --option {o['name']}=... default {o['default']}{choices}")
            click.echo(f"        {o['help']}")


# --- new ------------------------------------------------------------------------------


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


@main.command()
@click.argument("game_name", metavar="GAME")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--players", required=True,
              help="Comma-separated ids in seating order, e.g. ann,ben,cat "
                   "(optionally id=Name <email>). The first player starts.")
@click.option("--seed", help="Seed of the random generator (default: a strong random one).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A game option (see `referee games`); repeatable.")
@click.option("--id", "game_id", help="Game id used in mail subjects (default: random).")
@click.option("--sealed", is_flag=True,
              help="Keep the seed out of the file: only its commitment is stored, the seed "
                   "goes to a secret file that the referee keeps.")
@click.option("--secret-out", type=click.Path(path_type=Path), metavar="SECRET",
              help="Where --sealed writes the secret (default FILE.secret).")
@click.option("--nonces", is_flag=True,
              help="Every player adds a nonce (`referee nonce`) before the first move, so "
                   "that nobody alone chooses the shuffle.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def new(game_name: str, path: Path, players: str, seed: str | None,
        options: Sequence[str], game_id: str | None, sealed: bool, secret_out: Path | None,
        nonces: bool, as_json: bool) -> None:
    """Start a new game of GAME in FILE."""
    game = get_game(game_name)
    player_list = gamefile.parse_players(players)
    seed = seed or rngmod.new_seed()
    rng: dict[str, Any] = {"commitment": rngmod.commitment(seed)} if sealed else {"seed": seed}
    if nonces:
        rng["nonces"] = {}
    game_id = game_id or f"{game.name}-{secrets.token_hex(3)}"
    data = gamefile.new_data(game, player_list, parse_option_pairs(options), rng, game_id)
    gf = gamefile.GameFile(data, game)
    match = gamefile.replay(gf, seed)  # proves the setup works before anything is written
    secret_path = secret_out or secret.default_secret_path(path)
    if sealed:
        if path.exists():
            raise UsageError(f"{path} already exists", hints=["choose another file name"])
        secret.write_secret(secret_path, game_id, seed)
    try:
        gamefile.create(path, data)
    except RefereeError:
        if sealed:
            secret_path.unlink()
        raise
    assumed = game.assumptions()
    if as_json:
        out = status_json(gf, match, None)
        out["file"] = str(path)
        out["assumed_values"] = len(assumed)
        if sealed:
            out["secret"] = str(secret_path)
        emit_json(out)
        return
    click.echo(f"created {path}: {game.title}, players {', '.join(gf.players)}")
    if sealed:
        click.echo(f"sealed: the seed is in {secret_path} (owner-only). Keep it secret and out "
                   "of git; reveal it after the game with `referee reveal`.")
    if assumed:
        click.echo(
            f"note: this game uses {len(assumed)} assumed component values that the rulebook "
            f"does not give; see `referee data {game.name}`"
        )
    click.echo(prompt_line(gf, match))


# --- status ---------------------------------------------------------------------------


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
        return (f"waiting for nonces from {', '.join(missing)} before the first move "
                "(`referee nonce FILE --as PLAYER`)")
    return match.game.prompt(match.state)


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "viewer", metavar="PLAYER",
              help="Show this player's private view and legal moves.")
@secret_option
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def status(path: Path, viewer: str | None, secret_path: Path | None, as_json: bool) -> None:
    """Show the board, whose turn it is and what is being decided."""
    gf, match = load(path, secret_path)
    if viewer is not None:
        gf.player(viewer)
    if as_json:
        emit_json(status_json(gf, match, viewer))
        return
    click.echo(status_text(gf, match, viewer, str(path)))


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


# --- move -----------------------------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "player", metavar="PLAYER", help="Who is moving.")
@click.argument("words", nargs=-1, metavar="MOVE...")
@secret_option
@click.option("--unchecked", is_flag=True,
              help="Sealed game without its secret: append the move after checking only its "
                   "notation; CI (which holds the secret) checks its legality.")
@click.option("--from-email", "email_path", type=click.Path(path_type=Path), metavar="MESSAGE",
              help="Take the move(s) from a player's reply mail (a file, or - for stdin); "
                   "the player is identified and authenticated by the token in it.")
@click.option("--reply-out", type=click.Path(path_type=Path), metavar="FILE",
              help="With --from-email: write the answer to a rejected mail here (- = stdout).")
@click.option("--from", "sender", default="referee@localhost", show_default=True,
              help="With --from-email: the From address of a rejection.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def move(path: Path, player: str | None, words: Sequence[str], secret_path: Path | None,
         unchecked: bool, email_path: Path | None, reply_out: Path | None, sender: str,
         as_json: bool) -> None:
    """Check a move against the rules and append it to FILE."""
    if email_path is None and (player is None or not words):
        raise UsageError("move needs --as PLAYER and the MOVE (or --from-email MESSAGE)")
    texts = [" ".join(words)] if words else []
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        if gamefile.missing_nonces(gf):
            raise ReplayError(prompt_line(gf, None))
        seed = secret.find_seed(gf, secret_path, path)
        raw = b""
        if email_path is not None:
            player, texts, raw = from_email(gf, seed, email_path, player, reply_out, sender)
        assert player is not None
        gf.player(player)
        if seed is None and unchecked:
            gamefile.check_structure(gf)
            chosen = gf.game.parse_move(texts[0], [])
            entry = gamefile.append_entry(gf.data, player, chosen)
            gamefile.replace(path, old, gf.data)
            click.echo(f"move {entry['n']}: {player}: {gf.game.format_move(chosen)} "
                       "(appended UNCHECKED: only a referee with the secret can check it)")
            return
        match = gamefile.replay(gf, seed)
        accepted = []
        for text in texts:
            try:
                chosen = resolve_move(match.game, match.state, player, text)
            except MoveError as exc:
                if email_path is not None:
                    answer_rejection(gf, raw, exc, reply_out, sender, authentic=True)
                raise
            match.play(player, chosen)
            entry = gamefile.append_entry(gf.data, player, chosen)
            accepted.append((entry["n"], match.game.format_move(chosen)))
        gamefile.replace(path, old, gf.data)
    game = match.game
    if as_json:
        out = status_json(gf, match, player)
        out["accepted"] = accepted[-1][1]
        out["n"] = accepted[-1][0]
        emit_json(out)
        return
    for n, canonical in accepted:
        click.echo(f"move {n}: {player}: {canonical}")
    click.echo(game.prompt(match.state))
    if not game.finished(match.state) and player in game.to_move(match.state):
        for line in legal_lines(match, player):
            click.echo(line)


def from_email(gf: gamefile.GameFile, seed: str | None, email_path: Path,
               player: str | None, reply_out: Path | None, sender: str
               ) -> tuple[str, list[str], bytes]:
    """The authenticated player, the moves and the raw bytes of a reply mail.
    Raises MailError (after writing the rejection to ``reply_out``)."""
    from referee import mail

    if seed is None:
        raise SealedError("mail tokens need the game's secret",
                                   hints=["give --secret FILE"])
    raw = sys.stdin.buffer.read() if str(email_path) == "-" else read_bytes(email_path)
    reply = mail.parse_reply(raw)

    def refuse(reason: str) -> mail.MailError:
        exc = mail.MailError(reason)
        answer_rejection(gf, raw, exc, reply_out, sender, authentic=False)
        return exc

    if reply.game_id != gf.game_id:
        raise refuse(f"this mail is for game {reply.game_id!r}, not {gf.game_id!r}")
    if not mail.is_authentic(reply, secret.mail_key(seed)):
        raise refuse("the mail is not authenticated: its token is missing or wrong (reply to "
                     "the referee's mail and keep the [#...] tag in the subject)")
    assert reply.player is not None
    if player is not None and player != reply.player:
        raise refuse(f"the mail is {reply.player}'s, not {player}'s")
    if reply.move_number != len(gf.log):
        # A replayed or stale mail: it answers another state of the game than this one.
        raise refuse(
            f"this mail answers the referee's mail after move {reply.move_number}, but the "
            f"game is at move {len(gf.log)}: reply to the latest mail"
            if reply.move_number is not None else
            "cannot tell which referee mail this answers: reply to the latest mail"
        )
    if not reply.moves:
        raise refuse("no move found in the mail: write it on the first line, or as 'move: ...'")
    return reply.player, list(reply.moves), raw


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def answer_rejection(gf: gamefile.GameFile, raw: bytes, exc: RefereeError,
                     reply_out: Path | None, sender: str, authentic: bool) -> None:
    """Write the mail that answers a rejected reply (only legal moves if authentic)."""
    from referee import mail

    if reply_out is None:
        return
    reply = mail.parse_reply(raw)
    legal = getattr(exc, "legal", []) if authentic else []
    to = None
    if authentic and reply.player in gf.players:
        to = gf.player(reply.player).get("email")
    message = mail.rejection(reply, exc.message, legal, sender=sender, to=to, date=mail_date())
    if str(reply_out) == "-":
        mail.write_stdout([message], sys.stdout)
    else:
        with reply_out.open("w") as f:
            mail.write_stdout([message], f)


def mail_date() -> dt.datetime:
    return dt.datetime.fromisoformat(gamefile.now().replace("Z", "+00:00"))


# --- check ----------------------------------------------------------------------------


def check_one(path: Path, secret_path: Path | None, since: str | None,
              by: str | None, strict: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"file": str(path), "ok": False, "verified": "nothing"}
    try:
        gf = gamefile.read(path)
        if strict:
            gamefile.validate_strict(gf.data, str(path))
        out["game"] = gf.game.name
        if since is not None:
            out["new_moves"] = history.check_since(path, gf, since, by)
        seed = secret.find_seed(gf, secret_path, path)
        if seed is None:
            gamefile.check_structure(gf)
            out.update(ok=True, verified="structure", players=len(gf.players),
                       moves=len(gf.log), unverified=[
                           "sealed game without its secret: the legality of each move, the "
                           "state and the scores were not checked (give --secret, or "
                           "`referee reveal` after the game)"])
            return out
        match = gamefile.replay(gf, seed)
    except RefereeError as exc:
        out.update(error=exc.message, hints=exc.hints)
        return out
    game = match.game
    broken = game.invariants(match.state)
    if broken:
        out.update(error="invariant broken: " + "; ".join(broken), hints=[])
        return out
    finished = game.finished(match.state)
    out.update(
        ok=True, verified="full", players=len(gf.players), moves=len(gf.log),
        finished=finished, scores=game.scores(match.state),
        to_move=gamefile.waiting(gf, match),
    )
    return out


def check_line(r: dict[str, Any]) -> list[str]:
    if not r["ok"]:
        return [f"FAIL {r['file']}: {r['error']}"] + [f"       {h}" for h in r["hints"]]
    extra = f" ({r['new_moves']} new moves)" if "new_moves" in r else ""
    if r["verified"] == "structure":
        return [f"ok?  {r['file']}: {r['game']}, {r['players']} players, {r['moves']} moves"
                f"{extra}; structure and hash chain only", *(f"       not verified: {u}"
                                                              for u in r["unverified"])]
    state = "finished" if r["finished"] else f"waiting for {', '.join(r['to_move'])}"
    scores = ", ".join(f"{p} {s}" for p, s in r["scores"].items())
    return [f"ok   {r['file']}: {r['game']}, {r['players']} players, {r['moves']} moves"
            f"{extra}, {state}; scores {scores}"]


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(path_type=Path))
@secret_option
@click.option("--since", metavar="REV",
              help="For pull requests: the header is unchanged since git revision REV, the "
                   "old log is a prefix of the new one, and every new move is legal.")
@click.option("--by", metavar="PLAYER", help="With --since: every new move is PLAYER's.")
@click.option("--strict", is_flag=True,
              help="Also validate against the published JSON Schema with jsonschema.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def check(paths: Sequence[Path], secret_path: Path | None, since: str | None, by: str | None,
          strict: bool, as_json: bool) -> None:
    """Validate and replay game files; exit 0 only if every one is a legal game."""
    if by is not None and since is None:
        raise UsageError("--by needs --since")
    results = [check_one(p, secret_path, since, by, strict) for p in paths]
    if as_json:
        emit_json(results)
    else:
        for r in results:
            for line in check_line(r):
                click.echo(line)
    if not all(r["ok"] for r in results):
        sys.exit(1)


# --- log ------------------------------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def log(path: Path, as_json: bool) -> None:
    """List the moves in notation."""
    gf, match = load(path)
    game = match.game
    rows = [
        {"n": e["n"], "by": e["by"],
         "move": game.format_move(gamefile.decode_move(game, e["move"], f"$.log[{i}].move"))
         if "move" in e else f"undo {e['undo']}",
         "at": e.get("at")}
        for i, e in enumerate(gf.log)
    ]
    if as_json:
        emit_json(rows)
        return
    for r in rows:
        click.echo(f"{r['n']:>4}. {r['by']}: {r['move']}")
    click.echo(game.prompt(match.state))


# --- schema and data ------------------------------------------------------------------


@main.command()
@click.argument("name", required=False, default="file")
@handles_errors
def schema(name: str) -> None:
    """Print a JSON Schema: `file` (any game, the default) or a game's full file schema."""
    if name not in schema_names():
        raise UsageError(f"no schema {name!r}", hints=[f"schemas: {', '.join(schema_names())}"])
    click.echo(schema_text(name), nl=False)


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="Output JSON (all component data).")
@handles_errors
def data(game_name: str, as_json: bool) -> None:
    """Show GAME's component data and every value assumed rather than printed."""
    game: Game = get_game(game_name)
    assumed = game.assumptions()
    if as_json:
        emit_json({
            "game": game.name,
            "rules": game.data_version(),
            "assumptions": [a.__dict__ for a in assumed],
            "data": game.data(),
        })
        return
    click.echo(f"{game.title}: component data {game.data_version()}")
    click.echo(f"{len(assumed)} values are ASSUMED (the rulebook we hold does not print them).")
    click.echo("If you own the printed game, check these and report corrections:")
    for a in assumed:
        click.echo(f"  [{a.key}] {a.what}: {a.value}")
        click.echo(f"        source: {a.source}")
    click.echo("All component data with sources: `referee data " + game.name + " --json`.")


# --- sealed games: nonce, reveal ------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "player", required=True, metavar="PLAYER", help="Whose nonce.")
@click.argument("value", required=False)
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def nonce(path: Path, player: str, value: str | None, as_json: bool) -> None:
    """Add PLAYER's nonce (default: a random one) to a game made with --nonces.

    The generator's key combines the secret seed with every player's nonce, so nobody
    alone can choose the shuffle (docs/rng.md). Only before the first move.
    """
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        gf.player(player)
        rng = gf.data["rng"]
        if "nonces" not in rng:
            raise UsageError("this game was not created with --nonces")
        if gf.log:
            raise UsageError("nonces can only be added before the first move")
        if player in rng["nonces"]:
            raise UsageError(f"{player} has already given a nonce")
        rng["nonces"][player] = value or rngmod.new_seed()
        gamefile.replace(path, old, gf.data)
    missing = gamefile.missing_nonces(gf)
    if as_json:
        emit_json({"nonce": rng["nonces"][player], "missing": missing})
        return
    click.echo(f"{player}'s nonce recorded.")
    click.echo(f"still missing: {', '.join(missing)}" if missing else
               "every player has given a nonce: the game can begin.")


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@secret_option
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def reveal(path: Path, secret_path: Path | None, as_json: bool) -> None:
    """Write the secret seed into a finished sealed game so that anyone can verify it."""
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        if not gf.sealed:
            raise UsageError("this game is not sealed: its seed is already in the file")
        if "seed" in gf.data["rng"]:
            raise UsageError("the seed has already been revealed")
        seed = secret.find_seed(gf, secret_path, path)
        if seed is None:
            raise SealedError("reveal needs the game's secret",
                                       hints=["give --secret FILE"])
        match = gamefile.replay(gf, seed)
        if not match.game.finished(match.state):
            raise UsageError("the game is not finished; revealing the seed now would show "
                             "every hidden card and the order of every stack")
        gf.data["rng"]["seed"] = seed
        gamefile.replace(path, old, gf.data)
    if as_json:
        emit_json({"revealed": True, "file": str(path)})
        return
    click.echo(f"seed revealed in {path}; `referee check {path}` now verifies every draw.")


# --- undo -----------------------------------------------------------------------------


@main.command()
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@click.option("--as", "player", required=True, metavar="PLAYER", help="Who takes back.")
@secret_option
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def undo(path: Path, player: str, secret_path: Path | None, as_json: bool) -> None:
    """Take back your last move, recorded as a log entry (history is never rewritten).

    Only the last move, only by its author, and never once it revealed anything (a draw,
    a roll, a card seen).
    """
    with gamefile.locked(path) as old:
        gf = gamefile.parse(old, str(path))
        gf.player(player)
        seed = secret.find_seed(gf, secret_path, path)
        gamefile.replay(gf, seed)
        if not gf.log or "move" not in gf.log[-1]:
            raise UsageError("there is no move to undo: only the last entry may be undone")
        last = gf.log[-1]
        gf.data["log"].append({
            "n": last["n"] + 1, "by": player, "undo": last["n"],
            "prev": gamefile.next_prev(gf.data), "at": gamefile.now(),
        })
        try:
            match = gamefile.replay(gf, seed)  # the one definition of an allowed undo
        except ReplayError as exc:
            message = exc.message.split(": ", 1)[-1]
            raise ReplayError(message) from None
        gamefile.replace(path, old, gf.data)
    if as_json:
        emit_json(status_json(gf, match, player))
        return
    click.echo(f"move {last['n']} undone by {player}.")
    click.echo(prompt_line(gf, match))


# --- pending --------------------------------------------------------------------------


def game_files(targets: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for target in targets:
        if target.is_dir():
            files += sorted(p for p in target.rglob("*.json") if ".git" not in p.parts)
        else:
            files.append(target)
    return files


@main.command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE_OR_DIR...",
                type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Output JSON.")
@handles_errors
def pending(targets: Sequence[Path], as_json: bool) -> None:
    """For a game master: which games wait on whom, and since when.

    Sealed games are read with FILE.secret beside them (or REFEREE_SECRET_FILE).
    """
    rows = []
    for path in game_files(targets):
        row: dict[str, Any] = {"file": str(path)}
        try:
            gf, match = load(path)
        except RefereeError as exc:
            row["error"] = exc.message
            rows.append(row)
            continue
        game = match.game
        since = gf.log[-1].get("at") if gf.log else gf.data.get("created")
        finished = game.finished(match.state)
        row.update(game=game.name, id=gf.game_id, finished=finished, since=since,
                   waiting=gamefile.waiting(gf, match),
                   prompt=prompt_line(gf, match))
        rows.append(row)
    if as_json:
        emit_json(rows)
        return
    for row in rows:
        if "error" in row:
            click.echo(f"{row['file']}: cannot read: {row['error']}")
        elif row["finished"]:
            click.echo(f"{row['file']}: finished")
        else:
            click.echo(f"{row['file']}: waiting for {', '.join(row['waiting'])} "
                       f"since {row['since']}: {row['prompt']}")


# --- mail -----------------------------------------------------------------------------


@main.command(name="mail")
@click.argument("path", metavar="FILE", type=click.Path(path_type=Path))
@secret_option
@click.option("--from", "sender", required=True, help="The referee's From address.")
@click.option("--waiting-only", is_flag=True, help="Mail only the players who must move.")
@click.option("--maildir", type=click.Path(path_type=Path), help="Deliver into this Maildir.")
@click.option("--smtp", metavar="HOST:PORT", help="Send through this SMTP server.")
@click.option("--starttls", is_flag=True, help="With --smtp: upgrade with STARTTLS.")
@click.option("--user", help="With --smtp: log in as USER.")
@click.option("--password-env", metavar="VAR", default="REFEREE_SMTP_PASSWORD",
              show_default=True, help="With --user: the environment variable with the password.")
@click.option("--json", "as_json", is_flag=True, help="Output JSON (a summary).")
@handles_errors
def mail_command(path: Path, secret_path: Path | None, sender: str, waiting_only: bool,
                 maildir: Path | None, smtp: str | None, starttls: bool, user: str | None,
                 password_env: str, as_json: bool) -> None:
    """Mail the players after a move: to each player who must move, their private view,
    legal moves and how to reply (with their token); to the others, the public update.

    Output: an mbox stream on stdout (default), a Maildir, or an SMTP server.
    """

    gf = gamefile.read(path)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None:
        raise SealedError("mailing needs the game's secret", hints=["give --secret"])
    match = gamefile.replay(gf, seed)
    messages, skipped = build_mails(gf, match, seed, sender, waiting_only, path.name)
    delivered = deliver(messages, maildir, smtp, starttls, user, password_env, as_json)
    if as_json:
        emit_json({"mailed": [m["To"] for m in messages], "skipped": skipped,
                   "delivered": delivered})
    elif maildir or smtp:
        click.echo(f"mailed {len(messages)} players: {', '.join(m['To'] for m in messages)}")
    for pid in skipped:
        click.echo(f"note: {pid} has no e-mail address in the game file; not mailed", err=True)
    if not gf.sealed:
        click.echo("note: this game is not sealed; anyone with the file can compute the mail "
                   "tokens. Use `referee new --sealed` for games played by mail.", err=True)


def build_mails(gf: gamefile.GameFile, match: Match, seed: str, sender: str,
                waiting_only: bool, name: str) -> tuple[list[Any], list[str]]:
    from referee import mail

    game = match.game
    waiting = gamefile.waiting(gf, match)
    subject = mail.subject(game.title, gf.game_id, waiting)
    outgoing, skipped = [], []
    for pid in gf.players:
        if waiting_only and pid not in waiting:
            continue
        address = gf.player(pid).get("email")
        if not address:
            skipped.append(pid)
            continue
        to = f"{gf.player(pid).get('name', pid)} <{address}>"
        if pid in waiting:
            body = status_text(gf, match, pid, name) + (
                "\n\nReply to this mail with your move on the first line (or lines "
                "'move: ...' for several). Keep the [#...] tag in the subject: it is your "
                "token.\n")
        else:
            body = status_text(gf, match, None, name) + "\n"
        outgoing.append(mail.Outgoing(pid, to, subject, body))
    messages = mail.compose(outgoing, sender=sender, game_id=gf.game_id,
                            move_number=len(gf.log), date=mail_date(),
                            key=secret.mail_key(seed))
    return messages, skipped


def deliver(messages: list[Any], maildir: Path | None, smtp: str | None, starttls: bool,
            user: str | None, password_env: str, quiet: bool) -> list[str]:
    from referee import mail

    if maildir is not None:
        return mail.write_maildir(messages, maildir)
    if smtp is not None:
        host, _, port = smtp.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--smtp takes HOST:PORT, got {smtp!r}")
        password = os.environ.get(password_env) if user else None
        if user and password is None:
            raise UsageError(f"--user needs the password in the environment variable "
                             f"{password_env}")
        return mail.send_smtp(messages, host, int(port), starttls=starttls, username=user,
                              password=password)
    if not quiet:
        mail.write_stdout(messages, sys.stdout)
    return []
