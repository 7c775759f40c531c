"""The text of the judge's mails: events since a player's last mail, the board laid out
by the game for 78 columns, legal moves grouped by kind, and how to reply.

The board's legend is the one its render carries (one legend per game); a game whose
render has none may give one with its ``legend`` capability (:func:`engine.legend`).
"""

from __future__ import annotations

import copy
import textwrap
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from referee import engine, i18n
from referee.engine import Match
from referee.engine.rng import Rng
from referee.i18n import domain
from referee.judge.door import MAIL_WORDS, Words
from referee.ledger import gamefile, replay, seats
from referee.ledger.fileformat import GAME_MASTER as GM
from referee.ledger.roster import Settings

_, N_, ngettext = domain("referee")

WIDTH = 78

REPLY_HELP = list(MAIL_WORDS.reply)  # how to answer a mail (a door's words say it its way)
# the first words of the lines of a render only its viewer sees, in each language
PRIVATE_STARTS = ("your ", "dein", "ihr ", "ihre ")


def more_moves(n: int) -> str:
    """The line under a list of moves cut short: how many are left, typed as listed."""
    return ngettext("(and {n} more move: type it as listed above)",
                    "(and {n} more moves: type them as listed above)", n).format(n=n)


def wrap(text: str, width: int = WIDTH) -> str:
    """Every line at most ``width`` characters; a wrapped line's rest is indented."""
    out: list[str] = []
    for line in text.splitlines():
        if len(line) <= width:
            out.append(line.rstrip())
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        out.extend(textwrap.wrap(line.strip(), width=width, initial_indent=indent,
                                 subsequent_indent=indent + "    ",
                                 break_long_words=True, break_on_hyphens=False))
    return "\n".join(out)


def _join_wrapped(head: str, items: Sequence[str], sep: str, width: int = WIDTH) -> list[str]:
    lines: list[str] = []
    line = head
    for i, item in enumerate(items):
        piece = item + (sep if i < len(items) - 1 else "")
        if len(line) + len(piece.rstrip()) > width and line.strip():
            lines.append(line.rstrip())
            line = " " * 6
        line += piece
    lines.append(line.rstrip())
    return lines


def group_legal(legal: Sequence[str]) -> list[str]:
    """``deploy: aachen 3, 4 | milano 2, 5``: moves grouped by their first word, then by
    their second; kinds in the order they first appear."""
    kinds: dict[str, dict[str, list[str]]] = {}
    for move in legal:
        words = move.split()
        kind, rest = words[0], words[1:]
        sub = rest[0] if len(rest) >= 2 else ""
        tail = " ".join(rest[1:]) if sub else " ".join(rest)
        kinds.setdefault(kind, {}).setdefault(sub, []).append(tail)
    lines: list[str] = []
    for kind, subs in kinds.items():
        pieces: list[str] = []
        groups = list(subs.items())
        for gi, (sub, tails) in enumerate(groups):
            for ti, tail in enumerate(tails):
                piece = f"{sub} {tail}".strip() if ti == 0 and sub else (tail or kind)
                if ti < len(tails) - 1:
                    piece += ","
                elif gi < len(groups) - 1:
                    piece += " |"
                pieces.append(piece)
        lines += _join_wrapped(f"  {kind}: ", pieces, " ")
    return lines


def private_block(render: str) -> list[str]:
    """The lines of a render that only the viewer sees (those starting "your ...",
    with their indented continuation lines)."""
    out: list[str] = []
    taking = False
    for line in render.splitlines():
        if line.lower().startswith(PRIVATE_STARTS):
            taking = True
            out.append(line)
        elif taking and line.startswith(" ") and line.strip():
            out.append(line)
        else:
            taking = False
    return out


def _step(gf: gamefile.GameFile, seed: str | None, match: Match, i: int,
          struck: dict[int, int]) -> Match:
    """``match`` after log entry ``i`` (a struck move, a void or a meta entry: unchanged)."""
    kind = replay.entry_kind(gf.log[i])
    if kind == "move" and (i + 1) not in struck:
        match.play(gf.log[i]["by"], replay.entry_move(gf, i, seed))
    elif kind == "undo":
        return replay.replay(gf, seed, upto=i + 1)
    return match


