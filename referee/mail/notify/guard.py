"""The network guard of notification channels: a player's channel reaches public
addresses only (docs/notifications.md#which-hosts).

A channel URL is a player's input, and the judge (or `referee notify --test`) connects
where it says. Unless its operator allows private targets (``--notify-private``), every
address it connects to must be *public*: :func:`why_not_public` is ``None`` for it. That
is an allow list built on :attr:`ipaddress.IPv4Address.is_global`: loopback, private,
shared (``100.64.0.0/10``), link-local (``169.254.169.254``, a cloud's metadata service),
unspecified, reserved, documentation and multicast addresses are refused, and so is an
IPv6 address that carries one of those as an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``,
IPv4-compatible ``::a.b.c.d``, 6to4, NAT64).

The guard works at two moments:

- **before** a channel is set and before each send, :func:`refusal` resolves each host the
  channel will connect to the way the connection does (:data:`resolver`, the system's
  ``getaddrinfo``, which reads ``2130706433``, ``0x7f000001`` and ``0177.0.0.1`` as
  ``127.0.0.1`` too), and refuses it unless every address is public;
- **during** a send, inside :func:`guarded`: every name resolved through
  ``socket.getaddrinfo`` and every socket connected in that context is checked the same
  way, so that a redirect, a DNS answer that changed since the check (rebinding) or a
  host the referee did not know the plugin would use reaches no private address either.
  The send runs in the calling thread (the context is a :mod:`contextvars` variable, so
  work a library hands to a thread with a copy of the context stays guarded).

A guarded send also has a deadline: the sockets it opened are shut down when it passes, so
a server that answers one byte at a time cannot hold the judge (apprise's own timeouts
bound each read, not a whole answer).

The two hooks (``socket.getaddrinfo`` and ``socket.socket.connect``/``connect_ex``) are
installed once, at the first guarded send, and do nothing outside :func:`guarded`.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import ipaddress
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: the system's resolver, as it was before the guard's hook
SYSTEM_GETADDRINFO: Callable[..., list[Any]] = socket.getaddrinfo
#: how the guard resolves a name, before a send and during it (the hook calls it too).
#: Tests replace it with a resolver of their own (a hosts file) that hands every other
#: name on to :data:`SYSTEM_GETADDRINFO`.
resolver: Callable[..., list[Any]] = SYSTEM_GETADDRINFO

_SYSTEM_CONNECT = socket.socket.connect
_SYSTEM_CONNECT_EX = socket.socket.connect_ex
_ACTIVE: contextvars.ContextVar[_Send | None] = contextvars.ContextVar(
    "referee_notify_guard", default=None)
_INSTALL = threading.Lock()
_installed = False

_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_COMPATIBLE = ipaddress.ip_network("::/96")  # the deprecated IPv4-compatible ::a.b.c.d


UNRESOLVED = "does not resolve"


class Refused(OSError):
    """A guarded send tried to reach an address that is not public."""


# --- the policy ----------------------------------------------------------------------


def parse(text: str) -> Address | None:
    """``text`` (an address as a socket writes it, maybe with an IPv6 zone) as an
    address, or None when it is no address."""
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def _embedded(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64, compatible)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if any(address in net for net in _NAT64) or (
            address in _COMPATIBLE and int(address) > 1):  # :: and ::1 are IPv6's own
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def why_not_public(address: Address) -> str | None:
    """What kind of non-public address ``address`` is (``loopback``, ``private``...), or
    None for a public one: :attr:`is_global`, not multicast, and so is the IPv4 address
    an IPv6 one stands for."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded(address)
        if inner is not None:
            why = why_not_public(inner)
            return None if why is None else f"{why} (as IPv6)"
        if address.is_site_local:
            return "site-local"
    checks = (("loopback", address.is_loopback), ("unspecified", address.is_unspecified),
              ("link-local", address.is_link_local), ("multicast", address.is_multicast),
              ("shared (100.64.0.0/10)", address in _SHARED),
              ("private", address.is_private))
    for kind, hit in checks:
        if hit:
            return kind
    return None if address.is_global else "reserved"


def resolve(host: str) -> list[Address]:
    """Every address ``host`` resolves to now, as a TCP connection resolves it. Raises
    OSError (also UnicodeError, a kind of ValueError) when it does not resolve."""
    infos = resolver(host, None, 0, socket.SOCK_STREAM)
    found = [parse(str(info[4][0])) for info in infos]
    return [a for a in dict.fromkeys(found) if a is not None]


