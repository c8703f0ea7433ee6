"""Sessions end when they should: an access token of a user who was disabled, deleted,
lost a role or changed the password is refused within the session check TTL (1 s here), and the
refresh token of such a user is refused too. Changes are made in SQL (there is no admin UI yet).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings
from tests.integration.api.conftest import Demo
from warehouse.db import connect
from warehouse.passwords import hash_password

PASSWORD = "right-password-1"
TTL_S = 1
WAIT_S = TTL_S + 4  # the answer must change within the TTL; the margin is for a slow machine


@pytest.fixture(scope="module")
def app(pg_url: str, demo: Demo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    settings = ApiSettings(token_secret="revocation-secret", session_check_ttl_s=TTL_S)
    app = create_app(settings, pg_url, var_dir=tmp_path_factory.mktemp("revocation-var"))
    try:
        yield app
    finally:
        get_db(app).close()


@dataclass
class Session:
    user_id: int
    headers: dict[str, str]
    refresh_token: str


@pytest.fixture
def session(app: Flask, pg_url: str, demo: Demo) -> Session:
    """A user of enterprise A with admin_a's roles, signed in."""
    name = f"rv_{uuid.uuid4().hex[:10]}"
    with connect(pg_url) as conn:
        row = conn.execute(
            "INSERT INTO app_user (enterprise_id, user_name, password_hash) VALUES (%s, %s, %s) RETURNING id",
            (demo.enterprises["a"], name, hash_password(PASSWORD)),
        ).fetchone()
        assert row is not None
        conn.execute(
            "INSERT INTO user_role (user_id, role_id) SELECT %s, ur.role_id FROM user_role ur"
            " JOIN app_user u ON u.id = ur.user_id WHERE u.user_name = 'admin_a'",
            (row[0],),
        )
        conn.commit()
    reply: Any = app.test_client().post(
        "/oauth2/token.json", data={"grant_type": "password", "username": name, "password": PASSWORD})
    assert reply.json["code"] == 0, reply.json
    data = reply.json["data"]
    return Session(int(row[0]), {"Authorization": f"Bearer {data['access_token']}"}, data["refresh_token"])


def cars(client: FlaskClient, session: Session) -> Any:
    return client.post("/api/common/count/carView.json", headers=session.headers, json={})


def refused_within(client: FlaskClient, session: Session, seconds: float) -> float:
    """Seconds until a request with the session's token answers 40002 (fails after ``seconds``)."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        reply = cars(client, session)
        if reply.status_code == 401 and reply.json["code"] == 40002:
            return time.monotonic() - start
        assert reply.json["code"] == 0, reply.json
        time.sleep(0.1)
    raise AssertionError(f"the token still worked {seconds} s after the change")


def refresh(client: FlaskClient, session: Session) -> Any:
    return client.post("/oauth2/token.json", data={"grant_type": "refresh_token",
                                                   "refresh_token": session.refresh_token})


def change(pg_url: str, statement: str, user_id: int) -> None:
    with connect(pg_url) as conn:
        conn.execute(statement, (user_id,))
        conn.commit()


def test_token_of_a_disabled_user_is_refused_within_the_ttl(app: Flask, pg_url: str, session: Session) -> None:
    client = app.test_client()
    assert cars(client, session).json["code"] == 0
    change(pg_url, "UPDATE app_user SET state = 0 WHERE id = %s", session.user_id)
    refused_within(client, session, WAIT_S)
    assert refresh(client, session).json["code"] == 40002


def test_token_of_a_deleted_user_is_refused_within_the_ttl(app: Flask, pg_url: str, session: Session) -> None:
    client = app.test_client()
    assert cars(client, session).json["code"] == 0
    change(pg_url, "DELETE FROM app_user WHERE id = %s", session.user_id)
    refused_within(client, session, WAIT_S)
    assert refresh(client, session).json["code"] == 40002


def test_token_of_a_user_whose_role_was_removed_is_refused_within_the_ttl(
    app: Flask, pg_url: str, session: Session
) -> None:
    client = app.test_client()
    assert cars(client, session).json["code"] == 0
    change(pg_url, "DELETE FROM user_role WHERE user_id = %s", session.user_id)
    refused_within(client, session, WAIT_S)
    renewed = refresh(client, session).json  # still a user: the refresh works, without the permission
    assert renewed["code"] == 0
    after = Session(session.user_id, {"Authorization": f"Bearer {renewed['data']['access_token']}"}, "")
    assert cars(client, after).json["code"] == 403


def test_token_of_a_user_whose_password_changed_is_refused_within_the_ttl(
    app: Flask, pg_url: str, session: Session
) -> None:
    client = app.test_client()
    assert cars(client, session).json["code"] == 0
    with connect(pg_url) as conn:
        conn.execute("UPDATE app_user SET password_hash = %s WHERE id = %s",
                     (hash_password("another-pass-2"), session.user_id))
        conn.commit()
    refused_within(client, session, WAIT_S)
    assert refresh(client, session).json["code"] == 40002


def test_a_disabled_enterprise_ends_its_users_sessions(app: Flask, pg_url: str, session: Session) -> None:
    client = app.test_client()
    with connect(pg_url) as conn:
        enterprise = conn.execute("SELECT enterprise_id FROM app_user WHERE id = %s", (session.user_id,)).fetchone()
        assert enterprise is not None
        conn.execute("UPDATE enterprise SET state = 0 WHERE id = %s", enterprise)
        conn.commit()
    try:
        refused_within(client, session, WAIT_S)
    finally:
        with connect(pg_url) as conn:
            conn.execute("UPDATE enterprise SET state = 1 WHERE id = %s", enterprise)
            conn.commit()


def test_a_profile_change_keeps_the_session(app: Flask, pg_url: str, session: Session) -> None:
    client = app.test_client()
    change(pg_url, "UPDATE app_user SET nick_name = 'renamed' WHERE id = %s", session.user_id)
    deadline = time.monotonic() + TTL_S + 1
    while time.monotonic() < deadline:
        assert cars(client, session).json["code"] == 0
        time.sleep(0.2)


def test_revocation_is_checked_by_the_shared_verify_function(app: Flask, pg_url: str, session: Session) -> None:
    """The STOMP socket re-verifies with the same function, so it sees the revocation too."""
    from api.auth import AuthError, verify_access_token

    token = session.headers["Authorization"].removeprefix("Bearer ")
    assert verify_access_token(app, token).user_id == session.user_id
    change(pg_url, "UPDATE app_user SET state = 0 WHERE id = %s", session.user_id)
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            verify_access_token(app, token)
        except AuthError:
            break
        assert time.monotonic() < deadline, "verify_access_token still accepted the token"
        time.sleep(0.1)
