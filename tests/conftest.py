"""Shared fixtures: the toy game for core tests, and a real SMTP server on localhost."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from referee.engine import register

register("toy", "tests.toygame")


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch,
                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """A fixed clock for file timestamps, no referee secret from the environment, and
    `pending`'s cache in a fresh folder of its own."""
    monkeypatch.setenv("REFEREE_NOW", "2026-01-01T00:00:00Z")
    monkeypatch.delenv("CI", raising=False)  # commands behave as off CI (tests/ci.py)
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    for var in ("REFEREE_SECRET", "REFEREE_SECRET_FILE"):
        monkeypatch.delenv(var, raising=False)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Collector:
    """aiosmtpd handler: keeps every envelope, refuses nobody@..."""

    def __init__(self) -> None:
        self.envelopes: list[Any] = []

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: list[str]
    ) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.envelopes.append(envelope)
        return "250 Message accepted"


@pytest.fixture
def smtp_server() -> Iterator[Callable[..., tuple[Collector, int]]]:
    controller_mod = pytest.importorskip("aiosmtpd.controller")
    started: list[Any] = []

    def start(**kwargs: Any) -> tuple[Collector, int]:
        handler = Collector()
        last: Exception | None = None
        for _ in range(5):  # the free port can be taken between probe and bind
            port = free_port()
            controller = controller_mod.Controller(
                handler, hostname="127.0.0.1", port=port, ready_timeout=5, **kwargs
            )
            try:
                controller.start()
            except Exception as exc:  # pragma: no cover - port race
                last = exc
                continue
            started.append(controller)
            return handler, port
        raise RuntimeError(f"cannot start a local SMTP server: {last}")

    yield start
    for controller in started:
        controller.stop()


