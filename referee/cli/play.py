"""Playing: games, new, status, move, undo, nonce, reveal, log."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee import engine
from referee.cli.common import (
    PATH,
    command,
    emit_json,
    parse_option_pairs,
    report_error,
    secret_option,
)
from referee.errors import MoveError, RefereeError, SealedError, UsageError
from referee.i18n import domain
from referee.ledger import gamefile, replay, seats, secret
from referee.play.statusview import legal_lines, load, prompt_line, status_json, status_text

if TYPE_CHECKING:  # the commands import what they use: `status` starts faster
    from referee.clocks.clockview import ClockReport
    from referee.engine import Match
    from referee.ledger.records import BotRecord
    from referee.mail.gamemail import MailIdentify
    from referee.play.commands import LogRow
    from referee.play.plan_play import Planned
    from referee.play.statusview import Status
    from referee.play.submit import Accepted, BotMove, Submission

    class NewStatus(Status, total=False):
        """`new --json`: the status, the file, the values assumed, the bot seats and
        what they played, where the secret went."""

        file: str
        assumed_values: int
        bots: dict[str, BotRecord]
        bot_moves: list[BotMove]
        secret: str

    class SeatStatus(Status, total=False):
        """`status --json`: the status, the bot seats, the clocks."""

        bots: dict[str, BotRecord]
        clock: ClockReport

    class MovedStatus(Status, total=False):
        """`move --json`: the status after the moves, what was played (by the mover, the
        plans and the bots), the line of a mail read as the move, the move refused."""

        accepted: str
        n: int
        accepted_moves: list[Accepted]
        bot_moves: list[BotMove]
        planned_moves: list[Planned]
        mail_line: int
        refused: dict[str, object]

_, N_, ngettext = domain("referee")

# --- games ----------------------------------------------------------------------------


@command()
def games(as_json: bool) -> None:
    """List the games, their player counts and options."""
    from referee.play.commands import game_rows

    rows = game_rows()
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


@command()
@click.argument("game_name", metavar="GAME")
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--players", required=True,
              help="Comma-separated ids in seating order, e.g. ann,ben,cat "
                   "(optionally id=Name <email>; bot:cat, bot:cat=greedy or "
                   "bot:cat=mcts:200 for a bot seat). The first player starts.")
@click.option("--seed", help="Seed of the random generator (default: a strong random one).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A game option (see `referee games`); repeatable.")
@click.option("--id", "game_id", help="Game id used in mail subjects (default: random).")
@click.option("--sealed", is_flag=True,
              help="Keep the seed out of the file: only its commitment is stored, the seed "
                   "goes to a secret file that the referee keeps.")
@click.option("--secret-out", type=PATH, metavar="SECRET",
              help="Where --sealed writes the secret (default FILE.secret).")
@click.option("--nonces", is_flag=True,
              help="Every player commits to a nonce and then reveals it (`referee nonce`) "
                   "before the first move, so that nobody alone chooses the shuffle.")
@click.option("--github", "logins", metavar="ID=LOGIN,...",
              help="Players' GitHub logins, for `check --by-github` in a repository's CI.")
@click.option("--matrix", "matrix", metavar="ID=@USER:SERVER,...",
              help="Players' Matrix ids: the judge plays this seat in chat (docs/chat.md); "
                   "the game is sealed.")
@click.option("--insecure-seed", is_flag=True,
              help="Accept a --seed of a sealed game that carries fewer than 128 bits.")
@click.option("--clock", "pace", metavar="BANK[+INCREMENT][/CAP]",
              help="A time bank per seat (sealed games; docs/clocks.md), e.g. 2d+1d/5d: "
                   "2 days at the start, 1 day more each turn, at most 5 (units m, h, d).")
@click.option("--vacation", "vacation_days", type=int, default=0, metavar="DAYS",
              help="With --clock: vacation days each player has for the game.")
@click.option("--pause", type=click.Choice(("weekends",)),
              help="With --clock: no time runs on Saturdays and Sundays (UTC).")
@click.option("--timeout", "on_timeout", default="gm", metavar="bot:LEVEL|gm|forfeit",
              help="With --clock: when a bank is empty a bot plays the owed decisions, the "
                   "game master is asked (default), or the seat forfeits (a bot plays on; "
                   "it ranks last).")
def new(game_name: str, path: Path, players: str, seed: str | None,
        options: Sequence[str], game_id: str | None, sealed: bool, secret_out: Path | None,
        nonces: bool, logins: str | None, matrix: str | None, insecure_seed: bool,
        pace: str | None,
        vacation_days: int, pause: str | None, on_timeout: str, as_json: bool) -> None:
    """Start a new game of GAME in FILE.

    A sealed game's seed comes from --seed, else from the repository secret in
    REFEREE_SECRET (derived from the game's header: no secret file is written), else a strong
    random seed written to the secret file.
    """
    from referee.play.commands import NewGameRequest, new_game

    made = new_game(path, NewGameRequest(
        game_name, players, seed, parse_option_pairs(options), game_id, sealed, secret_out,
        nonces, logins, insecure_seed, pace, vacation_days, pause, on_timeout, matrix))
    if made.bot_problem:
        click.echo(_("warning: the bots could not move: {problem}").format(
            problem=made.bot_problem), err=True)
    gf, match, game = made.gf, made.match, made.match.game
    assumed = engine.assumptions(game)
    if as_json:
        out: NewStatus = {**status_json(gf, match, None), "file": str(path),
                          "assumed_values": len(assumed)}
        if bots_json(gf):
            out["bots"] = bots_json(gf)
            out["bot_moves"] = made.played
        if made.secret_path is not None:
            out["secret"] = str(made.secret_path)
        emit_json(out)
        return
    click.echo(_("created {path}: {title}, players {players}").format(
        path=path, title=game.title, players=players_text(gf)))
    if made.derived:
        click.echo(_("sealed: the seed is derived from the repository secret in "
                     "REFEREE_SECRET and this game's header; no secret file was written."))
    elif sealed or matrix:
        click.echo(_("sealed: the seed is in {path} (owner-only). Keep it secret and out of "
                     "git; reveal it after the game with `referee reveal`.").format(
                         path=made.secret_path))
        if not matrix and made.secret_path is not None:
            public_view_lines(path, made.secret_path)
    if assumed:
        click.echo(_("note: this game uses {n} assumed component values that the rulebook "
                     "does not give; see `referee data {game}`").format(
                         n=len(assumed), game=game.name))
    for line in bot_move_lines(made.played):
        click.echo(line)
    click.echo(prompt_line(gf, match))


def public_view_lines(path: Path, secret_path: Path) -> None:
    """A new sealed game whose secret file the game master keeps: its public view beside
    it (referee/git/views.py), so that a player without the secret sees the board and
    whose turn it is with `referee status`; and how the players get their hands."""
    from referee.git.views import write_public_view

    try:
        seed = secret.find_seed(gamefile.read(path), secret_path, path)
        assert seed is not None
        public = write_public_view(path, seed)
    except RefereeError as exc:
        click.echo(_("warning: the public view was not written: {problem}").format(
            problem=exc.message), err=True)
        return
    click.echo(_("public view: {public}; players without the secret see it with `referee "
                 "status {path}`, their hands once you write their views: `referee views "
                 "{path} --signers FILE` (docs/playing.md: a sealed game at one "
                 "table)").format(public=public, path=path))


def players_text(gf: gamefile.GameFile) -> str:
    """``ann, ben, cat (bot: mcts, 100 it.)``: the players, bot seats marked."""
    bots = seats.seats_at(gf.data).bots
    return ", ".join(_("{player} (bot: {level})").format(player=p, level=bots[p].describe())
                     if p in bots else p for p in gf.players)


def bots_json(gf: gamefile.GameFile) -> dict[str, BotRecord]:
    """The bot seats now: player -> {"level", "iterations"}."""
    return {p: b.record() for p, b in seats.seats_at(gf.data).bots.items()}


def bots_done(path: Path, secret_path: Path | None) -> list[BotMove]:
    """Let the bot seats play what they owe after a command did its work; if they
    cannot go on, say why on stderr (the command's own change stands)."""
    from referee.play.submit import bots_after

    played, problem = bots_after(path, secret_path)
    if problem:
        click.echo(_("warning: the bots could not move: {problem}").format(problem=problem),
                   err=True)
    return played


def bot_move_lines(played: Sequence[BotMove]) -> list[str]:
    return [_("move {n}: {player}: {move} (bot, {level})").format(
        n=b.n, player=b.player, move=b.text, level=b.level) for b in played]



# --- status ---------------------------------------------------------------------------


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "viewer", metavar="PLAYER",
              help="Show this player's private view and legal moves.")
@secret_option
@click.option("--wide", is_flag=True,
              help="The same board and legal moves laid out for 132 columns, not 80.")
@click.option("--views", "views_dir", type=PATH, metavar="DIR",
              help="A sealed game without its secret: where the referee wrote its views "
                   "(default: beside FILE, then views/ beside FILE's folder).")
def status(path: Path, viewer: str | None, secret_path: Path | None, wide: bool,
           views_dir: Path | None, as_json: bool) -> None:
    """Show the board (80 columns, with a legend), whose turn it is and what is being
    decided.

    A sealed game without its secret shows the public view its referee signed (written
    by `referee views`), the moves since, and where your hand is.
    """
    gf = gamefile.read(path)
    if viewer is not None:
        gf.player(viewer)
    seed = secret.find_seed(gf, secret_path, path)
    if seed is None and gf.sealed:
        sealed_status(gf, path, viewer, views_dir, wide, as_json)
        return
    match = replay.replay(gf, seed)
    clocks = status_clock(gf, path, secret_path)
    if as_json:
        bots = bots_json(gf)
        out: SeatStatus = {**status_json(gf, match, viewer)}
        if bots:
            out["bots"] = bots
        if clocks:  # a seat that forfeited on time ranks last
            out["clock"] = clocks
            out["ranking"] = clocks.get("ranking", out["ranking"])
        emit_json(out)
        return
    click.echo(status_text(gf, match, viewer, str(path), wide))
    if seats.seats_at(gf.data).bots:
        click.echo(_("players: {players}").format(players=players_text(gf)))
    if viewer is not None and any(type(e.get("meta")) is dict and e["by"] == viewer
                                  and e["meta"]["kind"] == "plan" for e in gf.log):
        from referee.cli.plan import owner_text  # only for a player with a plan

        for line in owner_text(gf, path, viewer, secret_path):
            click.echo(line)
    if clocks:
        from referee.clocks import clockview

        click.echo(clockview.line(clocks))


def sealed_status(gf: gamefile.GameFile, path: Path, viewer: str | None,
                  views_dir: Path | None, wide: bool, as_json: bool) -> None:
    """`status` of a sealed game without its secret: the referee's signed public view
    (referee/trust/publicview.py), the moves since, where the reader's hand is."""
    from referee.engine import textlayout
    from referee.play.statusview import Sealed, sealed_json, sealed_text
    from referee.trust import publicview

    replay.check_structure(gf)  # (the chain and each entry's shape: what needs no secret)
    found = publicview.Found() if gamefile.missing_nonces(gf) else \
        publicview.find(gf, publicview.places(path, views_dir))
    folder = found.where.parent if found.where is not None else path.parent
    hand = folder / f"{path.stem}.{viewer}.age" if viewer is not None else None
    sealed = Sealed(gf, path, found.doc, found.where, found.problems, viewer, hand)
    if as_json:
        emit_json(sealed_json(sealed))
        return
    click.echo(sealed_text(sealed, textlayout.WIDE if wide else textlayout.WIDTH))


def status_clock(gf: gamefile.GameFile, path: Path, secret_path: Path | None
                 ) -> ClockReport | None:
    """The clocks of a game with a time control (referee/clocks/clock.py), else None."""
    if not replay.has_time_control(gf.data):
        return None
    from referee.cli.clock import clock_report
    from referee.clocks.clock import ClockError

    try:
        return clock_report(path, secret_path)
    except ClockError as exc:  # the game stands; its clock record does not (see `check`)
        click.echo(_("warning: the clocks cannot be computed: {problem}").format(
            problem=exc.message), err=True)
        return None



# --- move -----------------------------------------------------------------------------


class MailMove:
    """`move --from-email`'s side of the use-case it shares with the judge
    (:class:`referee.play.reply.Message`): the mail authenticated by ``identify``; a
    rejection answered to ``reply_out`` (and raised: the command fails); a warning on
    standard error when the bots could not go on."""

    def __init__(self, path: Path, identify: MailIdentify, reply_out: Path | None,
                 sender: str) -> None:
        self.path, self.identify = path, identify
        self.reply_out, self.sender = reply_out, sender

    def refused(self, exc: MoveError, index: int) -> None:
        from referee.cli.mail import answer_rejection

        found = self.identify
        answer_rejection(gamefile.read(self.path), found.raw, exc, self.reply_out,
                         self.sender, found.found, found.taken, token=found.token)
        for line in found.note():
            click.echo(line, err=True)
        raise exc

    def not_played(self, exc: RefereeError) -> None:
        raise exc

    def played(self, done: Submission, bots: list[BotMove], problem: str | None) -> None:
        if problem:
            click.echo(_("warning: the bots could not move: {problem}").format(
                problem=problem), err=True)


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", metavar="PLAYER", help="Who is moving.")
@click.argument("words", nargs=-1, metavar="MOVE...")
@secret_option
@click.option("--unchecked", is_flag=True,
              help="Sealed game without its secret: append the moves after checking only "
                   "their notation; a referee with the secret (CI, the game master) checks "
                   "their legality later.")
@click.option("--from-email", "email_path", type=PATH, metavar="MESSAGE",
              help="Take the move(s) from a player's reply mail (a file, or - for stdin); "
                   "the player is identified and authenticated by the token in it.")
@click.option("--reply-out", type=PATH, metavar="FILE",
              help="With --from-email: write the answer to a rejected mail here (- = stdout).")
@click.option("--from", "sender", default="referee@localhost", show_default=True,
              help="With --from-email: the From address of a rejection.")
def move(path: Path, player: str | None, words: Sequence[str], secret_path: Path | None,
         unchecked: bool, email_path: Path | None, reply_out: Path | None, sender: str,
         as_json: bool) -> None:
    """Check a move against the rules and append it to FILE.

    Several decisions in one command: quote each ("deploy milano 4" "seat envoy"); they
    are played in order, and the first one refused stops the rest (those before it
    stand). Words without quotes are one move, as typed (deploy milano 4).
    """
    from referee.play.lines import command_line_moves

    if email_path is None and (player is None or not words):
        raise UsageError(_("move needs --as PLAYER and the MOVE (or --from-email MESSAGE)"))
    identify = None
    if email_path is not None:  # the judge's use-case (referee/play/reply.py)
        from referee.cli.mail import mail_identify  # only for a move by mail
        from referee.play.reply import play_message

        identify = mail_identify(email_path, player, reply_out, sender)
        message = MailMove(path, identify, reply_out, sender)
        found = play_message(path, message, secret_path=secret_path)
        assert found.done is not None  # (a refusal was raised)
        done, played = found.done, found.bots
    else:
        texts = command_line_moves(words)
        done = submit_texts(path, player, texts, secret_path, unchecked)
        # a game without bot seats (in the file just written) owes no bot a move: not
        # read again
        played = bots_done(path, secret_path) if done.match is not None and \
            seats.seats_at(done.gf.data).bots else []
    if done.match is None:
        unchecked_lines(done, as_json)
    else:
        played_lines(done, played, identify, load(path, secret_path) if played else None,
                     as_json)
    refuse_rest(done, as_json)


def unchecked_lines(done: Submission, as_json: bool) -> None:
    """What `move` says of moves appended unchecked (a sealed game without its secret)."""
    if as_json:
        emit_json({"unchecked": True, "player": done.player,
                   "accepted_moves": done.accepted,
                   **({"refused": refusal(done).to_json()} if done.failed else {})})
        return
    for a in done.accepted:
        click.echo(_("move {n}: {player}: {move} (appended UNCHECKED: only a referee "
                     "with the secret can check it)").format(n=a.n, player=done.player,
                                                             move=a.text))
    if seats.seats_at(done.gf.data).bots:
        click.echo(_("bot seats move when a referee with the secret runs `referee bot "
                     "FILE`"))


def played_lines(done: Submission, played: list[BotMove], identify: MailIdentify | None,
                 reloaded: tuple[gamefile.GameFile, Match] | None, as_json: bool) -> None:
    """What `move` says of moves played: each move, the planned and the bots' moves
    after them, whose turn, and the mover's legal moves when it is theirs again."""
    assert done.match is not None
    gf, match = reloaded or (done.gf, done.match)
    game, player = match.game, done.player
    if as_json:
        out: MovedStatus = {**status_json(gf, match, player),
                            "accepted": done.accepted[-1].text, "n": done.accepted[-1].n,
                            "accepted_moves": done.accepted, "bot_moves": played,
                            "planned_moves": done.planned}
        if identify is not None and identify.taken is not None:
            out["mail_line"] = identify.taken.number
        if done.failed is not None:
            out["refused"] = refusal(done).to_json()
        emit_json(out)
        return
    for line in identify.note() if identify is not None else []:
        click.echo(line)
    for a in done.accepted:
        click.echo(_("move {n}: {player}: {move}").format(n=a.n, player=player, move=a.text))
    for p in done.planned:
        click.echo(_("move {n}: {player}: {move} (planned, from {player}'s plan)").format(
            n=p.n, player=p.player, move=p.text))
    for line in bot_move_lines(played):
        click.echo(line)
    click.echo(game.prompt(match.state))
    if not game.finished(match.state) and player in game.to_move(match.state):
        for line in legal_lines(match, player):
            click.echo(line)


def submit_texts(path: Path, player: str | None, texts: Sequence[str],
                 secret_path: Path | None, unchecked: bool) -> Submission:
    """``player``'s moves played in order (a refused one stops the rest: those before it
    stand). A sealed game without its secret is refused unless ``unchecked``, naming
    the command that appends the moves unchecked."""
    from referee.play.submit import submit

    if player is None or not texts:
        raise UsageError(_("move needs --as PLAYER and the MOVE (or --from-email MESSAGE)"))
    try:
        return submit(path, player, texts, secret_path=secret_path, unchecked=unchecked,
                      keep_partial=True)
    except MoveError as exc:  # the first move: nothing was played
        if len(texts) < 2:
            raise
        raise refusal_of(exc, 0, texts[1:]) from None
    except SealedError as exc:
        if unchecked:
            raise
        quoted = " ".join(f'"{t}"' for t in texts)
        raise SealedError(
            _("this game is sealed and its secret is not at hand, so the move cannot be "
              "checked"),
            hints=[_("a player without the secret appends it unchecked (a referee with the "
                     "secret checks it later): referee move {path} --as {player} --unchecked "
                     "{moves}").format(path=path, player=player, moves=quoted),
                   *exc.hints]) from None


def refusal(done: Submission) -> MoveError:
    """The move that stopped a command's moves after others were played."""
    assert done.failed is not None and done.failed_index is not None
    return refusal_of(done.failed, done.failed_index, done.rest[1:])


def refusal_of(exc: MoveError, index: int, later: Sequence[str]) -> MoveError:
    """``exc``, the refusal of the command's move ``index`` (0-based), said as one of
    its moves, with the ``later`` ones, which were not played either."""
    message = _("your move {k} of {count} was not played: {message}").format(
        k=index + 1, count=index + 1 + len(later), message=exc.message)
    hints = list(exc.hints)
    if later:
        hints.append(_("not played either, after it: {moves}").format(
            moves="; ".join(later)))
    return type(exc)(message, hints=hints, legal=exc.legal)


def refuse_rest(done: Submission, as_json: bool) -> None:
    """After the moves played: the refused one, as an error (exit 1; with --json it is
    in the output already)."""
    if done.failed is None:
        return
    if not as_json:
        report_error(refusal(done), as_json)
    sys.exit(1)


# --- log ------------------------------------------------------------------------------


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "viewer", metavar="PLAYER",
              help="Show PLAYER's own hidden choices (needs the secret).")
