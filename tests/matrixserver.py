"""A real Matrix homeserver for the tests: Synapse, started once per test session.

Synapse lives in a venv of its own (``.ci/install-matrix.sh`` makes ``.venv-synapse/``), so
its many dependencies never meet the project's; ``REFEREE_SYNAPSE_PYTHON`` names another
Python that has it. Where there is none, the ``synapse`` fixture skips on a laptop and
fails under ``CI=true`` (``conftest.missing``).

The server is throwaway: its config, signing key, sqlite database and media live in a
temporary folder; it listens on 127.0.0.1 only, on a free port, with the client API and
the admin API and nothing else (no federation, no TLS, no metrics), registration closed
but for the shared-secret admin API, and its rate limits raised so that tests never wait.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import free_port, missing

ROOT = Path(__file__).resolve().parent.parent
SERVER_NAME = "referee.test"
STARTUP_TIMEOUT = 60.0
# a limit that no test reaches: per second and burst
UNLIMITED = {"per_second": 10_000, "burst_count": 10_000}


def synapse_python() -> str | None:
    """The Python that runs Synapse: REFEREE_SYNAPSE_PYTHON, else .venv-synapse's; None
    where neither is there."""
    named = os.environ.get("REFEREE_SYNAPSE_PYTHON")
    path = Path(named) if named else ROOT / ".venv-synapse" / "bin" / "python"
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def rate_limits() -> dict[str, Any]:
    """Every rate limit of Synapse's config raised out of reach."""
    limits: dict[str, Any] = {
        name: UNLIMITED for name in (
            "rc_message", "rc_registration", "rc_admin_redaction", "rc_joins_per_room",
            "rc_3pid_validation", "rc_third_party_invite", "rc_media_create",
            "rc_delayed_event_mgmt", "rc_room_creation", "rc_reports", "rc_user_directory",
            "rc_profile", "rc_key_requests", "rc_registration_token_validity")
    }
    limits["rc_login"] = {k: UNLIMITED for k in ("address", "account", "failed_attempts")}
    limits["rc_joins"] = {k: UNLIMITED for k in ("local", "remote")}
    limits["rc_invites"] = {k: UNLIMITED for k in ("per_room", "per_user", "per_issuer")}
    limits["rc_presence"] = {"per_user": UNLIMITED}
    return limits


def server_config(folder: Path, port: int, secret: str) -> dict[str, Any]:
    """A throwaway homeserver's config: loopback only, sqlite, files under ``folder``."""
    return {
        "server_name": SERVER_NAME,
        "public_baseurl": f"http://127.0.0.1:{port}/",
        "pid_file": str(folder / "homeserver.pid"),
        "listeners": [{
            "port": port, "bind_addresses": ["127.0.0.1"], "type": "http", "tls": False,
            "x_forwarded": False, "resources": [{"names": ["client"], "compress": False}],
        }],
        "database": {"name": "sqlite3", "args": {"database": str(folder / "homeserver.db")}},
        "media_store_path": str(folder / "media"),
        "signing_key_path": str(folder / "signing.key"),
        "log_config": str(folder / "log.yaml"),
        "registration_shared_secret": secret,
        "macaroon_secret_key": secret + "-macaroon",
        "form_secret": secret + "-form",
        "enable_registration": False,
        "report_stats": False,
        "enable_metrics": False,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "federation_domain_whitelist": [],
        "url_preview_enabled": False,
        "presence": {"enabled": False},
        **rate_limits(),
    }


def log_config(log_file: Path) -> dict[str, Any]:
    """Python logging for Synapse: everything of INFO and above into one file."""
    return {
        "version": 1,
        "formatters": {"plain": {"format": "%(asctime)s %(name)s %(levelname)s %(message)s"}},
        "handlers": {"file": {"class": "logging.FileHandler", "filename": str(log_file),
                              "formatter": "plain"}},
        "root": {"level": "INFO", "handlers": ["file"]},
        "disable_existing_loggers": False,
    }


