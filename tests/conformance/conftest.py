"""Every module of the conformance suite runs with the Nim plug-in installed, as a
player would install it (tests/conformance/registry.py): its game is found through its
entry point like any other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.registry import plugin_on_path


@pytest.fixture(scope="module", autouse=True)
def plugin_installed() -> Iterator[Path]:
    with plugin_on_path() as site:
        yield site