def _who(by: str) -> str:
    return _("the game master") if by == GM else by


def _describe(gf: gamefile.GameFile, seed: str | None, i: int, match: Match,
              viewer: str | None, struck: dict[int, int]) -> str:
    entry = gf.log[i]
    n, by = entry["n"], entry["by"]
    kind = replay.entry_kind(entry)
    if kind == "undo":
        return _("{n}. {player} took back move {move}").format(n=n, player=by,
                                                             move=entry["undo"])
    if kind == "void":
        return _("{n}. {who} struck move {move}").format(n=n, who=_who(by), move=entry["void"])
    if kind == "meta" and entry["meta"].get("kind") == "plan":
        # secret: its player's
        return _("{n}. you set your plan").format(n=n) if viewer == by else ""
    if kind == "meta" and entry["meta"].get("kind") == "channel":  # the player's own
        return _("{n}. you set your notification channel").format(n=n) if viewer == by else ""
    if kind == "meta" and entry["meta"].get("kind") in PERSONAL:  # nobody else's business
        if entry["meta"].get("kind") == "notify" and viewer is not None and \
                viewer == entry["meta"].get("player") != by:
            return changed_for_you(n, entry["meta"])  # the game master's change
        return _personal_line(n, entry["meta"]) if viewer == by else ""
    if kind == "meta":
        meta = entry["meta"]
        if meta.get("kind") == "bot":
            return _("{n}. {who} handed a seat over: {seat}").format(
                n=n, who=_who(by), seat=seats.meta_text(meta).split("] ", 1)[-1])
        from referee.judge.meta import event_line  # no address in anyone's mail

        return event_line(n, _who(by), meta)
    if by == viewer:
        shown = match.game.format_move(replay.entry_move(gf, i, seed))
    elif "public" in entry:
        shown = entry["public"]
    else:
        shown = engine.public_text(match.game, replay.entry_move(gf, i, seed))
    note = _(" (struck by entry {n})").format(n=struck[n]) if n in struck else ""
    if entry.get("bot") is True:
        note = _(" (played by a bot)") + note
    if "plan" in entry:
        note = _(" (planned)") + note
    return _("{n}. {player} played: {move}").format(n=n, player=by, move=shown) + note


#: the settings that are their player's own (how and in which language they get mail):
#: told to nobody else, and their author is told in words, not as a record
PERSONAL = ("lang", "notify")


def is_personal(entry: Mapping[str, Any]) -> bool:
    """Whether a log entry is a player's personal setting (:data:`PERSONAL`), set by the
    player or by the game master for them."""
    meta = entry.get("meta")
    return isinstance(meta, dict) and meta.get("kind") in PERSONAL and \
        entry.get("by") in (meta.get("player"), GM)


#: what each mail setting means, as its player is told when the game master changes it
MODE_TEXT = {"turn": N_("a full mail when you must decide, a short one when your move "
                        "was accepted"),
             "every": N_("a full mail after every change"),
             "digest": N_("only the full mail when you must decide")}


def changed_for_you(n: int, meta: Mapping[str, Any]) -> str:
    """The game master's change of a player's mail setting (entry ``n``), as that player
    reads it: the new setting and what it means."""
    mode = str(meta.get("mode"))
    meaning = _(MODE_TEXT[mode]) if mode in MODE_TEXT else mode
    return _("{n}. the game master set how often you get mail: {mode} ({meaning})").format(
        n=n, mode=mode, meaning=meaning)


def _personal_line(n: int, meta: Mapping[str, Any]) -> str:
    if meta.get("kind") == "lang":
        code = str(meta.get("lang"))
        return _("{n}. you set the language of your mails: {language}").format(
            n=n, language=i18n.NAMES.get(code, code))
    return _("{n}. you set how often you get mail: {mode}").format(n=n, mode=meta.get("mode"))


