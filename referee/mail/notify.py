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
schemes (a desktop notification, syslog, a file) are refused. Sending is retried
(:data:`TRIES` tries, waiting :data:`BACKOFF` seconds between them: bounded), and what
went wrong is told without the URL (:func:`redact`).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from referee.errors import GameFileError, UsageError
from referee.ledger import vouch
from referee.ledger.fileformat import CHANNEL_URL_MAX
from referee.play import writecore

if TYPE_CHECKING:
    from referee.ledger.gamefile import GameFile

#: the network schemes a channel may use (each one apprise knows; the ``s`` forms are
#: the same service over TLS)
SCHEMES = (
    "json", "jsons", "form", "forms", "xml", "xmls",  # plain webhooks
    "discord", "slack", "msteams", "matrix", "matrixs", "mmost", "mmosts",
    "rocket", "rockets", "zulip", "tgram", "signal", "signals",
    "ntfy", "ntfys", "gotify", "gotifys", "pover", "pbul", "apprise", "apprises",
    "mailto", "mailtos",
)
#: schemes whose host is the very server the notification is posted to
WEBHOOK_SCHEMES = ("json", "jsons", "form", "forms", "xml", "xmls", "gotify", "gotifys",
                   "apprise", "apprises")
VIA = ("also", "only", "off")
TRIES = 3  # tries of one notification
BACKOFF = (0.5, 2.0)  # seconds waited before the second and the third try
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
    if _apprise().Apprise.instantiate(url, suppress_exceptions=True) is None:
        raise UsageError(f"apprise cannot read this {scheme}:// URL",
                         hints=["the URL forms: https://appriseit.com/services/"])
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
           ) -> dict[str, Any]:
    """The ``channel`` meta object: the URL sealed to the referee recipient (a sealed
    game only), or ``off``. Raises UsageError, GameFileError."""
    if url is None or via == "off":
        return {"kind": "channel", "player": player, "via": "off"}
    if "commitment" not in data["rng"]:
        raise UsageError("this game is open: it has no referee key to seal a channel URL "
                         "to, and a URL in the file would be readable by anyone",
                         hints=["set your channel by mail with the judge (`notify via "
                                "URL`), which keeps it in its private state",
                                "or play a sealed game (referee new --sealed)"])
    if data["rng"].get("seed") is not None:
        raise UsageError("the game's seed is revealed: anything sealed in it now is "
                         "readable by anyone, so no channel URL is stored")
    from referee.ledger.gamefile import sealed_recipient

    return {"kind": "channel", "player": player, "via": via,
            "sealed": vouch.seal(sealed_recipient(data), {"url": url})}


def set_channel(path: Path, player: str, url: str | None, via: str = "also", *,
                secret_path: Path | None = None, extra: Mapping[str, Any] | None = None,
                guard: writecore.Guard | None = None) -> tuple[dict[str, Any], GameFile]:
    """Write ``player``'s channel (``url`` None or ``via`` ``off``: none) as one
    ``channel`` record through the write core; returns the entry and the new file.
    Raises UsageError and the errors of a write."""
    if via not in VIA:
        raise UsageError(f"via is one of {', '.join(VIA)}, not {via!r}")
    if url is not None and via != "off":
        url = check_url(url)
    with writecore.transaction(path, secret_path=secret_path, replayed=False,
                               guard=guard) as tx:
        tx.gf.player(player)
        entry = tx.append({"by": player, "meta": record(tx.gf.data, player, url, via)},
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


def private_target(url: str) -> str | None:
    """Why ``url`` posts to this machine or its private network (loopback, private,
    link-local or reserved addresses, as the host resolves now), or None. Only for
    the hosts that are the target: a webhook's, or a host name of a self-hosted service."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return "its host cannot be read"
    if scheme_of(url) not in WEBHOOK_SCHEMES and not (
            host == "localhost" or "." in host or ":" in host):
        return None
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return "its host does not resolve"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if (address.is_private or address.is_loopback or address.is_link_local
                or address.is_reserved or address.is_multicast or address.is_unspecified):
            return "it posts to a private or local address"
    return None


def send(url: str, title: str, body: str, *, allow_private: bool = False,
         sleep: Callable[[float], None] = time.sleep, tries: int = TRIES) -> Sent:
    """Post one notification to ``url``, tried up to ``tries`` times (waiting
    :data:`BACKOFF` between tries). Never raises for a failed delivery: the result says
    what went wrong, without the URL. Raises UsageError when apprise is not installed."""
    apprise = _apprise()
    if not allow_private:
        refusal = private_target(url)
        if refusal:
            return Sent(False, 0, f"not sent: {refusal}")
    error = ""
    for attempt in range(1, tries + 1):
        if attempt > 1:
            sleep(BACKOFF[min(attempt - 2, len(BACKOFF) - 1)])
        ok, error = _once(apprise, url, title, body)
        if ok:
            return Sent(True, attempt)
    return Sent(False, tries, error)


def _once(apprise: Any, url: str, title: str, body: str) -> tuple[bool, str]:
    """One try: (delivered, the last warning apprise logged, redacted)."""
    with apprise.LogCapture(level=apprise.logging.WARNING) as log:
        try:
            asset = apprise.AppriseAsset(storage_mode="memory", secure_logging=True)
            sender = apprise.Apprise(asset=asset)
            if not sender.add(url):
                return False, "apprise cannot read the URL"
            ok = bool(sender.notify(body=body, title=title))
        except Exception as exc:  # a plugin's own failure: told, never raised
            return False, redact(f"{type(exc).__name__}: {exc}", url)
        lines = [line for line in log.getvalue().splitlines() if line.strip()]
    if ok:
        return True, ""
    last = lines[-1].split(" - ", 2)[-1] if lines else "the channel did not accept it"
    return False, redact(last, url)
