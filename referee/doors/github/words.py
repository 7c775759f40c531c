"""How the GitHub door's answers speak of themselves: issues and comments, never mails
or rooms (:class:`referee.judge.door.Words`). An issue is public: every answer is read by
everyone who reads the repository."""

from __future__ import annotations

from referee.i18n import domain
from referee.judge.door import Words

_, N_, ngettext = domain("referee")

GITHUB_WORDS = Words(
    reply=(
        N_("Open an issue with your move (the links of the game's page, or type it with"),
        N_("the line `play N` below it), or comment it on the game's issue. Commands:"),
        N_("status, help, undo, say TEXT. Hidden choices never in an issue."),
    ),
    since=N_("What happened:"),
    answer=N_("Open a new issue (or comment here) with your decision."),
    current=N_("Here is the game now: open a new issue from its links for your move."),
    stale=N_("this issue answers move {old}, but the game is at move {now}: {advice}"),
    stale_advice=N_("open a new issue from the game's links, or comment your move without "
                    "a `play` line"),
    replayed=N_("this issue or comment was already played (log entry {n})"),
    say_footer=N_("(A message from a player, relayed as written, said in a GitHub issue "
                  "of the game.)"),
    setting=N_("Your notification setting is now {mode}."),
    help=(
        N_("How to play through GitHub issues: open an issue from a link of the game's"),
        N_("page (its title names the game, its body is the move and the line `play N`),"),
        N_("or comment your move on an issue of the game. Several moves: one line"),
        N_("`move: ...` each. A link used after its turn plays nothing. Edits and deleted"),
        N_("comments are never played. Commands: status, help, undo (your last move, if it"),
        N_("revealed nothing), say TEXT. Hidden choices and your own settings never in an"),
        N_("issue: everyone reads it (docs: git-and-ci, moving through issues)."),
    ),
    no_move=N_("No move found in this issue."),
    no_line=N_("No line of this text reads as a move, so nothing was played."),
    agree=N_("Agree to the rematch where you are alone with the referee (mail or chat)."),
    language=N_("Your messages are now in {language}."),
    rematch=N_("Everyone agreed: the rematch has started ({file})."),
    took=None,
    elsewhere=None,  # (the answer itself is given in the issue)
    private_place=N_("`{command}` is for a place where you are alone with the referee, "
                     "never a public issue: nothing was done."),
    hidden_at_table=N_("That is a hidden choice: never in a public issue, which everyone "
                       "reads. It was not played, and this answer does not repeat it."),
)
