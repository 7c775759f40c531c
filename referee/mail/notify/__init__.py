"""Notification channels: a player's chat or push channel (docs/notifications.md).

A player may be told on a channel of their own (Discord, Slack, Matrix, Telegram, ntfy,
a JSON or form webhook...) besides their mail (``also``) or instead of it (``only``).
The channel is an apprise URL (the optional extra ``referee[notify]``; imported only when
a channel is checked or used). A channel URL is a credential (whoever holds a webhook
URL can post to it), so it is never stored in clear: `referee notify` seals it to the
referee recipient of a sealed game in a ``channel`` record through the write core (an
open game has no referee key: the command refuses), and the judge keeps the URLs set by
mail in its private state. What anybody may read of it is :func:`masked`: the scheme and
the host.

A URL is bounded (:data:`~referee.ledger.fileformat.CHANNEL_URL_MAX` printable ASCII characters, no
space) and is one of the network schemes of :data:`SCHEMES` that apprise knows; local
schemes (a desktop notification, syslog, a file) are refused. Unless private targets are
allowed (``--notify-private``), a channel reaches public addresses only
(:func:`check_channel` when it is set, :func:`refusal` again before each send, and the
resolver guard of :mod:`referee.mail.notify.guard` during it); a channel that names a file or
URL for the judge to read is refused always (:func:`referee.mail.notify.targets.local_reads`).
Sending is retried (:data:`TRIES` tries, waiting :data:`BACKOFF` seconds between them,
each try at most :data:`DEADLINE` seconds: bounded), and what went wrong is told without
the URL (:func:`redact`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from referee.errors import GameFileError, UsageError
from referee.ledger import vouch
from referee.ledger.fileformat import CHANNEL_URL_MAX
from referee.mail.notify import guard as netguard
from referee.mail.notify import targets
from referee.play import writecore

if TYPE_CHECKING:
    from referee.ledger.gamefile import GameFile
    from referee.ledger.records import Entry, MetaFields

#: the network schemes a channel may use (each one apprise knows; the ``s`` forms are
#: the same service over TLS)
SCHEMES = (
    "json", "jsons", "form", "forms", "xml", "xmls",  # plain webhooks
    "discord", "slack", "matrix", "matrixs", "mmost", "mmosts",
    "rocket", "rockets", "zulip", "tgram", "signal", "signals",
    "ntfy", "ntfys", "gotify", "gotifys", "pover", "pbul", "apprise", "apprises",
    "mailto", "mailtos",
)
VIA = ("also", "only", "off")
TRIES = 3  # tries of one notification
BACKOFF = (0.5, 2.0)  # seconds waited before the second and the third try
DEADLINE = 30.0  # seconds one try may take, all its connections together
#: the most a URL may set apprise's connect and read timeouts to (``cto=``, ``rto=``)
TIMEOUT_MAX = 15.0
PRIVATE_HINT = ("a channel reaches public Internet addresses only, unless the referee runs "
                "with --notify-private")
ERROR_MAX = 200  # characters of an error told to the player
INSTALL_HINT = "install the notification extra: pip install 'referee[notify]'"
_PRINTABLE = re.compile(r"^[\x21-\x7e]+$")


@dataclass(frozen=True)
class Channel:
    """A player's channel: its URL and ``via`` (``also``: besides the mail; ``only``:
    instead of it)."""

    url: str
    via: str

    @property
    def shown(self) -> str:
        return masked(self.url)


@dataclass(frozen=True)
class Sent:
    """The result of one notification: delivered or not, after how many tries, and the
    last error (without the URL)."""

    ok: bool
    tries: int
    error: str = ""


# --- checking and showing a URL ---------------------------------------------------------


def scheme_of(url: str) -> str:
    return url.split("://", 1)[0].lower() if "://" in url else ""


def check_url(url: str) -> str:
    """``url`` checked as a channel: bounded, printable, a network scheme that apprise
    knows and can read. Returns it stripped. Raises UsageError (the message never
    repeats the URL, only its scheme)."""
    url = url.strip()
    if len(url) > CHANNEL_URL_MAX:
        raise UsageError(f"a channel URL has at most {CHANNEL_URL_MAX} characters, not "
                         f"{len(url)}")
    if not url or not _PRINTABLE.match(url):
        raise UsageError("a channel URL is printable ASCII without spaces, like "
                         "discord://WEBHOOK_ID/TOKEN or ntfys://TOPIC")
    scheme = scheme_of(url)
    if scheme not in SCHEMES:
        shown = scheme[:20] or "none"
        raise UsageError(f"a channel URL must use a network scheme; {shown!r} is not one "
                         "of them", hints=["schemes: " + ", ".join(SCHEMES)])
    if _plugin(_apprise(), url) is None:
        raise UsageError(f"apprise cannot read this {scheme}:// URL",
                         hints=["the URL forms: https://appriseit.com/services/"])
    return url


def check_channel(url: str, *, allow_private: bool = False) -> str:
    """``url`` checked as a channel about to be set: :func:`check_url`, and where it
    connects (:func:`refusal`). Returns it stripped. Raises UsageError (naming what is
    refused, never the URL)."""
    url = check_url(url)
    refused = refusal(_plugin(_apprise(), url), scheme_of(url), allow_private=allow_private)
    if refused:
        raise UsageError(f"this {scheme_of(url)}:// channel is refused: {refused}")
    return url


def masked(url: str) -> str:
    """What may be shown of a channel URL: its scheme and host (a host that is no host
    name, such as a Discord webhook's id, as ``...``)."""
    scheme = scheme_of(url) or "?"
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    if not (host == "localhost" or "." in host or ":" in host):
        host = "..."
    return f"{scheme}://{host}"


def redact(text: str, url: str) -> str:
    """``text`` (an error of apprise or of the network) without the URL: any URL, and
    every part of ``url`` (its host, user, password, path segments and query values),
    replaced by ``...``; one line, bounded."""
    parts = {url}
    try:
        split = urlsplit(url)
        parts |= {split.netloc, split.hostname or "", split.username or "",
                  split.password or "", *split.path.split("/"),
                  *re.split(r"[&=]", split.query)}
    except ValueError:
        pass
    for part in sorted((p for p in parts if len(p) >= 3), key=len, reverse=True):
        text = text.replace(part, "...")
    text = re.sub(r"[a-z][a-z0-9+.-]*://\S*", "...", text, flags=re.I)
    text = " ".join(text.split())
    return text[:ERROR_MAX]


# --- the channel record ------------------------------------------------------------------


def record(data: Mapping[str, Any], player: str, url: str | None, via: str
           ) -> MetaFields:
    """The ``channel`` meta object: the URL sealed to the referee recipient (a sealed
    game only), or ``off``. Raises UsageError, GameFileError."""
    if url is None or via == "off":
        return {"kind": "channel", "player": player, "via": "off"}
    sealable(data)
    from referee.ledger.gamefile import sealed_recipient

    return {"kind": "channel", "player": player, "via": via,
            "sealed": vouch.seal(sealed_recipient(data), {"url": url})}


def sealable(data: Mapping[str, Any]) -> None:
    """Raises UsageError unless the game can hold a sealed channel URL."""
    if "commitment" not in data["rng"]:
        raise UsageError("this game is open: it has no referee key to seal a channel URL "
                         "to, and a URL in the file would be readable by anyone",
                         hints=["set your channel by mail with the judge (`notify via "
                                "URL`), which keeps it in its private state",
                                "or play a sealed game (referee new --sealed)"])
    if data["rng"].get("seed") is not None:
        raise UsageError("the game's seed is revealed: anything sealed in it now is "
                         "readable by anyone, so no channel URL is stored")


def set_channel(path: Path, player: str, url: str | None, via: str = "also", *,
                secret_path: Path | None = None, extra: Mapping[str, Any] | None = None,
                guard: writecore.Guard | None = None, allow_private: bool = False
                ) -> tuple[Entry, GameFile]:
    """Write ``player``'s channel (``url`` None or ``via`` ``off``: none) as one
    ``channel`` record through the write core, checked first (:func:`check_channel`);
    returns the entry and the new file. Raises UsageError and the errors of a write."""
    if via not in VIA:
        raise UsageError(f"via is one of {', '.join(VIA)}, not {via!r}")
    if url is not None and via != "off":
        from referee.ledger import gamefile

        url = check_url(url)
        sealable(gamefile.read(path).data)  # an open game is told so before any look-up
        url = check_channel(url, allow_private=allow_private)
    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        tx.gf.player(player)
        entry = tx.record({"by": player, "meta": record(tx.gf.data, player, url, via)},
                          extra)
        tx.verify()
    return entry, tx.gf


def is_record(entry: Mapping[str, Any]) -> bool:
    meta = entry.get("meta")
    return isinstance(meta, dict) and meta.get("kind") == "channel"


@dataclass(frozen=True)
class Found:
    """A player's latest channel record in a log: its index, and the channel (None:
    off; ``error``: the sealed URL could not be opened)."""

    index: int
    channel: Channel | None
    error: str = ""


def from_log(gf: GameFile, seed: str | None) -> dict[str, Found]:
    """Each player's latest channel record, the URL unsealed with ``seed`` (the game's
    secret). A record that cannot be opened is found with its error."""
    latest: dict[str, int] = {}
    for i, entry in enumerate(gf.log):
        if is_record(entry) and entry["by"] == entry["meta"].get("player"):
            latest[entry["by"]] = i
    found: dict[str, Found] = {}
    for player, i in latest.items():
        meta = gf.log[i]["meta"]
        if meta["via"] == "off":
            found[player] = Found(i, None)
            continue
        try:
            if seed is None:
                raise GameFileError("the game's secret is needed to open it")
            url = vouch.unseal(seed, meta["sealed"], f"$.log[{i}].meta").get("url")
            if not isinstance(url, str):
                raise GameFileError("the sealed channel holds no URL")
            found[player] = Found(i, Channel(check_url(url), meta["via"]))
        except (GameFileError, UsageError) as exc:
            found[player] = Found(i, None, f"entry {i + 1}: {exc.message}")
    return found


# --- sending -------------------------------------------------------------------------------


def _apprise() -> Any:
    try:
        import apprise
    except ImportError:
        raise UsageError("notification channels need apprise", hints=[INSTALL_HINT]) from None
    return apprise


def _plugin(apprise: Any, url: str) -> Any:
    """apprise's plugin object for ``url`` (None: apprise cannot read it): the one that is
    checked is the one that sends. Its asset keeps apprise in the calling thread
    (``async_mode`` off, no service timeout: the guard's context and :data:`DEADLINE`
    bound it instead) and its storage in memory."""
    asset = apprise.AppriseAsset(storage_mode="memory", secure_logging=True,
                                 async_mode=False, service_timeout=0)
    return apprise.Apprise.instantiate(url, asset=asset, suppress_exceptions=True)


def refusal(plugin: Any, scheme: str, *, allow_private: bool = False) -> str | None:
    """Why the channel of ``plugin`` may not be used, or None: it names a file or URL for
    the judge to read (always refused); without ``allow_private``, the referee cannot
    tell where it connects, or one of its hosts does not resolve or resolves to an
    address that is not public (:func:`referee.mail.notify.guard.why_not_public`)."""
    reads = targets.local_reads(plugin)
    if reads:
        return reads
    if allow_private:
        return None
    try:
        found = targets.of(plugin, scheme)
    except targets.Unknown as exc:
        return f"{exc}; {PRIVATE_HINT}"
    for target in found:
        why = netguard.refusal(target.host)
        if why:
            hint = "" if why == netguard.UNRESOLVED else f"; {PRIVATE_HINT}"
            return f"{target.what} {why}{hint}"
    return None


def _bounded(plugin: Any) -> None:
    """The knobs a URL may turn in apprise bounded: its connect and read timeouts at
    :data:`TIMEOUT_MAX`, apprise's own retries off (the referee retries, :data:`TRIES`)."""
    for name in ("socket_connect_timeout", "socket_read_timeout"):
        value = getattr(plugin, name, None)
        if isinstance(value, int | float) and not 0 < value <= TIMEOUT_MAX:
            setattr(plugin, name, TIMEOUT_MAX)
    if hasattr(plugin, "retry"):
        plugin.retry = 0


def send(url: str, title: str, body: str, *, allow_private: bool = False,
         sleep: Callable[[float], None] = time.sleep, tries: int = TRIES) -> Sent:
    """Post one notification to ``url``, tried up to ``tries`` times (waiting
    :data:`BACKOFF` between tries). Without ``allow_private`` the channel is checked
    first (:func:`refusal`: DNS may have changed since it was set) and each try runs in
    :func:`referee.mail.notify.guard.guarded`. Never raises for a failed delivery: the result
    says what went wrong, without the URL. Raises UsageError when apprise is not
    installed."""
    apprise = _apprise()
    plugin = _plugin(apprise, url)
    if plugin is None:
        return Sent(False, 0, "apprise cannot read the URL")
    refused = refusal(plugin, scheme_of(url), allow_private=allow_private)
    if refused:
        return Sent(False, 0, f"not sent: {refused}")
    _bounded(plugin)
    error = ""
    for attempt in range(1, tries + 1):
        if attempt > 1:
            sleep(BACKOFF[min(attempt - 2, len(BACKOFF) - 1)])
        ok, error = _once(apprise, plugin, url, title, body, check=not allow_private)
        if ok:
            return Sent(True, attempt)
    return Sent(False, tries, error)


def _once(apprise: Any, plugin: Any, url: str, title: str, body: str, *, check: bool
          ) -> tuple[bool, str]:
    """One try, in the guard (``check``: public addresses only) and its deadline:
    (delivered, the last warning apprise logged, redacted)."""
    with apprise.LogCapture(level=apprise.logging.WARNING) as log, \
            netguard.guarded(check=check, deadline=DEADLINE) as sending:
        try:
            sender = apprise.Apprise(asset=plugin.asset)
            if not sender.add(plugin):
                return False, "apprise cannot read the URL"
            ok = bool(sender.notify(body=body, title=title))
        except Exception as exc:  # a plugin's own failure: told, never raised
            return False, redact(f"{type(exc).__name__}: {exc}", url)
        lines = [line for line in log.getvalue().splitlines() if line.strip()]
    if sending.expired:  # an answer cut off at the deadline may still look like a 200
        return False, f"no answer within {DEADLINE:g} seconds"
    if ok:
        return True, ""
    if sending.refused:  # apprise's own warning says only "a connection error"
        return False, f"not sent: {sending.refused}"
    last = lines[-1].split(" - ", 2)[-1] if lines else "the channel did not accept it"
    return False, redact(last, url)