def _raw_events(match: Match) -> list[Any]:
    """The game's own account of what happened (both games keep ``state.events`` and
    show them to everyone), as stored; [] for a game without one."""
    events = getattr(match.state, "events", None)
    return list(events) if isinstance(events, list) else []


def _new_events(before: Sequence[Any], after: Sequence[Any]) -> list[Any]:
    """The events a move added: ``after`` without what it keeps of ``before``. A game may
    keep only its last events (Dynasties keeps 40), so the list can stop growing: what
    is new is what follows the longest end of ``before`` that ``after`` starts with."""
    for k in range(len(before) + 1):
        kept = len(before) - k
        if list(after[:kept]) == list(before[k:]):
            return list(after[kept:])
    return list(after)  # (not reached: k = len(before) always matches)


class Timeline:
    """The log entries from ``since`` on, each described for its author and for the
    others, with the score changes it caused: replayed once, shared by every mail."""

    def __init__(self, gf: gamefile.GameFile, seed: str | None, since: int,
                 start: Match | None = None) -> None:
        """``start``: the position after entry ``since`` (:class:`Positions`), which the
        timeline then owns; else the game is replayed up to there. Its texts are in the
        current language (:attr:`lang`)."""
        self.since = since
        self.lang = i18n.current()
        # by, own text, public text, what happened in words, score changes
        self.items: list[tuple[str, str, str, list[str], list[str]]] = []
        if since >= len(gf.log):
            return
        match = start if start is not None else replay.replay(gf, seed, upto=since)
        struck = replay.voided(gf)
        for i in range(since, len(gf.log)):
            before = match.game.scores(match.state)
            by = gf.log[i]["by"]
            if is_personal(gf.log[i]):  # told to the player it is about, whoever set it
                by = str(gf.log[i]["meta"].get("player"))
            own = _describe(gf, seed, i, match, by, struck)
            public = _describe(gf, seed, i, match, None, struck)
            told = _raw_events(match)
            moved = replay.entry_kind(gf.log[i]) == "move" and (i + 1) not in struck
            match = _step(gf, seed, match, i, struck)
            words = [engine.event_text(match.game, e)
                     for e in _new_events(told, _raw_events(match))] if moved else []
            after = match.game.scores(match.state)
            gains = [_("{player} {change} (now {score})").format(
                player=p, change=f"{after[p] - before.get(p, 0):+d}", score=after[p])
                for p in after if after[p] != before.get(p, 0)]
            self.items.append((by, own, public, words, gains))

    def lines(self, since: int, viewer: str | None, inherited: bool = False) -> list[str]:
        """What happened in entries ``since``.. as ``viewer`` may see it, wrapped.
        ``inherited``: the viewer has just taken the seat over, so the seat's plans and
        personal settings were someone else's (none is told; its moves are)."""
        lines: list[str] = []
        for by, own, public, words, gains in self.items[max(0, since - self.since):]:
            shown = own if by == viewer and (public or not inherited) else public
            if not shown:
                continue  # a plan record or a setting: only its player hears of it
            lines.append(wrap("  " + shown))
            lines += [wrap("      - " + said) for said in words]
            if gains:
                lines += _join_wrapped("      " + _("scoring: "), gains, ", ")
        return lines


def copy_match(match: Match) -> Match:
    """An independent copy of ``match`` (state, generator and move list), as the replay
    copies a position for an undo: the game's ``copy_state`` where the state carries the
    match's generator (both games do), else one deep copy of the two together."""
    copier = getattr(match.game, "copy_state", None)
    state: Any = None
    rng: Any = None
    if copier is not None and getattr(match.state, "rng", None) is match.rng:
        state = copier(match.state)
        rng = getattr(state, "rng", None)
        if not isinstance(rng, Rng) or rng is match.rng:
            state = None
    if state is None:
        state, rng = copy.deepcopy((match.state, match.rng))
    return Match(match.game, list(match.players), dict(match.options), state, rng,
                 list(match.log))