@secret_option
def log(path: Path, viewer: str | None, secret_path: Path | None, as_json: bool) -> None:
    """List the moves in notation (hidden choices of sealed games only to their author,
    with --as and the secret)."""
    from referee.play.commands import game_log

    done = game_log(path, viewer, secret_path)
    gf, match, rows = done.gf, done.match, done.rows
    if as_json:
        emit_json(rows)
        return
    if seats.seats_at(gf.data).bots or any(r["bot"] for r in rows):
        click.echo(_("players: {players}").format(players=players_text(gf)))
    for line in log_lines(rows):
        click.echo(line)
    click.echo(prompt_line(gf, match) if match is not None else
               _("(sealed game: the position needs the game's secret)"))


def log_lines(rows: Sequence[LogRow]) -> list[str]:
    """The log as text: a mark where a round begins, each entry on its line, and under
    it what it made happen (the game's account: scoring, a round's end)."""
    lines: list[str] = []
    shown = None
    for r in rows:
        if r.get("round") is not None and r["round"] != shown:
            shown = r["round"]
            lines.append(_("-- round {n} --").format(n=shown))
        lines.append(f"{r['n']:>4}. {r['by']}: {r['move']}" + (_("  (bot)") if r["bot"] else "")
                     + (_("  (planned)") if r.get("planned") else ""))
        lines += [f"        {event}" for event in r.get("events", [])]
    return lines


