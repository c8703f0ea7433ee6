"""Every reply is {code, message, data}: errors raised before any database access (no server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.auth import EXTENSION_KEY, Principal, TokenCodec
from api.db import get_db
from fleet.settings import ApiSettings

ADMIN = Principal(1, "admin", 1, "/1/", {"car": {"query", "get"}, "device": {"query", "get"}})


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    # Port 9 (discard) on localhost refuses connections: these tests must not need the database.
    app = create_app(ApiSettings(token_secret="unit-secret"), "postgresql://nobody@127.0.0.1:9/none", var_dir=tmp_path)
    try:
        yield app
    finally:
        get_db(app).close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def auth_header(app: Flask) -> dict[str, str]:
    codec: TokenCodec = app.extensions[EXTENSION_KEY]
    return {"Authorization": f"Bearer {codec.issue(ADMIN)[0]}"}


def test_unknown_path_answers_404_envelope(client: FlaskClient) -> None:
    reply = client.get("/api/nope.json")
    assert reply.status_code == 404
    assert reply.json == {"code": 404, "message": "no such endpoint: GET /api/nope.json", "data": None}


def test_wrong_method_answers_405_envelope(client: FlaskClient) -> None:
    reply = client.get("/api/common/query/carView.json")
    assert reply.status_code == 405 and reply.json is not None and reply.json["code"] == 405


def test_missing_token_answers_40002(client: FlaskClient) -> None:
    reply = client.post("/api/common/query/carView.json", json={})
    assert reply.status_code == 401 and reply.json is not None and reply.json["code"] == 40002


def test_garbage_token_answers_40002(client: FlaskClient) -> None:
    reply = client.get("/api/common/carView/1.json", headers={"Authorization": "Bearer garbage"})
    assert reply.status_code == 401 and reply.json is not None and reply.json["code"] == 40002


def test_missing_permission_answers_403(client: FlaskClient, app: Flask) -> None:
    codec: TokenCodec = app.extensions[EXTENSION_KEY]
    token = codec.issue(Principal(2, "viewer", 1, "/1/", {"device": {"query"}}))[0]
    reply = client.post("/api/common/query/carView.json", json={}, headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code == 403 and reply.json is not None and "car:query" in reply.json["message"]


def test_invalid_json_answers_400_with_position(client: FlaskClient, auth_header: dict[str, str]) -> None:
    reply = client.post(
        "/api/common/query/carView.json", data="{bad", headers=auth_header, content_type="application/json"
    )
    assert reply.status_code == 400 and reply.json is not None
    assert reply.json["code"] == 400 and "not valid JSON" in reply.json["message"] and "column" in reply.json["message"]


def test_unknown_field_answers_400_naming_it(client: FlaskClient, auth_header: dict[str, str]) -> None:
    reply = client.post("/api/common/query/carView.json", json={"secretField.eq": 1}, headers=auth_header)
    assert reply.status_code == 400 and reply.json is not None and "secretField" in reply.json["message"]


def test_unsupported_grant_type_answers_400(client: FlaskClient) -> None:
    reply = client.get("/oauth2/token.json?grant_type=client_credentials")
    assert reply.status_code == 400 and reply.json is not None and "grant_type" in reply.json["message"]


def test_openapi_document_is_served_without_auth(client: FlaskClient) -> None:
    reply = client.get("/api/openapi.json")
    assert reply.status_code == 200 and reply.json is not None and reply.json["openapi"].startswith("3.1")


def test_database_outage_answers_503_envelope(client: FlaskClient, auth_header: dict[str, str], app: Flask) -> None:
    get_db(app).pool.timeout = 0.5
    reply = client.post("/api/common/query/carView.json", json={}, headers=auth_header)
    assert reply.status_code == 503 and reply.json is not None and reply.json["code"] == 503
    health = client.get("/api/health.json")
    assert health.status_code == 503 and health.json is not None and health.json["data"] == {"db": "unavailable"}


def test_python_m_api_runs_gunicorn_gthread() -> None:
    from api.__main__ import gunicorn_argv

    argv = gunicorn_argv(ApiSettings(host="0.0.0.0", port=8081, threads=8))
    assert argv[argv.index("--worker-class") + 1] == "gthread"
    assert "0.0.0.0:8081" in argv and argv[-1] == "api.wsgi:app"
    assert "%(q)s" not in " ".join(argv) and "%(r)s" not in " ".join(argv)  # no query strings in logs