class Positions:
    """The positions of a game after the log entries its judge's mails were written at
    (each a copy), so that the next mail's "since your last mail" starts from one
    instead of a replay from the setup. A position is used only while the log up to it
    is the same (its last entry, which carries the hash of all before it, is equal) and
    strikes the same moves up to it."""

    def __init__(self, per_game: int = 8, games: int = 128) -> None:
        self.per_game, self.games = per_game, games
        self._kept: OrderedDict[str, dict[int, tuple[Any, dict[int, int], Match]]] = \
            OrderedDict()

    def keep(self, gf: gamefile.GameFile, match: Match) -> None:
        """Keep ``match``, the position after the whole log of ``gf`` (copied)."""
        n = len(gf.log)
        if not n:
            return
        kept = self._kept.setdefault(gf.game_id, {})
        kept[n] = (gf.log[n - 1], _struck(gf, n), copy_match(match))
        for old in sorted(kept)[:-self.per_game]:
            del kept[old]
        self._kept.move_to_end(gf.game_id)
        while len(self._kept) > self.games:
            self._kept.popitem(last=False)

    def after(self, gf: gamefile.GameFile, n: int) -> Match | None:
        """A copy of the position after entry ``n`` of ``gf``, or None."""
        found = self._kept.get(gf.game_id, {}).get(n)
        if found is None or not 0 < n <= len(gf.log):  # (the setup: no replay to spare)
            return None
        last, struck, match = found
        if gf.log[n - 1] != last or _struck(gf, n) != struck:
            return None
        return copy_match(match)


def _struck(gf: gamefile.GameFile, n: int) -> dict[int, int]:
    """The moves among the first ``n`` entries that the log strikes."""
    return {k: v for k, v in replay.voided(gf).items() if k <= n}


def events(gf: gamefile.GameFile, seed: str | None, since: int, viewer: str | None,
           inherited: bool = False) -> list[str]:
    """What happened in log entries ``since``.. (each move as ``viewer`` may see it, and
    every change of the scores), indented, wrapped (``inherited``: :meth:`Timeline.lines`)."""
    return Timeline(gf, seed, since).lines(since, viewer, inherited)


def _and(names: Sequence[str]) -> str:
    return _(" and ").join(names)


def headline(gf: gamefile.GameFile, match: Match, viewer: str | None,
             name: str | None = None) -> str:
    """The first body line: whose turn it is (or the result); ``name``: how the viewer
    is addressed (:meth:`referee.ledger.roster.Settings.addressed`; default the seat id)."""
    game = match.game
    if game.finished(match.state):
        ranking = game.ranking(match.state)
        first = _and(ranking[0]) if ranking else _("nobody")
        return _("Game over: {winners} won.").format(winners=first)
    waiting = gamefile.waiting(gf, match)
    if gamefile.nonce_phase(gf) == "commit":
        what = _("a nonce (reply: nonce WORDS; only its hash is recorded now)")
    elif gamefile.missing_nonces(gf):
        what = _("the nonce revealed (reply: nonce)")
    else:
        what = game.prompt(match.state)
    if viewer in waiting:
        return wrap(_("Your turn, {player}: {what}").format(player=name or viewer, what=what))
    return wrap(_("Waiting for {players}: {what}").format(players=_and(waiting), what=what))


def nonce_needed(gf: gamefile.GameFile) -> str:
    """Why a move by mail cannot be played yet, in the words of a mail (a reply
    ``nonce WORDS``, then ``nonce``), never a command of the command line."""
    missing = ", ".join(gamefile.missing_nonces(gf))
    if gamefile.nonce_phase(gf) == "commit":
        return _("the game starts once every player has sent a nonce: reply `nonce "
                 "WORDS` (still missing: {players})").format(players=missing)
    return _("the game starts once every player has revealed their nonce: reply "
             "`nonce` (still missing: {players})").format(players=missing)


def has_own_final_scoring(match: Match) -> bool:
    """Whether the game's board shows its own final scoring (its public view has a
    ``final_scoring``): then the mail's ranking does not repeat it."""
    try:
        view = match.game.view(match.state, None)
    except Exception:  # a game whose view fails here shows the judge's block
        return False
    return isinstance(view, dict) and bool(view.get("final_scoring"))