# --- sealed games: nonce, reveal ------------------------------------------------------


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", required=True, metavar="PLAYER", help="Whose nonce.")
@click.argument("value", required=False)
@click.option("--keep", type=PATH, metavar="NONCEFILE",
              help="Where your nonce is kept between commit and reveal (default "
                   "FILE.PLAYER.nonce, owner-only).")
def nonce(path: Path, player: str, value: str | None, keep: Path | None,
          as_json: bool) -> None:
    """Commit to PLAYER's nonce, and later reveal it, in a game made with --nonces.

    Run it twice: first it commits (records only a hash of your nonce, which it keeps in
    NONCEFILE); once every player has committed, run it again to reveal. Nobody can pick
    a nonce after seeing the others', so nobody can steer the shuffle (docs/rng.md).
    """
    keep = keep or path.with_name(f"{path.name}.{player}.nonce")
    from referee.play.submit import give_nonce

    step, gf = give_nonce(path, player, value, keep)
    missing = gamefile.missing_nonces(gf)
    played = [] if missing else bots_done(path, None)
    if as_json:
        emit_json({"step": step, "missing": missing, "phase": gamefile.nonce_phase(gf),
                   "bot_moves": played})
        return
    if step == "commit":
        click.echo(_("{player} committed to a nonce (kept in {path}; do not share it "
                     "yet).").format(player=player, path=keep))
    else:
        click.echo(_("{player}'s nonce revealed and recorded.").format(player=player))
    click.echo(gamefile.nonce_prompt(gf) if missing else
               _("every player has given a nonce: the game can begin."))
    for line in bot_move_lines(played):
        click.echo(line)


