"""A game's board as Markdown, for a README that GitHub renders (`referee show FILE --md
OUT`): the game, whose turn it is, the public board as text, and (``--github-repo``)
the links that open an issue for a move (referee/git/issues.py). The public view only: a
README is read by everyone."""

from __future__ import annotations

from referee.engine import Match
from referee.git import issues
from referee.i18n import domain
from referee.ledger import gamefile
from referee.play.statusview import prompt_line

_, N_, ngettext = domain("referee")

WIDTH = 78  # the board's columns (as the judge's messages lay it out)


def state_line(gf: gamefile.GameFile, match: Match) -> str:
    """Whose turn it is and what they decide (a nonce while one is owed:
    :func:`referee.play.statusview.prompt_line`, as `status` says it), or who won."""
    game = match.game
    if game.finished(match.state):
        ranking = game.ranking(match.state)
        first = _(" and ").join(ranking[0]) if ranking else _("nobody")
        return _("Game over: {winners} won.").format(winners=first)
    waiting = gamefile.waiting(gf, match)
    return _("Waiting for {players}: {what}").format(players=_(" and ").join(waiting),
                                                     what=prompt_line(gf, match))


def board(gf: gamefile.GameFile, match: Match, repo: str | None = None) -> str:
    """The Markdown of the game now (public view); ``repo``: with its issue links."""
    game = match.game
    lines = [f"## {issues.escape_markdown(game.title)}: "
             f"{issues.escape_markdown(gf.game_id)}", "",
             issues.escape_markdown(state_line(gf, match)), ""]
    if not gamefile.missing_nonces(gf):
        lines += [issues.fenced(game.render(match.state, None, width=WIDTH)), ""]
    found = issues.links(gf, match, repo) if repo else None
    if found is not None:
        lines += [_("Move through GitHub: each link opens a new issue with the move; send "
                    "it to play (a link used after its turn plays nothing)."), ""]
        lines += [f"- {line}" for line in issues.markdown(found)]
    return "\n".join(lines).rstrip("\n") + "\n"
