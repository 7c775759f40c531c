#!/usr/bin/env bash
# CI: the mail servers the judge tests run against (tests/doors/mail/test_servers.py):
# Dovecot's IMAP server from Debian. The SMTP side is aiosmtpd (the test extra).
# With CI=true those tests fail instead of skipping when Dovecot is missing.
set -euo pipefail
if command -v dovecot >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq dovecot-imapd
# the packaged service is not needed: the tests start their own throwaway instance
$SUDO systemctl disable --now dovecot >/dev/null 2>&1 || true
