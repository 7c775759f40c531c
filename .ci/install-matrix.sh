#!/usr/bin/env bash
# CI: the Matrix homeserver the chat tests run against (tests/matrixserver.py): Synapse
# from PyPI, in a venv of its own (.venv-synapse/) so that its many dependencies never
# meet the project's. The tests find it there, or through REFEREE_SYNAPSE_PYTHON; with
# CI=true they fail instead of skipping when it is missing. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-synapse
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import synapse.app.homeserver' \
        >/dev/null 2>&1; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q matrix-synapse
"$venv/bin/python" -c 'import synapse; print("synapse", synapse.__version__)'
