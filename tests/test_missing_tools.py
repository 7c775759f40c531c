"""A test that needs a tool (git, ssh-keygen, openssl, Chromium, Dovecot) skips with the
reason on a laptop without it and fails under CI=true (tests/conftest.py: missing,
require_tool, require_module), so that CI never passes a test that did not run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
GIT_TEST = "tests/git/test_drivers.py::test_git_merge_of_two_appended_moves_keeps_the_targets"
SSH_TEST = "tests/git/test_drivers.py::test_a_merge_by_the_driver_passes_check_signed"
OPENSSL_TEST = "tests/mail/test_mail.py::test_send_smtp_starttls_and_auth"


@pytest.mark.parametrize("ci", [True, False])
def test_the_helpers_fail_under_ci_and_skip_elsewhere(ci: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "UNDER_CI", ci)
    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match="no-such-tool-0x is not installed"):
        conftest.require_tool("no-such-tool-0x")
    with pytest.raises(outcome, match=r"no_such_module_0x is not installed \(pip"):
        conftest.require_module("no_such_module_0x")
    assert conftest.require_tool("sh")  # a tool that is there is found
    assert conftest.require_module("json").dumps(1) == "1"


def pytest_with_path(tmp_path: Path, ci: str, tools: list[str],
                     tests: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``tests`` in a fresh pytest with only Python and ``tools`` on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    for tool in tools:
        (bin_dir / tool).symlink_to(conftest.require_tool(tool))
    env = {**os.environ, "PATH": str(bin_dir), "CI": ci}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", *tests],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize(("tools", "tests", "reasons"), [
    ([], [GIT_TEST], ["git is not installed"]),
    (["git"], [SSH_TEST, OPENSSL_TEST], ["ssh-keygen is not installed",
                                         "openssl is not installed"]),
], ids=["without git", "without ssh-keygen and openssl"])
def test_tests_needing_a_missing_tool_fail_under_ci(tmp_path: Path, tools: list[str],
                                                    tests: list[str],
                                                    reasons: list[str]) -> None:
    """The real tests, run under CI=true with the tool missing from PATH, fail (in the
    test or as an error in its fixture) and say which tool is missing."""
    result = pytest_with_path(tmp_path, "true", tools, tests)
    summary = result.stdout.strip().splitlines()[-1]
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", summary)}
    assert counts.get("failed", 0) + counts.get("error", counts.get("errors", 0)) \
        == len(tests), result.stdout[-3000:]
    assert "passed" not in counts and "skipped" not in counts, summary
    for reason in reasons:
        assert f"Failed: CI=true: {reason}" in result.stdout, reason
    assert result.returncode == 1


def test_tests_needing_a_missing_tool_skip_on_a_laptop(tmp_path: Path) -> None:
    """Off CI the same tests skip, and the skip says which tool is missing."""
    result = pytest_with_path(tmp_path, "", ["git"], [SSH_TEST, OPENSSL_TEST])
    summary = result.stdout.strip().splitlines()[-1]
    assert "2 skipped" in summary and "error" not in summary, result.stdout[-3000:]
    assert "ssh-keygen is not installed (Debian package openssh-client)" in result.stdout
    assert "openssl is not installed" in result.stdout
    assert result.returncode == 0
