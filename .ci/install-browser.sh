#!/usr/bin/env bash
# CI: install headless Chromium for the site's browser tests (tests/pages/test_site_browser.py).
# Debian/Ubuntu, run as root (or with sudo available). Under CI=true the browser tests
# fail instead of skipping when Chromium is missing, so .ci/run calls this first.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "chromium is already installed: $(command -v chromium || command -v chromium-browser)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# fonts-dejavu-core: the fonts the pictures name first, so that screenshots look the same
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
chromium --version
