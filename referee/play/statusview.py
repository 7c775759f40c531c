"""A game as its players read it: the text of `status` (also the body of the mails and
of the encrypted views), its JSON, the prompt line and the legal moves grouped by kind;
:func:`load`, a game file read and replayed; and what a player without a sealed game's
secret reads (:class:`Sealed`: the referee's signed public view, the entries since, the
way to their hand)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from referee.engine import Match, legal_strings, textlayout
from referee.i18n import domain
from referee.ledger import gamefile, replay, secret

if TYPE_CHECKING:
    from referee.trust.publicview import PublicView

_, N_, ngettext = domain("referee")

#: `status --json`: the game, whose turn, the scores, the viewer (``as``) and the game's
#: view (its own JSON, whatever the game writes); with a viewer their legal moves
Status = TypedDict("Status", {
    "game": str, "id": str, "rules": str, "players": list[str], "moves": int,
    "to_move": list[str], "prompt": str, "finished": bool, "scores": dict[str, int],
    "ranking": list[list[str]] | None, "as": str | None, "view": dict[str, Any],
    "legal": NotRequired[list[str]]})


def status_json(gf: gamefile.GameFile, match: Match, viewer: str | None) -> Status:
    game = match.game
    state = match.state
    finished = game.finished(state)
    out: Status = {
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


# --- a sealed game without its secret --------------------------------------------------

LOG_TAIL = 10  # entries `status` shows of a sealed game without its secret


class SealedRow(TypedDict):
    """A log entry as a player without the secret reads it."""

    n: int
    by: str
    move: str  # the public text
    bot: bool


@dataclass
class Sealed:
    """A sealed game as a player without its secret reads it: the public view its
    referee signed (``doc``, from the index at ``where``; None: none found), why other
    views found were not shown, and where ``viewer``'s own view would be (``hand``)."""

    gf: gamefile.GameFile
    path: Path
    doc: PublicView | None = None
    where: Path | None = None
    problems: list[str] = field(default_factory=list)
    viewer: str | None = None
    hand: Path | None = None

    @property
    def seen(self) -> int:
        """The log entries the public view shows (0 without one)."""
        return self.doc["moves"] if self.doc is not None else 0

    @property
    def current(self) -> bool:
        """Whether the public view shows the whole log: its turn is the game's now."""
        return self.doc is not None and self.seen == len(self.gf.log)

    def rows(self, start: int) -> list[SealedRow]:
        """The log entries from ``start`` on, as others may read them (public texts)."""
        return [{"n": e["n"], "by": e["by"], "move": replay.entry_text(self.gf, i),
                 "bot": e.get("bot") is True}
                for i, e in enumerate(self.gf.log) if i >= start]


def sealed_text(found: Sealed, width: int = textlayout.WIDTH) -> str:
    """The text of `status` of a sealed game without its secret: the referee's public
    view (the board every player sees, whose turn it was then), the entries appended
    since, whose turn it is or how to learn it, and where the reader's hand is."""
    gf, path = found.gf, found.path
    title = _("{title}: {name} (move {n})").format(title=gf.game.title, name=path.name,
                                                  n=len(gf.log))
    head = [title, "=" * min(len(title), width)]
    if gamefile.missing_nonces(gf):  # (whose turn needs no secret: the nonces owed)
        lines = [*head, gamefile.nonce_prompt(gf)]
    elif found.doc is not None:
        lines = [*str(found.doc["text"]).splitlines(), *_log_lines(found),
                 *_turn_lines(found)]
    else:
        lines = [*head, _("This game is sealed, and neither its secret nor a public view "
                          "of it signed by its referee is at hand here."),
                 *_log_lines(found), *_turn_lines(found)]
    if found.viewer is not None:
        lines.append(_hand_line(found))
    lines += [_("note: {problem}").format(problem=p) for p in found.problems]
    return "\n".join(textlayout.fit_all(lines, width))


def _log_lines(found: Sealed) -> list[str]:
    """The entries a reader of the public view has not seen in it (the last ones when
    it is current), at most :data:`LOG_TAIL`."""
    total = len(found.gf.log)
    if found.current:
        start, head = max(0, total - LOG_TAIL // 2), _("The last moves:")
    elif found.doc is not None:
        start = found.seen
        head = _("Appended since the referee's public view of move {n}, not yet checked by "
                 "a referee:").format(n=found.seen)
    else:
        start, head = 0, _("The moves so far, not checked without the secret:")
    rows = found.rows(max(start, total - LOG_TAIL))
    if not rows:
        return []
    lines = ["", head]
    if rows[0]["n"] > start + 1:
        lines.append("  " + _("... {k} before them: `referee log {path}`").format(
            k=rows[0]["n"] - 1 - start, path=found.path))
    return lines + [f"{r['n']:>4}. {r['by']}: {r['move']}" + (_("  (bot)") if r["bot"] else "")
                    for r in rows]


def _turn_lines(found: Sealed) -> list[str]:
    """Whose turn it is (the public view's, when it shows the whole log), or who can
    tell."""
    path = found.path
    if found.current:
        assert found.doc is not None
        return ["", _("(sealed: the board is the public view its referee signed at move {n}, "
                      "in {where})").format(n=found.seen, where=found.where)]
    if found.doc is not None:
        return ["", _("Whose turn it is now is known once the referee, who holds the secret, "
                      "has checked these moves and written the views again (`referee views "
                      "{path}`).").format(path=path)]
    return ["", _("The board and whose turn it is come from the referee, who holds the "
                  "secret: `referee views {path}` publishes them (and each player's view), "
                  "`referee status {path} --secret SECRET` shows them.").format(path=path)]


def _hand_line(found: Sealed) -> str:
    """Where the reader finds their own hand and legal moves: their view."""
    hand = found.hand
    assert hand is not None
    if hand.is_file():
        return _("Your hand and your legal moves: `referee view {file}`").format(file=hand)
    return _("Your hand and your legal moves are in your view, once the referee writes it "
             "(`referee views {path}`): then `referee view {file}`").format(
                 path=found.path, file=hand)


class PublicPart(TypedDict):
    """The public view a sealed game's status shows: of which move, where, its turn."""

    moves: int
    file: str
    to_move: list[str]
    finished: bool
    text: str


#: `status --json` of a sealed game without its secret
SealedStatus = TypedDict("SealedStatus", {
    "game": str, "id": str, "rules": str, "players": list[str], "moves": int,
    "sealed": bool, "secret": bool, "to_move": list[str] | None, "finished": bool | None,
    "public_view": PublicPart | None, "since_view": list[SealedRow], "as": str | None,
    "hand": str | None, "notes": list[str]})


def sealed_json(found: Sealed) -> SealedStatus:
    """`status --json` of a sealed game without its secret."""
    gf, doc = found.gf, found.doc
    current = found.current and not gamefile.missing_nonces(gf)
    return {
        "game": gf.game.name, "id": gf.game_id, "rules": gf.data["rules"],
        "players": gf.players, "moves": len(gf.log), "sealed": True, "secret": False,
        "to_move": list(doc["to_move"]) if current and doc is not None else
        (gamefile.missing_nonces(gf) or None),
        "finished": bool(doc["finished"]) if current and doc is not None else None,
        "public_view": None if doc is None else {
            "moves": found.seen, "file": str(found.where), "to_move": doc["to_move"],
            "finished": doc["finished"], "text": doc["text"]},
        "since_view": found.rows(found.seen),
        "as": found.viewer, "hand": str(found.hand) if found.hand else None,
        "notes": found.problems,
    }


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
