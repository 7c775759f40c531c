"""The judge's notification channels (docs/notifications.md).

A player's channel is set by mail (``notify via URL [also|only]``, ``notify via off``),
kept in the judge's private state (mode 0600, never in the game file), or with
`referee notify`, sealed to the referee in the game file; the later of the two is in
force. Every notice the judge mails a player (their turn, what happened, the game over,
a deadline or clock reminder: the mails written with ``notice=True``) is also posted to
their channel as a short text: the game, whose turn, who moved since their last notice,
and the game's site page when the judge has a site URL. With ``only`` the mail is left
out, except the first mail of a thread (it says how to play) and whenever the channel
failed; answers, ``say`` messages and the like always go by mail. A failed channel is
tried :data:`referee.mail.notify.TRIES` times within the judge's pass; the last error (never
the URL) is told in the player's next mail. The URL itself is never written to a mail,
the log or the site: only :func:`referee.mail.notify.masked`. Without the judge's
``--notify-private`` a channel that would reach a non-public address is refused when it is
set by mail (:func:`referee.mail.notify.check_channel`) and again at each notice
(:func:`referee.mail.notify.send`, which also guards the connection itself).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee import i18n
from referee.errors import UsageError
from referee.judge import text
from referee.ledger import gamefile
from referee.mail import notify

if TYPE_CHECKING:
    from referee.judge.basics import Loaded
    from referee.judge.store import Store

_, N_, ngettext = i18n.domain("referee")

STATE_KEY = "channels"  # the judge state's: game id -> player -> what is kept of a channel
MAIL_USAGE = "notify via URL [also|only] | notify via off"


@dataclass
class Options:
    """What the judge's configuration says about channels."""

    site_url: str | None = None
    allow_private: bool = False  # let channels post to this machine's or a private network
    sleep: Callable[[float], None] = field(default=time.sleep)
    log: Callable[[str], None] = field(default=lambda line: None)


def parse_command(arg: str, *, allow_private: bool = False) -> tuple[str | None, str]:
    """The words after ``notify`` of a mail ``notify via URL [also|only]`` or ``notify via
    off``: (the URL checked as a channel, where it connects too, or None; ``via``).
    Raises UsageError (never repeating the URL)."""
    words = arg.split()
    if not words or words[0].lower() != "via" or not 2 <= len(words) <= 3:
        raise UsageError(f"write `{MAIL_USAGE}`")
    if words[1].lower() == "off" and len(words) == 2:
        return None, "off"
    via = words[2].lower() if len(words) == 3 else "also"
    if via not in ("also", "only"):
        raise UsageError(f"after the URL: `also` (besides the mail) or `only` (instead of "
                         f"it), not {via[:10]!r}")
    return notify.check_channel(words[1], allow_private=allow_private), via


