"""The token endpoint's client_credentials grant is limited per client id and per address (429 in
the API's envelope with ``data = {retryAfter, limit}``), so nobody mints tokens without limit; other
clients and addresses are not affected. The app of this module allows 3 per client id and 6 per
address per minute; each test speaks from addresses of its own."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_login_throttle_api import address
from tests.integration.api.test_settings_more_api import new_app

Login = Callable[[str], dict[str, str]]


@pytest.fixture(scope="module")
def limited(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="integration-secret", token_client_per_min=3, token_address_per_min=6)
    app = create_app(settings, pg_url, var_dir=tmp_path_factory.mktemp("token-rate-var"))
    yield app
    get_db(app).close()


def ask(app: Flask, peer: str, client_id: str, secret: str) -> Any:
    client: FlaskClient = app.test_client()
    client.environ_base["REMOTE_ADDR"] = peer
    client.environ_base["HTTP_X_FLEET_LANGUAGE"] = "en-US"
    return client.post("/oauth2/token.json", query_string={
        "grant_type": "client_credentials", "client_id": client_id, "client_secret": secret})


def same_minute() -> None:
    """Start right after a minute turns if it is about to (the windows are calendar minutes)."""
    second = datetime.now().second
    if second >= 50:
        time.sleep(61 - second)


def assert_refused(reply: Any, limit: int) -> None:
    assert reply.status_code == 429, reply.json
    assert reply.json["code"] == 429 and "too many token requests" in error_text(reply, "en-US")
    assert 1 <= reply.json["data"]["retryAfter"] <= 60 and reply.json["data"]["limit"] == limit
    assert "access_token" not in reply.json["data"]


def test_one_client_id_gets_at_most_its_tokens_per_minute_whatever_the_address(
    limited: Flask, client: FlaskClient, login: Login
) -> None:
    app = new_app(client, login("admin_a"))
    same_minute()
    replies = [ask(limited, address(), app["appKey"], app["appSecret"]) for _ in range(4)]
    assert [r.status_code for r in replies[:3]] == [200, 200, 200]
    assert_refused(replies[3], 3)
    other = new_app(client, login("admin_a"))  # another client is not affected
    assert ask(limited, address(), other["appKey"], other["appSecret"]).status_code == 200


def test_one_address_gets_at_most_its_requests_per_minute_whatever_the_client_ids(
    limited: Flask, client: FlaskClient, login: Login
) -> None:
    app = new_app(client, login("admin_a"))
    peer = address()
    same_minute()
    guesses = [ask(limited, peer, f"fw{uuid.uuid4().hex[:16]}", "x" * 43) for _ in range(6)]
    assert {r.status_code for r in guesses} == {401}
    assert_refused(ask(limited, peer, f"fw{uuid.uuid4().hex[:16]}", "x" * 43), 6)
    # the right credentials from that address wait too; from another address they work
    assert_refused(ask(limited, peer, app["appKey"], app["appSecret"]), 6)
    assert ask(limited, address(), app["appKey"], app["appSecret"]).status_code == 200


def test_wrong_secrets_count_on_the_client_id_too(limited: Flask, client: FlaskClient, login: Login) -> None:
    app = new_app(client, login("admin_a"))
    same_minute()
    for _ in range(3):
        assert ask(limited, address(), app["appKey"], "x" * 43).status_code == 401
    assert_refused(ask(limited, address(), app["appKey"], app["appSecret"]), 3)