def refusal(host: str) -> str | None:
    """Why a channel may not connect to ``host`` (it does not resolve, or one of its
    addresses is not public), or None."""
    literal = parse(host.strip("[]"))
    try:
        addresses = [literal] if literal is not None else resolve(host)
    except (OSError, ValueError):
        return UNRESOLVED
    if not addresses:
        return UNRESOLVED
    for address in addresses:
        why = why_not_public(address)
        if why is not None:
            return f"resolves to {_a(why)} address"
    return None


def _a(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


# --- the guard during a send ---------------------------------------------------------


class _Send:
    """One guarded send: whether it checks addresses, the sockets it opened (cut off at
    its deadline), whether the deadline passed."""

    def __init__(self, check: bool) -> None:
        self.check = check
        self.sockets: list[socket.socket] = []
        self.expired = False
        self.refused = ""  # the last connection the guard refused, and why
        self.lock = threading.Lock()

    def track(self, sock: socket.socket) -> None:
        with self.lock:
            if self.expired:
                raise Refused(errno.ETIMEDOUT, "the send took too long")
            self.sockets.append(sock)

    def cut(self) -> None:
        """The deadline: every socket of the send shut down (a blocked read returns), no
        new one connected."""
        with self.lock:
            self.expired = True
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    # the plain socket's shutdown: an SSL socket's own would change its
                    # state under the thread that reads it
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)


@contextlib.contextmanager
def guarded(*, check: bool = True, deadline: float | None = None) -> Iterator[_Send]:
    """Within this block (this thread, this context): with ``check``, no connection
    reaches an address that is not public (a name that resolves to one raises
    ``socket.gaierror``, a connect to one :class:`Refused`); after ``deadline`` seconds
    every socket it opened is shut down. Yields the send (``expired``: the deadline
    passed)."""
    _install()
    send = _Send(check)
    token = _ACTIVE.set(send)
    timer = None
    if deadline is not None:
        timer = threading.Timer(deadline, send.cut)
        timer.daemon = True
        timer.start()
    try:
        yield send
    finally:
        if timer is not None:
            timer.cancel()
        _ACTIVE.reset(token)
        send.sockets.clear()


def _install() -> None:
    global _installed
    with _INSTALL:
        if _installed:
            return
        socket.getaddrinfo = _getaddrinfo
        socket.socket.connect = _connect  # type: ignore[method-assign, assignment]
        socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign, assignment]
        _installed = True


_INET = (socket.AF_INET, socket.AF_INET6)


def _getaddrinfo(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0,
                 flags: int = 0) -> list[Any]:
    """``socket.getaddrinfo`` through :data:`resolver`; in a checking send an answer with
    an address that is not public is refused whole."""
    infos = resolver(host, port, family, type, proto, flags)
    send = _ACTIVE.get()
    if send is not None and send.check:
        for info in infos:
            address = parse(str(info[4][0])) if info[0] in _INET else None
            why = "no IP" if address is None else why_not_public(address)
            if why is not None:
                send.refused = ("the referee posts to public addresses only, not to "
                                f"{_a(why)} address")
                raise socket.gaierror(socket.EAI_NONAME, send.refused)
    return infos


def _peer_refusal(sock: socket.socket, address: Any) -> str | None:
    """Why a checking send's socket may not connect to ``address``, or None."""
    if sock.family not in _INET:
        return "a local socket"
    peer = parse(str(address[0])) if isinstance(address, tuple) and address else None
    if peer is None:  # a name, resolved by the C library past the guard's resolver
        return "a host name that was not resolved through the guard"
    why = why_not_public(peer)
    return None if why is None else f"{_a(why)} address"


def _connect(self: socket.socket, address: Any) -> None:
    send = _ACTIVE.get()
    if send is not None:
        why = _peer_refusal(self, address) if send.check else None
        if why is not None:
            send.refused = f"the referee posts to public addresses only, not to {why}"
            raise Refused(errno.EACCES, send.refused)
        send.track(self)
    _SYSTEM_CONNECT(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    send = _ACTIVE.get()
    if send is not None:
        if send.check and _peer_refusal(self, address) is not None:
            return errno.EACCES
        try:
            send.track(self)
        except Refused:
            return errno.ETIMEDOUT
    return _SYSTEM_CONNECT_EX(self, address)
