"""The hosts a channel connects to, read from the apprise plugin that will send it
(docs/notifications.md#which-hosts).

apprise parses a channel URL into a plugin object; that object, not the URL text, decides
where a notification goes: its host with any query parameter that moves it (``smtp=`` of
``mailto``, ``mode=`` of ``ntfy`` and ``matrix``, a Zulip organisation's host), or the
service's own address (Discord, Slack, Telegram, Pushover, Pushbullet, ntfy.sh). So the
same object that is checked is the one that sends (:func:`referee.mail.notify.send`).

:func:`of` gives every host a scheme's plugin connects to when it sends a text notice (no
attachment), as the sources of apprise 2 build its requests. What the referee cannot
enumerate is :class:`Unknown`, refused unless private targets are allowed: Matrix's server
discovery (``matrixs://`` looks up the host's ``.well-known`` and then talks to whatever
server that names), e-mail keys fetched from the recipients' domains (``wkd=``), and any
plugin whose attributes are not where these functions look (another apprise version).
:func:`local_reads` finds what makes the judge read a file or URL of the player's choice
(a ``template=``, a PGP key path): refused always.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


class Unknown(Exception):
    """The hosts of this channel cannot be told (the reason, for the player)."""


@dataclass(frozen=True)
class Target:
    """A host a channel connects to, and what it is to the player (``its host``)."""

    host: str
    what: str


def _attr(plugin: Any, name: str) -> Any:
    try:
        return getattr(plugin, name)
    except AttributeError:
        raise Unknown(f"this apprise version has no {name!r} where the referee looks for "
                      "where the channel connects") from None


def _host(value: Any) -> str:
    host = str(value or "").strip().strip("[]")  # apprise keeps an IPv6 host's brackets
    if not host:
        raise Unknown("apprise found no host in it")
    return host


def _own(plugin: Any) -> list[Target]:
    """A self-hosted service's: the URL's host (``json://HOST/...``, ``mmost://HOST``)."""
    return [Target(_host(_attr(plugin, "host")), "its host")]


def _fixed(*names: str) -> Callable[[Any], list[Target]]:
    """A service's own hosts, read from the plugin class's URLs (``notify_url``)."""

    def hosts(plugin: Any) -> list[Target]:
        found = []
        for name in names:
            url = str(_attr(type(plugin), name)).replace("{}", "x")
            found.append(Target(_host(urlsplit(url).hostname), "the service's host"))
        return found

    return hosts


def _ntfy(plugin: Any) -> list[Target]:
    if _attr(plugin, "mode") == "cloud":  # ntfy://TOPIC: the public ntfy.sh
        return _fixed("cloud_notify_url")(plugin)
    return _own(plugin)


def _matrix(plugin: Any) -> list[Target]:
    mode = _attr(plugin, "mode")
    if mode == "t2bot":  # a literal URL in the plugin's webhook code
        return [Target("webhooks.t2bot.io", "the service's host")]
    if mode == "off" and _attr(plugin, "discovery") and _attr(plugin, "secure"):
        raise Unknown("with server discovery a matrixs:// channel posts to whichever server "
                      "its host's .well-known file names: add ?discovery=no and give the "
                      "homeserver's own host")
    return _own(plugin)


def _mail(plugin: Any) -> list[Target]:
    if _attr(plugin, "use_wkd"):
        raise Unknown("with wkd= the judge fetches keys from the recipients' domains")
    return [Target(_host(_attr(plugin, "smtp_host")), "its SMTP server (the host or smtp=)")]


def _zulip(plugin: Any) -> list[Target]:
    host = f"{_attr(plugin, 'organization')}.{_attr(plugin, 'hostname')}"
    return [Target(_host(host), "its Zulip server (ORGANIZATION.HOST)")]


_SLACK = _fixed("webhook_url", "webhook_gov_url", "workflow_url", "workflow_trigger_url",
                "api_url")

#: scheme -> the hosts its plugin connects to; a scheme not here is :class:`Unknown`
HOSTS: dict[str, Callable[[Any], list[Target]]] = {
    **{s: _own for s in ("json", "jsons", "form", "forms", "xml", "xmls", "gotify",
                         "gotifys", "apprise", "apprises", "mmost", "mmosts", "rocket",
                         "rockets", "signal", "signals")},
    "ntfy": _ntfy, "ntfys": _ntfy, "matrix": _matrix, "matrixs": _matrix,
    "mailto": _mail, "mailtos": _mail, "zulip": _zulip, "slack": _SLACK,
    "discord": _fixed("notify_url"), "tgram": _fixed("notify_url"),
    "pover": _fixed("notify_url"), "pbul": _fixed("notify_url"),
}


def of(plugin: Any, scheme: str) -> list[Target]:
    """Every host ``plugin`` (apprise's, for a ``scheme://`` URL) connects to, each once.
    Raises Unknown."""
    hosts = HOSTS.get(scheme)
    if hosts is None:
        raise Unknown(f"the referee does not know where a {scheme}:// channel connects")
    return list(dict.fromkeys(hosts(plugin)))


def local_reads(plugin: Any) -> str | None:
    """What in ``plugin`` makes the judge read a file or a URL the URL names (a
    ``template=`` is an apprise attachment: a path or a URL; a PGP key's path), or None."""
    for name, value in vars(plugin).items():
        if type(value).__name__ == "AppriseAttachment" and len(value):
            return f"its {name}= names a file or URL for the judge to read"
    for name, param in (("pgp_key", "pgppub"), ("pgp_privkey", "pgpprv")):
        if getattr(plugin, name, None):
            return f"its {param}= names a key file on the judge's machine"
    return None
