"""The site's own words (headings, labels, links, alt texts) in the current language,
for its templates: made once per page set inside ``with i18n.language(...)``, passed to
every template as ``w``. The games' words (titles, prompts, the moves' words) come from
the games themselves; the move notation and player ids are never translated."""

from __future__ import annotations

from typing import Any

from referee import i18n

_, N_, ngettext = i18n.domain("referee")


def _markup(text: str, **parts: str) -> Any:
    """``text`` (a translation, escaped) with ``parts`` (trusted HTML) put in."""
    from markupsafe import Markup, escape

    return Markup(escape(text)).format(**{k: Markup(v) for k, v in parts.items()})


class SiteWords:
    """Every text of the site's pages that is not a game's: ``w.all_games`` and so on;
    the methods fill in numbers and names."""

    def __init__(self) -> None:
        self.lang = i18n.current()
        self.all_games = _("All games")
        self.games = _("Games")
        self.league = _("League")
        self.players = _("Players:")
        self.scores = _("Scores")
        self.place = _("place")
        self.player = _("player")
        self.points = _("points")
        self.clocks = _("Clocks")
        self.final_position = _("Final position")
        self.position_now = _("Position now")
        self.step_through = _("step through the game from the start")
        self.move_by_move = _("this position, move by move")
        self.moves = _("Moves")
        self.no_moves = _("No moves yet.")
        self.headings = {"game": _("game"), "players": _("players"), "moves": _("moves"),
                         "state": _("state"), "since": _("since"), "scores": _("scores")}
        self.league_headings = {"player": _("player"), "rating": _("rating"),
                                "games": _("games")}
        self.bot = _("(bot)")
        self.no_league = _("No finished game to rate yet.")
        self.not_counted = _("Not counted")
        self.sealed = _("sealed: the board needs the secret")
        self.finished = _("finished:")
        self.waiting = _("waiting")
        self.before_first = _("Before the first move")
        self.start = _("« start")
        self.previous = _("◀ previous")
        self.next = _("next ▶")
        self.end = _("end »")
        self.start_link = _("start")
        self.framed = _("Framed in magenta on the board: what this move changed.")
        self.all_moves = _("All moves")
        self.by_issue = _("Move through GitHub")
        self.by_issue_note = _("Each link opens a new issue of the game's repository with "
                               "the move; send it to play (a link used after its turn "
                               "plays nothing).")
        self.footer = _markup(_("Written by {command}. Every picture is drawn from the "
                                "public view of the game."),
                              command="<code>referee site</code>")

    def sealed_notice(self, file: str) -> Any:
        from markupsafe import escape

        return _markup(_("This game is sealed: its seed is secret, so the positions cannot "
                         "be rebuilt and no board is shown. Build the site with the game's "
                         "secret ({option}, {variable} or {file}) to see the public board."),
                       option="<code>--secret</code>", variable="<code>REFEREE_SECRET</code>",
                       file=f"<code>{escape(file)}.secret</code>")

    def move_count(self, n: int) -> str:
        return ngettext("{n} move.", "{n} moves.", n).format(n=n)

    def game_count(self, n: int) -> str:
        return ngettext("{n} game.", "{n} games.", n).format(n=n)

    def to_move(self, players: Any) -> Any:
        """``players`` (HTML: their swatches) "to move"."""
        return _markup(_("{players} to move"),
                       players=f'<span class="turn">{players}</span>')

    def more_moves(self, n: int) -> str:
        return ngettext("and {n} more move: type it", "and {n} more moves: type them",
                        n).format(n=n)

    def board_alt(self, title: str, n: int, prompt: str) -> str:
        if n == 0:
            return _("{title} before the first move: {prompt}").format(title=title,
                                                                      prompt=prompt)
        return _("{title} after move {n}: {prompt}").format(title=title, n=n, prompt=prompt)

    def position_title(self, game_id: str, n: int) -> str:
        return _("{game_id} — position {n}").format(game_id=game_id, n=n)

    def after_move(self, n: int, last: int) -> str:
        return _("After move {n} of {last}").format(n=n, last=last)

    def position_of(self, n: int, last: int) -> str:
        return _("position {n} / {last}").format(n=n, last=last)

    def move_n(self, n: int) -> str:
        return _("Move {n}").format(n=n)

    def ratings_from(self, model: str, order: str) -> str:
        return _("Ratings from the finished games that replay: {model}; games in order of "
                 "the {order}.").format(model=model, order=order)

    def provisional(self, n: int) -> str:
        return ngettext("* provisional: fewer than {n} game.",
                        "* provisional: fewer than {n} games.", n).format(n=n)

    def in_play(self, n: int) -> str:
        return ngettext("{n} game still in play: rated when it ends.",
                        "{n} games still in play: rated when they end.", n).format(n=n)

    def left_out(self, names: str) -> str:
        return _("Left out (bots): {names}").format(names=names)

    def counted(self, people: int, bots: int, copies: int) -> str:
        """What the league counts: games between people, games with bots left out,
        copies counted once."""
        return "; ".join([
            ngettext("{n} game between people", "{n} games between people",
                     people).format(n=people),
            ngettext("{n} game with bots left out", "{n} games with bots left out",
                     bots).format(n=bots),
            ngettext("{n} copy counted once", "{n} copies counted once",
                     copies).format(n=copies)]) + "."

    def copy_of(self, file: str, other: str) -> str:
        return _("{file}: a copy of {other}, counted once").format(file=file, other=other)
