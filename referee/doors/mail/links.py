"""Moves with one click by mail: a ``mailto:`` link for each legal move of the player who
must decide (docs/mail.md, "Moves with one click").

A link opens a ready mail to the judge's address with a tag (referee/mail/tokens.py,
"link tags": the game, the seat and the play number under the game's MAC) and the move as
its body. The player sends it as it is: the tag and the registered From address
authenticate it, without In-Reply-To or a token, so a client that breaks the subject or
drops the thread loses nothing. Where the tag goes is the operator's choice
(``referee judge --mail-links``): ``plus`` (default) in the address's detail,
``referee+TAG@host``, which the mail server delivers to the judge's mailbox; ``subject``
in the subject (``[TAG]``), the address plain, for a server without plus-addresses;
``off``: no links. A link is a capability, never an action: nothing happens when it is
opened, only when its mail is sent; used after its turn it is stale, refused and
answered once. Long lists stay readable: the first :data:`LINKS_MAX` moves get links,
the rest are typed as listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import parseaddr
from urllib.parse import quote

from referee import i18n
from referee.judge.basics import Loaded, decision_moves, plays
from referee.judge.text import more_moves
from referee.mail import tokens

_, N_, ngettext = i18n.domain("referee")

LINKS_MAX = 12  # moves with a link in one mail; the rest are typed
HEADING = N_("One click plays a move: the link opens a mail to the referee with the move in "
             "it; send it as it is.")


@dataclass(frozen=True)
class Link:
    """A legal move and the ``mailto:`` URL that plays it."""

    move: str
    url: str


def links(game: Loaded, player: str, sender: str, mode: str = "plus"
          ) -> tuple[list[Link], int]:
    """The one-click links of ``player`` if they must decide now, and how many of their
    legal moves have none (past :data:`LINKS_MAX`); none for anyone else, a game that
    waits for nonces or is over, or ``mode`` ``off``."""
    gf = game.gf
    address = parseaddr(sender)[1]
    legal = decision_moves(game, player) if mode != "off" and "@" in address else []
    if not legal:
        return [], 0
    tag = tokens.link_tag(game.key, gf.game_id, gf.players.index(player), plays(gf))
    to = tokens.plus_address(address, tag) if mode == "plus" else address
    subject = f"{gf.game_id} [{tag}]" if mode == "subject" else gf.game_id
    made = [Link(move, mailto(to, subject, move)) for move in legal[:LINKS_MAX]]
    return made, max(0, len(legal) - LINKS_MAX)


def mailto(to: str, subject: str, body: str) -> str:
    """A ``mailto:`` URL (RFC 6068): ``to``, then the subject and the body, each
    percent-encoded (a space is ``%20``: ``+`` is a plus in a mailto)."""
    return (f"mailto:{quote(to, safe='@+')}?subject={quote(subject, safe='')}"
            f"&body={quote(body, safe='')}")


def plain_lines(made: list[Link], more: int) -> list[str]:
    """The block of a mail's plain text that lists the links (empty without links)."""
    if not made:
        return []
    from referee.judge.text import wrap

    lines = [wrap(_(HEADING)), *(f"  {link.move}: {link.url}" for link in made)]
    if more:
        lines.append("  " + more_moves(more))
    return [*lines, ""]
