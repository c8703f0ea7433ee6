"""Every reply carries the browser security headers: API answers, errors, the console."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from api.app import create_app
from api.db import get_db
from fleet.settings import ApiSettings

EXPECTED = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def directives(reply: Any) -> dict[str, list[str]]:
    policy = reply.headers["Content-Security-Policy"]
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def assert_secure(reply: Any) -> None:
    for name, value in EXPECTED.items():
        assert reply.headers.get(name) == value, (name, reply.headers.get(name))
    assert "microphone=(self)" in reply.headers["Permissions-Policy"]
    assert "camera=()" in reply.headers["Permissions-Policy"]
    csp = directives(reply)
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["default-src"] == ["'self'"] and csp["script-src"] == ["'self'"]
    assert "'unsafe-eval'" not in sum(csp.values(), [])


@pytest.fixture(scope="module")
def console_app(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    dist = tmp_path_factory.mktemp("dist")
    (dist / "index.html").write_text("<!doctype html><div id=root></div>", encoding="utf-8")
    (dist / "assets").mkdir()
    (dist / "assets" / "a.js").write_text("1", encoding="utf-8")
    app = create_app(ApiSettings(token_secret="headers-secret", console_dir=dist), pg_url,
                     var_dir=tmp_path_factory.mktemp("headers-var"))
    yield app
    get_db(app).close()


@pytest.mark.parametrize("path", ["/api/health.json", "/api/nothing-here.json", "/api/user/current.json",
                                  "/oauth2/token.json?grant_type=nope"])
def test_api_replies_carry_the_security_headers(app: Flask, path: str) -> None:
    assert_secure(app.test_client().get(path))


def test_console_pages_and_assets_carry_the_security_headers(console_app: Flask) -> None:
    client = console_app.test_client()
    for path in ("/", "/dashboard/map", "/assets/a.js"):
        assert_secure(client.get(path))


def test_csp_lets_the_console_reach_its_socket_tiles_and_media_port(app: Flask) -> None:
    csp = directives(app.test_client().get("/api/health.json", base_url="http://fleet.example:8080"))
    assert "'self'" in csp["connect-src"]
    assert {"ws://fleet.example:8080", "wss://fleet.example:8080"} <= set(csp["connect-src"])
    assert {"http://fleet.example:7612", "ws://fleet.example:7612"} <= set(csp["connect-src"])
    assert {"blob:", "http://fleet.example:7612"} <= set(csp["media-src"])
    assert "'unsafe-inline'" in csp["style-src"]  # antd injects its styles at run time
    for host in ("https://tile.openstreetmap.org", "https://*.tianditu.gov.cn", "https://*.is.autonavi.com",
                 "https://server.arcgisonline.com", "https://*.tiles.virtualearth.net", "https://*.bdimg.com",
                 "https://*.google.com"):
        assert host in csp["img-src"], host
    assert "data:" in csp["img-src"]

