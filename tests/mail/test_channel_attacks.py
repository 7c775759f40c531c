"""A player's channel never reaches the judge's own machine or network (issue 30, item 1).

Each attack sets a hostile channel the ways a player can (`referee notify`, a mailed
`notify via URL` to the judge, a record already in the game file) against real listeners
on loopback: an HTTP server (on 127.0.0.1 and ::1) and an SMTP server, each recording
every TCP connection it accepts. Hostile forms: decimal, hex, octal and zero-padded IPv4,
0.0.0.0, IPv6 loopback in short and long form, IPv4-mapped IPv6, a trailing dot, the
self-hosted services that carry the player's credentials (Rocket.Chat, Matrix), `mailto`
whose `smtp=` or host is the judge's, a public-looking name that resolves to loopback (the
test's own hosts table, :func:`hosts`, which the connection resolves through too), a
mixed answer, and addresses no listener can stand for (carrier NAT, link-local metadata,
private, NAT64 and 6to4 forms of loopback). Each is refused when it is set, with its
reason, and the listener is never reached; the same URL with `--notify-private` does
reach it, so every attack is live. Past the set-time check: a channel stored while
allowed is refused before the send; with the host check switched off, the guard around
the send alone stops every attack; a DNS answer that changes between the check and the
connection (rebinding) and a redirect from a "public" server (127.0.0.2, which the test
declares public) to loopback are refused at the connection. Also: the address policy
address by address, channels that make the judge read a file (refused always), hosts
that cannot be told (refused without `--notify-private`), the deadline of a send and the
bounds on apprise's timeouts.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from referee.mail import notify
from referee.mail.notify import guard, targets
from tests.conftest import free_port, ok, require_module, run
from tests.judge.support import body_text, reply
from tests.judge.test_maildir_loop import Setup
from tests.mail.test_notify import sealed_game
from tests.support.judgestate import read_state

# --- listeners --------------------------------------------------------------------------


@dataclass
class Tap:
    """A listener's record: every connection it accepted, every HTTP request's path."""

    port: int = 0
    connections: list[Any] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    redirect: str | None = None  # answer every request with a 307 to this URL
    ipv6: bool = False  # also listening on ::1


def _handler(tap: Tap) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(size)
            tap.paths.append(self.path)
            if tap.redirect:
                self.send_response(307)
                self.send_header("Location", tap.redirect)
            else:
                self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET = _answer

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


class _Recording(ThreadingHTTPServer):
    tap: Tap

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.tap.connections.append(client_address)  # every connection, before any byte
        return True


class _Recording6(_Recording):
    address_family = socket.AF_INET6

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()


def _serve(tap: Tap, cls: type[_Recording], host: str, port: int) -> _Recording:
    server = cls((host, port), _handler(tap))
    server.tap = tap
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def http_tap() -> Iterator[Tap]:
    """An HTTP server on 127.0.0.1 and, at the same port, on ::1."""
    require_module("apprise")
    tap = Tap()
    servers = [_serve(tap, _Recording, "127.0.0.1", 0)]
    tap.port = servers[0].server_address[1]
    with contextlib.suppress(OSError):  # without IPv6 loopback its forms reach nothing
        servers.append(_serve(tap, _Recording6, "::1", tap.port))
        tap.ipv6 = True
    yield tap
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def smtp_tap() -> Iterator[Tap]:
    """An SMTP server (aiosmtpd) on 127.0.0.1 that records every connection."""
    controller_mod = require_module("aiosmtpd.controller")
    smtp_mod = require_module("aiosmtpd.smtp")
    tap = Tap()

    class Recording(smtp_mod.SMTP):  # type: ignore[misc,name-defined]
        def connection_made(self, transport: Any) -> None:
            tap.connections.append(transport.get_extra_info("peername"))
            super().connection_made(transport)

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            tap.paths.append(",".join(envelope.rcpt_tos))
            return "250 Message accepted"

    class Controller(controller_mod.Controller):  # type: ignore[misc,name-defined]
        def factory(self) -> Any:
            return Recording(self.handler, **self.SMTP_kwargs)

    for _ in range(5):  # the free port can be taken between probe and bind
        tap.port = free_port()
        controller = Controller(Handler(), hostname="127.0.0.1", port=tap.port,
                                ready_timeout=5)
        with contextlib.suppress(OSError, RuntimeError):
            controller.start()
            break
    else:
        raise RuntimeError("cannot start a local SMTP server")
    tap.connections.clear()  # the controller's own check that it is up
    yield tap
    controller.stop()


# --- the test's own hosts table ------------------------------------------------------------


Entry = list[str] | Callable[[], list[str]]


@pytest.fixture
def hosts(monkeypatch: pytest.MonkeyPatch) -> dict[str, Entry]:
    """Names the test makes resolve as it says, for the guard's checks and for every
    connection made in a send (the guard's resolver is what ``socket.getaddrinfo``
    calls); any other name resolves as the system resolves it."""
    table: dict[str, Entry] = {}

    def resolve(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0,
                flags: int = 0) -> list[Any]:
        name = (host.decode() if isinstance(host, bytes) else str(host)).lower().rstrip(".")
        entry = table.get(name)
        if entry is None:
            return guard.SYSTEM_GETADDRINFO(host, port, family, type, proto, flags)
        found = []
        for address in entry() if callable(entry) else entry:
            six = ":" in address
            if family not in (0, socket.AF_INET6 if six else socket.AF_INET):
                continue
            sockaddr = (address, int(port or 0), 0, 0) if six else (address, int(port or 0))
            found.append((socket.AF_INET6 if six else socket.AF_INET, socket.SOCK_STREAM,
                          socket.IPPROTO_TCP, "", sockaddr))
        return found

    monkeypatch.setattr(guard, "resolver", resolve)
    return table


STAND_IN = ipaddress.ip_address("127.0.0.2")


@pytest.fixture
def public_stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """127.0.0.2 counts as a public address in this test: the 'public' server of an
    attack that must then be caught further on (127.0.0.1 stays loopback)."""
    policy = guard.why_not_public
    monkeypatch.setattr(guard, "why_not_public",
                        lambda address: None if address == STAND_IN else policy(address))


# --- the hostile channels ------------------------------------------------------------------

LIVE = "json://hooks.example.org"  # a public-looking name that resolves to loopback
HTTP_ATTACKS = [  # (id, URL with {p} for the HTTP listener's port, words of the refusal)
    ("decimal", "json://2130706433:{p}/x", "loopback"),
    ("hex", "mmost://0x7f000001:{p}/abcdefghijklmnopqrstuvwxyz", "loopback"),
    ("decimal-ntfy", "ntfy://2130706433:{p}/topic", "loopback"),
    ("octal", "signal://0177.0.0.1:{p}/+15555555555/+15555555556", "loopback"),
    ("zero-padded", "json://127.000.000.001:{p}/x", "loopback"),
    ("unspecified", "json://0.0.0.0:{p}/x", "unspecified"),
    ("ipv6-loopback", "json://[::1]:{p}/x", "loopback"),
    ("ipv6-long", "json://[0:0:0:0:0:0:0:1]:{p}/x", "loopback"),
    ("ipv4-mapped", "json://[::ffff:7f00:1]:{p}/x", "loopback (as IPv6)"),
    ("trailing-dot", "json://localhost.:{p}/x", "loopback"),
    ("rocket-credentials", "rocket://user:pass@127.0.0.1:{p}/#room", "loopback"),
    ("matrix-credentials", "matrix://user:pass@127.0.0.1:{p}/#room", "loopback"),
    ("gotify", "gotify://127.0.0.1:{p}/abcdefghijklmno", "loopback"),
    ("apprise-api", "apprise://127.0.0.1:{p}/token", "loopback"),
    ("xml", "xml://127.0.0.1:{p}/x", "loopback"),
    ("public-name", LIVE + ":{p}/x", "loopback"),
    ("mixed-answer", "json://mixed.example.org:{p}/x", "loopback"),
]
SMTP_ATTACKS = [  # the same with {p} for the SMTP listener's port
    ("mailto-smtp", "mailto://a@b.org?smtp=127.0.0.1&port={p}&from=x@y.org&mode=insecure",
     "SMTP server"),
    ("mailto-smtp-decimal",
     "mailto://a@8.8.8.8?smtp=2130706433&port={p}&from=x@y.org&mode=insecure", "SMTP server"),
    ("mailto-smtp-name",
     "mailto://a@b.org?smtp=mail.example.org&port={p}&from=x@y.org&mode=insecure",
     "SMTP server"),
    ("mailto-host", "mailto://user:pw@127.0.0.1:{p}?from=x@y.org&to=a@b.org&mode=insecure",
     "SMTP server"),
]
UNREACHABLE = [  # no listener can stand for these: the refusal and its reason
    ("carrier-nat", "json://100.64.0.1/x", "shared (100.64.0.0/10)"),
    ("carrier-nat-name", "json://cgnat.example.org/x", "shared (100.64.0.0/10)"),
    ("metadata", "json://169.254.169.254/latest/meta-data", "link-local"),
    ("private", "json://192.168.1.10/x", "private"),
    ("ipv6-private", "json://[fd00::1]/x", "private"),
    ("ipv6-link-local", "json://[fe80::1]/x", "link-local"),
    ("ipv6-site-local", "json://[fec0::1]/x", "site-local"),
    ("nat64-loopback", "json://[64:ff9b::7f00:1]/x", "loopback (as IPv6)"),
    ("6to4-loopback", "json://[2002:7f00:1::]/x", "loopback (as IPv6)"),
    ("multicast", "json://224.0.0.1/x", "multicast"),
    ("zulip-org-host", "zulip://bot@127.0.0.1/abcdefghijklmnopqrstuvwxyz123456",
     "Zulip server"),
    ("vendor-host", "discord://1234567/token", "the service's host"),
]


@pytest.fixture
def table(hosts: dict[str, Entry]) -> dict[str, Entry]:
    hosts.update({"hooks.example.org": ["127.0.0.1"], "mail.example.org": ["127.0.0.1"],
                  "mixed.example.org": ["93.184.215.14", "127.0.0.1"],
                  "cgnat.example.org": ["100.64.12.34"],
                  "discord.com": ["10.0.0.7"]})  # a judge whose DNS puts a vendor inside
    return hosts


def _refused_by_cli(path: Path, url: str, *words: str, test: bool = False) -> str:
    before = path.read_bytes()
    result = run("notify", path, "--as", "ann", url, *(("--test",) if test else ()))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert [ln for ln in result.output.splitlines() if ln.startswith("error:")] == [
        result.output.splitlines()[0]]
    text = " ".join(result.output.split())
    assert "channel is refused" in text, text
    for word in words:
        assert word in text, text
    for part in ("pass", "abcdefghij", "+1555", "meta-data", "/x"):
        assert part not in text.replace("--notify-private", "")
    assert path.read_bytes() == before
    return text


def _control_reaches(path: Path, url: str, tap: Tap) -> None:
    """The same URL with --notify-private does connect (delivered or not: a Matrix login
    fails against a plain HTTP server, but it came): the attack is live."""
    result = run("notify", path, "--notify-private", "--as", "ann", url, "--test")
    assert result.exit_code in (0, 1), result.output
    assert tap.connections, f"the control never reached the listener: {result.output}"


@pytest.mark.slow
@pytest.mark.parametrize("name, url, words", HTTP_ATTACKS, ids=[a[0] for a in HTTP_ATTACKS])
def test_a_hostile_http_channel_is_refused_by_referee_notify(
        tmp_path: Path, http_tap: Tap, table: dict[str, Entry], name: str, url: str,
        words: str) -> None:
    path = sealed_game(tmp_path)
    url = url.format(p=http_tap.port)
    reason = _refused_by_cli(path, url, words, "--notify-private")
    assert "resolves to" in reason
    _refused_by_cli(path, url, words, test=True)  # a test notice is checked the same way
    assert http_tap.connections == []
    if "[" not in url or http_tap.ipv6:  # (a machine without IPv6 loopback: no control)
        _control_reaches(path, url, http_tap)


@pytest.mark.slow
@pytest.mark.parametrize("name, url, words", SMTP_ATTACKS, ids=[a[0] for a in SMTP_ATTACKS])
def test_a_hostile_mailto_channel_is_refused_by_referee_notify(
        tmp_path: Path, smtp_tap: Tap, table: dict[str, Entry], name: str, url: str,
        words: str) -> None:
    path = sealed_game(tmp_path)
    url = url.format(p=smtp_tap.port)
    _refused_by_cli(path, url, words, "loopback", "--notify-private")
    _refused_by_cli(path, url, words, test=True)
    assert smtp_tap.connections == []
    _control_reaches(path, url, smtp_tap)


@pytest.mark.parametrize("name, url, words", UNREACHABLE, ids=[a[0] for a in UNREACHABLE])
def test_a_channel_to_any_non_public_address_is_refused(
        tmp_path: Path, table: dict[str, Entry], name: str, url: str, words: str) -> None:
    require_module("apprise")
    path = sealed_game(tmp_path)
    _refused_by_cli(path, url, words, "--notify-private")
    sent = notify.send(url, "t", "b", sleep=lambda s: None)
    assert sent.tries == 0 and not sent.ok and words in sent.error


# --- by mail ----------------------------------------------------------------------------------


def _judge(tmp_path: Path, *options: str) -> Setup:
    setup = Setup(tmp_path)
    setup.options = options
    setup.judge()
    setup.new_mail()
    return setup


def _answer(setup: Setup, pid: str, line: str) -> str:
    answers = setup.send(reply(setup.latest(pid), line))
    mine = [m for m in answers if m["X-Referee-Player"] == pid]
    assert len(mine) == 1, [body_text(m) for m in answers]
    return " ".join(body_text(mine[0]).split())


@pytest.mark.slow
def test_hostile_channels_set_by_mail_are_refused_and_never_reached(
        tmp_path: Path, http_tap: Tap, smtp_tap: Tap, table: dict[str, Entry]) -> None:
    setup = _judge(tmp_path)
    attacks = [(u.format(p=http_tap.port), w) for _, u, w in HTTP_ATTACKS]
    attacks += [(u.format(p=smtp_tap.port), w) for _, u, w in SMTP_ATTACKS]
    attacks += [(u, w) for _, u, w in UNREACHABLE]
    for url, words in attacks:
        told = _answer(setup, "ben", f"notify via {url} only")
        assert "`notify via` not done" in told and "channel is refused" in told, (url, told)
        assert words in told and "--notify-private" in told, (url, told)
        assert "pass@" not in told and "abcdefghij" not in told
    setup.send(reply(setup.latest("ann"), "take 1"))  # ben's turn: a notice for him
    setup.send(reply(setup.latest("ben"), "take 1"))
    assert http_tap.connections == [] and smtp_tap.connections == []
    state = read_state(setup.games)
    assert not state.get("channels", {}).get("toy-1", {}).get("ben", {}).get("url")


def test_the_honest_loopback_channel_with_notify_private_is_notified(
        tmp_path: Path, http_tap: Tap, smtp_tap: Tap) -> None:
    setup = _judge(tmp_path, "--notify-private")
    told = _answer(setup, "ben", f"notify via json://127.0.0.1:{http_tap.port}/ben")
    assert "Your notification channel is json://127.0.0.1, besides the mail." in told
    mail = f"mailto://a@b.org?smtp=127.0.0.1&port={smtp_tap.port}&from=x@y.org&mode=insecure"
    assert "channel is" in _answer(setup, "ann", f"notify via {mail}")
    setup.send(reply(setup.latest("ann"), "take 1"))  # ann's confirmation, ben's turn
    assert http_tap.paths == ["/ben"] and len(smtp_tap.paths) == 1


def test_a_channel_stored_while_allowed_is_refused_before_each_send(
        tmp_path: Path, http_tap: Tap) -> None:
    """Set with --notify-private (in the file by `referee notify`, and by mail), then the
    judge runs without it: nothing is sent, and the player is told why."""
    setup = _judge(tmp_path, "--notify-private")
    url = f"json://2130706433:{http_tap.port}/stored"
    ok("notify", setup.path, "--notify-private", "--as", "ben", url)
    _answer(setup, "ann", f"notify via json://[::1]:{http_tap.port}/ann")
    http_tap.connections.clear()  # (what the judge sent while it allowed them)
    setup.options = ()
    out = setup.send(reply(setup.latest("ann"), "take 1"))
    assert http_tap.connections == []
    texts = {m["X-Referee-Player"]: " ".join(body_text(m).split()) for m in out}
    for pid in ("ben", "ann"):  # ann's confirmation and ben's turn: notices both
        assert "Your notification channel failed" in texts[pid], texts[pid]
        assert "not sent: its host resolves to a loopback address" in texts[pid]
    result = run("notify", setup.path, "--as", "ben", "--test")  # the stored one, tested
    assert result.exit_code == 1 and "loopback" in result.output
    assert http_tap.connections == []


# --- past the set-time check: rebinding, redirects, the guard itself ----------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind, name, url", [("http", *a[:2]) for a in HTTP_ATTACKS]
                         + [("smtp", *a[:2]) for a in SMTP_ATTACKS],
                         ids=[a[0] for a in HTTP_ATTACKS + SMTP_ATTACKS])
def test_the_connection_guard_alone_stops_every_attack(
        monkeypatch: pytest.MonkeyPatch, http_tap: Tap, smtp_tap: Tap,
        table: dict[str, Entry], kind: str, name: str, url: str) -> None:
    """With the host check switched off (as if it had missed a parameter), the guard
    around the send still reaches no listener; the control without it does."""
    tap = http_tap if kind == "http" else smtp_tap
    url = url.format(p=tap.port)
    monkeypatch.setattr(notify, "refusal", lambda *args, **kwargs: None)
    sent = notify.send(url, "t", "b", sleep=lambda s: None)
    assert not sent.ok and "public addresses only" in sent.error, sent
    assert tap.connections == []
    if "[" not in url or tap.ipv6:
        notify.send(url, "t", "b", allow_private=True, tries=1)
        assert tap.connections


def in_a_send() -> bool:
    """Whether this code runs inside a guarded send (guard.guarded)."""
    return guard._ACTIVE.get() is not None


@pytest.mark.slow
def test_a_dns_answer_that_changes_after_the_check_is_refused_at_the_connection(
        tmp_path: Path, http_tap: Tap, hosts: dict[str, Entry],
        public_stand_in: None) -> None:
    # "public" (127.0.0.2) for every look-up outside a send, loopback inside it: the
    # answer an attacker's DNS gives between the check and the connection
    hosts["rebind.example.org"] = lambda: ["127.0.0.1" if in_a_send() else "127.0.0.2"]
    path = sealed_game(tmp_path)
    url = f"json://rebind.example.org:{http_tap.port}/rebound"
    result = run("notify", path, "--as", "ann", url, "--test")
    assert result.exit_code == 1, result.output  # accepted, checked again, then refused
    assert "public addresses only" in result.output and "nothing was stored" in result.output
    assert http_tap.connections == []
    sent = notify.send(url, "t", "b", sleep=lambda s: None)
    assert not sent.ok and sent.tries == notify.TRIES and http_tap.connections == []
    assert notify.send(url, "t", "b", allow_private=True).ok  # the control: it was live
    assert http_tap.paths == ["/rebound"]


@pytest.fixture
def redirector(http_tap: Tap, hosts: dict[str, Entry], public_stand_in: None
               ) -> Iterator[Tap]:
    """A 'public' server (127.0.0.2, as redirect.example.org) that answers every post with
    a redirect to the loopback listener."""
    tap = Tap(redirect=f"http://127.0.0.1:{http_tap.port}/landed")
    server = _serve(tap, _Recording, "127.0.0.2", 0)
    tap.port = server.server_address[1]
    hosts["redirect.example.org"] = ["127.0.0.2"]
    yield tap
    server.shutdown()
    server.server_close()


@pytest.mark.slow
def test_a_redirect_to_loopback_is_not_followed(tmp_path: Path, http_tap: Tap,
                                                redirector: Tap) -> None:
    setup = _judge(tmp_path)
    url = f"json://redirect.example.org:{redirector.port}/hook?redirect=yes"
    assert "channel is json://redirect.example.org" in _answer(setup, "ben", f"notify via {url}")
    out = setup.send(reply(setup.latest("ann"), "take 1"))
    assert redirector.paths and http_tap.connections == []  # posted, redirected, refused
    ben = " ".join(body_text(next(m for m in out if m["X-Referee-Player"] == "ben")).split())
    assert "Your notification channel failed" in ben
    assert notify.send(url, "t", "b", allow_private=True).ok  # the control: it does lead there
    assert http_tap.paths == ["/landed"]


def test_the_guard_refuses_every_connection_to_a_non_public_address(http_tap: Tap) -> None:
    with guard.guarded():
        with pytest.raises(socket.gaierror, match="public addresses only"):
            socket.create_connection(("localhost", http_tap.port), timeout=2)
        with pytest.raises(guard.Refused, match="loopback"), socket.socket() as sock:
            sock.connect(("127.0.0.1", http_tap.port))
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", http_tap.port)) != 0
        with pytest.raises(guard.Refused, match="host name"), socket.socket() as sock:
            sock.connect(("localhost", http_tap.port))  # a name the C library would resolve
        with pytest.raises(guard.Refused, match="local socket"), \
                socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(Path("/nonexistent/socket")))
    assert http_tap.connections == []
    with guard.guarded(check=False):  # a send with --notify-private
        socket.create_connection(("127.0.0.1", http_tap.port), timeout=2).close()
    socket.create_connection(("127.0.0.1", http_tap.port), timeout=2).close()  # outside
    deadline = time.monotonic() + 2
    while len(http_tap.connections) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(http_tap.connections) == 2


@pytest.mark.parametrize("address, public", [
    ("8.8.8.8", True), ("2001:4860:4860::8888", True), ("::ffff:8.8.8.8", True),
    ("2002:808:808::", True), ("127.0.0.1", False), ("127.255.0.9", False),
    ("0.0.0.0", False), ("10.1.2.3", False), ("172.16.0.1", False), ("192.168.0.1", False),
    ("100.64.0.1", False), ("100.127.255.254", False), ("169.254.169.254", False),
    ("192.0.2.1", False), ("198.18.0.1", False), ("224.0.0.251", False),
    ("255.255.255.255", False), ("240.0.0.1", False), ("::1", False), ("::", False),
    ("::ffff:127.0.0.1", False), ("::ffff:10.0.0.1", False), ("::127.0.0.1", False),
    ("64:ff9b::a00:1", False), ("64:ff9b:1::7f00:1", False), ("2002:a00:1::", False),
    ("fe80::1", False), ("fec0::1", False), ("fd12:3456::1", False), ("ff02::1", False),
    ("2001:db8::1", False),
])
def test_the_address_policy_is_an_allow_list(address: str, public: bool) -> None:
    assert (guard.why_not_public(ipaddress.ip_address(address)) is None) is public


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "127.1",
                                  "017700000001", "localhost", "[::1]"])
def test_every_written_form_of_loopback_resolves_to_it(host: str) -> None:
    assert guard.refusal(host) == "resolves to a loopback address"


def test_every_allowed_scheme_knows_its_hosts() -> None:
    assert set(notify.SCHEMES) == set(targets.HOSTS)
    with pytest.raises(targets.Unknown, match="no 'host'"):
        targets.of(object(), "json")  # another apprise version: refused, not guessed
    with pytest.raises(targets.Unknown, match="does not know"):
        targets.of(object(), "msteams")


@pytest.mark.parametrize("url, words", [
    ("discord://1234567/token?template=/etc/passwd", "template= names a file"),
    ("tgram://123456789:abcdefg_hijklmnop/12345?template=http://127.0.0.1:9/t",
     "template= names a file"),
    ("mailto://a@b.org?smtp=mail.b.org&from=x@y.org&pgppub=/root/key.pub", "pgppub="),
    ("mailto://a@b.org?smtp=mail.b.org&from=x@y.org&pgpprv=/root/key", "pgpprv="),
])
def test_a_channel_that_makes_the_judge_read_a_file_is_refused_always(
        tmp_path: Path, url: str, words: str) -> None:
    require_module("apprise")
    path = sealed_game(tmp_path)
    for extra in ((), ("--notify-private",)):
        result = run("notify", path, "--as", "ann", url, *extra)
        assert result.exit_code == 2 and words in result.output, result.output
        assert "passwd" not in result.output and "/root" not in result.output


@pytest.mark.parametrize("url, words", [
    ("matrixs://user:pass@matrix.example.org/#room", "?discovery=no"),
    ("mailtos://u:p@example.org?smtp=mail.example.org&from=x@y.org&wkd=yes", "wkd="),
])
def test_a_channel_whose_hosts_cannot_be_told_needs_notify_private(
        tmp_path: Path, http_tap: Tap, url: str, words: str) -> None:
    path = sealed_game(tmp_path)
    result = run("notify", path, "--as", "ann", url)
    assert result.exit_code == 2 and words in result.output, result.output
    assert "--notify-private" in result.output
    ok("notify", path, "--notify-private", "--as", "ann", url)


def test_a_slow_answer_is_cut_off_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    require_module("apprise")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def drip() -> None:  # an answer one byte at a time, each within apprise's read timeout
        conn, _ = listener.accept()
        with conn, contextlib.suppress(OSError):
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.wait(0.2):
                conn.sendall(b"X")

    threading.Thread(target=drip, daemon=True).start()
    monkeypatch.setattr(notify, "DEADLINE", 1.0)
    started = time.monotonic()
    url = f"json://127.0.0.1:{listener.getsockname()[1]}/slow?rto=1000"
    sent = notify.send(url, "t", "b", allow_private=True, tries=1)
    stop.set()
    listener.close()
    assert not sent.ok and "no answer within 1 seconds" in sent.error
    assert time.monotonic() - started < 8


def test_a_url_cannot_lengthen_apprises_timeouts_or_retries() -> None:
    apprise = require_module("apprise")
    plugin = notify._plugin(apprise, "json://example.org/x?rto=1000&cto=1000&retry=10")
    notify._bounded(plugin)
    assert plugin.socket_read_timeout <= notify.TIMEOUT_MAX
    assert plugin.socket_connect_timeout <= notify.TIMEOUT_MAX and plugin.retry == 0
