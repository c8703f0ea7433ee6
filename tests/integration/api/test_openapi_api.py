"""The OpenAPI document matches the running app both ways."""

from __future__ import annotations

import re
from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient

from api.routes.meta import openapi_document
from tests.integration.api.conftest import Demo

Login = Callable[[str], dict[str, str]]


def app_paths(app: Flask) -> set[str]:
    """Routes as OpenAPI paths: ``<int:car_id>`` -> ``{id}``, ``<string:vin>`` -> ``{vin}``."""
    paths = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/oauth2/")):
            paths.add(re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "{vin}" if m.group(1) == "vin" else "{id}", rule.rule))
    return paths


def test_every_route_is_documented(app: Flask) -> None:
    documented = set(openapi_document()["paths"])
    missing = app_paths(app) - documented
    assert not missing, f"routes missing from api/openapi.yaml: {sorted(missing)}"


def test_every_documented_operation_answers(client: FlaskClient, login: Login, demo: Demo) -> None:
    headers = login("admin_a")
    for path, operations in openapi_document()["paths"].items():
        url = path.replace("{id}", str(demo.a.device_id if "device" in path.lower() else demo.a.car_id))
        url = url.replace("{vin}", demo.a.vin)
        for method in operations:
            body: dict[str, object] | None = {} if method == "post" else None
            query = {"grant_type": "password", "username": "openapi_nobody", "password": "x"} if "oauth2" in path else None
            reply = client.open(url, method=method.upper(), headers=headers, json=body, query_string=query)
            assert reply.status_code not in (404, 405), f"{method.upper()} {url}: {reply.status_code} {reply.json}"
            assert reply.json is not None
            if path != "/api/openapi.json":
                assert set(reply.json) == {"code", "message", "data"}, f"{method.upper()} {url} is not enveloped"
