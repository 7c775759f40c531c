"""The game master's command lines by mail (``replace``, ``address``, ``deadline``,
``bot``, ``clock``, ``watch``/``unwatch``, ``notify``) read as the meta records the judge
writes for them (:mod:`referee.judge.meta` checks and writes them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.clocks import clock
from referee.errors import UsageError
from referee.i18n import domain
from referee.judge import meta
from referee.ledger import roster, seats
from referee.ledger.records import MetaFields

if TYPE_CHECKING:
    from referee.judge.basics import Loaded

_, N_, ngettext = domain("referee")


def gm_meta(line: str, players: list[str]) -> MetaFields | None:
    """The meta object of one game master command line (None: status or help).
    Raises UsageError for a line that is no command. A name and address are written as
    mail programs show them: ``Wendy Watcher <wendy@example.org>``, ``"Watcher, Wendy"
    <wendy@example.org>`` or a bare address (:func:`referee.ledger.roster.name_and_address`)."""
    words = line.split()
    kind = words[0].lower() if words else "help"
    args = words[1:]
    if kind in ("status", "help"):
        return None
    if kind == "replace" and len(args) >= 2:
        name, address = roster.name_and_address(line.split(None, 2)[2], "replace")
        return {"kind": "replace", "player": args[0], "name": name or args[0],
                "email": address}
    if kind == "address" and len(args) >= 2:
        return {"kind": "address", "player": args[0], "emails": [a.strip("<>") for a in args[1:]]}
    if kind == "deadline" and len(args) in (1, 3) and args[0].rstrip("h").isdigit() and (
            len(args) == 1 or args[1].lower() == "bot"):
        out: MetaFields = {"kind": "deadline", "hours": int(args[0].rstrip("h"))}
        if len(args) == 3:
            level = bot_level(args[2])
            out["bot"] = None if level is None else level.level
        return out
    if kind == "bot" and len(args) == 2:
        return bot_meta(args[0], args[1])
    if kind == "clock":  # a time bank (docs/clocks.md)
        return gm_record(args)
    if kind in ("watch", "unwatch") and args:
        return _watch(kind, line.split(None, 1)[1])
    if kind == "notify" and len(args) == 2:
        return {"kind": "notify", "player": args[0], "mode": args[1].lower()}
    raise UsageError(_("not a game master command: {line}").format(line=repr(line)),
                     hints=[_(h) for h in GM_HELP[1:]])


_DIGEST_TAIL = re.compile(r"^(?P<who>.*?)(?P<digest>\s+digest(?:\s+(?P<n>\S+))?)?\s*$",
                          re.I | re.S)


def _watch(kind: str, rest: str) -> MetaFields:
    """``watch [NAME] ADDRESS [digest [N]]`` or ``unwatch [NAME] ADDRESS`` as a
    ``watcher`` meta object. Raises UsageError."""
    m = _DIGEST_TAIL.match(rest)
    assert m is not None  # (the pattern matches every text)
    if m.group("digest") and kind == "unwatch":
        raise UsageError(_("unwatch takes an address only: unwatch ADDRESS"))
    name, address = roster.name_and_address(m.group("who"), kind)
    out: MetaFields = {"kind": "watcher", "email": address, "on": kind == "watch"}
    if name and kind == "watch":
        out["name"] = name
    if m.group("digest"):
        out["digest"] = meta.digest((m.group("n") or "round").lower())
    return out


def bot_level(word: str) -> seats.SeatBot | None:
    """``mcts``, ``mcts:200``, ``greedy``, ``random`` or ``off`` (None) as a bot seat's
    record. Raises UsageError."""
    if word.strip().lower() in ("off", "human", "none"):
        return None
    if not word.strip():
        raise UsageError(_("bot: give a level (random, greedy, mcts, mcts:N) or off"))
    return seats.parse_spec(word)


def bot_meta(player: str, word: str) -> MetaFields:
    """The ``bot`` meta entry that hands ``player``'s seat to the bot ``word`` names, or
    back (``off``). Raises UsageError."""
    return seats.bot_entry(player, bot_level(word))


GM_HELP = [  # each line translated where it is shown: _(line)
    N_("Game master commands (reply to this mail, one per line, From your GM address):"),
    N_("  replace PLAYER NAME <ADDRESS>   a new person takes over the seat"),
    N_("  address PLAYER ADDRESS...       the player's accepted addresses"),
    N_("  deadline HOURS [bot LEVEL]      the time for each decision; with a bot"),
    N_("                                  level, a bot plays a missed decision"),
    N_("  bot PLAYER LEVEL|off            hand the seat to a bot, or back"),
    N_("  clock PACE [vacation D] [pause weekends] [timeout bot:LEVEL|gm|forfeit]"),
    N_("                                  a new time bank (e.g. 2d+1d/5d), or clock off"),
    N_("  watch [NAME] ADDRESS / unwatch ADDRESS  public mails to a watcher"),
    N_("  watch [NAME] ADDRESS digest [N] one mail a round (or per N decisions)"),
    N_("  notify PLAYER turn|every|digest  a player's mail setting"),
    N_("  status                          the public state"),
]


def gm_welcome(game: Loaded) -> str:
    gf = game.gf
    lines = [_("You are the game master of {game} ({title}).").format(
        game=gf.game_id, title=game.match.game.title),
             _("Players: {players}.").format(players=", ".join(gf.players)), "",
             *(_(line) for line in GM_HELP)]
    return "\n".join(lines) + "\n"


def gm_record(args: Sequence[str]) -> MetaFields:
    """The game master's ``clock PACE [vacation DAYS] [pause weekends] [timeout T]`` or
    ``clock off`` by mail, as a ``clock`` record. Raises UsageError."""
    if [a.lower() for a in args] == ["off"]:
        return {"kind": "clock", "control": None}
    if not args:
        raise UsageError(_("clock: give a pace like 2d+1d/5d, or off"))
    options = {"vacation": "0", "pause": None, "timeout": "gm"}
    rest = list(args[1:])
    while rest:
        key = rest.pop(0).lower()
        if key not in options or not rest:
            raise UsageError(_("clock: {word}: after the pace come `vacation DAYS`, "
                               "`pause weekends` and `timeout bot:LEVEL|gm|forfeit`").format(
                word=repr(key)))
        options[key] = rest.pop(0).lower()
    days = options["vacation"] or "0"
    if not days.isdigit():
        raise UsageError(_("clock: vacation takes a number of days, not {days}").format(
            days=repr(days)))
    return {"kind": "clock", "control": clock.control(args[0], int(days), options["pause"],
                                                       options["timeout"] or "gm")}
