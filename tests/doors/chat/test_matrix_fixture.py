"""The Matrix test infrastructure against a real Synapse (tests/matrixserver.py): the
server answers on loopback, accounts are made through the shared-secret admin API, and a
password login gives a token the client API accepts."""

from __future__ import annotations

import pytest

from tests.matrixserver import Synapse, http_json

pytestmark = pytest.mark.slow


def test_the_server_listens_on_loopback_and_answers(synapse: Synapse) -> None:
    assert synapse.url.startswith("http://127.0.0.1:")
    versions = http_json(f"{synapse.url}/_matrix/client/versions")
    assert versions["versions"]


def test_a_registered_person_logs_in_and_the_token_names_them(synapse: Synapse) -> None:
    user = synapse.register("fixture-ann")
    assert user == f"@fixture-ann:{synapse.server_name}"
    token = synapse.login_token(user)
    whoami = http_json(f"{synapse.url}/_matrix/client/v3/account/whoami", token=token)
    assert whoami["user_id"] == user


def test_a_wrong_password_gets_no_token(synapse: Synapse) -> None:
    synapse.register("fixture-ben", password="pw-right")
    with pytest.raises(RuntimeError, match="M_FORBIDDEN"):
        synapse.login_token("fixture-ben", "pw-wrong")


def test_open_registration_is_closed(synapse: Synapse) -> None:
    with pytest.raises(RuntimeError, match="HTTP 403"):
        http_json(f"{synapse.url}/_matrix/client/v3/register",
                  {"username": "intruder", "password": "pw-x", "auth": {"type": "m.login.dummy"}})