def http_json(url: str, body: dict[str, Any] | None = None, token: str | None = None,
              timeout: float = 10.0) -> dict[str, Any]:
    """GET (no body) or POST JSON to a loopback URL, the answer's JSON; HTTP errors raise
    with the server's answer in the message."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError(f"only loopback addresses: {url}")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return dict(json.loads(answer.read()))
    except urllib.error.HTTPError as exc:
        raise RuntimeError(f"{url}: HTTP {exc.code}: {exc.read().decode(errors='replace')}") \
            from exc


class Synapse:
    """A running homeserver: its address, name, and a way to make accounts on it."""

    def __init__(self, folder: Path, python: str) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server_name = SERVER_NAME
        self.secret = hashlib.sha256(os.urandom(32)).hexdigest()
        self.log_file = folder / "homeserver.log"
        self.startup_seconds = 0.0
        self._python = python
        self._process: subprocess.Popen[bytes] | None = None

    # --- the process ---

    def start(self) -> None:
        """Write the config, start Synapse, wait until the client API answers."""
        (self.folder / "media").mkdir(parents=True, exist_ok=True)
        config = self.folder / "homeserver.yaml"  # JSON is YAML
        config.write_text(json.dumps(server_config(self.folder, self.port, self.secret)))
        (self.folder / "log.yaml").write_text(json.dumps(log_config(self.log_file)))
        began = time.monotonic()
        with (self.folder / "stdout.log").open("wb") as out:
            self._process = subprocess.Popen(
                [self._python, "-m", "synapse.app.homeserver", "-c", str(config)],
                cwd=self.folder, stdout=out, stderr=subprocess.STDOUT)
        self._wait_until_up(began)
        self.startup_seconds = time.monotonic() - began

    def _wait_until_up(self, began: float) -> None:
        while time.monotonic() - began < STARTUP_TIMEOUT:
            assert self._process is not None
            if self._process.poll() is not None:
                self._fail(f"Synapse exited with {self._process.returncode}")
            try:
                http_json(f"{self.url}/_matrix/client/versions", timeout=2)
                return
            except (OSError, RuntimeError):
                time.sleep(0.1)
        self._fail(f"Synapse did not answer within {STARTUP_TIMEOUT:.0f} s")

    def _fail(self, why: str) -> None:
        self.stop()
        pytest.fail(f"{why}; its log:\n{self.log_text()}")

    def log_text(self, tail: int = 12_000) -> str:
        """The end of the server's output and log, for a failure's message."""
        parts = []
        for name in ("stdout.log", "homeserver.log"):
            path = self.folder / name
            if path.exists():
                parts.append(f"--- {name} ---\n" + path.read_text(errors="replace")[-tail:])
        return "\n".join(parts)

    def stop(self) -> None:
        """Stop the server: SIGTERM, then SIGKILL after 10 s."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    # --- accounts ---

    def user_id(self, localpart: str) -> str:
        """The full user id of ``localpart`` on this server."""
        return f"@{localpart}:{self.server_name}"

    def register(self, localpart: str, password: str | None = None, admin: bool = False) -> str:
        """Make an account through the shared-secret admin API; the full user id. The
        password defaults to ``password_for(localpart)``."""
        password = password or password_for(localpart)
        endpoint = f"{self.url}/_synapse/admin/v1/register"
        nonce = str(http_json(endpoint)["nonce"])
        mac = hmac.new(self.secret.encode(), digestmod=hashlib.sha1)
        mac.update(b"\x00".join([nonce.encode(), localpart.encode(), password.encode(),
                                 b"admin" if admin else b"notadmin"]))
        answer = http_json(endpoint, {"nonce": nonce, "username": localpart,
                                      "password": password, "admin": admin,
                                      "mac": mac.hexdigest()})
        return str(answer["user_id"])

    def login_token(self, user: str, password: str | None = None) -> str:
        """An access token for ``user`` (a localpart or full id) through the client API's
        password login: what a judge gets as REFEREE_MATRIX_TOKEN."""
        localpart = user[1:].split(":", 1)[0] if user.startswith("@") else user
        answer = http_json(f"{self.url}/_matrix/client/v3/login", {
            "type": "m.login.password",
            "identifier": {"type": "m.id.user", "user": localpart},
            "password": password or password_for(localpart),
        })
        return str(answer["access_token"])


def password_for(localpart: str) -> str:
    """The default password of a test account."""
    return f"pw-{localpart}-secret"


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Synapse]:
    """One real Synapse for the whole test session (per xdist worker), stopped at the end."""
    python = synapse_python()
    if python is None:
        missing("Synapse is not installed: run .ci/install-matrix.sh "
                "(or name its Python in REFEREE_SYNAPSE_PYTHON)")
    server = Synapse(tmp_path_factory.mktemp("synapse"), python)
    server.start()
    print(f"Synapse up at {server.url} in {server.startup_seconds:.1f} s", file=sys.stderr)
    try:
        yield server
    finally:
        server.stop()
