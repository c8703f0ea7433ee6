"""Every reply is {code, message, data}: errors raised before any database access (no server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.auth import EXTENSION_KEY, GUARD_KEY, Principal, SessionGuard, TokenCodec
from api.db import get_db
from api.errors import chinese_text
from fleet.settings import ApiSettings

ADMIN = Principal(1, "admin", 1, "/1/", {"car": {"query", "get"}, "device": {"query", "get"}})


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    # Port 9 (discard) on localhost refuses connections: these tests must not need the database. One app for the
    # module (building one compiles every route, 0.2-0.4 s); no test changes it.
    app = create_app(ApiSettings(token_secret="unit-secret"), "postgresql://nobody@127.0.0.1:9/none",
                     var_dir=tmp_path_factory.mktemp("envelope"))
    # Tokens are checked for revocation in the database; here every user is active at epoch 0.
    app.extensions[GUARD_KEY] = SessionGuard(lambda user_id: (0, True), ttl_s=15)
    try:
        yield app
    finally:
        get_db(app).close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """An English console's client: ``message`` is the Chinese text, ``localMessage`` the English one."""
    english = app.test_client()
    english.environ_base["HTTP_X_FLEET_LANGUAGE"] = "en-US"
    return english


@pytest.fixture
def auth_header(app: Flask) -> dict[str, str]:
    codec: TokenCodec = app.extensions[EXTENSION_KEY]
    return {"Authorization": f"Bearer {codec.issue(ADMIN)[0]}"}


def test_unknown_path_answers_404_envelope(client: FlaskClient) -> None:
    reply = client.get("/api/nope.json")
    assert reply.status_code == 404
    assert reply.json == {"code": 404, "message": "接口不存在", "data": None,
                          "localMessage": "no such endpoint: GET /api/nope.json"}


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
    assert reply.status_code == 403 and reply.json == {
        "code": 403, "message": "用户得到授权，但是访问是被禁止的。", "data": {"permission": "car:query"},
        "localMessage": "permission denied: car:query"}


def test_invalid_json_answers_400_with_position(client: FlaskClient, auth_header: dict[str, str]) -> None:
    reply = client.post(
        "/api/common/query/carView.json", data="{bad", headers=auth_header, content_type="application/json"
    )
    assert reply.status_code == 400 and reply.json is not None
    assert reply.json["code"] == 400 and reply.json["message"] == "请求体不是有效的 JSON"
    assert "not valid JSON" in reply.json["localMessage"] and "column" in reply.json["localMessage"]


def test_unknown_field_answers_400_naming_it(client: FlaskClient, auth_header: dict[str, str]) -> None:
    reply = client.post("/api/common/query/carView.json", json={"secretField.eq": 1}, headers=auth_header)
    assert reply.status_code == 400 and reply.json is not None and reply.json["message"] == "未知字段：secretField"
    assert reply.json["localMessage"] == "unknown field(s) for carView: secretField"


def test_unsupported_grant_type_answers_400(client: FlaskClient) -> None:
    reply = client.get("/oauth2/token.json?grant_type=authorization_code")
    assert reply.status_code == 400 and reply.json is not None
    assert reply.json["message"] == "不支持的授权类型 'authorization_code'" and "grant_type" in reply.json["localMessage"]


def test_openapi_document_is_served_without_auth(client: FlaskClient) -> None:
    reply = client.get("/api/openapi.json")
    assert reply.status_code == 200 and reply.json is not None and reply.json["openapi"].startswith("3.1")


def test_database_outage_answers_503_envelope(client: FlaskClient, auth_header: dict[str, str], app: Flask) -> None:
    get_db(app).pool.timeout = 0.5
    reply = client.post("/api/common/query/carView.json", json={}, headers=auth_header)
    assert reply.status_code == 503 and reply.json is not None and reply.json["code"] == 503
    health = client.get("/api/health.json")
    assert health.status_code == 503 and health.json is not None and health.json["data"] == {"db": "unavailable"}


def test_python_m_api_runs_gunicorn_gevent_with_a_header_deadline() -> None:
    from api.__main__ import gunicorn_argv

    argv = gunicorn_argv(ApiSettings(host="0.0.0.0", port=8081, worker_connections=900, header_timeout_s=4))
    assert argv[argv.index("--worker-class") + 1] == "api.server.FleetGeventWorker"
    assert argv[argv.index("--worker-connections") + 1] == "900"
    assert argv[argv.index("--keep-alive") + 1] == "4"  # gunicorn's gevent worker bounds header reads by it
    assert "0.0.0.0:8081" in argv and argv[-1] == "api.wsgi:app"
    assert "%(q)s" not in " ".join(argv) and "%(r)s" not in " ".join(argv)  # no query strings in logs


def test_undeclared_method_answers_405_envelope_with_allow_header(client: FlaskClient) -> None:
    reply = client.open("/api/common/query/carView.json", method="TRACE")
    assert reply.status_code == 405 and reply.json is not None and reply.json["code"] == 405
    assert set(reply.headers["Allow"].replace(" ", "").split(",")) >= {"POST", "OPTIONS"}


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"a":' * 40 + "1" + "}" * 40, "nested deeper than 32"),
        ('{"carId": ' + "9" * 5000 + "}", "digits"),
        ('{"carId.eq": NaN}', "carId.eq"),
        ('{"conditions": {"speed.gt": 1e400}}', "conditions.speed.gt"),
        ('{"plateNumber.like": "\\ud800"}', "plateNumber.like"),
        ('{"plateNumber.in": ["a", "b\\u0000"]}', "plateNumber.in[1]"),
        ("null", "not null"),
        ("\r\n", "not valid JSON"),
        ('"\xff"'.encode("latin-1"), "UTF-8"),
    ],
)
def test_bodies_the_parser_cannot_take_answer_400_naming_the_place(
    client: FlaskClient, auth_header: dict[str, str], body: str | bytes, fragment: str
) -> None:
    reply = client.post("/api/common/query/carView.json", data=body, headers=auth_header,
                        content_type="application/json")
    assert reply.status_code == 400 and reply.json is not None and reply.json["code"] == 400
    assert fragment in reply.json["localMessage"]
    assert reply.json["message"] == chinese_text(reply.json["message"]) and "(" not in reply.json["message"]


def test_nul_anywhere_in_the_request_answers_400_before_any_route(client: FlaskClient) -> None:
    for reply, where in (
        (client.get("/api/openapi.json?x=%00"), "query parameter 'x'"),
        (client.get("/api/nope%00.json"), "path"),
        (client.get("/api/openapi.json", headers={"X-Probe": "a\x00"}), "header 'X-Probe'"),
        (client.post("/oauth2/token.json", data={"grant_type": "password", "username": "\x00"}), "form field 'username'"),
    ):
        assert reply.status_code == 400 and reply.json is not None, (where, reply.status_code)
        assert reply.json["message"] == "参数含有 NUL 字符"
        assert "NUL" in reply.json["localMessage"] and where in reply.json["localMessage"]