@command()
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--channels-revoked", is_flag=True,
              help="The notification channel URLs sealed in the log are revoked: reveal "
                   "anyway (the seed opens them).")
@secret_option
def reveal(path: Path, channels_revoked: bool, secret_path: Path | None,
           as_json: bool) -> None:
    """Write the secret seed into a finished sealed game so that anyone can verify it."""
    from referee.play.submit import reveal_seed

    reveal_seed(path, secret_path=secret_path, channels_revoked=channels_revoked)
    if as_json:
        emit_json({"revealed": True, "file": str(path)})
        return
    click.echo(_("seed revealed in {path}; `referee check {path}` now verifies every "
                 "draw.").format(path=path))


# --- undo -----------------------------------------------------------------------------


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.option("--as", "player", required=True, metavar="PLAYER", help="Who takes back.")
@secret_option
def undo(path: Path, player: str, secret_path: Path | None, as_json: bool) -> None:
    """Take back your last move, recorded as a log entry (history is never rewritten).

    Only the last move, only by its author, and never once it revealed anything (a draw,
    a roll, a card seen).
    """
    from referee.play.submit import undo as submit_undo

    done = submit_undo(path, player, secret_path=secret_path)
    gf, match = done.gf, done.match
    assert match is not None
    if as_json:
        emit_json(status_json(gf, match, player))
        return
    click.echo(_("move {n} undone by {player}.").format(n=gf.log[-1]["undo"], player=player))
    click.echo(prompt_line(gf, match))


