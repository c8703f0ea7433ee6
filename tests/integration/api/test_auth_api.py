"""Token endpoint against the real database: grants, wrong credentials, throttling, rotation, 40002."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.auth import EXTENSION_KEY, TokenCodec
from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect
from warehouse.passwords import hash_password
from warehouse.seed import DEMO_PASSWORD


def grant(client: FlaskClient, **params: str) -> Any:
    return client.get("/oauth2/token.json", query_string=params)


def password_grant(client: FlaskClient, user: str, password: str) -> Any:
    return grant(client, grant_type="password", username=user, password=password)


@pytest.fixture
def fresh_user(pg_url: str, demo: Demo) -> str:
    """A user of its own so throttling one test does not lock the demo admins."""
    name = f"it_{uuid.uuid4().hex[:10]}"
    with connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash) VALUES (%s, %s, %s)",
            (demo.enterprises["a"], name, hash_password("right-password-1")),
        )
        conn.commit()
    return name


def test_password_grant_returns_tokens(client: FlaskClient, demo: Demo) -> None:
    reply = password_grant(client, "admin_a", DEMO_PASSWORD)
    assert reply.status_code == 200 and reply.json["code"] == 0
    data = reply.json["data"]
    assert set(data) == {"access_token", "refresh_token", "expires_in", "create_time", "token_type"}
    assert data["expires_in"] == 7200 and data["token_type"] == "bearer" and data["create_time"] > 1_700_000_000_000


def test_access_token_carries_enterprise_and_permissions(app: Flask, client: FlaskClient, demo: Demo) -> None:
    from api.auth import verify_access_token

    token = password_grant(client, "admin_b", DEMO_PASSWORD).json["data"]["access_token"]
    principal = verify_access_token(app, token)
    assert principal.enterprise_id == demo.enterprises["b"]
    assert principal.enterprise_path.endswith(f"/{demo.enterprises['b']}/")
    assert "query" in principal.permissions["car"]


def test_wrong_password_answers_401_with_clear_message(client: FlaskClient, fresh_user: str) -> None:
    reply = password_grant(client, fresh_user, "wrong-password")
    assert reply.status_code == 401 and reply.json["code"] == 401
    assert "wrong user name or password" in error_text(reply, "en-US")


def test_unknown_user_answers_exactly_like_a_wrong_password(client: FlaskClient, demo: Demo) -> None:
    reply = password_grant(client, f"nobody_{uuid.uuid4().hex[:6]}", "whatever")
    assert reply.status_code == 401 and reply.json["code"] == 401
    assert "wrong user name or password" in error_text(reply, "en-US")


def test_repeated_failures_throttle_the_account_from_that_address_even_for_the_right_password(
    client: FlaskClient, fresh_user: str
) -> None:
    for _ in range(2):
        assert password_grant(client, fresh_user, "nope").json["code"] == 401
    third = password_grant(client, fresh_user, "nope")
    assert third.status_code == 429 and third.json["code"] == 429
    assert "too many failed logins" in error_text(third, "en-US") and third.json["data"]["retryAfter"] > 0
    locked = password_grant(client, fresh_user, "right-password-1")
    assert locked.status_code == 429


def test_success_clears_earlier_failures(client: FlaskClient, fresh_user: str) -> None:
    for _ in range(2):
        password_grant(client, fresh_user, "nope")
    assert password_grant(client, fresh_user, "right-password-1").json["code"] == 0
    for _ in range(2):
        assert password_grant(client, fresh_user, "nope").json["code"] == 401


def test_refresh_token_rotates_and_the_used_one_is_rejected(client: FlaskClient, fresh_user: str) -> None:
    first = password_grant(client, fresh_user, "right-password-1").json["data"]
    second = grant(client, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert second.json["code"] == 0
    assert second.json["data"]["refresh_token"] != first["refresh_token"]
    replay = grant(client, grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert replay.status_code == 401 and replay.json["code"] == 40002


def test_reusing_a_refresh_token_revokes_its_whole_chain(client: FlaskClient, fresh_user: str) -> None:
    first = password_grant(client, fresh_user, "right-password-1").json["data"]
    second = grant(client, grant_type="refresh_token", refresh_token=first["refresh_token"]).json["data"]
    grant(client, grant_type="refresh_token", refresh_token=first["refresh_token"])  # replay: theft signal
    after = grant(client, grant_type="refresh_token", refresh_token=second["refresh_token"])
    assert after.json["code"] == 40002


def test_garbage_refresh_token_answers_40002(client: FlaskClient) -> None:
    reply = grant(client, grant_type="refresh_token", refresh_token="garbage")
    assert reply.status_code == 401 and reply.json["code"] == 40002


def test_expired_access_token_answers_40002(app: Flask, client: FlaskClient, demo: Demo) -> None:
    from api.auth import verify_access_token

    live: TokenCodec = app.extensions[EXTENSION_KEY]
    token = password_grant(client, "admin_a", DEMO_PASSWORD).json["data"]["access_token"]
    principal = verify_access_token(app, token)
    stale = TokenCodec("integration-secret", ttl_s=60, clock=lambda: 1_000_000.0)
    expired, _ = stale.issue(principal)
    assert live.verify(token).user_name == "admin_a"
    reply: Any = client.get(f"/api/common/carView/{demo.a.car_id}.json", headers={"Authorization": f"Bearer {expired}"})
    assert reply.status_code == 401 and reply.json["code"] == 40002


def test_garbage_access_token_answers_40002(client: FlaskClient, demo: Demo) -> None:
    reply: Any = client.get(f"/api/common/carView/{demo.a.car_id}.json", headers={"Authorization": "Bearer xyz"})
    assert reply.status_code == 401 and reply.json["code"] == 40002


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
