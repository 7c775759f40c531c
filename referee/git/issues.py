"""A move as a GitHub issue (docs/git-and-ci.md, "Moving through issues"): the link that
opens one, prefilled, and an issue read back.

One repository per group. A link opens ``https://github.com/OWNER/NAME/issues/new`` with
a title that names the game (``[referee] GAME-ID``, then for the reader whose move it
is) and a body that is the move, then the line ``play N``: the game's play number when
the link was made. The GitHub door (referee/doors/github/) finds the game from the
title (:func:`game_in_title`) and hands the judge's core the body without its ``play``
line, answering play N (:func:`read_body`): a link used after its turn is stale, and the
core refuses it. Nothing here plays; a link only opens a form that its reader sends.

Only what every player may see: in an open game the legal moves of whoever must decide
(anyone can replay an open game: its seed is in the file), at most :data:`LINKS_MAX` a
player as links and the rest typed; in a sealed game no legal move (a seat's legal moves
may tell its hand), only a link that opens an issue for the game, the move typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode

from referee import engine
from referee.errors import UsageError
from referee.i18n import domain
from referee.ledger import gamefile
from referee.ledger.fileformat import GITHUB, GITHUB_MAX, full

if TYPE_CHECKING:
    from referee.engine import Match

_, N_, ngettext = domain("referee")

TAG = "[referee]"
LINKS_MAX = 24  # legal moves of one player drawn as links; the rest are typed
PLAY_MAX = 10**9  # a play number beyond this is no play number (a link's is far smaller)
_TITLE = re.compile(r"\A\s*\[referee\]\s+(?P<game>[A-Za-z0-9_-][A-Za-z0-9._-]{0,63})"
                    r"(?=[\s:]|\Z)", re.IGNORECASE)
_PLAY = re.compile(r"\A\s*play\s+(?P<n>[0-9]{1,10})\s*\Z", re.IGNORECASE)
_REPO_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")
_TICKS = re.compile(r"`+")


def check_repo(spec: str) -> str:
    """``OWNER/NAME`` as ``--github-repo`` takes it: a GitHub login or organisation, and
    a repository name (letters, digits, ``.``, ``_``, ``-``; not ``.`` or ``..``).
    Raises UsageError."""
    owner, sep, name = spec.partition("/")
    if not sep or len(owner) > GITHUB_MAX or not re.match(full(GITHUB), owner) or \
            not _REPO_NAME.fullmatch(name) or name in (".", ".."):
        raise UsageError(_("--github-repo takes OWNER/NAME, a GitHub repository like "
                           "octo-org/games, got {spec}").format(spec=repr(spec[:120])))
    return spec


def title(game_id: str, player: str | None = None, move: str | None = None) -> str:
    """An issue's title: the tag and the game, then whose move it is and the move."""
    tail = " ".join(part for part in (player, move) if part)
    return f"{TAG} {game_id}" + (f": {tail}" if tail else "")


def body(move: str, play: int) -> str:
    """An issue's body: the move on its first line (empty: to be typed), then the
    play number it answers."""
    return f"{move}\n\nplay {play}\n"


def new_issue_url(repo: str, issue_title: str, issue_body: str) -> str:
    """The link that opens ``repo``'s form for a new issue with this title and body
    (URL-encoded: spaces as %20, nothing left unquoted)."""
    query = urlencode({"title": issue_title, "body": issue_body}, quote_via=quote)
    return f"https://github.com/{repo}/issues/new?{query}"


def game_in_title(text: str) -> str | None:
    """The game an issue's title names (``[referee] GAME-ID ...``), or None: an issue
    that is not for the referee."""
    found = _TITLE.match(text)
    return found.group("game") if found else None


def read_body(text: str) -> tuple[str, int | None]:
    """An issue's or a comment's body without its ``play N`` lines, and the play number
    the first of them names (None: none, a text that answers the game as it is)."""
    kept: list[str] = []
    play: int | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        found = _PLAY.match(line)
        if found is None:
            kept.append(line)
        elif play is None:
            play = min(int(found.group("n")), PLAY_MAX)
    return "\n".join(kept), play


# --------------------------------------------------------------------------- links


@dataclass(frozen=True)
class Link:
    label: str  # what the link shows (a move, or the words of a link that opens a form)
    url: str


@dataclass
class Links:
    """The links of a game now: for each player who must decide, their legal moves (an
    open game; at most :data:`LINKS_MAX`, ``more`` not drawn) and a link that opens an
    issue for the game, the move typed (every game)."""

    game_id: str
    play: int
    waiting: list[str]
    typed: Link
    moves: dict[str, list[Link]] = field(default_factory=dict)
    more: dict[str, int] = field(default_factory=dict)


def links(gf: gamefile.GameFile, match: Match | None, repo: str,
          limit: int = LINKS_MAX) -> Links | None:
    """The links of the game for the players who must decide, or None: the game is over,
    or waits for nonces (a nonce is never said in public). ``match``: the game replayed
    (None: a sealed game without its secret, whose moves are not known here)."""
    if match is not None and (match.game.finished(match.state)
                              or gamefile.missing_nonces(gf)):
        return None
    gid, play = gf.game_id, gamefile.play_number(gf.log)
    typed = Link(_("open an issue for {game} and type your move").format(game=gid),
                 new_issue_url(repo, title(gid), body("", play)))
    waiting = gamefile.waiting(gf, match) if match is not None else []
    found = Links(gid, play, waiting, typed)
    if match is None or gf.sealed:
        return found  # (a seat's legal moves may tell its hand)
    for player in waiting:
        legal = engine.legal_strings(match.game, match.state, player)
        found.moves[player] = [
            Link(move, new_issue_url(repo, title(gid, player, move), body(move, play)))
            for move in legal[:limit]]
        found.more[player] = max(0, len(legal) - limit)
    return found


def fenced(text: str) -> str:
    """``text`` as a Markdown code block whose fence no run of backticks in it closes
    (inside it nothing is a mention, a link or formatting)."""
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def escape_markdown(text: str) -> str:
    """``text`` shown as itself in Markdown (its punctuation escaped)."""
    return _MARKDOWN.sub(r"\\\1", text)


def markdown(found: Links) -> list[str]:
    """The links as Markdown lines: a line for each player who must decide (their moves
    as links, how many more are typed) and the link that opens an issue, the move typed."""
    lines: list[str] = []
    for player in found.waiting:
        moves = found.moves.get(player)
        if moves:
            shown = " · ".join(f"[{escape_markdown(m.label)}]({m.url})" for m in moves)
            more = found.more.get(player, 0)
            tail = " " + ngettext("(and {n} more move: type it)", "(and {n} more moves: "
                                  "type them)", more).format(n=more) if more else ""
            lines.append(_("**{player}** to move: {moves}{more}").format(
                player=escape_markdown(player), moves=shown, more=tail))
        else:
            lines.append(_("**{player}** to move.").format(player=escape_markdown(player)))
    lines.append(f"[{escape_markdown(found.typed.label)}]({found.typed.url})")
    return lines