def final_scoring(match: Match) -> list[str]:
    """The judge's block at the game's end: the total points and the ranking, or only
    the ranking (with the totals) when the board carries the game's own final scoring."""
    game = match.game
    scores = game.scores(match.state)
    if has_own_final_scoring(match):
        lines = [_("Ranking (total points):")]
        for place, tied in enumerate(game.ranking(match.state), start=1):
            lines += [f"  {place}. " + ", ".join(
                ngettext("{player} {n} point", "{player} {n} points", scores.get(p, 0)).format(
                    player=p, n=scores.get(p, 0)) for p in tied)]
        return lines
    lines = [_("Final scoring:")]
    lines += [f"  {p:<12} {scores[p]:>4} " + ngettext("point", "points", scores[p])
              for p in scores]
    lines.append(_("Ranking:"))
    for place, tied in enumerate(game.ranking(match.state), start=1):
        lines.append(f"  {place}. {', '.join(tied)}")
    return lines


def _plan_news(gf: gamefile.GameFile, seed: str | None, viewer: str | None,
               since: int | None, note: Sequence[str]) -> list[str]:
    """What the viewer's plan played and dropped since their last mail (referee/ledger/plans.py),
    for them alone; nothing in a mail that already tells their plan."""
    if viewer is None or any(line.startswith("Your plan") for line in note):
        return []
    from referee.play import plan_play

    told = plan_play.mail_lines(gf, seed, viewer, since or 0)
    return [*(wrap(line) for line in told), ""] if told else []


def body(gf: gamefile.GameFile, match: Match, seed: str | None, viewer: str | None,
         since: int | None, settings: Settings, *, full: bool = True,
         note: Sequence[str] = (), timeline: Timeline | None = None,
         words: Words = MAIL_WORDS) -> str:
    """A message to ``viewer`` (None: a watcher): headline, ``note``, events since entry
    ``since``, then (``full``) the board and legal moves, or (short) only the private
    part; a legend; how to answer, in the ``words`` of the door it goes through."""
    game = match.game
    lines = [headline(gf, match, viewer, settings.addressed(viewer) if viewer else None), ""]
    if note:
        lines += [wrap(line) for line in note] + [""]
    lines += _plan_news(gf, seed, viewer, since, note)
    from referee.judge.timelines import mail_lines  # time banks (docs/clocks.md)

    lines += mail_lines(gf, seed)
    if since is not None and since < len(gf.log):
        if timeline is None or timeline.since > since or timeline.lang != i18n.current():
            timeline = Timeline(gf, seed, since)
        lines += [_(words.since), *timeline.lines(since, viewer), ""]
    if game.finished(match.state):
        lines += [*final_scoring(match), ""]
    missing = gamefile.missing_nonces(gf)
    render = "" if missing else game.render(match.state, viewer, width=WIDTH)
    if full and render:
        lines += [render, ""]
    elif render:
        lines += private_block(render)
        lines += [""] if private_block(render) else []
    waiting = gamefile.waiting(gf, match)
    if viewer is not None and viewer in waiting and not gamefile.missing_nonces(gf):
        from referee.engine import legal_strings

        lines += [_("Your legal moves, by kind:"), *group_legal(legal_strings(game, match.state,
                                                                            viewer)), ""]
    legend = engine.legend(game) if full else []  # the board's own legend is in its render
    if legend:
        lines += [_("Legend:"), *(wrap("  " + line) for line in legend), ""]
    if viewer is not None and not game.finished(match.state):
        lines += [_(line) for line in words.reply]
    return "\n".join(lines).rstrip("\n") + "\n"


def say_text(player: str, said: str, words: Words = MAIL_WORDS) -> str:
    """The message relaying ``player``'s ``say``: their words as written, then a footer
    of at most :data:`WIDTH` columns saying what it is and how to answer."""
    footer = _(words.say_footer)
    return wrap(_("{player} says: {text}").format(player=player, text=said)) + "\n\n" + \
        "\n".join(textwrap.wrap(footer, width=WIDTH)) + "\n"
