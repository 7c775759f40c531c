"""Shared helpers and fixtures: ``run``/``ok``, the one way the tests run a command in
process; the toy game for core tests; a real SMTP server on localhost; and
``missing``/``require_tool``/``require_module`` for tests that need a tool: a visible
skip on a laptop without it, a failure under ``CI=true`` (.ci/run installs them all).

Tests import the helpers from here: ``from tests.conftest import ok, run``."""

from __future__ import annotations

import importlib
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.engine import register
from tests.ci import UNDER_CI

# fixtures every test module can use: a real Matrix homeserver (``synapse``)
pytest_plugins = ["tests.matrixserver"]

register("toy", "tests.toygame")
register("toycore", "tests.toygame:CORE")


def run(*args: object, env: dict[str, str] | None = None,
        input: bytes | str | None = None) -> Result:
    """Run ``referee ARGS...`` in process (with ``env`` added to the environment and
    ``input`` on stdin): click's Result (exit code, output with stderr). An exception
    that escapes the command (a bug) is raised, so a traceback fails the test."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env,
                              input=input)


def ok(*args: object, env: dict[str, str] | None = None) -> Result:
    """:func:`run`, which must exit 0."""
    result = run(*args, env=env)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch,
                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """A fixed clock for file timestamps, no referee secret from the environment, and
    the reports' cache (`pending`, `ratings`) in a fresh folder of its own, its key too."""
    monkeypatch.setenv("REFEREE_NOW", "2026-01-01T00:00:00Z")
    monkeypatch.delenv("CI", raising=False)  # commands behave as off CI (tests/ci.py)
    monkeypatch.setenv("REFEREE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
    for var in ("REFEREE_SECRET", "REFEREE_SECRET_FILE", "REFEREE_LANG"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def judge_saves_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """After every save of a judge's state, the state a judge starting then would load
    (its SQLite rows: referee/judge/store.py) is the state in memory: a change to a row
    that the save did not write fails the test that made it."""
    from referee.judge import store

    real = store.Store.save

    def checked(self: store.Store) -> None:
        real(self)
        held, fresh = self.snapshot(), store.Store(self.path.parent)
        try:
            assert fresh.snapshot(like=self) == held, "a change the save did not write"
        finally:
            fresh.close()

    monkeypatch.setattr(store.Store, "save", checked)


def missing(reason: str) -> NoReturn:
    """This test cannot run for want of ``reason`` (a tool, a server): skip with the
    reason on a developer's machine; fail under CI=true, where every tool is installed
    and a skip would pass a test that never ran."""
    if UNDER_CI:
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


def require_tool(name: str, package: str | None = None) -> str:
    """The path of program ``name`` (git, ssh-keygen, openssl, ...), or ``missing``."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not installed" + (f" (Debian package {package})" if package else ""))
    return path


def require_module(name: str) -> ModuleType:
    """Python module ``name`` of the test extras (pip install -e '.[test]'), or ``missing``."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"{name} is not installed (pip install -e '.[test]'): {exc}")


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
    controller_mod = require_module("aiosmtpd.controller")
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


GM_ADDRESS = "gm@example.org"  # the game master of the judge tests' games


def judge_game(tmp_path: Path, gm: str | None = None, mails: bool = True) -> Any:
    """A started judge game of the toy game (tests/judge/test_maildir_loop.py's Setup), with ``gm``
    as its game master; with ``mails``, its players have their first mails."""
    from tests.judge.test_maildir_loop import Setup

    setup = Setup(tmp_path)
    if gm:
        setup.options = ("--gm", gm)
    setup.judge()
    if mails:
        setup.new_mail()
    return setup


@pytest.fixture
def toy(tmp_path: Path) -> Any:
    """The judge tests' common start: :func:`judge_game` without a game master."""
    return judge_game(tmp_path)


@pytest.fixture
def gm_toy(tmp_path: Path) -> Any:
    """:func:`judge_game` with GM_ADDRESS as its game master."""
    return judge_game(tmp_path, GM_ADDRESS)