class Channels:
    """The channels of every game a judge serves: set, found, notified."""

    def __init__(self, store: Store, options: Options) -> None:
        self.store, self.options = store, options
        self._opened: dict[str, tuple[int, dict[str, notify.Found]]] = {}

    def _kept(self, gid: str, player: str) -> dict[str, Any]:
        """What the judge keeps of ``player``'s channel (made on first use)."""
        games = self.store.part(STATE_KEY, {})
        return games.setdefault(gid, {}).setdefault(player, {})

    def _seen(self, gid: str, player: str) -> dict[str, Any]:
        """The same, read only: an empty dict when nothing is kept."""
        return dict(self.store.part(STATE_KEY, {}, change=False).get(gid, {}).get(player, {}))

    def parse(self, arg: str) -> tuple[str | None, str]:
        """The words after ``notify`` of ``notify via URL [also|only]`` or ``notify via
        off`` (:func:`parse_command`, under this judge's ``--notify-private``). Raises
        UsageError (never repeating the URL)."""
        return parse_command(arg, allow_private=self.options.allow_private)

    def set(self, game: Loaded, player: str, url: str | None, via: str) -> None:
        """Keep ``player``'s channel set by mail (saved with the judge's state)."""
        kept = self._kept(game.gf.game_id, player)
        kept.update({"via": via, "at": len(game.gf.log), "error": None})
        if url is None:
            kept.pop("url", None)
        else:
            kept["url"] = url

    def channel(self, game: Loaded, player: str) -> notify.Channel | None:
        """The channel in force for ``player``: the later of the mail's and the file's."""
        kept = self._seen(game.gf.game_id, player)
        found = self._in_file(game).get(player)
        if found is not None and found.index >= int(kept.get("at", -1)):
            if found.error:
                self._failed(game.gf.game_id, player, found.error)
            return found.channel
        if kept.get("via") in ("also", "only") and kept.get("url"):
            return notify.Channel(str(kept["url"]), str(kept["via"]))
        return None

    def _in_file(self, game: Loaded) -> dict[str, notify.Found]:
        gid, n = game.gf.game_id, len(game.gf.log)
        cached = self._opened.get(gid)
        if cached is None or cached[0] != n:
            records = any(notify.is_record(e) for e in game.gf.log)
            cached = (n, notify.from_log(game.gf, game.seed) if records else {})
            self._opened[gid] = cached
        return cached[1]

    def _failed(self, gid: str, player: str, error: str) -> None:
        kept = self._kept(gid, player)
        if kept.get("error") != error:
            self.options.log(f"channel of {player} in {gid} failed: {error}")
        kept["error"] = error

    def notice(self, game: Loaded, player: str, *, first: bool) -> bool:
        """Post the notice of a mail about to be written to ``player`` to their channel;
        True when the mail itself is to be left out (``only``, delivered, not the first
        mail of the thread)."""
        channel = self.channel(game, player)
        if channel is None:
            return False
        gid = game.gf.game_id
        kept = self._kept(gid, player)
        with i18n.language(game.settings.lang(player)):
            title, body = summary(game, player, kept.get("seen"), self.options.site_url)
        try:
            sent = notify.send(channel.url, title, body,
                               allow_private=self.options.allow_private,
                               sleep=self.options.sleep)
        except UsageError as exc:  # apprise no longer installed: told, the mail goes out
            sent = notify.Sent(False, 0, exc.message)
        kept["seen"] = len(game.gf.log)
        if not sent.ok:
            self._failed(gid, player, f"{channel.shown}: {sent.error} ({sent.tries} tries)")
            return False
        kept["error"] = None
        return channel.via == "only" and not first

    def error_note(self, game: Loaded, player: str) -> list[str]:
        """The lines that tell ``player`` their channel's last failure (once)."""
        kept = self.store.part(STATE_KEY, {}).get(game.gf.game_id, {}).get(player)
        if not kept or not kept.get("error"):
            return []
        error, kept["error"] = kept["error"], None
        with i18n.language(game.settings.lang(player)):
            told = _("Your notification channel failed: {error}").format(error=error)
            return ["", *text.wrap(told).splitlines(),
                    _("Check it with `notify via URL` again, or `notify via off`.")]

    def described(self, game: Loaded, player: str) -> str:
        channel = self.channel(game, player)
        with i18n.language(game.settings.lang(player)):
            if channel is None:
                return _("You have no notification channel: the referee tells you by mail.")
            if channel.via == "only":
                return _("Your notification channel is {channel}, instead of the mail."
                         ).format(channel=channel.shown)
            return _("Your notification channel is {channel}, besides the mail."
                     ).format(channel=channel.shown)


def summary(game: Loaded, player: str, since: int | None, site_url: str | None
            ) -> tuple[str, str]:
    """The title and short text of a notice to ``player``: whose turn (or the game over
    and its ranking), who moved since their last notice, the site page."""
    gf, match = game.gf, game.match
    title = f"{gf.game_id}: {match.game.title}"
    waiting = gamefile.waiting(gf, match)
    if match.game.finished(match.state):
        places = "; ".join(f"{k}. {', '.join(group)}"
                           for k, group in enumerate(match.game.ranking(match.state), 1))
        lines = [_("Game over. Ranking: {places}.").format(places=places)]
    elif player in waiting:
        lines = [_("Your turn, {name}.").format(name=game.settings.names.get(player, player))]
    else:
        lines = [_("Waiting for {players}.").format(players=", ".join(waiting))]
    movers = list(dict.fromkeys(e["by"] for e in gf.log[since or 0:] if "move" in e))
    if since is not None and movers:
        lines.append(_("Moved since your last notice: {players}.").format(
            players=", ".join(movers)))
    if site_url:
        lines.append(f"{site_url.rstrip('/')}/{gf.game_id}/")
    return title, "\n".join(lines)