# --- void -----------------------------------------------------------------------------


@command(lang=True)
@click.argument("path", metavar="FILE", type=PATH)
@click.argument("number", type=int, metavar="N")
@click.option("--as", "player", required=True, metavar="PLAYER",
              help="The move's author, or gm (the game master, who needs the secret).")
@secret_option
def void(path: Path, number: int, player: str, secret_path: Path | None,
         as_json: bool) -> None:
    """Strike move N, appended unchecked and found illegal, so the game goes on.

    Recorded as a log entry. Refused for a legal move (that would be an undo in
    disguise). Without the secret of a sealed game the void is appended unchecked, and
    CI (holding the secret) checks it.
    """
    from referee.play.submit import strike

    entry, gf, match = strike(path, number, player, secret_path=secret_path)
    played = bots_done(path, secret_path) if match is not None else []
    if played:
        gf, match = load(path, secret_path)
    if as_json:
        emit_json({"void": number, "n": entry["n"], "checked": match is not None,
                   "bot_moves": played})
        return
    click.echo(_("move {number} struck by {player} (entry {n})").format(
        number=number, player=player, n=entry["n"])
        + ("" if match is not None else
           _("; appended UNCHECKED: only a referee with the secret can check it")))
    for line in bot_move_lines(played):
        click.echo(line)
    if match is not None:
        click.echo(prompt_line(gf, match))
